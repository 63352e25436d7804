// The conformance job (SPEC §7): after the handshake, at each level the
// system under test supports (or those asked for), its parts in order: the
// example files, the regression traces, the bounded-exhaustive scenarios,
// random traces (part.ts says what a part is; each is its own file). Returns
// a report; writing files and printing is the CLI's business. The options
// and the report's shape are conformTypes.ts.
import { LEVELS } from '../../spec/index.ts';
import type { Level } from '../../spec/index.ts';
import { SutUnavailable, type SutInfo } from '../adapters/sut.ts';
import { abortReason } from '../adapters/process.ts';
import type { ConformOptions, ConformReport, Unknown } from './conformTypes.ts';
import { exhaustiveScenariosPart } from './exhaustivePart.ts';
import type { ConformPart, PartJob, PartReport } from './part.ts';
import { randomTracesPart } from './randomPart.ts';
import { traceFilesPart } from './traceFilesPart.ts';
import { causeOf, groupByCause } from '../report/causes.ts';

/** Runs the whole job. Never rejects for a broken system (that is verdict `unknown`); rejects on a harness bug. */
export async function runConform(opts: ConformOptions): Promise<ConformReport> {
  const parts: ConformPart[] = [
    traceFilesPart('examples', opts.examples),
    // One list with the examples in the report: the regression traces continue their numbering (sharding).
    traceFilesPart('regressions', opts.regressions ?? [], opts.examples.length),
    ...(opts.exhaustive !== undefined ? [exhaustiveScenariosPart(opts.exhaustive)] : []),
    randomTracesPart(opts.runs, opts.path),
  ];
  const started = performance.now();
  const found: PartReport = { examples: [], skipped: [], exhaustive: [], random: [], failures: [] };
  const now = { during: 'the handshake' };
  let info: SutInfo | undefined;
  let levels: readonly Level[] = [];
  let unknown: Unknown | undefined;
  try {
    info = await opts.system.info();
    levels = levelsToCheck(opts, info);
    const job = partJob(opts, levels, found, started, now);
    for (const part of parts) await part.run(job);
  } catch (e) {
    if (!(e instanceof SutUnavailable)) throw e;
    unknown = { reason: e.reason, stderrTail: e.stderrTail, during: now.during };
  }
  const incomplete = unknown !== undefined || [...found.exhaustive, ...found.random].some((r) => r.verdict === 'unknown');
  return {
    verdict: found.failures.length > 0 ? 'fail' : incomplete ? 'unknown' : 'pass',
    sut: opts.system.label,
    ...(info ? { implementation: info.implementation } : {}),
    supported: supportedLevels(info),
    levels,
    seed: opts.seed,
    ...found,
    causes: groupByCause(
      found.failures.map((f) => ({ cause: causeOf(f.level, f.divergence), steps: f.trace.trace.steps.length, origin: f.origin })),
    ),
    ...(unknown ? { unknown } : {}),
    ...(opts.shard ? { shard: opts.shard } : {}),
    ms: performance.now() - started,
  };
}

const supportedLevels = (info: SutInfo | undefined): Level[] => LEVELS.filter((l) => info?.levels.includes(l));

/** The levels asked for (default: all the system supports), in LEVELS order; SutUnavailable if it lacks one. */
function levelsToCheck(opts: ConformOptions, info: SutInfo): Level[] {
  const supported = supportedLevels(info);
  opts.progress?.(`system under test: ${info.implementation.name} ${info.implementation.version}; levels ${supported.join(', ')}`);
  const wanted = opts.levels ?? supported;
  const missing = wanted.filter((l) => !supported.includes(l));
  if (missing.length > 0) throw new SutUnavailable(`it does not support level ${missing.join(', ')} (it supports ${supported.join(', ')})`);
  return LEVELS.filter((l) => wanted.includes(l));
}

/** The job as every part sees it; `now.during` follows what the parts enter. */
function partJob(opts: ConformOptions, levels: readonly Level[], found: PartReport, started: number, now: { during: string }): PartJob {
  return {
    system: opts.system,
    levels,
    seed: opts.seed,
    ...(opts.shard ? { shard: opts.shard } : {}),
    ...(opts.timeBudgetMs !== undefined ? { timeBudgetMs: opts.timeBudgetMs } : {}),
    ...(opts.window !== undefined ? { window: opts.window } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    report: found,
    progress: (line) => opts.progress?.(line),
    tick: (line) => opts.tick?.(line),
    onTrace: (run) => opts.onTrace?.(run),
    since: () => performance.now() - started,
    stopped: () => opts.stopAtFirstFailure === true && found.failures.length > 0,
    enter: (what) => {
      now.during = what;
      if (opts.signal?.aborted) throw new SutUnavailable(`interrupted: ${abortReason(opts.signal)}`);
    },
  };
}
