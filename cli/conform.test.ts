import { describe, expect, inject, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PassThrough } from 'node:stream';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { PROTOCOL_ERRORS, SPEC_VERSION } from '../spec/index.ts';
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
    // A pass without the exhaustive scenarios says so beside the verdict.
    expect(r.stdout).toMatch(/^exhaustive: not run \(--exhaustive adds the \d+ bounded-exhaustive scenarios/m);
    expect(r.stdout).toContain('verdict: PASS');
    expect(readdirSync(out)).toEqual([]);
  });

  it('--sut impl: the built-in implementation, in-process, conforms on every example and random traces at every level; exit 0', async () => {
    const out = tmp();
    const r = await run(['conform', '--sut', 'impl', `--seed=${seed}`, '--runs', '30', '--out', out]);
    expect(r.stdout).toContain(`streamjoin conform: streamjoin-impl ${SPEC_VERSION} (--sut impl)`);
    expect(r.stdout).toContain('verdict: PASS');
    expect(r.code).toBe(0);
    expect(readdirSync(out)).toEqual([]);
  });

  it('--time-budget bounds the whole command, not only the random traces: a 1 s budget stops --exhaustive there, verdict unknown (exit 2)', async () => {
    const out = tmp();
    const r = await run([
      'conform',
      '--sut',
      'impl',
      '--exhaustive',
      '--runs',
      '100000',
      `--seed=${seed}`,
      '--time-budget',
      '1',
      '--out',
      out,
    ]);
    expect(r.code, r.stdout).toBe(2);
    const during = /UNKNOWN during (example|exhaustive scenario) .*: interrupted: the time budget \(--time-budget 1\) ran out/.exec(
      r.stdout,
    );
    expect(during, r.stdout).not.toBeNull();
    // Stopped in the exhaustive part, or (on a loaded machine) still in the examples before it: then it never ran.
    if (during?.[1] === 'example') expect(r.stdout).toMatch(/exhaustive: not run/);
    else expect(r.stdout).not.toMatch(/exhaustive: not run/);
    expect(r.stdout).toMatch(/verdict: UNKNOWN\n$/);
    expect(readdirSync(out)).toEqual([]);
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
      [
        ['conform', '--sut', 'impl', '--level', 'operator', '--exhaustive', '--scenario', 'colliding-ids', '--out', out],
        /^usage: SJ105 --scenario colliding-ids needs level cluster or faults; --level operator leaves it out/,
      ],
      [['conform', '--sut', 'model', '--path', '3:1', '--out', out], /^usage: SJ105 --path replays a counterexample of one seed/],
      [
        ['conform', '--sut', 'model', '--exhasutive', '--out', out],
        /^usage: SJ105 unknown option --exhasutive; did you mean --exhaustive\?/,
      ],
      [
        ['conform', '--sut', 'model', '--scenario', 'zombie-after-failover', '--out', out],
        /^usage: SJ105 --scenario selects exhaustive scenarios: give --exhaustive too/,
      ],
      [
        ['conform', '--sut', 'model', '--exhaustive', '--scenario', 'zombie,nope', '--out', out],
        /^usage: SJ105 --scenario: unknown scenario "zombie", "nope"; did you mean zombie-after-failover, .*zombie-checkpoint-recovered\? \(streamjoin conform --help lists all \d+\)/,
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
  it('an example against the model: PASS, exit 0; JSON on request (verdict pass)', async () => {
    const r = await run(['replay', zombie, '--sut', 'model']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${relative(process.cwd(), zombie)}: PASS (6 steps at level faults)\n`);
    const j = await run(['replay', zombie, '--sut', 'model', '--json']);
    expect(JSON.parse(j.stdout)).toMatchObject({ verdict: 'pass', level: 'faults', steps: 6, divergence: null });
  });

  it('a trace whose own expectation is wrong: the file disagrees with the model, not the system: exit 254 (SJ111) at the step and field, no system started', async () => {
    const dir = tmp();
    const trace = JSON.parse(readFileSync(zombie, 'utf8')) as { steps: { expect: { observation: { sink: { fenced: number } } } }[] };
    (trace.steps[4] as (typeof trace.steps)[number]).expect.observation.sink.fenced = 0;
    // steps[4] is step 5: steps are counted from 1 in every message.
    writeFileSync(join(dir, 'z.json'), JSON.stringify(trace, null, 2));
    // A system that would leave a mark if it were started.
    const r = await run(['replay', join(dir, 'z.json'), '--sut', `touch ${join(dir, 'started')}`, '--out', dir]);
    expect(r.code).toBe(254);
    expect(r.stdout).toBe('');
    const m = /^(.*z\.json):(\d+):(\d+): SJ111 (.*)\n$/.exec(r.stderr);
    expect(m?.[1]).toBe(join(dir, 'z.json'));
    expect(m?.[4]).toBe(
      'step 5: the file expects observation /sink/fenced to be 0, the reference model gives 1: ' +
        'the file disagrees with the reference model (rewrite its expectations with --write-expected)',
    );
    // The line and column point at the value the file got wrong.
    const line = readFileSync(join(dir, 'z.json'), 'utf8').split('\n')[Number(m?.[2]) - 1] ?? '';
    expect(line.slice(Number(m?.[3]) - 1 - '"fenced": '.length)).toMatch(/^"fenced": 0\b/);
    expect(readdirSync(dir)).toEqual(['z.json']);
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
      '{"id":1,"type":"init","protocol":2,"level":"operator","config":{"allowedLateness":0,"maxIntervalLength":0}}\n{"id":2,"type":"inspect"}\n',
    );
    expect(await done).toBe(0);
    const replies = stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(replies.map((r) => [r['in_reply_to'], r['type'], r['code']])).toEqual([
      [1, 'init_ok', undefined],
      [2, 'error', PROTOCOL_ERRORS.not_supported],
    ]);
  });

  it('with no flag serves the implementation; --data keeps each session in its own directory under DIR and removes it when the session ends', async () => {
    const data = tmp();
    const input = new PassThrough();
    let stdout = '';
    // Resolves when the record is acknowledged: its session's directory exists and the record is durable in it.
    let recordAcknowledged: () => void = () => {};
    const acknowledged = new Promise<void>((resolve) => (recordAcknowledged = resolve));
    const out: Output = {
      stdout: (t) => {
        stdout += t;
        if (stdout.includes('"in_reply_to":2')) recordAcknowledged();
      },
      stderr: () => {},
      interactive: false,
    };
    const done = serveCommand(['--data', data], out, input);
    const init =
      '{"id":1,"type":"init","protocol":2,"level":"faults","config":{"join":{"allowedLateness":0,"maxIntervalLength":0},"workers":["w1","w2"],"keys":[{"key":"k1","owner":"w1"}]}}';
    input.write(`${init}\n{"id":2,"type":"record","record":{"kind":"insert","key":"k1","side":"L","id":"a","ts":1,"start":1,"end":1}}\n`);
    await acknowledged;
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

  it('usage: --model with --data, a --data that is not a directory or not writable, unknown flags: exit 254', async () => {
    const cases: [string[], RegExp][] = [
      [['serve', '--model', '--data', tmp()], /^usage: SJ105 --data is for the implementation/],
      [['serve', '--data', join(tmp(), 'missing')], /^usage: SJ105 --data .*missing: not an existing directory/],
      [['serve', '--modle'], /^usage: SJ105 unknown option --modle; did you mean --model\?/],
      // A directory where no session directory can be made (checked at start, not at the first init): /sys, even for root.
      [
        ['serve', '--data', '/sys'],
        /^usage: SJ105 --data \/sys: cannot create a session directory there \((permission denied|read-only file system)\)\n$/,
      ],
    ];
    for (const [argv, message] of cases) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(254);
      expect(r.stderr, argv.join(' ')).toMatch(message);
    }
  });
});
