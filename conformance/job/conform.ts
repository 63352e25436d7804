// The conformance job (SPEC §7): after the handshake, at each level the
// system under test supports (or those asked for), its parts in order: the
// example files, the regression traces, the bounded-exhaustive scenarios,
// random traces (part.ts says what a part is; each is its own file). Returns
// a report; writing files and printing is the CLI's business. The options
// and the report's shape are conformTypes.ts.
import { LEVELS } from '../../spec/index.ts';
import type { Level } from '../../spec/index.ts';
import { SutUnavailable, type RefusedConfig, type SutInfo } from '../sut/sut.ts';
import { abortReason } from '../adapters/process.ts';
import type { ConformOptions, ConformReport, ConformSystem, TraceInput, TraceSource, Unknown } from './conformTypes.ts';
import type { ClusterConfig, ClusterTrace, ExternalAction, JoinConfig, LogRecord, OperatorTrace } from '../../spec/index.ts';
import { CLUSTER_TRACE_FORMAT, COORDINATOR, OPERATOR_TRACE_FORMAT } from '../../spec/index.ts';
import type { InProcessSut, SystemUnderTest } from '../sut/sut.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { exhaustiveScenariosPart } from './exhaustivePart.ts';
import type { ConformPart, PartJob, PartReport } from './part.ts';
import { randomTracesPart } from './randomPart.ts';
import { traceFilesPart } from './traceFilesPart.ts';
import { causeOf, groupByCause } from '../report/causes.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

/** Runs the whole job. Never rejects for a broken system (that is verdict `unknown`); rejects on a harness bug. */
export async function runConform(options: ConformOptions): Promise<ConformReport> {
  const system = systemOf(options.system, options.signal);
  const opts = { ...options, system };
  const examples = (options.examples ?? []).map(traceSourceOf);
  const parts = (info: SutInfo): ConformPart[] => [
    // A config the handshake's init was refused (SutInfo.refusedConfig) is judged first, as a one-step trace of its own (shard 1).
    ...(info.refusedConfig ? [traceFilesPart('examples', [refusedConfigTrace(info.refusedConfig)])] : []),
    traceFilesPart('examples', examples),
    // One list with the examples in the report: the regression traces continue their numbering (sharding).
    traceFilesPart('regressions', (options.regressions ?? []).map(traceSourceOf), examples.length),
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
    for (const part of parts(info)) await part.run(job);
  } catch (e) {
    if (!(e instanceof SutUnavailable)) throw e;
    unknown = { reason: e.reason, stderrTail: e.stderrTail, during: now.during };
  }
  // A run that judged no trace at all is no pass (§7): every example and scenario left out at the levels checked (a
  // --scenario of another level than the system's), and no random trace. (A shard may be empty: its merge is judged.)
  const judged = found.examples.length + found.random.reduce((n, r) => n + r.runs, 0) + found.exhaustive.reduce((n, x) => n + x.run, 0);
  if (unknown === undefined && info !== undefined && judged === 0 && found.failures.length === 0 && opts.shard === undefined)
    unknown = {
      reason: `nothing was checked: no example, exhaustive trace or random trace runs at the levels checked (${levels.join(', ') || 'none'})`,
      stderrTail: [],
      during: 'the end',
    };
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

/**
 * The handshake's refused config as a trace of one step at the level it was
 * refused at: a watermark (operator, cluster) or a crash of the coordinator
 * (faults, which only that level has). Its init is refused again, and the
 * trace diverges there (lockstep: a session's init refused).
 */
function refusedConfigTrace(refused: RefusedConfig): TraceSource {
  const path = `the handshake's config (${JSON.stringify(refused.config)})`;
  const name = 'handshake-config';
  const description = `The config the handshake's init was refused at level ${refused.level} (valid: J0, C1).`;
  const wm: LogRecord = { kind: 'watermark', side: 'L', wm: 0 };
  if (refused.level === 'operator')
    return {
      path,
      trace: {
        kind: 'operator',
        trace: { format: OPERATOR_TRACE_FORMAT, name, description, config: refused.config as JoinConfig, steps: [{ record: wm }] },
      },
    };
  const action: ExternalAction = refused.level === 'faults' ? { type: 'crash', node: COORDINATOR } : { type: 'record', record: wm };
  return {
    path,
    trace: {
      kind: 'cluster',
      trace: { format: CLUSTER_TRACE_FORMAT, name, description, config: refused.config as ClusterConfig, steps: [{ action }] },
    },
  };
}

/** A SystemUnderTest as it is, or in-process factories (`implSut`) behind one. */
function systemOf(system: ConformSystem, signal: AbortSignalLike | undefined): SystemUnderTest {
  if ('info' in system && typeof system.info === 'function') return system;
  const factories = system as InProcessSut;
  return inProcessSystem(factories, factories.implementation.name, signal);
}

/** A trace as given: a TraceSource as it is; a trace as loaded, named by its name. */
function traceSourceOf(input: TraceInput): TraceSource {
  if ('path' in input && 'trace' in input) return input;
  if ('kind' in input && 'trace' in input) return { path: input.trace.name, trace: input };
  if (input.format === CLUSTER_TRACE_FORMAT) return { path: input.name, trace: { kind: 'cluster', trace: input as ClusterTrace } };
  if (input.format === OPERATOR_TRACE_FORMAT) return { path: input.name, trace: { kind: 'operator', trace: input as OperatorTrace } };
  throw new TypeError(`runConform: not a trace: format ${JSON.stringify((input as { format?: unknown }).format)}`);
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
function partJob(
  opts: ConformOptions & { readonly system: SystemUnderTest },
  levels: readonly Level[],
  found: PartReport,
  started: number,
  now: { during: string },
): PartJob {
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
