// The bad-bytes suite (SPEC §8): every command that reads a document, given
// bytes no document should hold, answers with exactly one printable line
// that names the file, line and column, exits 254, and writes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { inject } from 'vitest';
import { useTemporaryDirectories, writeFifoWhenRead } from '../conformance/testFixtures.ts';
import { modelCounterexample } from '../conformance/views/counterexampleFixtures.ts';
import { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_DEPTH } from '../spec/documents.ts';
import { runCli } from './testSupport.ts';

const root = join(import.meta.dirname, '..');
const trace = readFileSync(join(root, 'spec', 'examples', 'horizon-boundary.trace.json'), 'utf8');
const tmp = useTemporaryDirectories('sj-bad-bytes-', 'all');

// What may not appear on an error line: controls, format and separator characters, lone surrogates,
// private-use and unassigned code points (spec/errors.ts escapes them all).
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u;

/** The commands that read a document, with the documents of their own kind (for a field named with a newline). */
type Reader = {
  readonly name: string;
  readonly argv: (file: string, out: string) => string[];
  readonly kind: 'trace' | 'config' | 'counterexample';
  /** Reads an operator trace step by step (a trace of any length; each value bounded, SPEC §4). */
  readonly streams?: true;
};
const READERS: readonly Reader[] = [
  { name: 'run', argv: (f) => ['run', f], kind: 'trace', streams: true },
  { name: 'run --write-expected', argv: (f, o) => ['run', f, '--write-expected', join(o, 'expected.json')], kind: 'trace', streams: true },
  { name: 'replay', argv: (f, o) => ['replay', f, '--sut', 'model', '--out', o], kind: 'trace' },
  {
    name: 'replay --write-expected',
    argv: (f, o) => ['replay', f, '--write-expected', join(o, 'expected.json')],
    kind: 'trace',
    streams: true,
  },
  { name: 'check --config', argv: (f) => ['check', '--config', f], kind: 'config' },
  { name: 'check --replay', argv: (f) => ['check', '--replay', f], kind: 'counterexample' },
  { name: 'view', argv: (f) => ['view', f], kind: 'trace' },
  { name: 'explore --load', argv: (f) => ['explore', '--load', f], kind: 'trace' },
  { name: 'explore --config', argv: (f) => ['explore', '--config', f], kind: 'config' },
];

/** A valid document of each kind, as text. */
const valid: Record<Reader['kind'], () => unknown> = {
  trace: () => JSON.parse(trace) as unknown,
  config: () => ({ format: 'streamjoin/check-config@1', preset: 'smoke' }),
  counterexample: () => modelCounterexample(),
};

interface BadFile {
  readonly name: string;
  /** Writes the file into `dir` for a reader of `kind`; returns its path. */
  readonly make: (dir: string, kind: Reader['kind']) => string;
  /** What the error says (beyond the one-line shape). */
  readonly says: RegExp;
  /** What it says to a reader that streams, where that differs. */
  readonly streamedSays?: RegExp;
}

const seed = inject('fcSeed');

