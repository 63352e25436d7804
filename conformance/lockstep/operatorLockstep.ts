// Lockstep at level `operator` (SPEC §3, §4): one operator trace fed to the
// model and to the system under test; after every record the outcome, the
// change set and the retained counts are compared.
import { paced } from '../../spec/index.ts';
import type { ExternalAction, JoinConfig, Level, LogRecord, OperatorTrace } from '../../spec/index.ts';
import { createModelOperator } from '../sut/modelOperator.ts';
import { initialJoinState, retainedCountsOf, stepJoin, type JoinState } from '../../model/index.ts';
import {
  canonicalChanges,
  canonicalOutcome,
  recordRepliesSoFar,
  type DivergenceFacts,
  type ExpectedOperatorStep,
} from '../sut/divergence.ts';
import { SharedPrefix } from './sharedPrefix.ts';
import { diffJson, sameJson } from '../sut/jsonDiff.ts';
import type { OperatorSession, RecordReply, StderrExcerpt, SutUnavailable, SystemUnderTest } from '../sut/sut.ts';
import { deathThatComesBack, operatorDeathPlace, type Rerun } from './deaths.ts';
import { runPipelined } from './pipeline.ts';
import { operatorTraceItems } from '../streams/operatorTraceStream.ts';
import type { ModelDisagreement } from './clusterLockstep.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

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

/** Compares one record's reply; undefined if it conforms. */
export function compareOperatorStep(
  step: number,
  record: LogRecord,
  expected: ExpectedOperatorStep,
  reply: RecordReply,
): DivergenceFacts | undefined {
  const action: ExternalAction = { type: 'record', record };
  const facts = (field: DivergenceFacts['field'], e: unknown, a: unknown, diff: DivergenceFacts['diff']): DivergenceFacts => ({
    step,
    action,
    field,
    expected: e,
    actual: a,
    diff,
    at: { level: 'operator', record, expected, actual: reply },
  });
  const at = (field: 'outcome' | 'changes' | 'retained', e: unknown, a: unknown): DivergenceFacts =>
    facts(
      field,
      e,
      a,
      field === 'changes'
        ? [{ path: '/changes', expected: e, actual: a }]
        : diffJson(e, a).map((d) => ({ ...d, path: `/${field}${d.path === '/' ? '' : d.path}` })),
    );
  if ('error' in reply) return facts('reply', expected, { error: reply.error }, []);
  const outcome = canonicalOutcome(reply.outcome);
  if (!sameJson(outcome, expected.outcome)) return at('outcome', expected.outcome, outcome);
  const changes = canonicalChanges(reply.changes);
  if (!sameJson(changes, expected.changes)) return at('changes', expected.changes, changes);
  if (!sameJson(reply.retained, expected.retained)) return at('retained', expected.retained, reply.retained);
  return undefined;
}

/**
 * The divergence of a record the system died on, both times it ran up to it
 * (deaths.ts): its reply never came. A death is a difference as an error
 * reply to the record would be (PROTOCOL.md).
 */
export function operatorDeathDivergence(step: number, record: LogRecord, expected: ExpectedOperatorStep, died: string): DivergenceFacts {
  const got = { died };
  return {
    step,
    action: { type: 'record', record },
    field: 'reply',
    expected,
    actual: got,
    diff: [],
    at: { level: 'operator', record, expected, died },
  };
}

/**
 * A session whose init was refused (SutUnavailable.initRefused): the
 * trace's divergence, at its first record, which never went out in a
 * session. Every config the harness sends is valid (J0), and a system takes
 * every valid one. A trace with no record has no step to show it at: it
 * stays unknown.
 */
export function operatorInitRefusal(
  records: readonly LogRecord[],
  expected: readonly ExpectedOperatorStep[],
  broken: SutUnavailable,
): DivergenceFacts | undefined {
  const record = records[0];
  const want = expected[0];
  if (broken.initRefused === undefined || record === undefined || want === undefined) return undefined;
  return {
    step: 0,
    action: { type: 'record', record },
    field: 'reply',
    expected: want,
    actual: { initRefused: broken.initRefused },
    diff: [],
    at: { level: 'operator', record, expected: want, initRefused: broken.reason },
  };
}

/**
 * After the replies of `records` conformed up to where `broken` cut them: a
 * death that comes back at the same record is that record's divergence;
 * anything else is thrown, the verdict unknown (deaths.ts).
 */
