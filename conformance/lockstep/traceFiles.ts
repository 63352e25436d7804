// Runs operator trace files (SPEC §4) against an operator, checking the input
// contract first. All files are read and validated before any is run, so bad
// input stops the job before it produces a partial report.
import { InputError, loadAnyTrace, loadOperatorTrace, placeInFile } from '../../spec/index.ts';
import type { AnyTrace, ClusterTrace, LogRecord, OperatorTrace, OutcomeCode } from '../../spec/index.ts';
import { firstContractViolation } from '../../model/index.ts';
import { runOperatorTrace, type OperatorFactory, type OperatorTraceResult } from './operatorTrace.ts';

export interface TraceFileResult extends OperatorTraceResult {
  path: string;
  trace: OperatorTrace;
  /** Steps that carried expectations. */
  checkedSteps: number;
  outcomes: Partial<Record<OutcomeCode, number>>;
  changes: number;
}

/** J9 (SJ104) at the step's place in the file. */
function contractError(path: string, step: number, message: string): InputError {
  return new InputError('SJ104', placeInFile(path, `/steps/${step}`), `step ${step}: ${message}`);
}

/** Loads and validates every file (SJ100–SJ104), throwing the first InputError. */
export function loadTraceFiles(paths: readonly string[]): { path: string; trace: OperatorTrace }[] {
  return paths.map((path) => {
    const trace = loadOperatorTrace(path);
    const violation = firstContractViolation(
      trace.config,
      trace.steps.map((s) => s.record),
    );
    if (violation) throw contractError(path, violation.index, violation.message);
    return { path, trace };
  });
}

/** Runs each loaded trace against a fresh operator from `makeOperator`. */
export function runTraceFiles(loaded: readonly { path: string; trace: OperatorTrace }[], makeOperator: OperatorFactory): TraceFileResult[] {
  return loaded.map(({ path, trace }) => {
    const result = runOperatorTrace(trace, makeOperator);
    const outcomes: Partial<Record<OutcomeCode, number>> = {};
    for (const o of result.observations) outcomes[o.outcome.code] = (outcomes[o.outcome.code] ?? 0) + 1;
    return {
      ...result,
      path,
      trace,
      checkedSteps: trace.steps.filter((s) => s.expect).length,
      outcomes,
      changes: result.observations.reduce((n, o) => n + o.changes.length, 0),
    };
  });
}

/** J9 for a cluster trace: the records the cluster appends (valid, declared keys) must be in contract. */
export function clusterContractViolation(trace: ClusterTrace): { step: number; message: string } | undefined {
  const declared = new Set(trace.config.keys.map((k) => k.key));
  const steps: number[] = [];
  const records: LogRecord[] = [];
  trace.steps.forEach((s, i) => {
    if (s.action.type !== 'record') return;
    const r = s.action.record;
    // C3: records of undeclared keys are rejected before the log; they bind nothing.
    if (r.kind !== 'watermark' && !declared.has(r.key)) return;
    steps.push(i);
    records.push(r);
  });
  const v = firstContractViolation(trace.config.join, records);
  return v ? { step: steps[v.index] ?? v.index, message: v.message } : undefined;
}

/** Loads a trace file of either kind and checks the input contract (SJ100–SJ107). */
export function loadCheckedTrace(path: string): AnyTrace {
  const loaded = loadAnyTrace(path);
  if (loaded.kind === 'operator') {
    const v = firstContractViolation(
      loaded.trace.config,
      loaded.trace.steps.map((s) => s.record),
    );
    if (v) throw contractError(path, v.index, v.message);
  } else {
    const v = clusterContractViolation(loaded.trace);
    if (v) throw contractError(path, v.step, v.message);
  }
  return loaded;
}
