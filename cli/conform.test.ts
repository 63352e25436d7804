import { describe, expect, inject, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { SPEC_VERSION } from '../spec/index.ts';
import { runCli } from './testSupport.ts';
import { serveCommand } from './serve.ts';
import type { Output } from './output.ts';

const root = join(import.meta.dirname, '..');
const seed = String(inject('fcSeed'));
const zombie = join(root, 'spec', 'examples', 'cluster', 'zombie-fenced.trace.json');

const run = runCli;

const tmp = useTemporaryDirectories('sj-conform-', 'all');

describe('streamjoin conform', () => {
  it('--sut model: every example and random traces at every level conform; exit 0; the seed is printed', async () => {
    const out = tmp();
    const r = await run(['conform', '--sut', 'model', `--seed=${seed}`, '--runs', '10', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`seed ${Number(seed) | 0}`);
    expect(r.stdout).toMatch(/examples: (\d+) conform, 0 diverge, 0 skipped/);
    expect(r.stdout).toContain('verdict: conforms');
    expect(readdirSync(out)).toEqual([]);
  });

  it('--sut impl: the built-in implementation, in-process, conforms on every example and random traces at every level; exit 0', async () => {
    const out = tmp();
    const r = await run(['conform', '--sut', 'impl', `--seed=${seed}`, '--runs', '30', '--out', out]);
    expect(r.stdout).toContain(`streamjoin conform: streamjoin-impl ${SPEC_VERSION} (--sut impl)`);
    expect(r.stdout).toContain('verdict: conforms');
    expect(r.code).toBe(0);
    expect(readdirSync(out)).toEqual([]);
  });

  it('--sut "node bin/streamjoin.js serve" --exhaustive: the implementation over the process protocol conforms on every interleaving of two of the five scenarios (zombie-after-failover, failover-replay-from-older-checkpoint: 3,368 interleavings; the full set runs in the mutants test and the main job, in-process), the examples and random traces; exit 0', async () => {
    const out = tmp();
    const r = await run([
      'conform',
      '--sut',
      'node bin/streamjoin.js serve',
      '--exhaustive',
      '--scenario',
      'zombie-after-failover,failover-replay-from-older-checkpoint',
      `--seed=${seed}`,
      '--runs',
      '20',
      '--out',
      out,
    ]);
    expect(r.stdout).toContain(`streamjoin conform: streamjoin-impl ${SPEC_VERSION}`);
    expect(r.stdout).toMatch(
      /^exhaustive zombie-after-failover: 1,740 of 1,740 interleavings \(15,180 steps; 1,740 at faults\), 2,470 transitions of 734 states, pass/m,
    );
    expect(r.stdout).toMatch(/^exhaustive failover-replay-from-older-checkpoint: 1,628 of 1,628 interleavings .* pass/m);
    expect(r.stdout).toMatch(/^coverage: NOT COMPLETE with these scenarios: missing .*crash:src@migrate@frozen/m);
    expect(r.stdout).toContain('verdict: conforms');
    expect(r.code).toBe(0);
    expect(readdirSync(out)).toEqual([]);
  });

  it('a wrong implementation: exit 1, the counterexample and its explanation written, and the printed replay command reproduces it', async () => {
    const out = tmp();
    const sut = 'node --import tsx conformance/testdata/misbehave.ts ablate:install-epoch-check';
    const r = await run([
      'conform',
      '--sut',
      sut,
      '--level',
      'cluster',
      `--seed=${seed}`,
      '--runs',
      '300',
      '--out',
      out,
      '--examples',
      'none',
    ]);
    expect(r.code).toBe(1);
    const files = readdirSync(out).sort();
    expect(files).toEqual([`cluster-seed${Number(seed) | 0}.explain.txt`, `cluster-seed${Number(seed) | 0}.trace.json`]);
    const explanation = readFileSync(join(out, files[0] as string), 'utf8');
    expect(explanation).toContain('C6 (Install)');
    expect(explanation).toContain('Sequence diagram');
    // The stderr shown is that of the counterexample's own run, not the end of the whole run:
    // misbehave logs each request it reads; a run of N steps is an init, then an action and an inspect per step.
    const steps = (JSON.parse(readFileSync(join(out, files[1] as string), 'utf8')) as { steps: unknown[] }).steps.length;
    const logged = [...explanation.matchAll(/^ {2}\| misbehave: request (\d+)$/gm)].map((m) => Number(m[1]));
    expect(logged).toHaveLength(Math.min(20, 1 + 2 * steps));
    expect(logged).toEqual(logged.map((_, i) => (logged[0] as number) + i));
    const replayLine = /replay: {9}streamjoin (replay .*)$/m.exec(r.stdout)?.[1];
    expect(replayLine).toBeDefined();
    // The printed command, as a shell would split it.
    const args = (replayLine as string).match(/'[^']*'|\S+/g)?.map((w) => w.replace(/^'|'$/g, '')) ?? [];
    const replay = await run(args);
    expect(replay.code).toBe(1);
    const step = /Divergence at step (\d+)/.exec(r.stdout)?.[1];
    expect(replay.stdout).toContain(`Divergence at step ${step}`);
    // The same file against the model itself: it conforms.
    expect((await run(['replay', join(out, files[1] as string), '--sut', 'model'])).code).toBe(0);
  });

  it('a dead system: exit 2 (unknown), with the reason and its last stderr lines', async () => {
    const r = await run([
      'conform',
      '--sut',
      'node --import tsx conformance/testdata/misbehave.ts exit 3',
      '--seed',
      '1',
      '--runs',
      '1',
      '--out',
      tmp(),
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/UNKNOWN during .*: dead: the process exited with code 3/);
    expect(r.stdout).toContain('| misbehave: simulated crash');
    expect(r.stdout).toContain('verdict: UNKNOWN');
  });

  it('a system that dies in the middle of the pipelined exhaustive traces: exit 2 (unknown), with the reason; nothing hangs', async () => {
    const sut = 'node --import tsx conformance/testdata/misbehave.ts exit 2000';
    const r = await run([
      'conform',
      '--sut',
      sut,
      '--exhaustive',
      '--scenario',
      'zombie-after-failover',
      '--examples',
      'none',
      '--runs',
      '0',
      '--out',
      tmp(),
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/UNKNOWN during exhaustive scenario zombie-after-failover: dead: the process exited with code 3/);
  });

  it('usage and bad input: exit 254, one line naming what is wrong, nothing run or written', async () => {
    const out = join(tmp(), 'never');
    const cases: [string[], RegExp][] = [
      [['conform', '--runs', '1', '--out', out], /^usage: SJ105 conform needs --sut/],
      [
        ['conform', '--sut', 'model', '--level', 'everything', '--out', out],
        /^usage: SJ105 --level must be one of operator, cluster, faults/,
      ],
      [['conform', '--sut', 'model', '--runs', 'many', '--out', out], /^usage: SJ105 --runs must be a non-negative integer/],
      [['conform', '--sut', 'model', '--path', '3:1', '--out', out], /^usage: SJ105 --path replays a counterexample of one seed/],
      [['conform', '--sut', 'model', '--exhasutive', '--out', out], /^usage: SJ105 Unknown option '--exhasutive'/],
      [
        ['conform', '--sut', 'model', '--scenario', 'zombie-after-failover', '--out', out],
        /^usage: SJ105 --scenario selects exhaustive scenarios: give --exhaustive too/,
      ],
      [
        ['conform', '--sut', 'model', '--exhaustive', '--scenario', 'zombie,nope', '--out', out],
        /^usage: SJ105 --scenario: unknown scenario "zombie", "nope"; the scenarios are migration-under-traffic, /,
      ],
      [['conform', '--sut', 'model', '--out', join(zombie, 'out')], /^usage: SJ105 --out .*zombie-fenced\.trace\.json is not a directory/],
      [['replay', '--sut', 'model'], /^usage: SJ105 replay takes exactly one FILE/],
      [['replay', join(root, 'nope.json'), '--sut', 'model'], /nope\.json: SJ100 no such file/],
    ];
    for (const [argv, message] of cases) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(254);
      expect(r.stderr, argv.join(' ')).toMatch(message);
      expect(r.stdout).toBe('');
    }
    expect(existsSync(out)).toBe(false);
  });
});

describe('streamjoin replay', () => {
  it('an example against the model: "conforms", exit 0; JSON on request', async () => {
    const r = await run(['replay', zombie, '--sut', 'model']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${zombie}: conforms (6 steps at level faults)\n`);
    const j = await run(['replay', zombie, '--sut', 'model', '--json']);
    expect(JSON.parse(j.stdout)).toMatchObject({ verdict: 'pass', level: 'faults', steps: 6, divergence: null });
  });

  it('a trace whose own expectation is wrong: the file disagrees with the model, not the system: exit 254 (SJ111) at the step and field, no system started', async () => {
    const dir = tmp();
    const trace = JSON.parse(readFileSync(zombie, 'utf8')) as { steps: { expect: { observation: { sink: { fenced: number } } } }[] };
    (trace.steps[4] as (typeof trace.steps)[number]).expect.observation.sink.fenced = 0;
    writeFileSync(join(dir, 'z.json'), JSON.stringify(trace, null, 2));
    // A system that would leave a mark if it were started.
    const r = await run(['replay', join(dir, 'z.json'), '--sut', `touch ${join(dir, 'started')}`, '--out', dir]);
    expect(r.code).toBe(254);
    expect(r.stdout).toBe('');
    const m = /^(.*z\.json):(\d+):(\d+): SJ111 (.*)\n$/.exec(r.stderr);
    expect(m?.[1]).toBe(join(dir, 'z.json'));
    expect(m?.[4]).toBe(
      'step 4: the file expects observation /sink/fenced to be 0, the reference model gives 1: the file disagrees with the reference model (rewrite its expectations with --write-expected)',
    );
    // The line and column point at the value the file got wrong.
    const line = readFileSync(join(dir, 'z.json'), 'utf8').split('\n')[Number(m?.[2]) - 1] ?? '';
    expect(line.slice(Number(m?.[3]) - 1 - '"fenced": '.length)).toMatch(/^"fenced": 0\b/);
    expect(readdirSync(dir)).toEqual(['z.json']);
  });

  it("--out DIR: a divergence writes the counterexample (cut at the divergence, with the model's expectations) and its explanation, as conform does", async () => {
    const dir = tmp();
    const sut = 'node --import tsx conformance/testdata/misbehave.ts ablate:sink-fence';
    const r = await run(['replay', zombie, '--sut', sut, '--out', dir, '--startup-timeout', '60000']);
    expect(r.code).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(['zombie-fenced.faults.explain.txt', 'zombie-fenced.faults.trace.json']);
    expect(r.stdout).toContain(`counterexample: ${join(dir, 'zombie-fenced.faults.trace.json')}`);
    const written = JSON.parse(readFileSync(join(dir, 'zombie-fenced.faults.trace.json'), 'utf8')) as { steps: unknown[] };
    const step = Number(/Divergence at step (\d+)/.exec(r.stdout)?.[1]);
    expect(written.steps).toHaveLength(step + 1);
    // The explanation shows this run's stderr: the session's requests (init, then an action and an inspect per step).
    const explanation = readFileSync(join(dir, 'zombie-fenced.faults.explain.txt'), 'utf8');
    expect(explanation).toContain('What the system under test wrote to stderr while this trace ran');
    // The written trace replays against the model (its expectations are the model's).
    expect((await run(['replay', join(dir, 'zombie-fenced.faults.trace.json'), '--sut', 'model'])).code).toBe(0);
    // Refused: --out that would overwrite the file replayed.
    const again = await run(['replay', join(dir, 'zombie-fenced.faults.trace.json'), '--sut', 'model', '--out', dir]);
    expect(again.code).toBe(254);
    expect(again.stderr).toMatch(/^usage: SJ105 --out .*: the counterexample would overwrite/);
  });

  it("--write-expected fills a plain trace with the model's expectations, atomically", async () => {
    const dir = tmp();
    const plain = JSON.parse(readFileSync(zombie, 'utf8')) as { steps: Record<string, unknown>[] };
    for (const s of plain.steps) delete s['expect'];
    writeFileSync(join(dir, 'plain.json'), JSON.stringify(plain));
    const r = await run(['replay', join(dir, 'plain.json'), '--write-expected', join(dir, 'golden.json')]);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'golden.json'), 'utf8'))).toEqual(JSON.parse(readFileSync(zombie, 'utf8')));
    expect(readdirSync(dir).sort()).toEqual(['golden.json', 'plain.json']);
  });
});

describe('streamjoin serve', () => {
  it('answers protocol lines on stdout and ends with exit 0 when stdin ends', async () => {
    const input = new PassThrough();
    let stdout = '';
    const out: Output = { stdout: (t) => (stdout += t), stderr: () => {}, interactive: false };
    const done = serveCommand(['--model'], out, input);
    input.end(
      '{"id":1,"type":"init","protocol":1,"level":"operator","config":{"allowedLateness":0,"maxIntervalLength":0}}\n{"id":2,"type":"inspect"}\n',
    );
    expect(await done).toBe(0);
    const replies = stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(replies.map((r) => [r['in_reply_to'], r['type'], r['code']])).toEqual([
      [1, 'init_ok', undefined],
      [2, 'error', 12],
    ]);
  });

  it('with no flag serves the implementation; --data keeps each session in its own directory under DIR and removes it when the session ends', async () => {
    const data = tmp();
    const input = new PassThrough();
    let stdout = '';
    const out: Output = { stdout: (t) => (stdout += t), stderr: () => {}, interactive: false };
    const done = serveCommand(['--data', data], out, input);
    const init =
      '{"id":1,"type":"init","protocol":1,"level":"faults","config":{"join":{"allowedLateness":0,"maxIntervalLength":0},"workers":["w1","w2"],"keys":[{"key":"k1","owner":"w1"}]}}';
    input.write(`${init}\n{"id":2,"type":"record","record":{"kind":"insert","key":"k1","side":"L","id":"a","ts":1,"start":1,"end":1}}\n`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The session's durable parts are on disk while it runs.
    const sessions = readdirSync(data);
    expect(sessions).toHaveLength(1);
    expect(readdirSync(join(data, sessions[0] as string)).length).toBeGreaterThan(0);
    input.end('{"id":3,"type":"inspect"}\n');
    expect(await done).toBe(0);
    const replies = stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(replies.map((r) => r['type'])).toEqual(['init_ok', 'record_ok', 'inspect_ok']);
    expect(replies[0]?.['implementation']).toEqual({ name: 'streamjoin-impl', version: SPEC_VERSION });
    expect(readdirSync(data)).toEqual([]);
  });

  it('usage: --model with --data, a --data that is not a directory, unknown flags: exit 254', async () => {
    const cases: [string[], RegExp][] = [
      [['serve', '--model', '--data', tmp()], /^usage: SJ105 --data is for the implementation/],
      [['serve', '--data', join(tmp(), 'missing')], /^usage: SJ105 --data .*missing: not an existing directory/],
      [['serve', '--modle'], /^usage: SJ105 Unknown option '--modle'/],
    ];
    for (const [argv, message] of cases) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(254);
      expect(r.stderr, argv.join(' ')).toMatch(message);
    }
  });
});