const BAD: readonly BadFile[] = [
  { name: 'empty', make: (d) => file(d, 'empty.json', ''), says: /^SJ101 the document is empty/ },
  { name: 'only white space', make: (d) => file(d, 'blank.json', '  \n\t\n'), says: /^SJ101 the document holds only white space/ },
  {
    name: 'binary',
    // Bytes of every kind, NUL and escape sequences included, from the suite's seed.
    make: (d) =>
      file(d, 'binary.json', Buffer.from(fc.sample(fc.uint8Array({ minLength: 512, maxLength: 512 }), { seed, numRuns: 1 })[0] ?? [])),
    says: /^SJ101 /,
  },
  {
    name: 'binary that is UTF-8 (control characters, an escape sequence)',
    make: (d) => file(d, 'controls.json', '\u0007\u0001\u001b[2J\u001b]0;pwned\u0007{}'),
    says: /^SJ101 unexpected U\+0007: expected a JSON value/,
  },
  { name: 'truncated', make: (d) => file(d, 'truncated.json', trace.slice(0, Math.floor(trace.length / 2))), says: /^SJ101 / },
  {
    name: 'not UTF-8 (Latin-1 in a string)',
    make: (d) => file(d, 'latin1.json', Buffer.concat([Buffer.from('{"format":"caf'), Buffer.from([0xe9]), Buffer.from('"}')])),
    says: /^SJ101 byte 0xe9 is not UTF-8/,
  },
  {
    name: 'a field named with a newline and a forged error line',
    make: (d, kind) => {
      const doc = valid[kind]() as Record<string, unknown>;
      doc['x\nusage: SJ105 all is well\u001b[0m'] = 1;
      return file(d, `field-${kind}.json`, JSON.stringify(doc, null, 2));
    },
    says: /^SJ102 .*has unknown property "x\\nusage: SJ105 all is well\\u001b\[0m"/,
  },
  {
    name: 'a value with a newline and a terminal escape where a name is quoted',
    make: (d) => file(d, 'format.json', JSON.stringify({ format: 'streamjoin/\nSJ999 forged\u001b[31m' })),
    says: /^SJ103 .*streamjoin\/\\nSJ999 forged\\u001b\[31m/,
  },
  {
    name: 'a path with a newline in it',
    make: (d) => {
      const dir = join(d, 'dir\nSJ999 forged error');
      mkdirSync(dir, { recursive: true });
      return file(dir, 'x.json', '');
    },
    says: /^SJ101 the document is empty/,
  },
  {
    name: '100,000 levels of nested arrays',
    make: (d) => file(d, 'deep-arrays.json', `${'['.repeat(100_000)}${']'.repeat(100_000)}`),
    says: new RegExp(`^SJ102 arrays and objects nest deeper than ${MAX_DOCUMENT_DEPTH} levels`),
  },
  {
    name: '100,000 levels of nested objects, never closed',
    make: (d) => file(d, 'deep-objects.json', '{"a":'.repeat(100_000)),
    says: /^SJ10[12] /,
  },
  {
    name: 'a 50 MB document',
    make: (d) => {
      const doc = JSON.parse(trace) as Record<string, unknown>;
      doc['description'] = 'x'.repeat(50 * 1024 * 1024);
      return file(d, 'big.json', JSON.stringify(doc));
    },
    says: new RegExp(`^SJ110 the file is larger than ${MAX_DOCUMENT_BYTES / (1024 * 1024)} MiB`),
    // A streamed trace may be longer than a document; no one value of it may.
    streamedSays: new RegExp(`^SJ110 a single value is larger than ${MAX_DOCUMENT_BYTES / (1024 * 1024)} MiB`),
  },
];

function file(dir: string, name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** The line as the file names it: printable (a newline in the path shows as \n). */
const shown = (path: string): string => path.replace(/\n/g, '\\n');

let files: Map<string, string>;

beforeAll(() => {
  // One file per kind of bad bytes and kind of reader, made once: the 50 MB one takes a moment.
  const dir = tmp();
  files = new Map();
  for (const bad of BAD)
    for (const kind of ['trace', 'config', 'counterexample'] as const) files.set(`${bad.name}/${kind}`, bad.make(join(dir), kind));
});

describe('SPEC §8: bad bytes in any document: one printable line with the file, line and column; exit 254; nothing written', () => {
  for (const reader of READERS) {
    for (const bad of BAD) {
      it(`${reader.name}: ${bad.name}`, async () => {
        const path = files.get(`${bad.name}/${reader.kind}`) as string;
        const out = tmp();
        const r = await runCli(reader.argv(path, out));
        expect(r.code).toBe(254);
        expect(r.stdout).toBe('');
        // Exactly one line, ending in a newline; nothing on it that is not plainly printable; bounded.
        expect(r.stderr.endsWith('\n')).toBe(true);
        const line = r.stderr.slice(0, -1);
        expect(line).not.toContain('\n');
        expect(line).not.toMatch(UNPRINTABLE);
        expect(line.length).toBeLessThanOrEqual(700);
        // `file:line:column: SJnnn message`, the file as given.
        const m = /^(.*):(\d+):(\d+): (SJ\d{3} .*)$/.exec(line);
        expect(m, line).not.toBeNull();
        expect(m?.[1]).toBe(shown(path));
        expect(m?.[4]).toMatch((reader.streams && bad.streamedSays) || bad.says);
        // No V8 wording beside our own position.
        expect(line).not.toMatch(/at position \d+|is not valid JSON|Unexpected token/);
        expect(readdirSync(out)).toEqual([]);
        // Nor beside the file (view writes NAME.html there when it can).
        expect(readdirSync(dirname(path)).filter((f) => f.endsWith('.html') || f.endsWith('.tmp'))).toEqual([]);
      });
    }
  }

  it('a byte-order mark before a valid document is no error', async () => {
    const dir = tmp();
    const r = await runCli(['run', file(dir, 'bom.json', `\ufeff${trace}`)]);
    expect(r.code).toBe(0);
    expect(readdirSync(dir)).toEqual(['bom.json']);
  });
});

/** A FIFO at `dir/name` (mkfifo(1): Node makes none). */
function fifo(dir: string, name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}

describe('the same bytes through a FIFO (a pipe the command reads ahead, spec/inputFiles.ts): the same line, naming the FIFO; exit 254', () => {
  // A few kinds, each in the pipe's own way: nothing at all, bytes in one chunk, a document longer than the pipe's buffer.
  const kinds = [
    'empty',
    'binary',
    'not UTF-8 (Latin-1 in a string)',
    'a field named with a newline and a forged error line',
    '100,000 levels of nested arrays',
  ];
  const through = BAD.filter((b) => kinds.includes(b.name));
  expect(through).toHaveLength(kinds.length);
  for (const reader of READERS) {
    for (const bad of through) {
      it(`${reader.name}: ${bad.name}`, async () => {
        const dir = tmp();
        const out = tmp();
        const path = fifo(dir, 'input.json');
        const writing = writeFifoWhenRead(path, readFileSync(files.get(`${bad.name}/${reader.kind}`) as string));
        const r = await runCli(reader.argv(path, out));
        await writing;
        expect(r.code, r.stderr).toBe(254);
        const m = /^(.*):(\d+):(\d+): (SJ\d{3} .*)$/.exec(r.stderr.slice(0, -1));
        expect(m, r.stderr).not.toBeNull();
        expect(m?.[1]).toBe(path);
        expect(m?.[4]).toMatch((reader.streams && bad.streamedSays) || bad.says);
        expect(readdirSync(out)).toEqual([]);
        expect(readdirSync(dir)).toEqual(['input.json']);
      });
    }
  }

  it('a valid trace through a FIFO runs as from a file (run: exit 0)', async () => {
    const dir = tmp();
    const path = fifo(dir, 'trace.json');
    const writing = writeFifoWhenRead(path, trace);
    const r = await runCli(['run', path]);
    await writing;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^pass +horizon-boundary/);
  });

  it('check --config FIFO --max-seconds 1: the budget bounds the whole command, reading its input included (exit 2)', async () => {
    const dir = tmp();
    const path = fifo(dir, 'silent.json');
    const r = await runCli(['check', '--config', path, '--max-seconds', '1']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `streamjoin: interrupted: the time budget (--max-seconds 1) ran out while reading ${path}; nothing was judged (exit 2)\n`,
    );
  });

  for (const reader of READERS) {
    it(`${reader.name}: a FIFO nobody writes is no hang: an interrupt ends the read (exit 2, one line naming it, nothing written)`, async () => {
      const dir = tmp();
      const out = tmp();
      const path = fifo(dir, 'silent.json');
      const interrupt = new AbortController();
      setTimeout(() => interrupt.abort(new Error('SIGINT')), 100);
      const r = await runCli(reader.argv(path, out), { signal: interrupt.signal });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe(`streamjoin: interrupted: SIGINT while reading ${path}; nothing was judged (exit 2)\n`);
      expect(readdirSync(out)).toEqual([]);
      expect(readdirSync(dir)).toEqual(['silent.json']);
    });
  }
});
