// Every place a command writes to, given a place it cannot write (SPEC §8):
// exit 254 with one line that says where and what (SJ105 when the flag is
// refused before the run, SJ113 when the write itself fails), never an
// internal error, never a hang (node's recursive mkdir loops forever under
// /proc), and nothing left half-written. The class by construction: each
// writing flag × each kind of bad place. Then usage the commands took for
// something else (ignored, passed on nothing, or an internal error): ci's
// arguments, help of no command, conform with nothing to check, replay
// --kill of what cannot be killed, view of a page it did not write,
// explore's port, conform --path.
import { execFile } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'streamjoin.js');
const dir = mkdtempSync(join(tmpdir(), 'streamjoin-bad-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const example = join(root, 'spec', 'examples', 'conflicting-redelivery.trace.json');
let places = 0;
/** A scratch directory of its own for one test (they run two at a time): with a directory and a file in it. */
function scratch(): string {
  const at = join(dir, `case-${++places}`);
  mkdirSync(join(at, 'a-directory'), { recursive: true });
  writeFileSync(join(at, 'a-file'), 'x\n');
  return at;
}

/** The CLI in a process of its own, killed after 60 s (a hang is a failure, not a stuck suite). */
function cli(args: readonly string[], cwd: string = dir): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The whole tree under `dir`, to see that nothing was left (temporary files and probes included). */
const tree = (at: string): string[] => readdirSync(at, { recursive: true, encoding: 'utf8' }).sort();

/** Places a file cannot be written: an existing directory, under a file, where nothing can be made (/proc), where one may not write (/sys), a path that names no file. */
const BAD_FILES = ['a-directory', 'a-file/x.json', '/proc/streamjoin-no/x.json', '/sys/streamjoin-no/x.json', 'new-directory/'];
/** Places a directory of files cannot be: a file, under a file, /proc, /sys. */
const BAD_DIRECTORIES = ['a-file', 'a-file/sub', '/proc/streamjoin-no', '/sys/streamjoin-no'];

const FILE_WRITERS: readonly { readonly name: string; readonly args: (path: string) => string[] }[] = [
  { name: 'run --write-expected', args: (p) => ['run', example, '--write-expected', p] },
  { name: 'run --reporter junit=', args: (p) => ['run', example, `--reporter`, `junit=${p}`] },
  { name: 'replay --write-expected', args: (p) => ['replay', example, '--write-expected', p] },
];
const DIRECTORY_WRITERS: readonly { readonly name: string; readonly args: (path: string) => string[] }[] = [
  { name: 'check --out', args: (p) => ['check', '--preset', 'smoke', '--ablate', 'sink-fence', '--stop-at-first', '--out', p] },
  { name: 'audit --example', args: (p) => ['audit', '--example', p, '--records', '20', '--seed', '1'] },
  { name: 'serve --record', args: (p) => ['serve', '--record', p] },
  {
    name: 'conform --out',
    args: (p) => ['conform', '--sut', 'impl', '--runs', '1', '--examples', 'none', '--level', 'operator', '--out', p],
  },
];

function expectRefused(r: { code: number | null; stdout: string; stderr: string }, json: boolean): void {
  expect(r.code, r.stderr).toBe(254);
  expect(r.stderr).toMatch(/^[^\n]+: SJ1(05|13) [^\n]+\n$/);
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  if (json) {
    const documents = r.stdout.trim().split('\n');
    expect(documents).toHaveLength(1);
    expect(JSON.parse(documents[0] as string)).toMatchObject({ format: 'streamjoin/error-report@1', exitCode: 254 });
  }
}

// Two processes at a time (the e2e tier runs its files one after another).
describe.concurrent('SJ113, SJ105: a place a command cannot write is bad input (exit 254), every writer, every kind of place', () => {
  // Each writer's places in one test, in a scratch directory of its own: nothing is left in it but what the test made.
  for (const [w, places] of [
    ...FILE_WRITERS.map((w) => [w, BAD_FILES] as const),
    ...DIRECTORY_WRITERS.map((w) => [w, BAD_DIRECTORIES] as const),
  ])
    it(`${w.name} ${places.join(', ')}: 254, one line, nothing left`, async () => {
      const at = scratch();
      for (const place of places) {
        expectRefused(await cli(w.args(place), at), false);
        expect(tree(at)).toEqual(['a-directory', 'a-file']);
      }
    });
  it('under --json: one document, the error report (not a pass report, then an error)', async () => {
    const at = scratch();
    expectRefused(await cli(['run', example, '--reporter', 'junit=/proc/streamjoin-no/j.xml', '--json'], at), true);
    expectRefused(await cli(['check', '--preset', 'smoke', '--out', 'a-file', '--json'], at), true);
  });
  it('audit --example into a directory where one of its files is a directory: none of its other files is left', async () => {
    const at = scratch();
    mkdirSync(join(at, 'history', 'sink.jsonl'), { recursive: true });
    const r = await cli(['audit', '--example', 'history', '--records', '20', '--seed', '1'], at);
    expectRefused(r, false);
    expect(r.stderr).toMatch(/sink\.jsonl: SJ113/);
    expect(readdirSync(join(at, 'history'))).toEqual(['sink.jsonl']);
  });
});

describe.concurrent('SJ105: usage the commands used to take for something else', () => {
  it('ci takes no arguments: each is refused, never ignored (the job does not start)', async () => {
    for (const args of [['--bogus'], ['extra'], ['--seed', '1'], ['--json', '--bogus']]) {
      const r = await cli(['ci', ...args]);
      expect(r.code, args.join(' ')).toBe(254);
      expect(r.stderr).toMatch(/^usage: SJ105 ci takes no arguments/);
      expect(r.stdout).not.toMatch(/== 1\./);
    }
    expect((await cli(['help', 'help'])).code).toBe(0);
    expect((await cli(['serve', '--record', ''])).stderr).toBe('usage: SJ105 --record : names no directory\n');
    expect(await cli(['help', 'ci'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Usage: streamjoin ci/) });
  });
  it('help of an unknown command, or an unknown command asking for help, is an unknown command', async () => {
    for (const args of [
      ['help', 'bogus'],
      ['bogus', '--help'],
    ]) {
      const r = await cli(args);
      expect(r.code).toBe(254);
      expect(r.stderr).toMatch(/^usage: SJ105 unknown command "bogus"; the commands are .*audit/);
    }
  });
  it('conform with nothing to check, replay --kill of an in-process system or of a command without {data}: refused, not a pass', async () => {
    const nothing = await cli(['conform', '--sut', 'impl', '--runs', '0', '--examples', 'none']);
    expect([nothing.code, nothing.stderr]).toEqual([254, expect.stringMatching(/^usage: SJ105 nothing to check/)]);
    const cluster = join(root, 'spec', 'examples', 'cluster', 'abort-before-fence.trace.json');
    const inProcess = await cli(['replay', cluster, '--sut', 'impl', '--kill']);
    expect([inProcess.code, inProcess.stderr]).toEqual([254, expect.stringMatching(/^usage: SJ105 --kill kills a process/)]);
    const noData = await cli(['replay', cluster, '--kill', '--sut', 'cat']);
    expect([noData.code, noData.stderr]).toEqual([
      254,
      expect.stringMatching(/^usage: SJ105 --kill: the command must name its data directory/),
    ]);
  });
  it('view of an HTML file streamjoin did not write, a directory or a missing file: SJ103, SJ100 with the file as where', async () => {
    const at = scratch();
    writeFileSync(join(at, 'page.html'), '<html><body>not a viewer</body></html>\n');
    mkdirSync(join(at, 'folder.html'));
    const cases: [file: string, line: RegExp][] = [
      ['page.html', /^page\.html: SJ103 not a viewer streamjoin wrote/],
      ['folder.html', /^folder\.html: SJ100 not a file/],
      ['missing.html', /^missing\.html: SJ100 no such file/],
    ];
    for (const [file, line] of cases) {
      const r = await cli(['view', file], at);
      expect([r.code, r.stderr], file).toEqual([254, expect.stringMatching(line)]);
    }
  });
  it('explore --port past 65535, or a port already taken: SJ105, not an internal error', async () => {
    const beyond = await cli(['explore', '--port', '70000']);
    expect([beyond.code, beyond.stderr]).toEqual([254, expect.stringMatching(/^usage: SJ105 --port must be a TCP port/)]);
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const r = await cli(['explore', '--port', String(port)]);
      expect([r.code, r.stderr]).toEqual([254, `usage: SJ105 --port ${port}: already in use\n`]);
    } finally {
      taken.close();
    }
  });
  it('conform --path: not numbers joined by colons, a start past 1,000,000, no --level, or a path of no trace of the seed', async () => {
    const path = (p: string, ...more: string[]) =>
      cli(['conform', '--sut', 'impl', '--seed', '1', '--path', p, '--runs', '2', '--examples', 'none', ...more]);
    for (const p of ['garbage', '1e309', '99999999999999999999', '-1', '1::2', ''])
      expect((await path(p)).stderr, p).toMatch(/^usage: SJ105 --path must be numbers/);
    expect((await path('2000000')).stderr).toMatch(/^usage: SJ105 --path 2000000: its first number .* past 1,000,000/);
    expect((await path('3')).stderr).toMatch(/^usage: SJ105 --path replays a counterexample of one level: give --level too/);
    const empty = await path('0:99999999', '--level', 'operator');
    expect([empty.code, empty.stderr]).toEqual([
      254,
      expect.stringMatching(/--path 0:99999999 is no counterexample of seed 1 at level operator \(it names no trace\)/),
    ]);
    const wrong = await path('0:0:0:0:0:0:0:0:0', '--level', 'operator');
    expect(wrong.code).toBe(254);
    expect(wrong.stderr).toMatch(/usage: SJ105 --path 0:0:0:0:0:0:0:0:0 is no counterexample of seed 1 at level operator/);
  });
});
