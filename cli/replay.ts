// `streamjoin replay`: one trace file (a counterexample) against a system
// under test, in lockstep with the model.
import { resolve } from 'node:path';
import { InputError, Interrupted, OPERATOR_TRACE_FORMAT, placeInFile, readInputsAhead } from '../spec/index.ts';
import type { AnyTrace, Level } from '../spec/index.ts';
import { fileDisagreement, levelOfClusterTrace, operatorFileDisagreement, withExpectations } from '../conformance/lockstep/anyTrace.ts';
import { runClusterLockstep, runOperatorLockstep } from '../conformance/views/explainedRuns.ts';
import { judgeOperatorTraceFile } from '../conformance/lockstep/operatorLockstep.ts';
import { loadCheckedTrace, runTraceFile } from '../conformance/lockstep/traceFiles.ts';
import { sniffTraceFormat } from '../conformance/streams/operatorTraceStream.ts';
import { createModelOperator } from '../conformance/sut/modelOperator.ts';
import { prettyJson } from '../conformance/sut/jsonDiff.ts';
import { SutUnavailable } from '../conformance/sut/sut.ts';
import { abortReason } from '../conformance/adapters/process.ts';
import type { Failure } from '../conformance/report/failure.ts';
import { describeDivergence } from '../conformance/views/explain.ts';
import { writeFileAtomic } from '../conformance/streams/atomicFiles.ts';
import { explainDivergence, type Divergence } from '../conformance/report/divergence.ts';
import { failureName, writeCounterexample } from '../conformance/views/counterexampleFiles.ts';
import { invocationOf, type Output } from './output.ts';
import { EXIT, usageError, verdictText } from './exitCodes.ts';
import { checkedOutDir, parseCommandArgs } from './options.ts';
import {
  LINK_BASE_HELP,
  LINK_BASE_OPTION,
  SYSTEM_FLAGS_HELP,
  SYSTEM_FLAG_OPTIONS,
  buildSystem,
  linkBaseFlag,
  parseLevel,
  type SystemFlags,
} from './harnessArgs.ts';
import { HARNESS_EXIT_TEXT } from './conform.ts';
import { displayPath } from './conformReport.ts';
import { REPORTER_HELP, REPORTER_OPTION, checkStdoutUse, emitReports, parseReporters, reporterOnStdout } from './reporters/emit.ts';
import type { CiResult } from './reporters/testCases.ts';
import { type ReportHeader, reportHeader } from './version.ts';
import { REPLAY_KILL_HELP, checkKillCommand, killReplayCommand } from './kill.ts';

export const REPLAY_REPORT_FORMAT = 'streamjoin/replay-report@1';

/** `streamjoin replay --json` (spec/schemas/reports/replay-report.schema.json). */
export interface ReplayJson extends ReportHeader {
  readonly file: string;
  readonly sut: string;
  readonly level: Level;
  readonly verdict: 'pass' | 'fail' | 'unknown';
  readonly exitCode: number;
  readonly steps: number;
  readonly divergence: Divergence | null;
  readonly reason: string | null;
  readonly stderrTail: readonly string[];
  /** With --out, on a divergence: the counterexample files written. */
  readonly written: {
    readonly trace: string;
    readonly explanation: string;
    readonly markdown: string;
    readonly html: string;
    readonly itf: string | null;
  } | null;
}

/** A replay as one CI test case. */
export function replayCases(j: ReplayJson): CiResult {
  const name = `${j.file} at level ${j.level}`;
  const classname = 'replay';
  return {
    title: `streamjoin replay ${j.file}`,
    verdict: j.verdict,
    suites: [
      {
        name: 'replay',
        properties: { sut: j.sut, streamjoin: j.streamjoin, spec: j.spec },
        cases: [
          j.verdict === 'pass'
            ? { name, classname, status: 'pass' }
            : j.verdict === 'fail' && j.divergence
              ? {
                  name,
                  classname,
                  status: 'fail',
                  message: `diverges at step ${j.divergence.step + 1}: ${j.divergence.summary}`,
                  details: describeDivergence(j.divergence),
                  file: j.file,
                }
              : {
                  name,
                  classname,
                  status: 'unknown',
                  message: j.reason ?? 'not judged',
                  details: j.stderrTail.map((l) => `| ${l}`).join('\n'),
                  file: j.file,
                },
        ],
      },
    ],
  };
}

