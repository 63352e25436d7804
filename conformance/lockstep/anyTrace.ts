// Either kind of trace (operator or cluster), run in lockstep at a level:
// the level a cluster trace needs, its expectations from the model, and one
// lockstep run.
import { levelOfAction, paced } from '../../spec/index.ts';
import type { AnyTrace, ClusterTrace, Level, OperatorStep } from '../../spec/index.ts';
import { createModelOperator } from '../sut/modelOperator.ts';
import type { OperatorUnderTest, StderrExcerpt, SystemUnderTest } from '../sut/sut.ts';
import { operatorTraceItems } from '../streams/operatorTraceStream.ts';
import { actionsOf, judgeClusterTrace, modelClusterSteps, withClusterExpectations } from './clusterLockstep.ts';
import { canonicalChanges, canonicalEvents, canonicalOutcome, type DivergenceFacts, type ExpectedOperatorStep } from '../sut/divergence.ts';
import { diffJson, sameJson, showValue } from '../sut/jsonDiff.ts';
import { judgeOperatorTrace, modelOperatorSteps, withOperatorExpectations } from './operatorLockstep.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

/** The weakest cluster level of a trace: `faults` if any action needs it (PROTOCOL.md, "Levels"). */
export function levelOfClusterTrace(trace: ClusterTrace): 'cluster' | 'faults' {
  return actionsOf(trace).some((a) => levelOfAction(a) === 'faults') ? 'faults' : 'cluster';
}

/** The trace a counterexample file holds: the model's expectations filled in. */
export function withExpectations(trace: AnyTrace): AnyTrace {
  return trace.kind === 'cluster'
    ? { kind: 'cluster', trace: withClusterExpectations(trace.trace) }
    : { kind: 'operator', trace: withOperatorExpectations(trace.trace) };
}

/** One trace run in lockstep: its divergence, if any, the probes it sent, and the system's stderr while it ran (a process). */
export interface TraceOutcome {
  readonly divergence?: DivergenceFacts;
  /** Probes sent: actions the model refuses (cluster), invalid records (operator). */
  readonly probes: number;
  /** Read it late (after the next trace started, or the system closed): stderr may trail the replies. */
  readonly stderr?: () => StderrExcerpt;
}

/** Runs one trace in lockstep at a level. Rejects with SutUnavailable. */
export async function runTraceObserved(system: SystemUnderTest, trace: AnyTrace, level: Level): Promise<TraceOutcome> {
  const result =
    trace.kind === 'cluster' ? await judgeClusterTrace(trace.trace, system, level) : await judgeOperatorTrace(trace.trace, system);
  return {
    probes: result.probes,
    ...(result.divergence ? { divergence: result.divergence } : {}),
    ...(result.stderr ? { stderr: result.stderr } : {}),
  };
}

/** Runs one trace in lockstep at a level; the divergence or undefined. Rejects with SutUnavailable. */
export async function runTrace(system: SystemUnderTest, trace: AnyTrace, level: Level): Promise<DivergenceFacts | undefined> {
  return (await runTraceObserved(system, trace, level)).divergence;
}

/** The trace with no expectations: what each step must produce is then the model's. */
export function withoutExpectations(trace: AnyTrace): AnyTrace {
  return trace.kind === 'cluster'
    ? { kind: 'cluster', trace: { ...trace.trace, steps: trace.trace.steps.map(({ action }) => ({ action })) } }
    : { kind: 'operator', trace: { ...trace.trace, steps: trace.trace.steps.map(({ record }) => ({ record })) } };
}

/** Where a trace file's own expectation and the reference model part (the file is wrong, not the system). */
export interface FileDisagreement {
  readonly step: number;
  /** JSON pointer into the file of the first value that differs. */
  readonly pointer: string;
  /** One line: what the file expects there, and what the model gives. */
  readonly text: string;
}

