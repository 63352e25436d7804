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
import { failureName, shellQuote, writeCounterexample } from '../conformance/report/counterexampleFiles.ts';
import type { Output } from './output.ts';
import { EXIT, parseCommandArgs, usageError } from './exitCodes.ts';
import { buildSystem, outDirProblem, parseLevel } from './harnessArgs.ts';
import { HARNESS_EXIT_TEXT } from './conform.ts';

export const replayHelp = `streamjoin replay FILE --sut COMMAND [--level LEVEL] [--json] [--out DIR [--itf]] [--timeout MS] [--max-line BYTES]
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
  --out DIR              on a divergence, write the counterexample there as conform
                         does: NAME.trace.json, NAME.explain.txt, NAME.md, NAME.html
  --itf                  with --out: also NAME.itf.json (Informal Trace Format)
  --write-expected OUT   write the trace with the model's expectations to OUT
                         (atomically) and exit; no --sut needed

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
    },
  });
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
  try {
    const info = await system.info();
    if (!info.levels.includes(chosen))
      throw new SutUnavailable(`it does not support level ${chosen} (it supports ${info.levels.join(', ')})`);
    const result =
      trace.kind === 'cluster' ? await runClusterLockstep(trace.trace, system, chosen) : await runOperatorLockstep(trace.trace, system);
    for (const d of result.disagreements) {
      out.stderr(`note: ${file}: step ${d.step}: the file's expected ${d.field} differs from the reference model's; the file's is used\n`);
    }
    const d = result.divergence;
    const written =
      d && values.out !== undefined
        ? writeCounterexample(
            { level: chosen, origin: 'example', path: file, trace, divergence: d },
            {
              outDir: values.out,
              name: failureName({ level: chosen, origin: 'example', path: file, trace, divergence: d }),
              sutWord: shellQuote(values.sut),
              sut: values.sut,
              ...(info.implementation ? { implementation: `${info.implementation.name} ${info.implementation.version}` } : {}),
              stderrTail: system.stderrTail?.() ?? [],
              itf: values.itf,
            },
          )
        : undefined;
    if (values.json) {
      out.stdout(
        `${JSON.stringify({ file, level: chosen, verdict: d ? 'fail' : 'pass', steps: trace.trace.steps.length, divergence: d ?? null, ...(written ? { written: { trace: written.tracePath, explanation: written.explainPath, markdown: written.markdownPath, html: written.htmlPath, itf: written.itfPath ?? null } } : {}) })}\n`,
      );
    } else if (d) {
      out.stdout(`${file}: DIVERGES at level ${chosen}\n${describeDivergence(d)}\n`);
      if (written) {
        out.stdout(
          `written: ${[written.tracePath, written.explainPath, written.markdownPath, written.htmlPath, ...(written.itfPath ? [written.itfPath] : [])].join(', ')}\n`,
        );
      }
    } else {
      out.stdout(`${file}: conforms (${trace.trace.steps.length} steps at level ${chosen})\n`);
    }
    return d ? EXIT.fail : EXIT.pass;
  } catch (e) {
    if (!(e instanceof SutUnavailable)) throw e;
    const tail = e.stderrTail.map((l) => `  | ${l}\n`).join('');
    if (values.json)
      out.stdout(`${JSON.stringify({ file, level: chosen, verdict: 'unknown', reason: e.reason, stderrTail: e.stderrTail })}\n`);
    else out.stdout(`${file}: UNKNOWN: ${e.reason}\n${tail ? `  last stderr lines of the system under test:\n${tail}` : ''}`);
    return EXIT.unknown;
  } finally {
    await system.close();
  }
}
