// Lockstep at level `operator` (SPEC §3, §4): one operator trace fed to the
// model and to the system under test; after every record the outcome, the
// change set and the retained counts are compared.
import { protocolErrorName } from '../../spec/index.ts';
import type { Change, ExternalAction, LogRecord, OperatorTrace, Outcome, RetainedCounts } from '../../spec/index.ts';
import { createModelOperator } from '../adapters/modelOperator.ts';
import { canonicalChanges, canonicalOutcome, type Divergence } from './divergence.ts';
import { diffJson, sameJson, showValue } from './jsonDiff.ts';
import { rulesOfOperatorField } from '../report/rules.ts';
import type { OperatorSession, RecordReply, SystemUnderTest } from '../adapters/sut.ts';
import { operatorTraceItems } from '../streams/operatorTraceStream.ts';
import type { ModelDisagreement } from './clusterLockstep.ts';

/** What one record must produce (§3). */
export interface ExpectedOperatorStep {
  readonly outcome: Outcome;
  readonly changes: readonly Change[];
  readonly retained: RetainedCounts;
}

/** The model's answer to every record. */
export function modelOperatorSteps(trace: OperatorTrace): ExpectedOperatorStep[] {
  const operator = createModelOperator(trace.config);
  return trace.steps.map((s) => {
    const { outcome, changes } = operator.apply(s.record);
    return { outcome: canonicalOutcome(outcome), changes: canonicalChanges(changes), retained: operator.retained() };
  });
}

/** The trace's own expectations where it has them, the model's elsewhere; and where they disagree. */
export function expectedOperatorSteps(trace: OperatorTrace): { steps: ExpectedOperatorStep[]; disagreements: ModelDisagreement[] } {
  const model = modelOperatorSteps(trace);
  const disagreements: ModelDisagreement[] = [];
  const steps = model.map((m, step): ExpectedOperatorStep => {
    const want = trace.steps[step]?.expect;
    if (!want) return m;
    const mine: ExpectedOperatorStep = {
      outcome: canonicalOutcome(want.outcome),
      changes: canonicalChanges(want.changes),
      retained: want.retained ?? m.retained,
    };
    if (!sameJson(mine, m)) disagreements.push({ step, field: 'events' });
    return mine;
  });
  return { steps, disagreements };
}

/** A trace with the model's observables as its expectations. */
export function withOperatorExpectations(trace: OperatorTrace): OperatorTrace {
  const model = modelOperatorSteps(trace);
  return {
    ...trace,
    steps: trace.steps.map((s, i) => {
      const m = model[i] as ExpectedOperatorStep;
      return { ...s, expect: { outcome: m.outcome, changes: [...m.changes], retained: m.retained } };
    }),
  };
}

function describeRecord(r: LogRecord): string {
  return r.kind === 'watermark'
    ? `record watermark ${r.side}=${r.wm}`
    : `record ${r.kind} ${r.key}/${r.side}/${r.id} ts=${r.ts} [${r.start},${r.end}]`;
}

/** Compares one record's reply; undefined if it conforms. */
export function compareOperatorStep(
  step: number,
  record: LogRecord,
  expected: ExpectedOperatorStep,
  reply: RecordReply,
): Divergence | undefined {
  const action: ExternalAction = { type: 'record', record };
  const what = describeRecord(record);
  const at = (field: 'outcome' | 'changes' | 'retained', e: unknown, a: unknown, summary: string): Divergence => ({
    step,
    action,
    field,
    summary: `${what}: ${summary}`,
    expected: e,
    actual: a,
    diff:
      field === 'changes'
        ? [{ path: '/changes', expected: e, actual: a }]
        : diffJson(e, a).map((d) => ({ ...d, path: `/${field}${d.path === '/' ? '' : d.path}` })),
    refs: rulesOfOperatorField(field, expected.outcome),
  });
  if ('error' in reply) {
    return {
      step,
      action,
      field: 'reply',
      summary: `${what}: refused with ${protocolErrorName(reply.error.code)} (${reply.error.text})`,
      expected: expected,
      actual: { error: reply.error },
      diff: [],
      refs: rulesOfOperatorField('error', expected.outcome),
    };
  }
  const outcome = canonicalOutcome(reply.outcome);
  if (!sameJson(outcome, expected.outcome)) {
    return at('outcome', expected.outcome, outcome, `outcome expected ${showValue(expected.outcome)}, actual ${showValue(outcome)}`);
  }
  const changes = canonicalChanges(reply.changes);
  if (!sameJson(changes, expected.changes)) {
    const want = new Set(expected.changes.map((c) => `${c.op} ${c.match}`));
    const got = new Set(changes.map((c) => `${c.op} ${c.match}`));
    const missing = [...want].filter((c) => !got.has(c));
    const extra = [...got].filter((c) => !want.has(c));
    const parts = [missing.length ? `missing ${missing.join(', ')}` : '', extra.length ? `unexpected ${extra.join(', ')}` : ''].filter(
      Boolean,
    );
    return at('changes', expected.changes, changes, `the change set differs: ${parts.join('; ') || 'same ids, different fields'}`);
  }
  if (!sameJson(reply.retained, expected.retained)) {
    return at(
      'retained',
      expected.retained,
      reply.retained,
      `retained counts expected ${showValue(expected.retained)}, actual ${showValue(reply.retained)}`,
    );
  }
  return undefined;
}