/** The disagreement at a step's expected field: the first value that differs, with the file's and the model's. */
function disagreementAt(step: number, field: string, fileValue: unknown, modelValue: unknown): FileDisagreement {
  const first = diffJson(modelValue, fileValue)[0];
  const path = first && first.path !== '/' ? first.path : '';
  return {
    step,
    pointer: `/steps/${step}/expect/${field}${path}`,
    text:
      `the file expects ${field}${path ? ` ${path}` : ''} to be ` +
      `${showValue(first ? first.actual : fileValue)}, the reference model gives ${showValue(first ? first.expected : modelValue)}`,
  };
}

/** Where an operator step's own expectation differs from the model's (J7: changes as sets), or undefined. */
function operatorStepDisagreement(
  step: number,
  expect: NonNullable<OperatorStep['expect']>,
  m: ExpectedOperatorStep,
): FileDisagreement | undefined {
  if (!sameJson(canonicalOutcome(expect.outcome), m.outcome))
    return disagreementAt(step, 'outcome', canonicalOutcome(expect.outcome), m.outcome);
  if (!sameJson(canonicalChanges(expect.changes), m.changes))
    return disagreementAt(step, 'changes', canonicalChanges(expect.changes), m.changes);
  if (expect.retained && !sameJson(expect.retained, m.retained)) return disagreementAt(step, 'retained', expect.retained, m.retained);
  return undefined;
}

/**
 * `fileDisagreement` of an operator trace file, read step by step
 * (streams/operatorTraceStream.ts) in memory that does not grow with it.
 * The whole file is read: bad input anywhere in it throws its InputError
 * (SPEC §4) before any disagreement is reported. It yields to the event
 * loop as it reads, and rejects with Interrupted once `signal` is aborted.
 */
export async function operatorFileDisagreement(path: string, signal?: AbortSignalLike): Promise<FileDisagreement | undefined> {
  const items = paced(operatorTraceItems(path), signal);
  let model: OperatorUnderTest | undefined;
  let found: FileDisagreement | undefined;
  for (;;) {
    const next = await items.next();
    if (next.done) return found;
    const item = next.value;
    if (item.kind === 'start') model = createModelOperator(item.header.config);
    else if (model && !found) {
      const { outcome, changes } = model.apply(item.step.record);
      const expect = item.step.expect;
      if (expect) {
        const m = { outcome: canonicalOutcome(outcome), changes: canonicalChanges(changes), retained: model.retained() };
        found = operatorStepDisagreement(item.index, expect, m);
      }
    }
  }
}

/**
 * The first step whose expectation in the file differs from what the
 * reference model produces, or undefined. Changes compare as sets (J7), and
 * events with each record's changes as sets (C12), as in lockstep.
 */
export function fileDisagreement(trace: AnyTrace): FileDisagreement | undefined {
  if (trace.kind === 'operator') {
    const model = modelOperatorSteps(trace.trace);
    for (const [step, s] of trace.trace.steps.entries()) {
      const m = model[step];
      const wrong = s.expect && m ? operatorStepDisagreement(step, s.expect, m) : undefined;
      if (wrong) return wrong;
    }
    return undefined;
  }
  const model = modelClusterSteps(trace.trace);
  for (const [step, s] of trace.trace.steps.entries()) {
    const want = s.expect;
    const m = model[step];
    if (!want || !m) continue;
    if (want.error !== undefined && !('error' in m)) {
      return {
        step,
        pointer: `/steps/${step}/expect/error`,
        text: 'the file expects the action to be refused, the reference model carries it out',
      };
    }
    if (want.events) {
      if ('error' in m) {
        return {
          step,
          pointer: `/steps/${step}/expect/events`,
          text: `the file expects the action to be carried out, the reference model refuses it (${m.error})`,
        };
      }
      if (!sameJson(canonicalEvents(want.events), canonicalEvents(m.events))) {
        return disagreementAt(step, 'events', canonicalEvents(want.events), canonicalEvents(m.events));
      }
    }
    if (want.observation && !sameJson(want.observation, m.observation))
      return disagreementAt(step, 'observation', want.observation, m.observation);
  }
  return undefined;
}
