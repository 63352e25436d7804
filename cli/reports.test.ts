// Every --json report starts with its header (format, streamjoin version,
// spec version) and matches its schema in spec/schemas/reports/; under
// --json a usage or input error is JSON too. And the progress a long run
// shows: a live line on a terminal, a heartbeat line elsewhere.
import { describe, expect, inject, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemaError } from '../spec/index.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { writeSlidingTrace } from '../conformance/generate/slidingLogs.ts';
import { runCli } from './testSupport.ts';
import { LiveProgress } from './progress.ts';
import { STREAMJOIN_VERSION } from './version.ts';

const seed = String(inject('fcSeed'));
const tmp = useTemporaryDirectories('sj-reports-', 'all');
const root = join(import.meta.dirname, '..');
const zombie = join(root, 'spec', 'examples', 'cluster', 'zombie-fenced.trace.json');

/** Parses a --json report, checks its header and its schema, and returns it. */
function report(stdout: string, kind: string): Record<string, unknown> {
  const doc = JSON.parse(stdout) as Record<string, unknown>;
  expect(doc).toMatchObject({ format: `streamjoin/${kind}@1`, streamjoin: STREAMJOIN_VERSION, spec: '1.1' });
  expect(Object.keys(doc).slice(0, 3)).toEqual(['format', 'streamjoin', 'spec']);
  expect(schemaError(`reports/${kind}`, doc), kind).toBeUndefined();
  return doc;
}

describe('--json reports: the header, and the schema of each', () => {
  it('run, check (whole, decomposed, a shard), check --replay, conform, replay, merge-reports', async () => {
    const out = tmp();
    expect(report((await runCli(['run', '--json'])).stdout, 'run-report')['verdict']).toBe('pass');
    const violated = await runCli(['check', '--preset', 'join-small', '--ablate', 'retract-tombstone', '--out', out, '--json']);
    const check = report(violated.stdout, 'check-report') as {
      parts: { invariants: { name: string; file?: string; replay?: string[] }[] }[];
    };
    const joinCorrect = check.parts[0]?.invariants.find((p) => p.name === 'JoinCorrect');
    expect(joinCorrect?.replay).toEqual(['npx', 'streamjoin', 'check', '--replay', joinCorrect?.file]);
    const small = [
      '--preset',
      'ci',
      ...['records=2', 'failovers=0', 'crashes=0', 'pauses=0', 'duplicates=0', 'checkpoints=0'].flatMap((b) => ['--bound', b]),
    ];
    const parts = report((await runCli(['check', ...small, '--json'])).stdout, 'check-report') as {
      parts: { part: string }[];
      partsTotal: number;
    };
    expect([parts.partsTotal, parts.parts.map((p) => p.part)]).toEqual([2, ['k1', 'k2']]);
    const second = report((await runCli(['check', ...small, '--shard', '2/2', '--json'])).stdout, 'check-report') as typeof parts;
    expect(second.parts.map((p) => p.part)).toEqual(['k2']);
    report((await runCli(['check', '--replay', joinCorrect?.file as string, '--json'])).stdout, 'check-replay-report');
    const conform = await runCli(['conform', '--sut', 'model', '--runs', '3', `--seed=${seed}`, '--json', '--out', out]);
    expect(report(conform.stdout, 'conform-report')['verdict']).toBe('pass');
    const replay = report((await runCli(['replay', zombie, '--sut', 'model', '--json'])).stdout, 'replay-report');
    expect(replay).toMatchObject({ verdict: 'pass', exitCode: 0, file: 'spec/examples/cluster/zombie-fenced.trace.json' });
    // mutants-report: cli/mutants.test.ts checks its schema on the catalogue's run.
    const presets = report((await runCli(['check', '--list', '--json'])).stdout, 'check-presets') as {
      presets: { name: string; bounds: { name: string }[]; ablations: { name: string }[] }[];
    };
    expect(presets.presets.find((p) => p.name === 'ci')?.ablations.map((a) => a.name)).toContain('sink-fence');
    const catalogue = report((await runCli(['mutants', '--list', '--json'])).stdout, 'mutants-catalogue') as {
      mutants: { name: string; regression: string }[];
    };
    expect(catalogue.mutants.map((m) => m.name)).toContain('no-fencing');
    for (const m of catalogue.mutants) expect(readFileSync(join(root, m.regression), 'utf8')).toContain('"format"');
    const file = join(out, 'conform.json');
    writeFileSync(file, conform.stdout);
    report((await runCli(['merge-reports', file, '--json'])).stdout, 'merge-report');
  });

  it('under --json a usage error, a bad input file and an unknown command are a JSON error report on stdout (exit 254), the plain line on stderr', async () => {
    const cases: [string[], string, string][] = [
      [['conform', '--sut', 'model', '--runs', 'many', '--json'], 'SJ105', 'usage'],
      [['run', join(root, 'no-such.trace.json'), '--json'], 'SJ100', join(root, 'no-such.trace.json')],
      [['frobnicate', '--json'], 'SJ105', 'usage'],
      [['merge-reports', zombie, '--json'], 'SJ103', zombie],
    ];
    for (const [argv, code, where] of cases) {
      const r = await runCli(argv);
      expect(r.code, argv.join(' ')).toBe(254);
      const doc = report(r.stdout, 'error-report');
      expect(doc).toMatchObject({ verdict: 'bad-input', exitCode: 254, error: { code, where } });
      expect(r.stderr).toBe(`${(doc['error'] as { text: string }).text}\n`);
    }
    // Without --json, the one line on stderr only.
    const plain = await runCli(['conform', '--sut', 'model', '--runs', 'many']);
    expect([plain.code, plain.stdout]).toEqual([254, '']);
  });

  it('interrupted: run --json reports the traces run and where it stopped (verdict unknown, exit 2); an interrupt before anything is judged is an error report', async () => {
    const dir = tmp();
    const long = join(dir, 'stalled.trace.json');
    writeSlidingTrace(long, { records: 100_000, keys: 4, window: 50, seed: Number(seed) >>> 0, stalled: 'R' });
    const interrupt = new AbortController();
    setTimeout(() => interrupt.abort(new Error('SIGINT')), 150);
    const r = await runCli(['run', join(root, 'spec', 'examples', 'horizon-boundary.trace.json'), long, '--json'], {
      signal: interrupt.signal,
    });
    expect(r.code, r.stdout).toBe(2);
    const doc = report(r.stdout, 'run-report') as {
      verdict: string;
      interrupted: { reason: string; steps: number } | null;
      traces: unknown[];
    };
    expect(doc.verdict).toBe('unknown');
    expect(doc.interrupted?.reason).toBe('SIGINT');
    expect(doc.traces).toHaveLength(2);
    // Interrupted while it reads its input ahead (a FIFO): nothing to report but the interrupt.
    const fifo = join(dir, 'silent.json');
    execFileSync('mkfifo', [fifo]);
    const early = await runCli(['run', fifo, '--json'], { signal: AbortSignal.abort(new Error('SIGTERM')) });
    expect(early.code).toBe(2);
    expect(report(early.stdout, 'error-report')).toMatchObject({ verdict: 'interrupted', exitCode: 2, error: { code: null } });
  });

  it('a report file a shard wrote is read back by merge-reports only if it is a streamjoin report that matches its schema', async () => {
    const dir = tmp();
    const bad = join(dir, 'bad.json');
    const conform = await runCli([
      'conform',
      '--sut',
      'model',
      '--runs',
      '1',
      '--level',
      'operator',
      '--examples',
      'none',
      '--json',
      '--out',
      dir,
    ]);
    const doc = JSON.parse(conform.stdout) as Record<string, unknown>;
    writeFileSync(bad, JSON.stringify({ ...doc, verdict: 'maybe' }));
    const r = await runCli(['merge-reports', bad]);
    expect(r.code).toBe(254);
    expect(r.stderr).toMatch(/bad\.json: SJ102 \/verdict must be one of "pass", "fail", "unknown"/);
    expect(readFileSync(bad, 'utf8')).toContain('maybe');
  });
});

