// `streamjoin replay`: one trace file (a counterexample) against a system
// under test, in lockstep with the model.
import { resolve } from 'node:path';
import { InputError, placeInFile } from '../spec/index.ts';
import type { AnyTrace, Level } from '../spec/index.ts';
import { fileDisagreement, levelOfClusterTrace, withExpectations } from '../conformance/lockstep/anyTrace.ts';
import { runClusterLockstep } from '../conformance/lockstep/clusterLockstep.ts';
import { runOperatorLockstep } from '../conformance/lockstep/operatorLockstep.ts';
import { loadCheckedTrace } from '../conformance/lockstep/traceFiles.ts';
import { prettyJson } from '../conformance/lockstep/jsonDiff.ts';
import { SutUnavailable } from '../conformance/adapters/sut.ts';
import { abortReason } from '../conformance/adapters/process.ts';
import { describeDivergence } from '../conformance/report/explain.ts';
import { writeFileAtomic } from '../conformance/report/atomicFiles.ts';
import { failureName, shellQuote, writeCounterexample, type WrittenCounterexample } from '../conformance/report/counterexampleFiles.ts';
import type { Failure } from '../conformance/conform.ts';
import type { Output } from './output.ts';
import { EXIT, parseCommandArgs, usageError } from './exitCodes.ts';
import { SYSTEM_FLAGS_HELP, SYSTEM_FLAG_OPTIONS, buildSystem, outDirProblem, parseLevel } from './harnessArgs.ts';
import { HARNESS_EXIT_TEXT } from './conform.ts';

export const replayHelp = `streamjoin replay FILE --sut COMMAND [--level LEVEL] [--out DIR [--itf]] [--json]
                 [--timeout MS] [--startup-timeout MS] [--max-line BYTES]
streamjoin replay FILE --write-expected OUT

Replays one trace file (an operator or a cluster trace, e.g. a counterexample
written by conform, or its ITF trace FILE.itf.json) against a system under
test, in lockstep with the model, and prints the first divergence or
"conforms". Expectations in the file are checked against the reference model
before the system starts; where the file has none, the model's are used.

  --sut COMMAND          as for conform ("model", "impl" in-process)
  --level LEVEL          for a cluster trace: cluster or faults (default: the
                         weakest level that has every action of the trace)
  --out DIR              on a divergence, write the counterexample there as
                         conform does, atomically: NAME.trace.json (the trace cut
                         at the divergence, with the model's expectations),
                         NAME.explain.txt (with this run's stderr), NAME.md,
                         NAME.html
  --itf                  with --out: also NAME.itf.json (Informal Trace Format)
  --json                 print one JSON result on stdout
${SYSTEM_FLAGS_HELP}
  --write-expected OUT   write the trace with the model's expectations to OUT
                         (atomically) and exit; no --sut needed

A file whose own expectation disagrees with the reference model is refused
(254, SJ111, at the step and field): the file is wrong, not the system, and
no system is started. --write-expected rewrites a file's expectations from
the model.

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
      ...SYSTEM_FLAG_OPTIONS,
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
  // The file against the model first: a wrong expectation is the file's fault, found without any system.
  const wrong = fileDisagreement(trace);
  if (wrong) {
    throw new InputError(
      'SJ111',
      placeInFile(file, wrong.pointer),
      `step ${wrong.step}: ${wrong.text}: the file disagrees with the reference model (rewrite its expectations with --write-expected)`,
    );
  }
  const name = failureName({ level: chosen, origin: 'example', trace });
  if (values.out !== undefined && resolve(values.out, `${name}.trace.json`) === resolve(file)) {
    throw usageError(`--out ${values.out}: the counterexample would overwrite ${file}; write it to another directory`);
  }
  const system = buildSystem(values.sut, values, out.signal);
  try {
    if (out.signal?.aborted) throw new SutUnavailable(`interrupted: ${abortReason(out.signal)}`);
    const info = await system.info();
    if (!info.levels.includes(chosen))
      throw new SutUnavailable(`it does not support level ${chosen} (it supports ${info.levels.join(', ')})`);
    const result =
      trace.kind === 'cluster' ? await runClusterLockstep(trace.trace, system, chosen) : await runOperatorLockstep(trace.trace, system);
    const d = result.divergence;
    await system.close();
    let written: WrittenCounterexample | undefined;
    if (d && values.out !== undefined) {
      // Cut at the divergence, with the model's expectations; the stderr of this run (complete: the system is closed).
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
        sutWord: shellQuote(values.sut),
        sut: values.sut,
        implementation: `${info.implementation.name} ${info.implementation.version}`,
        itf: values.itf,
      });
    }
    if (values.json) {
      out.stdout(
        `${JSON.stringify({
          file,
          level: chosen,
          verdict: d ? 'fail' : 'pass',
          steps: trace.trace.steps.length,
          divergence: d ?? null,
          ...(written
            ? {
                written: {
                  trace: written.tracePath,
                  explanation: written.explainPath,
                  markdown: written.markdownPath,
                  html: written.htmlPath,
                  itf: written.itfPath ?? null,
                },
              }
            : {}),
        })}\n`,
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