export const replayHelp = `streamjoin replay FILE --sut COMMAND [--level LEVEL] [--json] [--out DIR [--itf]]
                  [--timeout MS] [--startup-timeout MS] [--max-line BYTES]
                  [--reporter junit=FILE] [--reporter tap[=FILE]]
streamjoin replay FILE --write-expected OUT
streamjoin replay FILE --kill --sut "COMMAND ... {data} ..." [--json] [--reporter ...]

Replays one trace file (an operator or a cluster trace, e.g. a counterexample
written by conform, or its ITF trace FILE.itf.json) against a system under
test, in lockstep with the model, and prints the first divergence or
"conforms". Expectations in the file are checked against the reference model
before the system starts; where the file has none, the model's are used.
An operator trace is read step by step, so a trace of any length replays in
memory that does not grow with it (unless --out needs it whole).

  --sut COMMAND          as for conform ("model", "impl" in-process)
  --level LEVEL          for a cluster trace: cluster or faults (default: the
                         weakest level that has every action of the trace)
  --json                 print one JSON result on stdout
                         (streamjoin/replay-report@1, spec/schemas/reports/)
  --out DIR              on a divergence, write the counterexample there as
                         conform does, atomically: NAME.trace.json (the trace cut
                         at the divergence, with the model's expectations),
                         NAME.explain.txt (with this run's stderr), NAME.md,
                         NAME.html
  --itf                  with --out: also NAME.itf.json (Informal Trace Format)
${LINK_BASE_HELP}
${SYSTEM_FLAGS_HELP}
  --write-expected OUT   write the trace with the model's expectations to OUT
                         (atomically) and exit; no --sut needed
${REPORTER_HELP}
${REPLAY_KILL_HELP}

A file whose own expectation disagrees with the reference model is refused
(254, SJ111, at the step and field): the file is wrong, not the system, and
no system is started. --write-expected rewrites a file's expectations from
the model.

${HARNESS_EXIT_TEXT}`;

/** SJ111: the file's own expectation disagrees with the reference model (the file is wrong, not the system). */
function disagreementError(file: string, wrong: { step: number; pointer: string; text: string }): InputError {
  return new InputError(
    'SJ111',
    placeInFile(file, wrong.pointer),
    `step ${wrong.step + 1}: ${wrong.text}: the file disagrees with the reference model (rewrite its expectations with --write-expected)`,
  );
}

/**
 * An operator trace, read step by step as it is replayed (a trace of any
 * length, in memory that does not grow with it). The file is first read
 * whole against the model, as the loaded path does: bad input anywhere and a
 * wrong expectation (SJ111) are refused before any system starts. The
 * report, or the exit code of --write-expected.
 */
async function replayOperatorFile(
  file: string,
  level: Level | undefined,
  values: SystemFlags & { sut?: string | undefined; 'write-expected'?: string | undefined },
  out: Output,
): Promise<ReplayJson | number> {
  if (level !== undefined && level !== 'operator') throw usageError(`an operator trace replays at level operator, not ${level}`);
  const writeExpected = values['write-expected'];
  if (writeExpected !== undefined) {
    const run = await runTraceFile(file, createModelOperator, { writeExpected, layout: 'pretty', signal: out.signal });
    if (run.interrupted !== undefined)
      throw new Interrupted(`${run.interrupted} at step ${run.steps} of ${file}; ${writeExpected} not written`);
    out.stdout(`wrote ${writeExpected}\n`);
    return EXIT.pass;
  }
  if (values.sut === undefined || values.sut === '') throw usageError('replay needs --sut COMMAND (or --sut model, --sut impl)');
  const system = buildSystem(values.sut, values, out.signal, ['operator']);
  const shown = displayPath(file);
  const base = { ...reportHeader(REPLAY_REPORT_FORMAT), file: shown, sut: values.sut, level: 'operator' as const };
  try {
    // The file against the model first, whole: bad input and a wrong expectation are refused before the system starts.
    const wrong = await operatorFileDisagreement(file, out.signal);
    if (wrong) throw disagreementError(file, wrong);
    const info = await system.info();
    if (!info.levels.includes('operator'))
      throw new SutUnavailable(`it does not support level operator (it supports ${info.levels.join(', ')})`);
    const result = await judgeOperatorTraceFile(file, system, out.signal);
    return { ...base, steps: result.steps, ...judged(result.divergence && explainDivergence(result.divergence), null) };
  } catch (e) {
    const unavailable = asUnavailable(e);
    if (!unavailable) throw e;
    return { ...base, steps: 0, ...unjudged(unavailable) };
  } finally {
    await system.close();
  }
}

/** A replay report's verdict: its fields for a run that was judged (a divergence fails it). */
type ReplayVerdict = Pick<ReplayJson, 'verdict' | 'exitCode' | 'divergence' | 'reason' | 'stderrTail' | 'written'>;