describe('progress of a long run', () => {
  const clock = () => {
    let t = 0;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it('not a terminal (a CI log): a heartbeat line every few seconds naming the part, its progress and the elapsed time; nothing in between', () => {
    let stderr = '';
    const c = clock();
    const live = new LiveProgress({ stdout: () => undefined, stderr: (t) => (stderr += t), interactive: false }, 'streamjoin conform', {
      now: c.now,
      heartbeatMs: 5000,
      timer: false,
    });
    live.part('exhaustive zombie-after-failover');
    live.tick('200/1740 interleavings');
    c.advance(4000);
    live.tick('400/1740 interleavings');
    expect(stderr).toBe('');
    c.advance(1500);
    live.tick('600/1740 interleavings');
    expect(stderr).toBe('streamjoin conform: still running: exhaustive zombie-after-failover: 600/1740 interleavings (5 s)\n');
    c.advance(70_000);
    live.line('pass exhaustive zombie-after-failover');
    live.part('random traces');
    expect(stderr.split('\n').slice(1)).toEqual([
      'pass exhaustive zombie-after-failover',
      'streamjoin conform: still running: random traces (1 min 15 s)',
      '',
    ]);
    live.stop();
  });

  it('the heartbeat of conform, whose part is the command itself, reads as docs/ci.md shows it: the part is not said twice', () => {
    let stderr = '';
    const c = clock();
    const live = new LiveProgress({ stdout: () => undefined, stderr: (t) => (stderr += t), interactive: false }, 'streamjoin conform', {
      now: c.now,
      heartbeatMs: 5000,
      timer: false,
    });
    live.part('conform');
    c.advance(35_000);
    live.tick('exhaustive zombie-after-failover: 1200/1740 interleavings');
    expect(stderr).toBe('streamjoin conform: still running: exhaustive zombie-after-failover: 1200/1740 interleavings (35 s)\n');
    expect(readFileSync(join(import.meta.dirname, '..', 'docs', 'ci.md'), 'utf8').replace(/\s+/g, ' ')).toContain(
      '`streamjoin conform: still running: exhaustive zombie-after-failover: 1200/1740 interleavings (35 s)`',
    );
    live.stop();
  });

  it('a terminal: one live line rewritten in place with the part and the elapsed time, cleared before lines that stay', () => {
    let stderr = '';
    const c = clock();
    const live = new LiveProgress({ stdout: () => undefined, stderr: (t) => (stderr += t), interactive: true }, 'streamjoin check', {
      now: c.now,
    });
    live.part('part k1');
    c.advance(2000);
    live.tick('5 states');
    live.line('done');
    live.stop();
    expect(stderr).toBe('\r\x1b[Kpart k1 (0 s)\r\x1b[Kpart k1: 5 states (2 s)\r\x1b[Kdone\n');
  });
});