async function divergenceOfDeath(
  system: SystemUnderTest,
  config: OperatorTrace['config'],
  records: readonly LogRecord[],
  expected: readonly ExpectedOperatorStep[],
  replies: readonly RecordReply[],
  broken: SutUnavailable,
): Promise<DivergenceFacts> {
  const { place, died } = await deathThatComesBack(system, broken, operatorDeathPlace(replies, records.length), async (at) => {
    const session = await system.openOperator(config);
    const again = await recordRepliesSoFar(session.records(records.slice(0, at.step + 1)));
    return again.broken ? { died: again.broken, place: operatorDeathPlace(again.replies, at.step + 1) } : {};
  });
  return operatorDeathDivergence(place.step, records[place.step] as LogRecord, expected[place.step] as ExpectedOperatorStep, died);
}

/**
 * A trace judged from the replies to its records: the first record whose
 * reply differs from the model's, else the record a death that comes back
 * cut (`died`), else none. Rejects with the unknown verdict for any other
 * break (deaths.ts).
 */
async function divergenceOfReplies(
  system: SystemUnderTest,
  config: OperatorTrace['config'],
  records: readonly LogRecord[],
  expected: readonly ExpectedOperatorStep[],
  { replies, broken }: { readonly replies: readonly RecordReply[]; readonly broken?: SutUnavailable | undefined },
): Promise<{ readonly divergence?: DivergenceFacts; readonly died: boolean }> {
  for (let i = 0; i < replies.length; i++) {
    const d = compareOperatorStep(i, records[i] as LogRecord, expected[i] as ExpectedOperatorStep, replies[i] as RecordReply);
    if (d) return { divergence: d, died: false };
  }
  if (!broken) return { died: false };
  const refused = operatorInitRefusal(records, expected, broken);
  if (refused) return { divergence: refused, died: false };
  return { divergence: await divergenceOfDeath(system, config, records, expected, replies, broken), died: true };
}

/** An operator trace judged: views/explainedRuns.ts explains its divergence for the public API (OperatorRunResult). */
export interface OperatorJudgement {
  readonly divergence?: DivergenceFacts;
  readonly replies: readonly RecordReply[];
  readonly disagreements: readonly ModelDisagreement[];
  /** Records the model rejects as invalid (J1): probes sent. */
  readonly probes: number;
  /** The system's stderr while this trace ran (a process); read it late, it may trail the replies. */
  readonly stderr?: () => StderrExcerpt;
}

/** Runs an operator trace against a system at level `operator` and judges it record by record. Rejects with SutUnavailable if it cannot be judged. */
export async function judgeOperatorTrace(trace: OperatorTrace, system: SystemUnderTest): Promise<OperatorJudgement> {
  const session = await system.openOperator(trace.config);
  // The requests go out first; the model runs while the system answers.
  const records = trace.steps.map((s) => s.record);
  const answered = session.records(records);
  const { steps: expected, disagreements } = expectedOperatorSteps(trace);
  const answers = await recordRepliesSoFar(answered);
  const probes = expected.filter((e) => e.outcome.code === 'rejected' && e.outcome.reason !== 'conflict').length;
  const stderr = session.stderr ? { stderr: () => (session.stderr as () => StderrExcerpt)() } : {};
  const { divergence } = await divergenceOfReplies(system, trace.config, records, expected, answers);
  return { ...(divergence ? { divergence } : {}), replies: answers.replies, disagreements, probes, ...stderr };
}

/** One operator trace of a pipelined run, as it is judged. */
export interface PipelinedOperatorResult {
  readonly index: number;
  readonly trace: OperatorTrace;
  readonly level: Level;
  readonly divergence?: DivergenceFacts;
}

/**
 * Runs many operator traces in lockstep, pipelined across traces as the
 * cluster traces are (clusterLockstep.ts): each trace's session opens and
 * its records go out while earlier traces are still being answered, and the
 * model's expectations come from a prefix-sharing model. `onResult` is
 * called in list order; false stops the run. Rejects with SutUnavailable.
 */
export async function runOperatorLockstepPipelined(
  traces: readonly OperatorTrace[],
  system: SystemUnderTest,
  options: { readonly window?: number; readonly onResult: (result: PipelinedOperatorResult) => boolean | undefined },
): Promise<void> {
  const model = new PrefixSharingOperatorModel();
  const recordsOf = (trace: OperatorTrace): LogRecord[] => trace.steps.map((st) => st.record);
  await runPipelined(traces, {
    ...(options.window === undefined ? {} : { window: options.window }),
    send: async (trace) => ({ answered: (await system.openOperator(trace.config)).records(recordsOf(trace)) }),
    judge: async (trace, answered) => {
      const records = recordsOf(trace);
      const expected = trace.steps.some((st) => st.expect) ? expectedOperatorSteps(trace).steps : model.stepsOf(trace.config, records);
      return divergenceOfReplies(system, trace.config, records, expected, await recordRepliesSoFar(answered));
    },
    onResult: (index, trace, divergence) => options.onResult({ index, trace, level: 'operator', ...(divergence ? { divergence } : {}) }),
  });
}

