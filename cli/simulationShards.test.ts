// Swarm simulation across machines: `check --simulate --shard K/N` runs a
// disjoint, reproducible share of a seed's walks, and `merge-reports` makes
// one simulation of the shards (total walks, shortest counterexample, one
// verdict).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaError } from '../spec/index.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { counterModel } from '../model/explorer/examples/toys.ts';
import { shardWalk, walkHere, type WalkShard } from '../model/explorer/simulate.ts';
import { runCli } from './testSupport.ts';

const tmp = useTemporaryDirectories('sj-sim-shards-');

/** The walks (number in the seed, and steps) a shard runs on `threads` threads, `walks` each shard. */
function walksOf(shard: WalkShard, walks: number, threads: number): [number, number][] {
  const model = counterModel({ counters: 3, max: 4 });
  const seen: [number, number][] = [];
  for (let first = 0; first < threads; first++) {
    const loop = walkHere(
      model,
      { seed: 11, walks, depth: 50, shard },
      first,
      threads,
      () => true,
      (r, w) => seen.push([w, r.steps]),
    );
    for (let step = loop.next(); !step.done; step = loop.next()) {
      // run to the end
    }
  }
  return seen.sort((a, b) => a[0] - b[0]);
}

describe('check --simulate --shard K/N: disjoint, reproducible shares of a seed', () => {
  it('shard K runs walks K-1, K-1+N, ...: the shards are disjoint, their union is the unsharded run, on any number of threads', () => {
    for (const count of [1, 2, 3, 5]) {
      const shards = Array.from({ length: count }, (_, k): WalkShard => ({ index: k + 1, count }));
      const runs = shards.map((s) => walksOf(s, 4, 1));
      runs.forEach((walks, k) => {
        expect(walks.every(([w]) => w % count === k)).toBe(true);
        expect(walks.map(([w]) => w)).toEqual([0, 1, 2, 3].map((j) => shardWalk(j, shards[k])));
        // The same walks on two threads, and again: a shard of a seed is always the same walks.
        expect(walksOf(shards[k] as WalkShard, 4, 2)).toEqual(walks);
      });
      const union = runs.flat().sort((a, b) => a[0] - b[0]);
      expect(union.map(([w]) => w)).toEqual(Array.from({ length: 4 * count }, (_, i) => i));
      // Walk w of the seed is the same walk whichever shard runs it.
      expect(union).toEqual(walksOf({ index: 1, count: 1 }, 4 * count, 1));
    }
  });
});

describe('check --simulate on several threads', () => {
  it('this thread and the pool threads claim walks from one counter: --walks N runs each of the N walks once, sharded or not', async () => {
    for (const shard of [[], ['--shard', '2/3']]) {
      const r = await runCli([
        'check',
        '--simulate',
        '--preset',
        'smoke',
        '--seed',
        '5',
        '--walks',
        '6',
        ...shard,
        '--workers',
        '2',
        '--json',
        '--out',
        tmp(),
      ]);
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout) as { parts: { walks: number; workers: number; stoppedBy: string }[] };
      expect(report.parts[0]).toMatchObject({ walks: 6, workers: 2, stoppedBy: 'walks' });
    }
    // A violation found by any walker stops them all, and names a walk of the shard.
    const found = await runCli([
      'check',
      '--simulate',
      '--preset',
      'smoke',
      '--ablate',
      'sink-fence',
      '--seed',
      '1',
      '--walks',
      '300',
      '--shard',
      '1/2',
      '--workers',
      '2',
      '--json',
      '--out',
      tmp(),
    ]);
    expect(found.code).toBe(1);
    const v = (JSON.parse(found.stdout) as { parts: { violation: { walk: number } | null }[] }).parts[0]?.violation;
    expect(v?.walk !== undefined && v.walk % 2 === 0).toBe(true);
  });
});

