// Harness throughput: traces per second and requests per second
// of four systems under test, side by side in one run on the same traces:
// the reference model and the implementation, each in-process (`--sut
// model`, `--sut impl`) and over the process protocol (`streamjoin serve
// --model`, `streamjoin serve`).
//
//   npm run bench:harness [-- --traces N] [-- --records N] [-- --seed N] [-- --rounds N]
//
// Measurements:
// 1. lockstep: whole random traces through runTrace (the model's
//    expectations on the harness side, the system's replies, the
//    comparison), one trace after another, as `conform` runs random traces;
// 2. system only: the same traces' requests sent to the system, no model on
//    the harness side (what the system and the transport cost);
// 3. exhaustive, pipelined: the interleavings of two bounded-exhaustive
//    scenarios (zombie-after-failover, failover-replay-from-older-checkpoint)
//    with 32 traces in flight, as `conform --exhaustive` runs them: in
//    lockstep, and system only;
// 4. transport: one operator session fed watermarks that change no state,
//    so that the figure is the protocol's own cost per request.
// Every figure is the median of `--rounds` rounds in which the four systems
// take turns, so that all see the same machine load.
import { parseArgs } from 'node:util';
import { parsedFlags } from './support.ts';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { AnyTrace, Level, LogRecord } from '../spec/index.ts';
import { clusterTraceArbitrary } from '../conformance/generate/clusterTraces.ts';
import { operatorTraceArbitrary } from '../conformance/generate/logs.ts';
import { levelOfClusterTrace, runTrace } from '../conformance/lockstep/anyTrace.ts';
import { actionsOf, runClusterLockstepPipelined, type PipelinedTrace } from '../conformance/lockstep/clusterLockstep.ts';
import { coverScenario, observedSteps } from '../conformance/generate/exhaustive.ts';
import { exhaustiveScenario, type ExhaustiveScenario } from '../conformance/generate/clusterScenarios.ts';
import { inProcessSystem } from '../conformance/adapters/inProcess.ts';
import { modelSut } from '../conformance/sut/modelSut.ts';
import { implSut } from '../conformance/adapters/implSut.ts';
import { spawnSystem } from '../conformance/adapters/process.ts';
import type { ClusterStepReply, SystemUnderTest } from '../conformance/sut/sut.ts';

const USAGE = `usage: npm run bench:harness [-- --traces N] [-- --records N] [-- --seed N] [-- --rounds N]`;
const { values } = parsedFlags(USAGE, () =>
  parseArgs({
    options: {
      traces: { type: 'string', default: '300' },
      records: { type: 'string', default: '50000' },
      seed: { type: 'string', default: '42' },
      rounds: { type: 'string', default: '3' },
    },
  }),
);
const traceCount = Number(values.traces);
const recordCount = Number(values.records);
const seed = Number(values.seed);
const ROUNDS = Number(values.rounds);
const WINDOW = 32;
const root = join(import.meta.dirname, '..');

/** Requests a trace costs on the protocol: init, then per step the action (and inspect at cluster levels). */
function requestsOf(t: AnyTrace): number {
  return 1 + (t.kind === 'cluster' ? 2 * t.trace.steps.length : t.trace.steps.length);
}

function tracesAt(level: Level): AnyTrace[] {
  return level === 'operator'
    ? fc.sample(operatorTraceArbitrary(), { seed, numRuns: traceCount }).map((trace) => ({ kind: 'operator', trace }))
    : fc.sample(clusterTraceArbitrary(level), { seed, numRuns: traceCount }).map((trace) => ({ kind: 'cluster', trace }));
}

async function lockstep(system: SystemUnderTest, traces: readonly AnyTrace[], level: Level): Promise<number> {
  const t0 = performance.now();
  for (const t of traces) {
    if (await runTrace(system, t, level)) throw new Error(`${system.label} diverged: the benchmark needs conforming systems`);
  }
  return performance.now() - t0;
}

async function systemOnly(system: SystemUnderTest, traces: readonly AnyTrace[], level: Level): Promise<number> {
  const t0 = performance.now();
  for (const t of traces) {
    if (t.kind === 'cluster') await (await system.openCluster(t.trace.config, level)).steps(actionsOf(t.trace));
    else await (await system.openOperator(t.trace.config)).records(t.trace.steps.map((s) => s.record));
  }
  return performance.now() - t0;
}

/** Exhaustive traces, pipelined and judged as `conform --exhaustive` does. */
async function exhaustiveLockstep(system: SystemUnderTest, traces: readonly PipelinedTrace[]): Promise<number> {
  const t0 = performance.now();
  await runClusterLockstepPipelined(traces, system, {
    window: WINDOW,
    onResult: (r) => {
      if (r.divergence) throw new Error(`${system.label} diverged on ${r.trace.name}: the benchmark needs conforming systems`);
    },
  });
  return performance.now() - t0;
}

/** The same requests pipelined, the replies collected and not judged. */
async function exhaustiveSystemOnly(system: SystemUnderTest, traces: readonly PipelinedTrace[]): Promise<number> {
  const t0 = performance.now();
  const inFlight: Promise<ClusterStepReply[]>[] = [];
  for (const { trace, level, observed } of traces) {
    inFlight.push((await system.openCluster(trace.config, level)).steps(actionsOf(trace), observed));
    if (inFlight.length >= WINDOW) await inFlight.shift();
  }
  await Promise.all(inFlight);
  return performance.now() - t0;
}

