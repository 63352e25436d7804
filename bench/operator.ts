// Operator benchmark: impl/'s JoinOperator against model/'s stepJoin, side by
// side in one run, and impl's interval tree against @flatten-js/interval-tree.
//
//   npm run bench:operator                    # node --expose-gc --import tsx bench/operator.ts
//   npm run bench:operator -- --seed 7 --quick
//
// Prints markdown tables. Every random choice comes from one seed, printed
// first; the same seed gives the same workload.
import os from 'node:os';
import FlattenIntervalTree from '@flatten-js/interval-tree';
import type { JoinConfig, LogRecord } from '../spec/index.ts';
import { stepJoin, type JoinState, type RowState } from '../model/index.ts';
import { JoinOperator } from '../impl/index.ts';
import { IntervalNode, IntervalTree } from '../impl/intervalTree.ts';
import { median, ratio, rng, seedAndQuickFlags } from './support.ts';

const { seed, quick } = seedAndQuickFlags();
const gc = (globalThis as { gc?: () => void }).gc;

const now = (): number => performance.now();
const fmt = (n: number): string =>
  n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} k` : n >= 10 ? n.toFixed(0) : n.toFixed(2);
/** Median of `reps` runs of `f`; impl and model runs are interleaved by the callers, so load on the machine hits both alike. */
const REPS = quick ? 1 : 3;

const WINDOWS = quick ? [100, 1_000, 10_000] : [100, 1_000, 10_000, 100_000];
const OVERLAP = { low: 1, high: 64 } as const;
type Overlap = keyof typeof OVERLAP;
// D covers the high-overlap interval length; L is irrelevant here (no watermarks while measuring).
const config: JoinConfig = { allowedLateness: 0, maxIntervalLength: 64 };

/**
 * The retained window: `w` live L rows of key "k", row i covering
 * [i, i + len - 1], so a point in the window overlaps `len` of them.
 */
function windowRow(i: number, overlap: Overlap): LogRecord {
  const len = OVERLAP[overlap];
  return { kind: 'insert', key: 'k', side: 'L', id: `l${i}`, ts: i, start: i, end: i + len - 1 };
}

/** The measured records: R points inside the window (each overlapping ~len L rows), then their retractions. */
function probes(w: number, count: number, round: number, random: () => number): { inserts: LogRecord[]; retracts: LogRecord[] } {
  const inserts: LogRecord[] = [];
  const retracts: LogRecord[] = [];
  for (let j = 0; j < count; j++) {
    const t = Math.floor(random() * w);
    const row = { key: 'k', side: 'R', id: `r${round}-${j}`, ts: t, start: t, end: t };
    inserts.push({ kind: 'insert', ...row });
    retracts.push({ kind: 'retract', ...row });
  }
  return { inserts, retracts };
}

function filledImpl(w: number, overlap: Overlap): JoinOperator {
  const op = new JoinOperator(config);
  for (let i = 0; i < w; i++) op.apply(windowRow(i, overlap));
  return op;
}

/** The model's state for the same window, built directly (it is plain data) rather than by w O(w) steps. */
function filledModel(w: number, overlap: Overlap): JoinState {
  const rows: RowState[] = [];
  for (let i = 0; i < w; i++) {
    const r = windowRow(i, overlap);
    if (r.kind === 'watermark') continue;
    rows.push({ key: r.key, side: 'L', id: r.id, ts: r.ts, start: r.start, end: r.end, live: true });
  }
  return { wm: { L: null, R: null }, rows, matches: [] };
}

interface Throughput {
  insertsPerSec: number;
  retractsPerSec: number;
  changes: number;
}

/** Something that applies one record and says how many changes it made. */
type Apply = (record: LogRecord) => number;

/**
 * Runs rounds of (inserts, retracts) for at least `minMs` and returns rates.
 * Retracted probes stay as tombstones (J6), so each operator instance takes
 * at most w probes before a fresh, refilled one replaces it (fill not timed):
 * the retained state stays within 2w rows.
 */
function measure(w: number, random: () => number, minMs: number, perRound: number, fresh: () => Apply): Throughput {
  let insertMs = 0;
  let retractMs = 0;
  let n = 0;
  let changes = 0;
  let round = 0;
  while (insertMs + retractMs < minMs) {
    const apply = fresh();
    for (let taken = 0; taken < w && insertMs + retractMs < minMs; taken += perRound, round++) {
      const { inserts, retracts } = probes(w, perRound, round, random);
      let t = now();
      for (const r of inserts) changes += apply(r);
      insertMs += now() - t;
      t = now();
      for (const r of retracts) changes += apply(r);
      retractMs += now() - t;
      n += perRound;
    }
  }
  return { insertsPerSec: (n / insertMs) * 1000, retractsPerSec: (n / retractMs) * 1000, changes: changes / n / 2 };
}

function measureImpl(w: number, overlap: Overlap, random: () => number, minMs: number): Throughput {
  return measure(w, random, minMs, Math.min(1000, w), () => {
    const op = filledImpl(w, overlap);
    return (r) => op.apply(r).changes.length;
  });
}

function measureModel(w: number, overlap: Overlap, random: () => number, minMs: number): Throughput {
  return measure(w, random, minMs, Math.max(5, Math.min(200, Math.floor(200_000 / w))), () => {
    let state = filledModel(w, overlap);
    return (r) => {
      const s = stepJoin(config, state, r);
      state = s.state;
      return s.changes.length;
    };
  });
}

/**
 * Heap bytes per retained row, after a full GC on both sides of the fill.
 * Small windows are filled in several instances (at least 10^5 rows in all)
 * so that the difference is not lost in heap noise.
 */
function bytesPerRow(w: number, fill: () => unknown): number | undefined {
  if (gc === undefined) return undefined;
  const instances = Math.max(1, Math.ceil(100_000 / w));
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const held: unknown[] = [];
  for (let i = 0; i < instances; i++) held.push(fill());
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  if (held.length !== instances) throw new Error('unreachable');
  return (after - before) / (w * instances);
}

/**
 * Eviction: w rows ending at 0..w-1, then watermarks on R (L is already far
 * ahead) in `steps` equal steps until every row is gone; ns per evicted row.
 * steps = w: one row per watermark (a watermark per tick); steps = 100: w/100 rows each.
 */
function evictionImpl(w: number, steps: number): number {
  const op = new JoinOperator(config);
  for (let i = 0; i < w; i++) op.apply(windowRow(i, 'low'));
  op.apply({ kind: 'watermark', side: 'L', wm: 10 * w + 1000 });
  const slack = config.allowedLateness + config.maxIntervalLength;
  const t = now();
  for (let step = 1; step <= steps; step++) op.apply({ kind: 'watermark', side: 'R', wm: Math.floor((w * step) / steps) + slack });
  const ms = now() - t;
  if (op.retained().live !== 0) throw new Error(`eviction left ${op.retained().live} rows`);
  return (ms * 1e6) / w;
}

function evictionModel(w: number, steps: number): number {
  let state = filledModel(w, 'low');
  state = stepJoin(config, state, { kind: 'watermark', side: 'L', wm: 10 * w + 1000 }).state;
  const slack = config.allowedLateness + config.maxIntervalLength;
  const t = now();
  for (let step = 1; step <= steps; step++) {
    state = stepJoin(config, state, { kind: 'watermark', side: 'R', wm: Math.floor((w * step) / steps) + slack }).state;
  }
  const ms = now() - t;
  if (state.rows.length !== 0) throw new Error(`model eviction left ${state.rows.length} rows`);
  return (ms * 1e6) / w;
}

/** Tree micro-benchmark: a sliding window of n intervals; each step inserts one, queries one, removes the oldest. */
class BenchNode extends IntervalNode {}
function treeWorkload(n: number, steps: number, random: () => number): { starts: number[]; lens: number[]; queries: number[] } {
  const starts: number[] = [];
  const lens: number[] = [];
  const queries: number[] = [];
  for (let i = 0; i < n + steps; i++) {
    starts.push(i);
    lens.push(Math.floor(random() * 64));
    queries.push(i - Math.floor(random() * n));
  }
  return { starts, lens, queries };
}

function treeOwn(n: number, steps: number, wl: ReturnType<typeof treeWorkload>): { ms: number; found: number } {
  const tree = new IntervalTree<BenchNode>();
  const nodes: BenchNode[] = [];
  for (let i = 0; i < n; i++) {
    const node = new BenchNode(wl.starts[i] as number, (wl.starts[i] as number) + (wl.lens[i] as number), i);
    nodes.push(node);
    tree.insert(node);
  }
  let found = 0;
  const count = (): void => {
    found++;
  };
  const t = now();
  for (let s = 0; s < steps; s++) {
    const i = n + s;
    const node = new BenchNode(wl.starts[i] as number, (wl.starts[i] as number) + (wl.lens[i] as number), i);
    nodes.push(node);
    tree.insert(node);
    const q = wl.queries[i] as number;
    tree.forEachOverlapping(q, q, count);
    tree.remove(nodes[s] as BenchNode);
  }
  return { ms: now() - t, found };
}

function treeFlatten(n: number, steps: number, wl: ReturnType<typeof treeWorkload>): { ms: number; found: number } {
  const tree = new FlattenIntervalTree<{ i: number }>();
  const values: { i: number }[] = [];
  const key = (i: number): [number, number] => [wl.starts[i] as number, (wl.starts[i] as number) + (wl.lens[i] as number)];
  for (let i = 0; i < n; i++) {
    const v = { i };
    values.push(v);
    tree.insert(key(i), v);
  }
  let found = 0;
  const t = now();
  for (let s = 0; s < steps; s++) {
    const i = n + s;
    const v = { i };
    values.push(v);
    tree.insert(key(i), v);
    const q = wl.queries[i] as number;
    found += tree.search([q, q]).length;
    tree.remove(key(s), values[s]);
  }
  return { ms: now() - t, found };
}

// ---------------------------------------------------------------------------

const lines: string[] = [];
const out = (s = ''): void => {
  lines.push(s);
  console.log(s);
};

out(`# streamjoin operator benchmark`);
out();
out(`seed ${seed} (replay: npm run bench:operator -- --seed ${seed}${quick ? ' --quick' : ''})`);
out(
  `figures: median of ${REPS} run(s), impl and model interleaved; load average at start ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
out(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
);
if (gc === undefined) out('note: run with node --expose-gc for the memory figures');
out();

// Warm both sides up so that the first measured size is not paying for the JIT.
{
  const r = rng(seed ^ 0x5bd1e995);
  measureImpl(1000, 'high', r, 100);
  measureModel(1000, 'high', r, 100);
}

const minMs = quick ? 150 : 400;
out('## Throughput as the retained window per key grows');
out();
out(
  'One key; the window is w live L rows; each measured record is an R point insert overlapping ~1 (low) or ~64 (high) of them, then its retraction.',
);
out();
out(
  '| window w | overlap | changes/record | impl inserts/s | model inserts/s | insert ratio | impl retracts/s | model retracts/s | retract ratio |',
);
out('|---:|---|---:|---:|---:|---:|---:|---:|---:|');
const implInsertNs: Record<Overlap, number[]> = { low: [], high: [] };
for (const overlap of ['low', 'high'] as const) {
  for (const w of WINDOWS) {
    const runs: { a: Throughput; b: Throughput }[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      const s = seed + w + (overlap === 'high' ? 1 : 0) + rep * 7;
      runs.push({ a: measureImpl(w, overlap, rng(s), minMs), b: measureModel(w, overlap, rng(s), minMs) });
    }
    const pick = (f: (r: { a: Throughput; b: Throughput }) => number): number => median(runs.map(f));
    const a: Throughput = {
      insertsPerSec: pick((r) => r.a.insertsPerSec),
      retractsPerSec: pick((r) => r.a.retractsPerSec),
      changes: pick((r) => r.a.changes),
    };
    const b: Throughput = {
      insertsPerSec: pick((r) => r.b.insertsPerSec),
      retractsPerSec: pick((r) => r.b.retractsPerSec),
      changes: pick((r) => r.b.changes),
    };
    implInsertNs[overlap].push(1e9 / a.insertsPerSec);
    if (Math.abs(a.changes - b.changes) > 0.5 + 0.05 * a.changes) throw new Error(`impl and model did different work at w=${w}`);
    out(
      `| ${w.toLocaleString('en')} | ${overlap} | ${a.changes.toFixed(1)} | ${fmt(a.insertsPerSec)} | ${fmt(b.insertsPerSec)} ` +
        `| ${ratio(a.insertsPerSec, b.insertsPerSec)} | ${fmt(a.retractsPerSec)} | ${fmt(b.retractsPerSec)} | ` +
        `${ratio(a.retractsPerSec, b.retractsPerSec)} |`,
    );
  }
}
out();
out("Growth of impl's cost per insert with the window (ideal O(log w + k); linear would be ×1000 from 10^2 to 10^5):");
out();
for (const overlap of ['low', 'high'] as const) {
  const ns = implInsertNs[overlap];
  out(
    `- ${overlap} overlap: ${ns.map((x) => `${x.toFixed(0)} ns`).join(' → ')} (×${((ns.at(-1) as number) / (ns[0] as number)).toFixed(1)} ` +
      `over ×${(WINDOWS.at(-1) ?? 1) / (WINDOWS[0] ?? 1)} rows)`,
  );
}
out();

out('## Memory and eviction');
out();
out(
  '| window w | impl bytes/row | model bytes/row | impl evict ns/row, 1 row per watermark | model, same | ratio | impl evict ns/row, 100 watermarks | model, same | ratio |',
);
out('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
const MODEL_FINE_MAX = 10_000;
// Warm-up, as above: the smallest window would otherwise time the JIT.
evictionImpl(2000, 2000);
evictionModel(2000, 2000);
evictionImpl(2000, 100);
evictionModel(2000, 100);
for (const w of WINDOWS) {
  const bi = bytesPerRow(w, () => filledImpl(w, 'low'));
  const bm = bytesPerRow(w, () => filledModel(w, 'low'));
  const fi: number[] = [];
  const fm: number[] = [];
  const ci: number[] = [];
  const cm: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    fi.push(evictionImpl(w, w));
    // One O(w) filter per watermark makes this w^2 for the model: skipped above MODEL_FINE_MAX.
    if (w <= MODEL_FINE_MAX) fm.push(evictionModel(w, w));
    ci.push(evictionImpl(w, 100));
    cm.push(evictionModel(w, 100));
  }
  const fineImpl = median(fi);
  const fineModel = fm.length === 0 ? undefined : median(fm);
  const coarseImpl = median(ci);
  const coarseModel = median(cm);
  const b = (x: number | undefined): string => (x === undefined ? 'n/a' : x.toFixed(0));
  out(
    `| ${w.toLocaleString('en')} | ${b(bi)} | ${b(bm)} | ${fineImpl.toFixed(0)} | ${fineModel === undefined ? 'skipped' : fineModel.toFixed(0)} ` +
      `| ${fineModel === undefined ? '—' : ratio(fineModel, fineImpl)} | ${coarseImpl.toFixed(0)} | ${coarseModel.toFixed(0)} ` +
      `| ${ratio(coarseModel, coarseImpl)} |`,
  );
}
out();
out(
  `Bytes per row: heap bytes after a full GC, ids included, rows without matches. Eviction: w rows evicted ` +
    `by w watermarks (one row each) or by 100 watermarks (w/100 rows each); the model's one-row-per-watermark ` +
    `run is skipped above ${MODEL_FINE_MAX.toLocaleString('en')} rows (it is quadratic).`,
);
out();