/** The model's expected steps for operator traces that share prefixes (sharedPrefix.ts). */
export class PrefixSharingOperatorModel {
  private configKey = '';
  private readonly prefix = new SharedPrefix<JoinState, ExpectedOperatorStep>();

  stepsOf(config: JoinConfig, records: readonly LogRecord[]): ExpectedOperatorStep[] {
    const key = JSON.stringify(config);
    if (key !== this.configKey) {
      this.configKey = key;
      this.prefix.clear();
    }
    return this.prefix.stepsOf(records, initialJoinState, (state, record, last) => {
      const step = stepJoin(config, state, record);
      // A record that changes nothing (a rejected or stale one: a probe) is no departure from the shared prefix.
      const changed = step.state !== state;
      const retained = changed ? retainedCountsOf(step.state) : (last?.retained ?? retainedCountsOf(state));
      const expected: ExpectedOperatorStep = { outcome: canonicalOutcome(step.outcome), changes: canonicalChanges(step.changes), retained };
      return changed ? { expected, next: step.state } : { expected };
    });
  }
}

/** How many records go to the system under test at once when a trace file is replayed step by step. */
const FILE_BATCH = 2048;

/** What replaying a trace file found. */
export interface OperatorFileJudgement {
  readonly divergence?: DivergenceFacts;
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
 * input, Interrupted once `signal` is aborted (it yields to the event loop
 * as it reads).
 */
export async function judgeOperatorTraceFile(
  path: string,
  system: SystemUnderTest,
  signal?: AbortSignalLike,
): Promise<OperatorFileJudgement> {
  const items = paced(operatorTraceItems(path), signal);
  const disagreements: ModelDisagreement[] = [];
  let session: OperatorSession | undefined;
  let model: ReturnType<typeof createModelOperator> | undefined;
  let divergence: DivergenceFacts | undefined;
  let batch: { index: number; record: LogRecord; expected: ExpectedOperatorStep }[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0 || session === undefined || divergence !== undefined) return;
    const sent = batch;
    batch = [];
    const { replies, broken } = await recordRepliesSoFar(session.records(sent.map((s) => s.record)));
    for (const [i, reply] of replies.entries()) {
      const s = sent[i] as (typeof sent)[number];
      divergence = compareOperatorStep(s.index, s.record, s.expected, reply);
      if (divergence) return;
    }
    if (broken)
      divergence =
        // (An init refused comes with the first batch, nothing of it answered.)
        operatorInitRefusal(
          sent.map((s) => s.record),
          sent.map((s) => s.expected),
          broken,
        ) ?? (await deathInFile(replies.length < sent.length ? sent[replies.length] : undefined, broken));
  };
  // The file read again from its start up to the record the system died at, in batches, to a system started afresh.
  const deathInFile = async (at: (typeof batch)[number] | undefined, broken: SutUnavailable): Promise<DivergenceFacts> => {
    const place = at === undefined ? undefined : { step: at.index, missing: 'reply' as const };
    const { died } = await deathThatComesBack(system, broken, place, async (p) => {
      let again: OperatorSession | undefined;
      let answered = 0;
      let records: LogRecord[] = [];
      const send = async (): Promise<Rerun | undefined> => {
        const r = await recordRepliesSoFar((again as OperatorSession).records(records));
        answered += r.replies.length;
        records = [];
        return r.broken ? { died: r.broken, place: { step: answered, missing: 'reply' } } : undefined;
      };
      for await (const item of paced(operatorTraceItems(path), signal)) {
        if (item.kind === 'start') again = await system.openOperator(item.header.config);
        else if (again !== undefined && item.index <= p.step) {
          records.push(item.step.record);
          const died = records.length >= FILE_BATCH || item.index === p.step ? await send() : undefined;
          if (died) return died;
          if (item.index === p.step) break;
        }
      }
      return {};
    });
    // Defined: a death with no record to blame was rejected above.
    const { index, record, expected } = at as (typeof batch)[number];
    return operatorDeathDivergence(index, record, expected, died);
  };
  for (;;) {
    const next = await items.next();
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