function judged(d: Divergence | undefined, written: ReplayJson['written']): ReplayVerdict {
  return {
    verdict: d ? 'fail' : 'pass',
    exitCode: d ? EXIT.fail : EXIT.pass,
    divergence: d ?? null,
    reason: null,
    stderrTail: [],
    written,
  };
}

/** Why a replay could not be judged: the system's failure, or the interrupt (a system is then no longer judged either). */
function asUnavailable(e: unknown): SutUnavailable | undefined {
  if (e instanceof SutUnavailable) return e;
  return e instanceof Interrupted ? new SutUnavailable(e.message) : undefined;
}

/** The verdict of a run whose system could not be judged (dead, hung, babbling, interrupted): unknown. */
function unjudged(e: SutUnavailable): ReplayVerdict {
  return { verdict: 'unknown', exitCode: EXIT.unknown, divergence: null, reason: e.reason, stderrTail: e.stderrTail, written: null };
}

/** Prints a replay's verdict (text, JSON, CI reporters); its exit code. */
function printReplay(json: ReplayJson, values: { json: boolean }, reporters: ReturnType<typeof parseReporters>, out: Output): number {
  const shown = json.file;
  if (values.json) out.stdout(`${JSON.stringify(json)}\n`);
  else if (!reporterOnStdout(reporters)) {
    if (json.verdict === 'fail' && json.divergence) {
      out.stdout(`${shown}: ${verdictText(json.verdict)} at level ${json.level}\n${describeDivergence(json.divergence)}\n`);
      const w = json.written;
      if (w) out.stdout(`written: ${[w.trace, w.explanation, w.markdown, w.html, ...(w.itf !== null ? [w.itf] : [])].join(', ')}\n`);
    } else if (json.verdict === 'pass') out.stdout(`${shown}: ${verdictText(json.verdict)} (${json.steps} steps at level ${json.level})\n`);
    else {
      const tail = json.stderrTail.map((l) => `  | ${l}\n`).join('');
      out.stdout(
        `${shown}: ${verdictText(json.verdict)}: ${json.reason ?? ''}\n${tail ? `  last stderr lines of the system under test:\n${tail}` : ''}`,
      );
    }
  }
  emitReports([replayCases(json)], reporters, out, values.json);
  return json.exitCode;
}

