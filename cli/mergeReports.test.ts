// Sharding (`--shard K/N`) and `merge-reports`: the N shards of one seed run
// exactly the traces of the unsharded run, each once, and their merged
// report gives the unsharded verdict and counts.
import { describe, expect, inject, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runConform } from '../conformance/job/conform.ts';
import type { ConformOptions, ConformReport } from '../conformance/job/conformTypes.ts';
import { inProcessSystem } from '../conformance/adapters/inProcess.ts';
import { implSut } from '../conformance/adapters/implSut.ts';
import { modelSut } from '../conformance/sut/modelSut.ts';
import { createModelCluster } from '../conformance/sut/modelCluster.ts';
import { coverScenario } from '../conformance/generate/exhaustive.ts';
import { exhaustiveScenario } from '../conformance/generate/clusterScenarios.ts';
import { loadCheckedTrace } from '../conformance/lockstep/traceFiles.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { inShard, shardCount, type Shard } from '../conformance/job/shard.ts';
import { regressionTracePaths, specExamplePaths } from '../conformance/job/traceFilesPart.ts';
import { conformJson, type ConformJson } from './conformReport.ts';
import { mergeRuns } from './mergeReports.ts';
import type { MutantsJson } from './mutants.ts';
import { runCli } from './testSupport.ts';

const seed = Number(inject('fcSeed')) | 0;
const tmp = useTemporaryDirectories('sj-shards-', 'all');

describe('--shard K/N splits deterministically', () => {
  it('item i goes to shard (i mod N) + 1: every item to exactly one shard', () => {
    for (const count of [1, 2, 3, 7]) {
      for (let i = 0; i < 30; i++)
        expect([1, 2, 3, 4, 5, 6, 7].slice(0, count).filter((k) => inShard(i, { index: k, count }))).toHaveLength(1);
      for (const n of [0, 1, 5, 29]) {
        const shards = Array.from({ length: count }, (_, k): Shard => ({ index: k + 1, count }));
        expect(shards.reduce((sum, s) => sum + shardCount(n, s), 0)).toBe(n);
        for (const s of shards) expect(shardCount(n, s)).toBe(Array.from({ length: n }, (_, i) => i).filter((i) => inShard(i, s)).length);
      }
    }
  });
});

describe('conform: the union of the shards is the unsharded run', () => {
  const load = (paths: readonly string[]) => paths.map((path) => ({ path, trace: loadCheckedTrace(path) }));
  const examples = load(specExamplePaths());
  const regressions = load(regressionTracePaths());
  const scenario = exhaustiveScenario('failover-replay-from-older-checkpoint');
  if (!scenario) throw new Error('scenario failover-replay-from-older-checkpoint is gone');
  const covers = [coverScenario(scenario)];

  async function traced(options: Omit<ConformOptions, 'onTrace'>): Promise<{ report: ConformReport; traces: string[] }> {
    const traces: string[] = [];
    const report = await runConform({ ...options, onTrace: (t) => traces.push(`${t.part} ${t.level} ${JSON.stringify(t.trace.trace)}`) });
    return { report, traces };
  }

  it('3 shards run exactly the examples, interleavings and random traces of the unsharded run, each once; merged, the same verdict and counts', async () => {
    const base = { seed, runs: 30, examples, regressions, exhaustive: covers };
    const whole = await traced({ ...base, system: inProcessSystem(implSut, 'impl') });
    const shards = [];
    for (let k = 1; k <= 3; k++)
      shards.push(await traced({ ...base, system: inProcessSystem(implSut, 'impl'), shard: { index: k, count: 3 } }));
    expect(whole.report.verdict).toBe('pass');
    const union = shards.flatMap((s) => s.traces);
    expect(union.length).toBe(whole.traces.length);
    expect([...union].sort()).toEqual([...whole.traces].sort());
    // Every part is split, not only one.
    for (const part of ['example', 'exhaustive', 'random'])
      for (const s of shards) expect(s.traces.filter((t) => t.startsWith(`${part} `)).length, part).toBeGreaterThan(0);

    const wholeJson = conformJson(whole.report, []);
    const [merged] = mergeRuns(shards.map((s, i) => ({ file: `shard${i + 1}.json`, report: conformJson(s.report, []) })));
    const m = merged?.report as ConformJson;
    expect(merged?.missing).toEqual([]);
    expect(m.verdict).toBe(wholeJson.verdict);
    expect(m.examples).toEqual(wholeJson.examples);
    expect(m.exhaustive.map(({ ms: _, ...x }) => x)).toEqual(wholeJson.exhaustive.map(({ ms: _, ...x }) => x));
    expect(m.random.map((r) => [r.level, r.requested, r.runs, r.verdict])).toEqual(
      wholeJson.random.map((r) => [r.level, r.requested, r.runs, r.verdict]),
    );
  });

  it('a wrong system (the model without the install epoch check, C6): unsharded and merged, the same verdict, fail', async () => {
    const wrong = () =>
      inProcessSystem(
        {
          ...modelSut,
          implementation: { name: 'model-without-install-epoch-check', version: '0' },
          cluster: (config) => createModelCluster({ ...config, ablate: ['install-epoch-check'] }),
        },
        'ablated',
      );
    const base = { seed, runs: 300, examples: [], exhaustive: [], levels: ['cluster' as const] };
    const whole = await runConform({ ...base, system: wrong() });
    const shards: ConformReport[] = [];
    for (let k = 1; k <= 2; k++) shards.push(await runConform({ ...base, system: wrong(), shard: { index: k, count: 2 } }));
    const [merged] = mergeRuns(shards.map((s, i) => ({ file: `shard${i + 1}.json`, report: conformJson(s, []) })));
    expect(whole.verdict).toBe('fail');
    expect(merged?.report.verdict).toBe('fail');
  });
});

