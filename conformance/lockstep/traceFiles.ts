// Runs operator trace files (SPEC §4) against an operator, step by step as
// each file is read (streams/operatorTraceStream.ts): the checks of SPEC §4
// (JSON, schema, the input contract J9 in one linear pass) and the run go
// together, in memory that does not grow with the trace. Bad input throws
// before anything is written, so it still stops the job before a partial
// report.
import { InputError, Interrupted, loadAnyTrace, placeInFile } from '../../spec/index.ts';
import type { AnyTrace, ClusterTrace, LogRecord, OperatorStep, OutcomeCode, RetainedCounts } from '../../spec/index.ts';
import { firstContractViolation } from '../../model/index.ts';
import { AtomicFileWriter } from '../streams/atomicFiles.ts';
import { PRETTY_WIDTH, prettyJson } from '../sut/jsonDiff.ts';
import { readOperatorTracePaced, type TraceRead } from '../streams/operatorTraceStream.ts';
import type { OperatorFactory } from '../sut/sut.ts';
import { OperatorTraceChecker, type OperatorDivergence, type OperatorObservation } from './operatorTrace.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

/** What running one trace file found. Nothing per step is kept: a trace of any length runs in constant memory. */
export interface TraceFileResult {
  readonly path: string;
  readonly name: string;
  readonly steps: number;
  /** Steps that carried expectations. */
  readonly checkedSteps: number;
  readonly outcomes: Partial<Record<OutcomeCode, number>>;
  readonly changes: number;
  /** The retained counts after the last step (none for a trace without steps). */
  readonly retained: RetainedCounts | undefined;
  /** The first departure from the expectations, if any. */
  readonly divergence?: OperatorDivergence;
  /** Why the run stopped before the trace's end (`signal` aborted): `steps` counts the steps run. */
  readonly interrupted?: string;
}

/**
 * How a written trace is laid out: `indented` as JSON.stringify(trace, null,
 * 2), `pretty` as prettyJson (values that fit in a line stay on one line).
 */
export type TraceLayout = 'indented' | 'pretty';

/** `value` laid out as it stands at `indent` spaces inside the whole document. */
function layoutOf(layout: TraceLayout): (value: unknown, indent: string) => string {
  return layout === 'indented'
    ? (value, indent) => JSON.stringify(value, null, 2).replace(/\n/g, `\n${indent}`)
    : (value, indent) => prettyJson(value, PRETTY_WIDTH - indent.length).replace(/\n/g, `\n${indent}`);
}

/**
 * Writes a trace back with the observations as its expectations, in the
 * layout `JSON.stringify(trace, null, 2)` gives, step by step, atomically.
 */
class ExpectedTraceWriter {
  private readonly file: AtomicFileWriter;
  private readonly indented: (value: unknown, indent: string) => string;
  private stepsWritten = 0;
  private opened = false;

  constructor(path: string, layout: TraceLayout) {
    this.file = new AtomicFileWriter(path);
    this.indented = layoutOf(layout);
  }

  step(before: () => [string, unknown][], step: OperatorStep, seen: OperatorObservation): void {
    if (!this.opened) this.open(before());
    const expect = { outcome: seen.outcome, changes: seen.changes, retained: seen.retained };
    this.file.write(`${this.stepsWritten++ === 0 ? '\n' : ',\n'}    ${this.indented({ ...step, expect }, '    ')}`);
  }

  private open(members: [string, unknown][]): void {
    this.opened = true;
    this.file.write('{\n');
    for (const [name, value] of members) this.file.write(`  ${JSON.stringify(name)}: ${this.indented(value, '  ')},\n`);
    this.file.write('  "steps": [');
  }

  /** The members after the steps, then the file in place. */
  finish(read: TraceRead): void {
    const order = read.memberOrder.includes('steps') ? read.memberOrder : [...read.memberOrder, 'steps'];
    const at = order.indexOf('steps');
    const header = read.header as unknown as Record<string, unknown>;
    if (!this.opened) this.open(order.slice(0, at).map((name) => [name, header[name]]));
    this.file.write(this.stepsWritten === 0 ? ']' : '\n  ]');
    for (const name of order.slice(at + 1)) this.file.write(`,\n  ${JSON.stringify(name)}: ${this.indented(header[name], '  ')}`);
    this.file.write('\n}\n');
    this.file.commit();
  }

  abort(): void {
    this.file.abort();
  }
}

/**
 * Reads, checks (SJ100–SJ104) and runs one operator trace file step by step
 * against a fresh operator from `makeOperator`; with `writeExpected`, writes
 * the trace back with the operator's observations as its expectations. On
 * bad input it throws the InputError and writes nothing. It yields to the
 * event loop as it goes (spec/pacing.ts); once `signal` is aborted it stops,
 * writes nothing, and returns what it ran, `interrupted`.
 */
export async function runTraceFile(
  path: string,
  makeOperator: OperatorFactory,
  options: { writeExpected?: string; layout?: TraceLayout; signal?: AbortSignalLike | undefined } = {},
): Promise<TraceFileResult> {
  let checker: OperatorTraceChecker | undefined;
  let checkedSteps = 0;
  let changes = 0;
  let retained: RetainedCounts | undefined;
  const outcomes: Partial<Record<OutcomeCode, number>> = {};
  const writer =
    options.writeExpected === undefined ? undefined : new ExpectedTraceWriter(options.writeExpected, options.layout ?? 'indented');
  let read: TraceRead;
  let name = '';
  let steps = 0;
  try {
    read = await readOperatorTracePaced(
      path,
      (header, members) => {
        name = header.name;
        const run = new OperatorTraceChecker(header.config, makeOperator);
        checker = run;
        return {
          step(index, step) {
            steps = index + 1;
            const seen = run.step(index, step);
            if (step.expect) checkedSteps++;
            outcomes[seen.outcome.code] = (outcomes[seen.outcome.code] ?? 0) + 1;
            changes += seen.changes.length;
            retained = seen.retained;
            writer?.step(() => members.beforeSteps(), step, seen);
          },
        };
      },
      options.signal,
    );
    writer?.finish(read);
  } catch (e) {
    writer?.abort();
    if (!(e instanceof Interrupted)) throw e;
    const divergence = checker?.divergence();
    const partial = { path, name, steps, checkedSteps, outcomes, changes, retained, interrupted: e.reason };
    return divergence ? { ...partial, divergence } : partial;
  }
  const divergence = checker?.divergence();
  const result = { path, name: read.header.name, steps: read.steps, checkedSteps, outcomes, changes, retained };
  return divergence ? { ...result, divergence } : result;
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

/** J9 (SJ104) at the step's place in the file. */
function contractError(path: string, step: number, message: string): InputError {
  return new InputError('SJ104', placeInFile(path, `/steps/${step}`), `step ${step + 1}: ${message}`);
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
