// Harness throughput (DESIGN §6): traces per second and requests per second,
// in-process versus over the process protocol (`streamjoin serve --model`),
// measured side by side in one run on the same traces. Phase 2 adds the
// implementation as a third system.
//
//   npm run bench:harness [-- --traces N] [-- --records N] [-- --seed N]
//
// Three measurements:
// 1. lockstep: whole random traces through runClusterLockstep /
//    runOperatorLockstep (the model's expectations, the system's replies,
//    the comparison), as `streamjoin conform` runs them;
// 2. system only: the same traces' requests sent to the system, no model
//    on the harness side (what the system and the transport cost);
// 3. transport: one operator session fed watermarks that change no state,
//    so that the figure is the protocol's own cost per request.
import { parseArgs } from 'node:util';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { AnyTrace, Level, LogRecord } from '../spec/index.ts';
import { clusterTraceArbitrary, operatorTraceArbitrary } from '../conformance/clusterArbitraries.ts';
import { runTrace } from '../conformance/conform.ts';
import { actionsOf } from '../conformance/clusterLockstep.ts';
import { inProcessSystem } from '../conformance/adapters/inProcess.ts';
import { modelSut } from '../conformance/adapters/modelSut.ts';
import { spawnSystem } from '../conformance/adapters/process.ts';
import type { SystemUnderTest } from '../conformance/sut.ts';

const { values } = parseArgs({
  options: {
    traces: { type: 'string', default: '300' },
    records: { type: 'string', default: '50000' },
    seed: { type: 'string', default: '42' },
  },
});
const traceCount = Number(values.traces);
const recordCount = Number(values.records);
const seed = Number(values.seed);
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
  readonly inProcessMs: number;
  readonly processMs: number;
}

const ROUNDS = 3;

/** Median of `ROUNDS` timings, the two systems alternating, so that both see the same machine load. */
async function sideBySide(measure: (system: SystemUnderTest) => Promise<number>, a: SystemUnderTest, b: SystemUnderTest): Promise<[number, number]> {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    ta.push(await measure(a));
    tb.push(await measure(b));
  }
  const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;
  return [median(ta), median(tb)];
}

const inProcess = inProcessSystem(modelSut);
const overProcess = spawnSystem('node bin/streamjoin.js serve --model', { cwd: root });
const rows: Row[] = [];
try {
  await overProcess.info(); // start-up and handshake, outside the timings
  for (const level of ['operator', 'cluster', 'faults'] as const) {
    const traces = tracesAt(level);
    const requests = traces.reduce((n, t) => n + requestsOf(t), 0);
    // Warm both paths (JIT, on both sides of the pipe) with one full pass, then measure.
    await lockstep(inProcess, traces, level);
    await lockstep(overProcess, traces, level);
    const [li, lp] = await sideBySide((s) => lockstep(s, traces, level), inProcess, overProcess);
    rows.push({ what: `lockstep, ${level}`, units: traces.length, requests, inProcessMs: li, processMs: lp });
    const [si, sp] = await sideBySide((s) => systemOnly(s, traces, level), inProcess, overProcess);
    rows.push({ what: `system only, ${level}`, units: traces.length, requests, inProcessMs: si, processMs: sp });
  }
  await transport(inProcess);
  await transport(overProcess);
  const [ti, tp] = await sideBySide(transport, inProcess, overProcess);
  rows.push({ what: 'transport (1 session)', units: 1, requests: recordCount, inProcessMs: ti, processMs: tp });
} finally {
  await overProcess.close();
}

const rate = (n: number, ms: number): string => Math.round((n / ms) * 1000).toLocaleString('en-US');
const header = ['measurement', 'traces', 'requests', 'in-process traces/s', 'in-process req/s', 'process traces/s', 'process req/s', 'process / in-process'];
const table = rows.map((r) => [
  r.what,
  String(r.units),
  String(r.requests),
  r.units > 1 ? rate(r.units, r.inProcessMs) : '-',
  rate(r.requests, r.inProcessMs),
  r.units > 1 ? rate(r.units, r.processMs) : '-',
  rate(r.requests, r.processMs),
  `${(r.inProcessMs / r.processMs).toFixed(2)}x`,
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => (row[i] as string).length)));
const line = (cells: string[]): string => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join(' | ')} |`;
console.log(`streamjoin harness benchmark: seed ${seed}, ${traceCount} random traces per level, ${recordCount} transport requests, median of ${ROUNDS} alternating rounds; node ${process.version}, ${availableParallelism()} cores`);
console.log(line(header));
console.log(`|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
for (const row of table) console.log(line(row));
console.log('process / in-process: the process path\'s throughput as a fraction of the in-process path\'s, in the same run.');