export interface OperatorRunResult {
  readonly divergence?: Divergence;
  readonly replies: readonly RecordReply[];
  readonly disagreements: readonly ModelDisagreement[];
}

/** Runs an operator trace against a system at level `operator`. Rejects with SutUnavailable if it cannot be judged. */
export async function runOperatorLockstep(trace: OperatorTrace, system: SystemUnderTest): Promise<OperatorRunResult> {
  const session = await system.openOperator(trace.config);
  // The requests go out first; the model runs while the system answers.
  const answered = session.records(trace.steps.map((s) => s.record));
  const { steps: expected, disagreements } = expectedOperatorSteps(trace);
  const replies = await answered;
  for (let i = 0; i < trace.steps.length; i++) {
    const d = compareOperatorStep(
      i,
      (trace.steps[i] as { record: LogRecord }).record,
      expected[i] as ExpectedOperatorStep,
      replies[i] as RecordReply,
    );
    if (d) return { divergence: d, replies, disagreements };
  }
  return { replies, disagreements };
}

/** How many records go to the system under test at once when a trace file is replayed step by step. */
const FILE_BATCH = 2048;

/** What replaying a trace file found. */
export interface OperatorFileRunResult {
  readonly divergence?: Divergence;
  readonly disagreements: readonly ModelDisagreement[];
  readonly steps: number;
}

/**
 * Replays an operator trace file against a system at level `operator`,
 * reading it step by step (streams/operatorTraceStream.ts): records go out
 * in batches while the model computes what each must produce, so neither
 * the trace nor its expectations are ever held whole. The file is read to
 * its end even after a divergence, so that bad input anywhere in it is
 * refused (SPEC §4) rather than reported as a divergence. Rejects with
 * SutUnavailable if the system cannot be judged; throws InputError on bad
 * input.
 */
export async function runOperatorLockstepFile(path: string, system: SystemUnderTest): Promise<OperatorFileRunResult> {
  const items = operatorTraceItems(path);
  const disagreements: ModelDisagreement[] = [];
  let session: OperatorSession | undefined;
  let model: ReturnType<typeof createModelOperator> | undefined;
  let divergence: Divergence | undefined;
  let batch: { index: number; record: LogRecord; expected: ExpectedOperatorStep }[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0 || session === undefined || divergence !== undefined) return;
    const sent = batch;
    batch = [];
    const replies = await session.records(sent.map((s) => s.record));
    for (const [i, s] of sent.entries()) {
      divergence = compareOperatorStep(s.index, s.record, s.expected, replies[i] as RecordReply);
      if (divergence) return;
    }
  };
  for (;;) {
    const next = items.next();
    if (next.done) {
      await flush();
      return divergence ? { divergence, disagreements, steps: next.value.steps } : { disagreements, steps: next.value.steps };
    }
    const item = next.value;
    if (item.kind === 'start') {
      session = await system.openOperator(item.header.config);
      model = createModelOperator(item.header.config);
      continue;
    }
    if (divergence !== undefined || model === undefined) continue;
    const { index, step } = item;
    const { outcome, changes } = model.apply(step.record);
    const mine: ExpectedOperatorStep = {
      outcome: canonicalOutcome(outcome),
      changes: canonicalChanges(changes),
      retained: model.retained(),
    };
    let expected = mine;
    if (step.expect) {
      expected = {
        outcome: canonicalOutcome(step.expect.outcome),
        changes: canonicalChanges(step.expect.changes),
        retained: step.expect.retained ?? mine.retained,
      };
      if (!sameJson(expected, mine)) disagreements.push({ step: index, field: 'events' });
    }
    batch.push({ index, record: step.record, expected });
    if (batch.length >= FILE_BATCH) await flush();
  }
}