out('## Interval tree: hand-written AVL vs @flatten-js/interval-tree');
out();
out('Sliding window of n intervals (length 0–63); each step inserts one, runs one point query, removes the oldest.');
out();
out('| n | steps | own ops/s | flatten-js ops/s | own / flatten-js |');
out('|---:|---:|---:|---:|---:|');
for (const n of quick ? [1_000, 10_000] : [1_000, 10_000, 100_000]) {
  const steps = quick ? 20_000 : 100_000;
  const wl = treeWorkload(n, steps, rng(seed ^ n));
  treeOwn(n, Math.min(steps, 5000), wl);
  treeFlatten(n, Math.min(steps, 5000), wl);
  const ownRates: number[] = [];
  const libRates: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const own = treeOwn(n, steps, wl);
    const lib = treeFlatten(n, steps, wl);
    if (own.found !== lib.found) throw new Error(`trees disagree at n=${n}: ${own.found} vs ${lib.found} overlaps`);
    ownRates.push((steps / own.ms) * 1000);
    libRates.push((steps / lib.ms) * 1000);
  }
  const ownRate = median(ownRates);
  const libRate = median(libRates);
  out(`| ${n.toLocaleString('en')} | ${steps.toLocaleString('en')} | ${fmt(ownRate)} | ${fmt(libRate)} | ${ratio(ownRate, libRate)} |`);
}
out();
out('Both trees report the same overlaps (checked in the run). One op = insert + query + remove.');