describe('streamjoin merge-reports', () => {
  const small = [
    '--preset',
    'ci',
    ...['records=2', 'failovers=0', 'crashes=0', 'pauses=0', 'duplicates=0', 'checkpoints=0'].flatMap((b) => ['--bound', b]),
  ];

  it(
    'check shards merge to the unsharded report: the parts in order, one verdict, one JUnit ' +
      'file; a missing shard is unknown (exit 2); the same shard twice is refused (SJ109)',
    async () => {
      const dir = tmp();
      const whole = JSON.parse((await runCli(['check', ...small, '--json'])).stdout) as { verdict: string; parts: { part: string }[] };
      const files: string[] = [];
      for (const k of [1, 2]) {
        const r = await runCli(['check', ...small, '--shard', `${k}/2`, '--json']);
        expect(r.code).toBe(0);
        files.push(join(dir, `check-${k}.json`));
        writeFileSync(files[k - 1] as string, r.stdout);
      }
      const merged = await runCli(['merge-reports', ...files, '--json', '--reporter', `junit=${join(dir, 'merged.xml')}`]);
      expect(merged.code).toBe(0);
      const m = JSON.parse(merged.stdout) as {
        verdict: string;
        runs: { shards: number; missing: number[]; report: { verdict: string; parts: { part: string }[] } }[];
      };
      expect(m.runs).toHaveLength(1);
      expect(m.runs[0]?.report.parts.map((p) => p.part)).toEqual(whole.parts.map((p) => p.part));
      expect([m.verdict, m.runs[0]?.report.verdict]).toEqual([whole.verdict, whole.verdict]);
      const text = await runCli(['merge-reports', ...files]);
      expect(text.stdout).toMatch(
        /^streamjoin check --preset ci, 2 of 2 shards: PASS \(\d+ cases: \d+ passed, 0 failed, 0 unknown, 0 skipped\)$/m,
      );
      expect(text.stdout).toMatch(/\nverdict: pass\n$/);

      const missing = await runCli(['merge-reports', files[1] as string]);
      expect(missing.code).toBe(2);
      expect(missing.stdout).toContain('missing: shard 1/2');
      expect(missing.stdout).toMatch(/verdict: UNKNOWN/);
      const twice = await runCli(['merge-reports', files[0] as string, files[1] as string, files[1] as string]);
      expect(twice.code).toBe(254);
      expect(twice.stderr).toMatch(/check-2\.json: SJ109 shard 2\/2 of this run is also .*check-2\.json/);

      // A shard edited to pass what failed, or the reverse, is refused: its exit code and verdict disagree.
      const shard2 = JSON.parse(readFileSync(files[1] as string, 'utf8')) as Record<string, unknown>;
      const edited = join(dir, 'edited.json');
      for (const [verdict, exitCode] of [
        ['pass', 1],
        ['fail', 0],
        ['unknown', 0],
      ] as const) {
        writeFileSync(edited, JSON.stringify({ ...shard2, verdict, exitCode }));
        const r = await runCli(['merge-reports', files[0] as string, edited]);
        expect({ verdict, code: r.code }).toEqual({ verdict, code: 254 });
        expect(r.stderr).toMatch(new RegExp(`edited\\.json: SJ102 /exitCode: ${exitCode} contradicts /verdict "${verdict}"`));
      }
      // Shards of one run written by two versions are refused: another version may check other things.
      writeFileSync(edited, JSON.stringify({ ...shard2, streamjoin: '0.0.1' }));
      const versions = await runCli(['merge-reports', files[0] as string, edited]);
      expect(versions.code).toBe(254);
      expect(versions.stderr).toMatch(
        /edited\.json: SJ109 written by streamjoin 0\.0\.1 \(spec .*\), but .*check-1\.json, a shard of the same run, by streamjoin /,
      );
    },
  );

  it('--shard and its seed: a shard of random traces needs the seed every shard shares; K/N is checked', async () => {
    const noSeed = await runCli(['conform', '--sut', 'model', '--shard', '1/2'], { env: {} });
    expect(noSeed.code).toBe(254);
    expect(noSeed.stderr).toMatch(/--shard needs the seed every shard shares/);
    for (const bad of ['0/2', '3/2', '1', 'a/b'])
      expect((await runCli(['check', '--preset', 'smoke', '--shard', bad])).stderr, bad).toMatch(/^usage: SJ105 --shard/);
  });
});