describe('merge-reports: the shards of a simulation are one simulation', () => {
  const shardRun = async (args: readonly string[], shard: string): Promise<{ code: number; file: string; report: SimReport }> => {
    const dir = tmp();
    const r = await runCli(['check', '--simulate', ...args, '--shard', shard, '--workers', '1', '--json', '--out', dir]);
    const file = join(dir, `shard-${shard.replace('/', '-of-')}.json`);
    writeFileSync(file, r.stdout);
    const report = JSON.parse(r.stdout) as SimReport;
    expect(schemaError('reports/check-report', report)).toBeUndefined();
    return { code: r.code, file, report };
  };

  it('a violation in one shard: the merged run fails with the total walks and the shortest counterexample; its walk is in that shard', async () => {
    const args = ['--preset', 'smoke', '--ablate', 'sink-fence', '--seed', '1', '--walks', '100'];
    const shards = await Promise.all(['1/2', '2/2'].map((k) => shardRun(args, k)));
    shards.forEach((s, k) => {
      expect(s.report.shard).toEqual({ index: k + 1, count: 2 });
      const v = s.report.parts[0]?.violation;
      if (v) expect(v.walk % 2).toBe(k);
    });
    const failing = shards.filter((s) => s.code === 1);
    expect(failing.length).toBeGreaterThan(0);
    const merged = await runCli(['merge-reports', ...shards.map((s) => s.file), '--json']);
    expect(merged.code).toBe(1);
    const doc = JSON.parse(merged.stdout) as { runs: { shards: number; report: SimReport }[] };
    expect(schemaError('reports/merge-report', doc)).toBeUndefined();
    expect(doc.runs).toHaveLength(1);
    const run = doc.runs[0]?.report;
    const part = run?.parts[0];
    expect(run).toMatchObject({ mode: 'simulation', seed: 1, shard: null, verdict: 'fail', exitCode: 1 });
    expect(part?.walks).toBe(shards.reduce((n, s) => n + (s.report.parts[0]?.walks ?? 0), 0));
    // The shortest counterexample of any shard, and the violation that goes with it.
    const lengths = failing.flatMap((s) =>
      (s.report.parts[0]?.invariants ?? []).filter((i) => i.verdict === 'violated').map((i) => i.path?.actions.length ?? 0),
    );
    const fenced = part?.invariants.find((i) => i.name === 'Fenced');
    expect(fenced?.verdict).toBe('violated');
    expect(fenced?.path?.actions.length).toBe(Math.min(...lengths));
    expect(failing.map((s) => s.report.parts[0]?.violation?.walk)).toContain(part?.violation?.walk);
  });

  it('no violation in any shard: the merged run passes (not exhaustive) with every walk counted; a missing shard leaves it unknown', async () => {
    const args = ['--preset', 'smoke', '--seed', '5', '--walks', '2'];
    const shards = await Promise.all(['1/3', '2/3', '3/3'].map((k) => shardRun(args, k)));
    expect(shards.map((s) => s.code)).toEqual([0, 0, 0]);
    const merged = await runCli(['merge-reports', ...shards.map((s) => s.file), '--json']);
    expect(merged.code).toBe(0);
    const doc = JSON.parse(merged.stdout) as { runs: { report: SimReport }[] };
    const part = doc.runs[0]?.report.parts[0];
    expect(part).toMatchObject({ walks: 6, status: 'simulated', verdict: 'pass', violation: null });
    expect(part?.steps).toBe(shards.reduce((n, s) => n + (s.report.parts[0]?.steps ?? 0), 0));
    const partial = await runCli(['merge-reports', (shards[0] as { file: string }).file, (shards[2] as { file: string }).file]);
    expect(partial.code).toBe(2);
    expect(partial.stdout).toMatch(/missing: shard 2\/3/);
    // Another seed is another run: never merged with these.
    const other = await shardRun(['--preset', 'smoke', '--seed', '6', '--walks', '2'], '2/3');
    const mixed = await runCli(['merge-reports', ...shards.map((s) => s.file), other.file, '--json']);
    expect((JSON.parse(mixed.stdout) as { runs: unknown[] }).runs).toHaveLength(2);
  });

  it('the shards share a seed: --shard without --seed (or STREAMJOIN_SEED) is refused', async () => {
    const r = await runCli(['check', '--simulate', '--preset', 'smoke', '--walks', '1', '--shard', '1/2'], { env: {} });
    expect(r.code).toBe(254);
    expect(r.stderr).toMatch(/--shard needs the seed every shard shares/);
    const given = await runCli(
      ['check', '--simulate', '--preset', 'smoke', '--walks', '1', '--shard', '2/2', '--workers', '1', '--out', tmp()],
      {
        env: { STREAMJOIN_SEED: '4' },
      },
    );
    expect(given.code).toBe(0);
    expect(given.stdout).toMatch(/seed 4, shard 2\/2 \(walks 1, 3, \.\.\.\)/);
  });

  it('--walk K names a walk of the whole seed, so it does not go with --shard', async () => {
    const r = await runCli(['check', '--simulate', '--preset', 'smoke', '--seed', '1', '--walk', '3', '--shard', '1/2']);
    expect(r.code).toBe(254);
    expect(r.stderr).toMatch(/--walk K names a walk of the whole seed/);
  });
});

interface SimReport {
  readonly mode: string;
  readonly seed: number;
  readonly shard: { index: number; count: number } | null;
  readonly verdict: string;
  readonly exitCode: number;
  readonly parts: {
    readonly walks: number;
    readonly steps: number;
    readonly status: string;
    readonly verdict: string;
    readonly violation: { walk: number; steps: number } | null;
    readonly invariants: { name: string; verdict: string; path?: { actions: unknown[] } }[];
  }[];
}
