// `streamjoin replay`: one trace file (a counterexample) against a system
// under test, in lockstep with the model.
import type { AnyTrace, Level } from '../spec/index.ts';
import { levelOfClusterTrace, withExpectations } from '../conformance/lockstep/anyTrace.ts';
import { runClusterLockstep } from '../conformance/lockstep/clusterLockstep.ts';
import { runOperatorLockstep } from '../conformance/lockstep/operatorLockstep.ts';
import { loadCheckedTrace } from '../conformance/lockstep/traceFiles.ts';
import { prettyJson } from '../conformance/lockstep/jsonDiff.ts';
import { SutUnavailable } from '../conformance/adapters/sut.ts';
import { describeDivergence } from '../conformance/report/explain.ts';
import { writeFileAtomic } from '../conformance/report/atomicFiles.ts';
import type { Divergence } from '../conformance/lockstep/divergence.ts';
import { failureName, writeCounterexample } from '../conformance/report/counterexampleFiles.ts';
import { invocationOf, type Output } from './output.ts';
import { EXIT, parseCommandArgs, usageError } from './exitCodes.ts';
import { buildSystem, outDirProblem, parseLevel } from './harnessArgs.ts';
import { HARNESS_EXIT_TEXT } from './conform.ts';
import { displayPath } from './conformReport.ts';
import { REPORTER_HELP, REPORTER_OPTION, checkStdoutUse, emitReports, parseReporters, reporterOnStdout } from './reporters/emit.ts';
import type { CiResult } from './reporters/testCases.ts';
import { type ReportHeader, reportHeader } from './version.ts';

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
                  message: `diverges at step ${j.divergence.step}: ${j.divergence.summary}`,
                  details: describeDivergence(j.divergence),
                  file: j.file,
                }
              : {
                  name,
                  classname,
                  status: 'unknown',
                  message: j.reason ?? 'not judged',
                  details: j.stderrTail.map((l) => `| ${l}`).join('\\n'),
                  file: j.file,
                },
        ],
      },
    ],
  };
}

export const replayHelp = `streamjoin replay FILE --sut COMMAND [--level LEVEL] [--json] [--out DIR [--itf]] [--timeout MS] [--max-line BYTES]
                  [--reporter junit=FILE] [--reporter tap[=FILE]]
streamjoin replay FILE --write-expected OUT

Replays one trace file (an operator or a cluster trace, e.g. a counterexample
written by conform, or its ITF trace FILE.itf.json) against a system under
test, in lockstep with the model, and prints the first divergence or
"conforms". Expectations in the file are used where present, the model's
elsewhere.

  --sut COMMAND          as for conform ("model", "impl" in-process)
  --level LEVEL          for a cluster trace: cluster or faults (default: the
                         weakest level that has every action of the trace)
  --json                 print one JSON result on stdout
                         (streamjoin/replay-report@1, spec/schemas/reports/)
  --out DIR              on a divergence, write the counterexample there as conform
                         does: NAME.trace.json, NAME.explain.txt, NAME.md, NAME.html
  --itf                  with --out: also NAME.itf.json (Informal Trace Format)
  --write-expected OUT   write the trace with the model's expectations to OUT
                         (atomically) and exit; no --sut needed
${REPORTER_HELP}

${HARNESS_EXIT_TEXT}`;

export async function replayCommand(args: readonly string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      sut: { type: 'string' },
      level: { type: 'string' },
      json: { type: 'boolean', default: false },
      out: { type: 'string' },
      itf: { type: 'boolean', default: false },
      timeout: { type: 'string' },
      'max-line': { type: 'string' },
      'write-expected': { type: 'string' },
      ...REPORTER_OPTION,
    },
  });
  const reporters = parseReporters(values.reporter);
  checkStdoutUse(values.json, reporters);
  if (positionals.length !== 1) throw usageError(`replay takes exactly one FILE, got ${positionals.length}`);
  const file = positionals[0] as string;
  const level = parseLevel(values.level);
  if (values.itf && values.out === undefined) throw usageError('--itf writes the counterexample in ITF: give --out DIR too');
  const outProblem = values.out === undefined ? undefined : outDirProblem(values.out);
  if (outProblem) throw usageError(`--out ${values.out}: ${outProblem}`);
  const trace: AnyTrace = loadCheckedTrace(file);
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
  const system = buildSystem(values.sut, values);
  const shown = displayPath(file);
  const base = { ...reportHeader(REPLAY_REPORT_FORMAT), file: shown, sut: values.sut, level: chosen, steps: trace.trace.steps.length };
  let json: ReplayJson;
  try {
    const info = await system.info();
    if (!info.levels.includes(chosen))
      throw new SutUnavailable(`it does not support level ${chosen} (it supports ${info.levels.join(', ')})`);
    const result =
      trace.kind === 'cluster' ? await runClusterLockstep(trace.trace, system, chosen) : await runOperatorLockstep(trace.trace, system);
    for (const d of result.disagreements) {
      out.stderr(`note: ${shown}: step ${d.step}: the file's expected ${d.field} differs from the reference model's; the file's is used\n`);
    }
    const d = result.divergence;
    const written =
      d && values.out !== undefined
        ? writeCounterexample(
            { level: chosen, origin: 'example', path: file, trace, divergence: d },
            {
              outDir: values.out,
              name: failureName({ level: chosen, origin: 'example', path: file, trace, divergence: d }),
              invocation: invocationOf(out),
              sutCommand: values.sut,
              sut: values.sut,
              ...(info.implementation ? { implementation: `${info.implementation.name} ${info.implementation.version}` } : {}),
              stderrTail: system.stderrTail?.() ?? [],
              itf: values.itf,
            },
          )
        : undefined;
    json = {
      ...base,
      verdict: d ? 'fail' : 'pass',
      exitCode: d ? EXIT.fail : EXIT.pass,
      divergence: d ?? null,
      reason: null,
      stderrTail: [],
      written: written
        ? {
            trace: written.tracePath,
            explanation: written.explainPath,
            markdown: written.markdownPath,
            html: written.htmlPath,
            itf: written.itfPath ?? null,
          }
        : null,
    };
  } catch (e) {
    if (!(e instanceof SutUnavailable)) throw e;
    json = {
      ...base,
      verdict: 'unknown',
      exitCode: EXIT.unknown,
      divergence: null,
      reason: e.reason,
      stderrTail: e.stderrTail,
      written: null,
    };
  } finally {
    await system.close();
  }
  if (values.json) out.stdout(`${JSON.stringify(json)}\n`);
  else if (!reporterOnStdout(reporters)) {
    if (json.verdict === 'fail' && json.divergence) {
      out.stdout(`${shown}: DIVERGES at level ${chosen}\n${describeDivergence(json.divergence)}\n`);
      const w = json.written;
      if (w) out.stdout(`written: ${[w.trace, w.explanation, w.markdown, w.html, ...(w.itf !== null ? [w.itf] : [])].join(', ')}\n`);
    } else if (json.verdict === 'pass') out.stdout(`${shown}: conforms (${json.steps} steps at level ${chosen})\n`);
    else {
      const tail = json.stderrTail.map((l) => `  | ${l}\n`).join('');
      out.stdout(`${shown}: UNKNOWN: ${json.reason ?? ''}\n${tail ? `  last stderr lines of the system under test:\n${tail}` : ''}`);
    }
  }
  emitReports([replayCases(json)], reporters, out, values.json);
  return json.exitCode;
}