describe('merge-reports: mutants shards', () => {
  const header = { format: 'streamjoin/mutants-report@1', streamjoin: '0', spec: '1.1' } as const;
  const row = (name: string, verdict: 'killed' | 'survived' | 'unknown') => ({
    name,
    bugClass: 'b',
    rule: 'C9',
    verdict,
    by: verdict === 'killed' ? ('exhaustive' as const) : null,
    level: null,
    scenario: null,
    example: null,
    steps: null,
    foundAfterMs: null,
    totalMs: 1,
    breaks: null,
    note: null,
    counterexample: null,
    html: null,
    replay: null,
    replayCommand: null,
  });
  const shard = (index: number, mutants: ReturnType<typeof row>[], control: 'pass' | 'fail' = 'pass'): MutantsJson => ({
    ...header,
    verdict: control !== 'pass' ? 'unknown' : mutants.some((m) => m.verdict === 'survived') ? 'fail' : 'pass',
    exitCode: 0,
    seed: 1,
    runs: 10,
    shard: { index, count: 2 },
    control: { verdict: control, ms: 5, note: control === 'pass' ? null : 'diverges' },
    mutants,
  });

  it('the catalogue back in order; a survivor anywhere fails the run; a control that does not pass in any shard leaves it unknown', () => {
    const merged = (a: MutantsJson, b: MutantsJson) =>
      mergeRuns([
        { file: 'a', report: a },
        { file: 'b', report: b },
      ])[0]?.report as MutantsJson;
    const all = merged(shard(1, [row('m1', 'killed'), row('m3', 'killed')]), shard(2, [row('m2', 'killed')]));
    expect([all.verdict, all.mutants.map((m) => m.name), all.shard, all.control.ms]).toEqual(['pass', ['m1', 'm2', 'm3'], null, 10]);
    expect(merged(shard(1, [row('m1', 'killed')]), shard(2, [row('m2', 'survived')])).verdict).toBe('fail');
    expect(merged(shard(1, [row('m1', 'killed')], 'fail'), shard(2, [row('m2', 'killed')])).verdict).toBe('unknown');
  });
});
