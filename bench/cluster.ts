// Cluster benchmark: impl/'s ImplCluster (memory and disk backends) against
// model/'s applyExternal, side by side in one run, on the same trace.
//
//   node --import tsx bench/cluster.ts [--seed N] [--quick]
//
// The trace: 8 keys on 4 workers; inserts on random keys and sides with
// overlapping intervals, retractions of earlier rows, watermarks that keep
// state bounded, and every 200 records a whole migration of one key
// (freeze, persist, install, commit, release) plus a periodic checkpoint.
// Every random choice comes from one seed, printed first.
import os from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterAction, ClusterConfig, LogRecord } from '../spec/index.ts';
import { applyExternal, observeCluster } from '../model/cluster/stateMachine.ts';
import { initialClusterState } from '../model/cluster/clusterState.ts';
import { ImplCluster } from '../impl/index.ts';
import { median, ratio, rng, seedAndQuickFlags } from './support.ts';

const { seed, quick } = seedAndQuickFlags();
const REPS = quick ? 1 : 3;

const fmt = (n: number): string => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} k` : n.toFixed(0));

const workers: ClusterConfig['workers'] = ['w1', 'w2', 'w3', 'w4'];
const config: ClusterConfig = {
  join: { allowedLateness: 2, maxIntervalLength: 4 },
  workers,
  keys: Array.from({ length: 8 }, (_, i) => ({ key: `k${i}`, owner: workers[i % workers.length] as string })) as ClusterConfig['keys'],
};

/** `n` external actions, valid in every state the trace reaches. */
function trace(n: number, random: () => number): ClusterAction[] {
  const out: ClusterAction[] = [];
  const rows: LogRecord[] = [];
  const owner = new Map(config.keys.map((k) => [k.key, k.owner]));
  let time = 0;
  let migrations = 0;
  while (out.length < n) {
    const i = out.length;
    if (i % 200 === 199) {
      // A whole migration of one key to the next worker, then a checkpoint of another key at its owner.
      const key = `k${migrations % 8}`;
      const from = owner.get(key) as string;
      const to = workers[(workers.indexOf(from) + 1) % workers.length] as string;
      out.push(
        { type: 'freeze', key, to },
        { type: 'persist', key },
        { type: 'install', key },
        { type: 'commit', key },
        { type: 'release', key },
      );
      owner.set(key, to);
      const other = `k${(migrations + 3) % 8}`;
      out.push({ type: 'checkpoint', worker: owner.get(other) as string, key: other });
      migrations++;
      continue;
    }
    if (i % 25 === 24) {
      time += 2;
      out.push(
        { type: 'record', record: { kind: 'watermark', side: 'L', wm: time - 6 } },
        { type: 'record', record: { kind: 'watermark', side: 'R', wm: time - 6 } },
      );
      continue;
    }
    if (random() < 0.1 && rows.length > 0) {
      const r = rows[Math.floor(random() * rows.length)] as LogRecord;
      out.push({ type: 'record', record: { ...r, kind: 'retract' } as LogRecord });
      continue;
    }
    const start = time + Math.floor(random() * 3);
    const record: LogRecord = {
      kind: 'insert',
      key: `k${Math.floor(random() * 8)}`,
      side: random() < 0.5 ? 'L' : 'R',
      id: `r${i}`,
      ts: start,
      start,
      end: start + Math.floor(random() * 4),
    };
    rows.push(record);
    if (rows.length > 200) rows.shift();
    out.push({ type: 'record', record });
  }
  return out.slice(0, n);
}

interface Run {
  /** Actions per second. */
  readonly rate: number;
  readonly relation: string;
}

function runImpl(actions: readonly ClusterAction[], observeEach: boolean, dataDir?: string): Run {
  const cluster = ImplCluster.open(config, dataDir === undefined ? {} : { dataDir });
  const t0 = performance.now();
  for (const a of actions) {
    const r = cluster.apply(a);
    if ('error' in r) throw new Error(r.error.text);
    if (observeEach) cluster.observe();
  }
  const t = performance.now() - t0;
  const relation = JSON.stringify(cluster.observe().sink.matches);
  cluster.close();
  return { rate: (actions.length / t) * 1000, relation };
}

function runModel(actions: readonly ClusterAction[], observeEach: boolean): Run {
  let state = initialClusterState(config);
  const t0 = performance.now();
  for (const a of actions) {
    state = applyExternal(config, state, a).state;
    if (observeEach) observeCluster(config, state);
  }
  const t = performance.now() - t0;
  return { rate: (actions.length / t) * 1000, relation: JSON.stringify(observeCluster(config, state).sink.matches) };
}

const out = (line: string): void => void process.stdout.write(`${line}\n`);
out(`seed ${seed} (replay: node --import tsx bench/cluster.ts --seed ${seed}${quick ? ' --quick' : ''})`);
out(
  `figures: median of ${REPS} run(s), impl and model interleaved; ${os.cpus().length} cores, Node ${process.version}; load average at start ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
out('');
out('Side by side (the model recomputes its ExactlyOnce ghost over the whole log at every sink write, so it stays small):');
out('');
out('| actions | impl apply+observe/s | model apply+observe/s | ratio | impl on disk apply+observe/s | memory / disk |');
out('|---:|---:|---:|---:|---:|---:|');
// Warm-up: compile both sides' hot paths before anything is timed.
for (let i = 0; i < 3; i++) {
  runImpl(trace(2_000, rng(seed)), true);
  runModel(trace(100, rng(seed)), true);
}
const sizes = quick ? [100, 300] : [100, 300, 600];
for (const n of sizes) {
  const actions = trace(n, rng(seed ^ n));
  const impl: Run[] = [];
  const model: Run[] = [];
  const disk: Run[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    impl.push(runImpl(actions, true));
    model.push(runModel(actions, true));
    const dir = mkdtempSync(join(os.tmpdir(), 'streamjoin-bench-'));
    try {
      disk.push(runImpl(actions, true, dir));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  // Same trace, same result: the figures compare equal work.
  const relations = new Set([...impl, ...model, ...disk].map((r) => r.relation));
  if (relations.size !== 1) throw new Error(`impl and model disagree on the sink at n = ${n}`);
  const m = (runs: Run[]): number => median(runs.map((r) => r.rate));
  out(
    `| ${n.toLocaleString('en')} | ${fmt(m(impl))} | ${fmt(m(model))} | ${ratio(m(impl), m(model))} | ${fmt(m(disk))} | ${ratio(m(impl), m(disk))} |`,
  );
}

out('');
out('impl alone, memory backend, as the trace grows (observe lists every match the sink ever saw, so it grows with them):');
out('');
out('| actions | apply/s | µs per observe at the end | matches in the sink |');
out('|---:|---:|---:|---:|');
for (const n of quick ? [10_000, 50_000] : [10_000, 100_000, 300_000]) {
  const actions = trace(n, rng(seed ^ n));
  const rates: number[] = [];
  const observes: number[] = [];
  let matches = 0;
  for (let rep = 0; rep < REPS; rep++) {
    const cluster = ImplCluster.open(config);
    const t0 = performance.now();
    for (const a of actions) cluster.apply(a);
    rates.push((n / (performance.now() - t0)) * 1000);
    const t1 = performance.now();
    for (let i = 0; i < 20; i++) matches = Object.keys(cluster.observe().sink.matches).length;
    observes.push(((performance.now() - t1) / 20) * 1000);
    cluster.close();
  }
  out(`| ${n.toLocaleString('en')} | ${fmt(median(rates))} | ${median(observes).toFixed(0)} | ${matches.toLocaleString('en')} |`);
}