async function transport(system: SystemUnderTest): Promise<number> {
  const records: LogRecord[] = Array.from({ length: recordCount }, (_, i) => ({ kind: 'watermark', side: i % 2 === 0 ? 'L' : 'R', wm: i }));
  const session = await system.openOperator({ allowedLateness: 0, maxIntervalLength: 0 });
  const t0 = performance.now();
  await session.records(records);
  return performance.now() - t0;
}

interface Row {
  readonly what: string;
  readonly units: number;
  readonly requests: number;
  /** Milliseconds per system, in SYSTEMS order. */
  readonly ms: readonly number[];
}

const median = (xs: readonly number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;

/** Median of `ROUNDS` timings per system, the systems taking turns in each round. */
async function sideBySide(measure: (system: SystemUnderTest) => Promise<number>, systems: readonly SystemUnderTest[]): Promise<number[]> {
  const times: number[][] = systems.map(() => []);
  for (let i = 0; i < ROUNDS; i++) for (const [k, s] of systems.entries()) times[k]?.push(await measure(s));
  return times.map(median);
}

const names = ['model, in-process', 'impl, in-process', 'model, process', 'impl, process'];
const modelIn = inProcessSystem(modelSut, 'model');
const implIn = inProcessSystem(implSut, 'impl');
const modelProc = spawnSystem('node bin/streamjoin.js serve --model', { cwd: root });
const implProc = spawnSystem('node bin/streamjoin.js serve', { cwd: root });
const SYSTEMS: readonly SystemUnderTest[] = [modelIn, implIn, modelProc, implProc];
const rows: Row[] = [];
const load = loadavg()[0] ?? 0;
try {
  await modelProc.info(); // start-up and handshake, outside the timings
  await implProc.info();
  for (const level of ['operator', 'cluster', 'faults'] as const) {
    const traces = tracesAt(level);
    const requests = traces.reduce((n, t) => n + requestsOf(t), 0);
    // Warm every path (JIT, on both sides of the pipe) with full passes, then measure.
    for (const s of SYSTEMS)
      for (let pass = 0; pass < 3; pass++) await (pass === 0 ? lockstep(s, traces, level) : systemOnly(s, traces, level));
    rows.push({
      what: `lockstep, ${level}`,
      units: traces.length,
      requests,
      ms: await sideBySide((s) => lockstep(s, traces, level), SYSTEMS),
    });
    rows.push({
      what: `system only, ${level}`,
      units: traces.length,
      requests,
      ms: await sideBySide((s) => systemOnly(s, traces, level), SYSTEMS),
    });
  }
  const scenarios = ['zombie-after-failover', 'failover-replay-from-older-checkpoint'].map(
    (n) => exhaustiveScenario(n) as ExhaustiveScenario,
  );
  // As conform --exhaustive sends them: the probes of a state observed once, after the last of them.
  const exhaustive: PipelinedTrace[] = scenarios.flatMap((s) => {
    const cover = coverScenario(s);
    return cover.traces.map((trace, k) => {
      const observed = observedSteps(cover, k);
      return { trace, level: levelOfClusterTrace(trace) as Level, ...(observed ? { observed } : {}) };
    });
  });
  const exRequests = exhaustive.reduce(
    (n, t) => n + 1 + t.trace.steps.length + t.trace.steps.filter((_, i) => t.observed?.(i) ?? true).length,
    0,
  );
  for (const s of SYSTEMS) await exhaustiveLockstep(s, exhaustive);
  rows.push({
    what: 'exhaustive, pipelined lockstep',
    units: exhaustive.length,
    requests: exRequests,
    ms: await sideBySide((s) => exhaustiveLockstep(s, exhaustive), SYSTEMS),
  });
  rows.push({
    what: 'exhaustive, pipelined system only',
    units: exhaustive.length,
    requests: exRequests,
    ms: await sideBySide((s) => exhaustiveSystemOnly(s, exhaustive), SYSTEMS),
  });
  for (const s of SYSTEMS) await transport(s);
  rows.push({ what: 'transport (1 session)', units: 1, requests: recordCount, ms: await sideBySide(transport, SYSTEMS) });
} finally {
  await modelProc.close();
  await implProc.close();
}

const rate = (n: number, ms: number): string => Math.round((n / ms) * 1000).toLocaleString('en-US');
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;
function print(title: string, header: string[], table: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] as string).length)));
  const line = (cells: string[]): string =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join(' | ')} |`;
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(`|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const row of table) console.log(line(row));
}

console.log(
  `streamjoin harness benchmark: seed ${seed}, ${traceCount} random traces per level, ${recordCount} transport ` +
    `requests, median of ${ROUNDS} rounds; node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), ` +
    `load average ${load.toFixed(1)} at the start`,
);
// With ms = [model in, impl in, model proc, impl proc]; a ratio of throughputs is the inverse ratio of times.
const at = (r: Row, k: number): number => r.ms[k] as number;
print(
  'requests per second',
  ['measurement', 'traces', 'requests', ...names, 'impl in / impl process', 'impl / model, in-process', 'impl / model, process'],
  rows.map((r) => [
    r.what,
    String(r.units),
    String(r.requests),
    ...r.ms.map((ms) => rate(r.requests, ms)),
    ratio(at(r, 3), at(r, 1)),
    ratio(at(r, 0), at(r, 1)),
    ratio(at(r, 2), at(r, 3)),
  ]),
);
print(
  'traces per second',
  ['measurement', ...names],
  rows.filter((r) => r.units > 1).map((r) => [r.what, ...r.ms.map((ms) => rate(r.units, ms))]),
);
console.log(
  '\nratios of throughputs measured in the same run: impl in / impl process = in-process req/s over process ' +
    "req/s (the target is >= 10x); impl / model = the implementation's throughput over the model's on the " +
    'same path.',
);
