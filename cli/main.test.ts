import { describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { CI_PARTS, ciJob, type CiPart } from './main.ts';
import { runCli } from './testSupport.ts';
import { schemaError } from '../spec/index.ts';

const capture = runCli;

const example = join(import.meta.dirname, '..', 'spec', 'examples', 'horizon-boundary.trace.json');
const freshDirectory = useTemporaryDirectories('sj-cli-');

describe('streamjoin run', () => {
  it('exits 0 and prints one line per example trace', async () => {
    const r = await capture(['run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^pass horizon-boundary/m);
    expect(r.stdout).toMatch(/(\d+) of \1 traces met every expectation/);
  });

  it('exits 1 and shows expected versus actual when a step departs', async () => {
    const dir = freshDirectory();
    const trace = JSON.parse(readFileSync(example, 'utf8')) as { steps: { expect: { outcome: { code: string } } }[] };
    (trace.steps[7] as { expect: { outcome: { code: string } } }).expect.outcome.code = 'accepted';
    writeFileSync(join(dir, 't.json'), JSON.stringify(trace));
    const r = await capture(['run', join(dir, 't.json')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('at step 8');
    expect(r.stdout).toContain('outcome expected {"code":"accepted"}');
    expect(r.stdout).toContain('outcome actual   {"code":"late"}');
  });

  it('exits 254 with file, step and field for a malformed trace, and runs none of the files', async () => {
    const dir = freshDirectory();
    const trace = JSON.parse(readFileSync(example, 'utf8')) as { steps: { record: Record<string, unknown> }[] };
    (trace.steps[2] as { record: Record<string, unknown> }).record['side'] = 5;
    writeFileSync(join(dir, 'bad.json'), JSON.stringify(trace));
    const r = await capture(['run', example, join(dir, 'bad.json')]);
    expect(r.code).toBe(254);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^[^\n]*bad\.json:1:\d+: SJ102 step 3: \/steps\/2\/record\/side must be string\n$/);
  });

  it('exits 254 with SJ104 for a trace outside the input contract (J9)', async () => {
    const dir = freshDirectory();
    const row = { kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 5, start: 5, end: 5 };
    const trace = {
      format: 'streamjoin/operator-trace@1',
      name: 'reuse',
      config: { allowedLateness: 0, maxIntervalLength: 0 },
      steps: [
        row,
        { kind: 'watermark', side: 'L', wm: 6 },
        { kind: 'watermark', side: 'R', wm: 6 },
        { ...row, ts: 7, start: 7, end: 7 },
      ].map((record) => ({ record })),
    };
    writeFileSync(join(dir, 'reuse.json'), JSON.stringify(trace));
    const r = await capture(['run', join(dir, 'reuse.json')]);
    expect(r.code).toBe(254);
    expect(r.stderr).toMatch(/reuse\.json:1:\d+: SJ104 step 4: identity \(k, L, a\) is reused/);
  });

  it('--write-expected writes the model observables as expectations, atomically', async () => {
    const dir = freshDirectory();
    const plain = JSON.parse(readFileSync(example, 'utf8')) as { steps: Record<string, unknown>[] };
    for (const s of plain.steps) delete s['expect'];
    writeFileSync(join(dir, 'plain.json'), JSON.stringify(plain));
    const r = await capture(['run', join(dir, 'plain.json'), '--write-expected', join(dir, 'golden.json')]);
    expect(r.code).toBe(0);
    const golden = JSON.parse(readFileSync(join(dir, 'golden.json'), 'utf8')) as { steps: { expect?: unknown }[] };
    const original = JSON.parse(readFileSync(example, 'utf8')) as { steps: { expect: { outcome: unknown; changes: unknown } }[] };
    golden.steps.forEach((s, i) =>
      expect(s.expect).toMatchObject({ outcome: original.steps[i]?.expect.outcome, changes: original.steps[i]?.expect.changes }),
    );
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('rejects unknown flags with exit 254 and writes nothing', async () => {
    const dir = freshDirectory();
    const r = await capture(['run', '--write-expectd', join(dir, 'x.json')]);
    expect(r.code).toBe(254);
    expect(r.stderr).toMatch(/^usage: SJ105 unknown option --write-expectd; did you mean --write-expected\?/);
    expect(existsSync(join(dir, 'x.json'))).toBe(false);
  });
});

describe('bin/streamjoin.js', () => {
  it('runs the CLI (here from the sources, STREAMJOIN_FROM_SOURCE=1) and returns its exit code', () => {
    const bin = join(import.meta.dirname, '..', 'bin', 'streamjoin.js');
    const ok = spawnSync(process.execPath, [bin, 'help'], { encoding: 'utf8', timeout: 60_000 });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('Usage: streamjoin <command>');
    const bad = spawnSync(process.execPath, [bin, 'frobnicate'], { encoding: 'utf8', timeout: 60_000 });
    expect(bad.status).toBe(254);
    expect(bad.stderr).toContain('unknown command "frobnicate"');
  });

  it('a word that names a property of every object (constructor, toString, __proto__) is an unknown command, in help too', async () => {
    for (const word of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      for (const argv of [[word], ['help', word], [word, '--help'], [word, '--json']]) {
        const r = await runCli(argv);
        expect({ argv, code: r.code }).toEqual({ argv, code: 254 });
        expect(r.stderr).toContain(`unknown command "${word}"`);
      }
    }
  });

  it('an end of the process before the command finished is an internal error (255), never the code it came with: a model that calls process.exit(0)', () => {
    const bin = join(import.meta.dirname, '..', 'bin', 'streamjoin.js');
    const dir = freshDirectory();
    const model = join(dir, 'exits.mjs');
    writeFileSync(
      model,
      `export default { name: 'exits', initialStates: () => [0], actions: (s) => (s < 3 ? ['inc'] : []),
        next: (s) => { if (s === 2) process.exit(0); return s + 1; }, encode: String, actionKind: (a) => a, describeAction: (a) => a, invariants: [] };\n`,
    );
    const r = spawnSync(process.execPath, [bin, 'check', '--model', model, '--out', join(dir, 'out')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(255);
    expect(r.stderr).toMatch(
      /streamjoin: internal error: the process ended \(code 0\) before check finished: code it ran called process\.exit/,
    );
    expect(r.stdout).not.toMatch(/PASS/);
    // Under --json the stray end is the one JSON document on stdout: an internal error.
    const json = spawnSync(process.execPath, [bin, 'check', '--model', model, '--json', '--out', join(dir, 'out')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(json.status).toBe(255);
    const doc = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(schemaError('reports/error-report', doc)).toBeUndefined();
    expect(doc).toMatchObject({
      verdict: 'internal-error',
      exitCode: 255,
      error: { code: null, message: expect.stringMatching(/^the process ended \(code 0\) before check finished/) },
    });
  });
});

describe('streamjoin ci (the main job)', () => {
  it('runs the examples, the ci model check, then conform --sut impl --exhaustive', () => {
    expect(CI_PARTS.map((p) => p.title)).toEqual([
      'example traces through the reference model',
      'streamjoin check --preset ci',
      'streamjoin conform --sut impl --exhaustive: the implementation against the model',
    ]);
  });

  it('runs every part whatever the earlier ones returned, and the worst exit code wins', async () => {
    let stdout = '';
    const ran: string[] = [];
    const part = (title: string, code: number): CiPart => ({
      title,
      run: () => {
        ran.push(title);
        return code;
      },
    });
    const out = { stdout: (t: string) => (stdout += t), stderr: () => {}, interactive: false };
    expect(await ciJob(out, [part('a', 0), part('b', 1), part('c', 0)])).toBe(1);
    expect(await ciJob(out, [part('a', 2), part('b', 1)])).toBe(1); // a failure outranks unknown
    expect(await ciJob(out, [part('a', 2), part('b', 0)])).toBe(2);
    expect(await ciJob(out, [part('a', 254), part('b', 1)])).toBe(254);
    expect(await ciJob(out, [part('a', 0)])).toBe(0);
    expect(ran).toEqual(['a', 'b', 'c', 'a', 'b', 'a', 'b', 'a', 'b', 'a']);
    expect(stdout).toContain('== 1. a ==\n');
    expect(stdout).toContain('\n== 3. c ==\n');
    // Each run ends with one verdict line for the whole job.
    const verdicts = stdout.split('\n').filter((l) => l.startsWith('== ci: '));
    expect(verdicts).toEqual([
      '== ci: FAIL (exit 1; part 1: 0, part 2: 1, part 3: 0) ==',
      '== ci: FAIL (exit 1; part 1: 2, part 2: 1) ==',
      '== ci: UNKNOWN (exit 2; part 1: 2, part 2: 0) ==',
      '== ci: ERROR (exit 254; part 1: 254, part 2: 1) ==',
      '== ci: PASS (exit 0; part 1: 0) ==',
    ]);
    expect(stdout.trimEnd().endsWith('== ci: PASS (exit 0; part 1: 0) ==')).toBe(true);
  });
});