export async function replayCommand(args: readonly string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    {
      args: [...args],
      allowPositionals: true,
      options: {
        sut: { type: 'string' },
        level: { type: 'string' },
        json: { type: 'boolean', default: false },
        out: { type: 'string' },
        itf: { type: 'boolean', default: false },
        ...SYSTEM_FLAG_OPTIONS,
        ...LINK_BASE_OPTION,
        'write-expected': { type: 'string' },
        kill: { type: 'boolean', default: false },
        ...REPORTER_OPTION,
      },
    },
    'replay',
  );
  const reporters = parseReporters(values.reporter);
  checkStdoutUse(values.json, reporters);
  if (positionals.length !== 1) throw usageError(`replay takes exactly one FILE, got ${positionals.length}`);
  const file = positionals[0] as string;
  const level = parseLevel(values.level);
  if (values.itf && values.out === undefined) throw usageError('--itf writes the counterexample in ITF: give --out DIR too');
  const linkBase = linkBaseFlag(values['link-base']);
  if (values.out !== undefined) checkedOutDir('--out', values.out);
  // A FIFO or a pipe is read ahead (spec/inputFiles.ts): nothing blocks, and the interrupt is heard while it is read.
  await readInputsAhead([file], { signal: out.signal });
  // An operator trace streams (a trace of any length); with --out the counterexample files need the whole trace.
  if (values.out === undefined && sniffTraceFormat(file) === OPERATOR_TRACE_FORMAT) {
    const streamed = await replayOperatorFile(file, level, values, out);
    return typeof streamed === 'number' ? streamed : printReplay(streamed, values, reporters, out);
  }
  const trace: AnyTrace = loadCheckedTrace(file);
  const hasKills = trace.kind === 'cluster' && (trace.trace.initKill !== undefined || trace.trace.steps.some((s) => s.kill !== undefined));
  if (values.kill) {
    // The trace replayed is the counterexample already: nothing to write beside it.
    for (const flag of ['out', 'itf', 'write-expected'] as const)
      if (values[flag] !== undefined && values[flag] !== false) throw usageError(`--${flag} is not available with --kill`);
    if (trace.kind !== 'cluster') throw usageError('--kill replays a cluster trace (kill mode runs at level faults)');
    if (level !== undefined && level !== 'faults') throw usageError('--kill runs at level faults');
    if (values.sut === undefined || values.sut === '')
      throw usageError('replay --kill needs --sut COMMAND, naming its data directory with {data}');
    // As conform --kill: a process to kill, whose data directory the harness names.
    checkKillCommand(values.sut);
    return killReplayCommand(
      { file: displayPath(file), trace: trace.trace, sut: values.sut, flags: values, json: values.json, reporters },
      out,
    );
  }
  if (hasKills)
    throw usageError(
      `${file} has kill steps or a kill inside init (a kill-mode counterexample): replay it with --kill --sut "COMMAND --data {data}"`,
    );
  if (values['write-expected'] !== undefined) {
    writeFileAtomic(values['write-expected'], `${prettyJson(withExpectations(trace).trace)}\n`);
    out.stdout(`wrote ${values['write-expected']}\n`);
    return EXIT.pass;
  }
  if (values.sut === undefined || values.sut === '') throw usageError('replay needs --sut COMMAND (or --sut model, --sut impl)');
  let chosen: Level;
  if (trace.kind === 'operator') {
    if (level !== undefined && level !== 'operator') throw usageError(`an operator trace replays at level operator, not ${level}`);
    chosen = 'operator';
  } else {
    const need = levelOfClusterTrace(trace.trace);
    if (level === 'operator') throw usageError('a cluster trace replays at level cluster or faults');
    if (level === 'cluster' && need === 'faults') throw usageError('this trace has fault actions: it needs level faults');
    chosen = level ?? need;
  }
  // The file against the model first: a wrong expectation is the file's fault, found without any system.
  const wrong = fileDisagreement(trace);
  if (wrong) throw disagreementError(file, wrong);
  const name = failureName({ level: chosen, origin: 'example', trace });
  if (values.out !== undefined && resolve(values.out, `${name}.trace.json`) === resolve(file)) {
    throw usageError(`--out ${values.out}: the counterexample would overwrite ${file}; write it to another directory`);
  }
  const system = buildSystem(values.sut, values, out.signal, [chosen]);
  const shown = displayPath(file);
  const base = { ...reportHeader(REPLAY_REPORT_FORMAT), file: shown, sut: values.sut, level: chosen, steps: trace.trace.steps.length };
  let json: ReplayJson;
  try {
    if (out.signal?.aborted) throw new SutUnavailable(`interrupted: ${abortReason(out.signal)}`);
    const info = await system.info();
    if (!info.levels.includes(chosen))
      throw new SutUnavailable(`it does not support level ${chosen} (it supports ${info.levels.join(', ')})`);
    const result =
      trace.kind === 'cluster' ? await runClusterLockstep(trace.trace, system, chosen) : await runOperatorLockstep(trace.trace, system);
    const d = result.divergence;
    // Closed first: the run's stderr is complete, for the explanation.
    await system.close();
    let written: ReturnType<typeof writeCounterexample> | undefined;
    if (d && values.out !== undefined) {
      // Cut at the divergence, with the model's expectations, as conform writes a counterexample.
      const cut: AnyTrace =
        trace.kind === 'cluster'
          ? { kind: 'cluster', trace: { ...trace.trace, steps: trace.trace.steps.slice(0, d.step + 1) } }
          : { kind: 'operator', trace: { ...trace.trace, steps: trace.trace.steps.slice(0, d.step + 1) } };
      const failure: Failure = {
        level: chosen,
        origin: 'example',
        path: file,
        trace: withExpectations(cut),
        divergence: d,
        ...(result.stderr ? { stderr: result.stderr } : {}),
      };
      written = writeCounterexample(failure, {
        outDir: values.out,
        name,
        invocation: invocationOf(out),
        sutCommand: values.sut,
        sut: values.sut,
        implementation: `${info.implementation.name} ${info.implementation.version}`,
        itf: values.itf,
        ...(linkBase !== undefined ? { linkBase } : {}),
      });
    }
    json = {
      ...base,
      ...judged(
        d,
        written
          ? {
              trace: written.tracePath,
              explanation: written.explainPath,
              markdown: written.markdownPath,
              html: written.htmlPath,
              itf: written.itfPath ?? null,
            }
          : null,
      ),
    };
  } catch (e) {
    const unavailable = asUnavailable(e);
    if (!unavailable) throw e;
    json = { ...base, ...unjudged(unavailable) };
  } finally {
    await system.close();
  }
  return printReplay(json, values, reporters, out);
}
