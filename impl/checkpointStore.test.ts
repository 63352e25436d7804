import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { FileCheckpointStore, MemoryCheckpointStore, CHECKPOINT_FORMAT } from './checkpointStore.ts';
import type { Checkpoint, CheckpointStore, CheckpointWritePoint } from './checkpointStore.ts';
import { CheckpointStoreError } from './errors.ts';
import { JoinOperator } from './operator.ts';

const config = { allowedLateness: 1, maxIntervalLength: 2 };

function checkpointOf(key: string, epoch: number, rows: number): Checkpoint {
  const op = new JoinOperator(config);
  for (let i = 0; i < rows; i++) op.apply({ kind: 'insert', key, side: i % 2 ? 'L' : 'R', id: `r${i}`, ts: i, start: i, end: i + 1 });
  return { key, epoch, cursor: rows, state: op.snapshot() };
}

const directories: string[] = [];
function freshDirectory(): string {
  const d = mkdtempSync(join(tmpdir(), 'streamjoin-ckpt-'));
  directories.push(d);
  return d;
}
afterEach(() => {
  for (const d of directories.splice(0)) rmSync(d, { recursive: true, force: true });
});

const backends: [string, () => CheckpointStore][] = [
  ['memory', () => new MemoryCheckpointStore()],
  ['file', () => FileCheckpointStore.open(freshDirectory())],
];

describe.each(backends)('CheckpointStore contract (%s backend)', (_name, open) => {
  it('returns the latest checkpoint per key and lists keys in code-point order', () => {
    const store = open();
    expect(store.get('a')).toBeUndefined();
    store.put(checkpointOf('b', 1, 2));
    store.put(checkpointOf('a/x', 1, 1));
    store.put(checkpointOf('b', 2, 3));
    expect(store.get('b')).toEqual(checkpointOf('b', 2, 3));
    expect(store.get('a/x')).toEqual(checkpointOf('a/x', 1, 1));
    expect(store.keys()).toEqual(['a/x', 'b']);
    expect(store.problems()).toEqual([]);
    store.close();
  });

  it('stores copies: changing what was put or what was got does not change the store', () => {
    const store = open();
    const c = checkpointOf('k', 1, 3);
    store.put(c);
    c.state.rows.length = 0;
    c.epoch = 99;
    const got = store.get('k') as Checkpoint;
    expect(got).toEqual(checkpointOf('k', 1, 3));
    got.state.rows.length = 0;
    expect(store.get('k')).toEqual(checkpointOf('k', 1, 3));
  });

  it('restores an operator that continues like the original', () => {
    const store = open();
    const op = new JoinOperator(config);
    op.apply({ kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 0, start: 0, end: 2 });
    store.put({ key: 'k', epoch: 1, cursor: 1, state: op.snapshot() });
    const restored = JoinOperator.restore(config, (store.get('k') as Checkpoint).state);
    const next = { kind: 'insert', key: 'k', side: 'R', id: 'b', ts: 1, start: 1, end: 1 } as const;
    expect(restored.apply(next)).toEqual(op.apply(next));
  });

  it('refuses a bad checkpoint with an error naming the key, and keeps the previous one', () => {
    const store = open();
    store.put(checkpointOf('k', 1, 1));
    const bad = { ...checkpointOf('k', 2, 1), epoch: -1 };
    expect(() => store.put(bad)).toThrow(CheckpointStoreError);
    expect(() => store.put(bad)).toThrow(/key "k".*epoch/);
    const badState = checkpointOf('k', 2, 1);
    badState.state.rows.push({ ...(badState.state.rows[0] as Checkpoint['state']['rows'][number]) });
    expect(() => store.put(badState)).toThrow(/bound twice/);
    expect(store.get('k')).toEqual(checkpointOf('k', 1, 1));
  });

  it('refuses every call after close', () => {
    const store = open();
    store.close();
    expect(() => store.get('k')).toThrow(/closed/);
  });
});

describe('FileCheckpointStore durability', () => {
  it('survives reopening, for keys of any characters and length', () => {
    const dir = freshDirectory();
    const keys = ['plain', 'a/b\\c..', '\u{1F600} ключ', 'x'.repeat(500)];
    const store = FileCheckpointStore.open(dir);
    for (const [i, k] of keys.entries()) store.put(checkpointOf(k, i + 1, 2));
    store.close();
    const reopened = FileCheckpointStore.open(dir);
    expect(reopened.problems()).toEqual([]);
    expect(reopened.keys()).toEqual([...keys].sort());
    for (const [i, k] of keys.entries()) expect(reopened.get(k)).toEqual(checkpointOf(k, i + 1, 2));
  });

  it('keeps exactly the newest generation and the one before it', () => {
    const dir = freshDirectory();
    const store = FileCheckpointStore.open(dir);
    for (let epoch = 1; epoch <= 5; epoch++) store.put(checkpointOf('k', epoch, 1));
    expect(readdirSync(dir).sort()).toEqual(['k6b.000000000004.ckpt', 'k6b.000000000005.ckpt']);
  });
});

/** Opens a store over `dir` whose newest file for key `k` has been altered by `damage`. */
function damaged(damage: (bytes: Buffer) => Buffer | string) {
  const dir = freshDirectory();
  const store = FileCheckpointStore.open(dir);
  store.put(checkpointOf('k', 1, 3));
  store.put(checkpointOf('k', 2, 4));
  store.close();
  const newest = join(dir, 'k6b.000000000002.ckpt');
  writeFileSync(newest, damage(readFileSync(newest)));
  return { dir, newest, store: FileCheckpointStore.open(dir) };
}

describe('FileCheckpointStore detects bad checkpoints, reports key and path, and falls back', () => {
  const cases: [string, (b: Buffer) => Buffer | string, string, RegExp][] = [
    ['flipped byte in the body', (b) => Buffer.from(b.map((x, i) => (i === b.length - 20 ? x ^ 0x04 : x))), 'checksum', /SHA-256/],
    ['flipped byte in the header', (b) => Buffer.from(b.map((x, i) => (i === 3 ? x ^ 0x40 : x))), 'malformed', /header/],
    [
      'whitespace added to the header (still valid JSON)',
      (b) => Buffer.from(b.toString('utf8').replace('"key":', '"key": ')),
      'malformed',
      /canonical/,
    ],
    ['truncated file', (b) => b.subarray(0, b.length >> 1), 'truncated', /bytes/],
    ['truncated inside the header', (b) => b.subarray(0, 20), 'truncated', /header/],
    ['empty file', () => Buffer.alloc(0), 'truncated', /empty/],
    ['garbage', () => Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0a, 0x42]), 'malformed', /header/],
    [
      'wrong version',
      (b) => {
        const text = b.toString('utf8');
        return text.replace(CHECKPOINT_FORMAT, 'streamjoin/checkpoint@2');
      },
      'version',
      /checkpoint@2/,
    ],
    [
      'valid checksum over a state that is not a snapshot',
      () => {
        const body = JSON.stringify({ key: 'k', epoch: 2, cursor: 4, state: { config, rows: 'nope' } });
        const sha256 = createHash('sha256').update(body).digest('hex');
        return `${JSON.stringify({ format: CHECKPOINT_FORMAT, key: 'k', generation: 2, bytes: Buffer.byteLength(body), sha256 })}\n${body}`;
      },
      'malformed',
      /state/,
    ],
  ];
  for (const [name, damage, kind, detail] of cases) {
    it(name, () => {
      const { store, newest } = damaged(damage);
      expect(store.get('k')).toEqual(checkpointOf('k', 1, 3));
      const problems = store.problems();
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ kind, key: 'k', path: newest });
      expect(problems[0]?.detail).toMatch(detail);
    });
  }

  it('any change to the bytes of the newest file is detected: never loaded, never a crash, the previous one loads', () => {
    const dir = freshDirectory();
    const seedStore = FileCheckpointStore.open(dir);
    seedStore.put(checkpointOf('k', 1, 3));
    seedStore.put(checkpointOf('k', 2, 4));
    const newest = join(dir, 'k6b.000000000002.ckpt');
    const good = readFileSync(newest);
    // Positions favour the header (the first ~150 bytes), which the checksum does not cover;
    // inserted bytes favour JSON whitespace, which keeps a header parseable.
    const position = fc.oneof(fc.nat({ max: 160 }), fc.nat());
    const edit = fc.oneof(
      fc.record({ flip: position, mask: fc.integer({ min: 1, max: 255 }) }),
      fc.record({ cut: fc.nat() }),
      fc.record({ insertAt: position, byte: fc.oneof(fc.constantFrom(0x20, 0x09, 0x0d, 0x0a), fc.integer({ min: 0, max: 255 })) }),
      fc.record({ garbage: fc.uint8Array({ maxLength: 300 }) }),
    );
    fc.assert(
      fc.property(edit, (e) => {
        let bytes: Buffer;
        if ('flip' in e) bytes = Buffer.from(good.map((x, i) => (i === e.flip % good.length ? x ^ e.mask : x)));
        else if ('cut' in e) bytes = good.subarray(0, e.cut % good.length);
        else if ('insertAt' in e)
          bytes = Buffer.concat([
            good.subarray(0, e.insertAt % good.length),
            Buffer.from([e.byte]),
            good.subarray(e.insertAt % good.length),
          ]);
        else bytes = Buffer.from(e.garbage);
        writeFileSync(newest, bytes);
        const store = FileCheckpointStore.open(dir);
        expect(store.get('k')).toEqual(checkpointOf('k', 1, 3));
        expect(store.problems()).toEqual([expect.objectContaining({ key: 'k', path: newest })]);
      }),
      { numRuns: 150 },
    );
  });

  it('detects damage done after opening, at get', () => {
    const dir = freshDirectory();
    const store = FileCheckpointStore.open(dir);
    store.put(checkpointOf('k', 1, 3));
    store.put(checkpointOf('k', 2, 3));
    const newest = join(dir, 'k6b.000000000002.ckpt');
    writeFileSync(newest, readFileSync(newest).subarray(0, 40));
    expect(store.get('k')?.epoch).toBe(1);
    expect(store.problems()).toEqual([expect.objectContaining({ kind: 'truncated', key: 'k', path: newest })]);
  });

  it('a key whose only checkpoint is bad has none, and is reported', () => {
    const dir = freshDirectory();
    FileCheckpointStore.open(dir).put(checkpointOf('k', 1, 3));
    const only = join(dir, 'k6b.000000000001.ckpt');
    writeFileSync(only, 'garbage');
    const store = FileCheckpointStore.open(dir);
    expect(store.get('k')).toBeUndefined();
    expect(store.keys()).toEqual([]);
    expect(store.problems()).toEqual([expect.objectContaining({ kind: 'malformed', key: 'k', path: only })]);
    // The next put continues after the bad generation and becomes the latest.
    store.put(checkpointOf('k', 2, 1));
    expect(store.get('k')).toEqual(checkpointOf('k', 2, 1));
  });

  it('reports a stray file without loading it', () => {
    const dir = freshDirectory();
    writeFileSync(join(dir, 'notes.txt'), 'hello');
    const store = FileCheckpointStore.open(dir);
    expect(store.keys()).toEqual([]);
    expect(store.problems()).toEqual([expect.objectContaining({ kind: 'malformed', key: undefined, path: join(dir, 'notes.txt') })]);
  });
});

/** Runs the crash child until it reports reaching `point`, then SIGKILLs it. */
function crashChildAt(dir: string, point: CheckpointWritePoint): Promise<string> {
  const script = join(import.meta.dirname, 'checkpointStore.crashChild.ts');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, dir, point], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`crash child did not reach ${point} in time; stdout: ${out}; stderr: ${err}`));
    }, 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(`at ${point}\n`)) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL' && out.includes(`at ${point}\n`)) resolve(out);
      else reject(new Error(`crash child ended with ${String(code ?? signal)}; stdout: ${out}; stderr: ${err}`));
    });
  });
}

describe('FileCheckpointStore recovers after SIGKILL in the middle of a write', () => {
  const crashCheckpoint = (epoch: number): Checkpoint => {
    const op = new JoinOperator(config);
    op.apply({ kind: 'insert', key: 'k/1', side: 'L', id: 'a', ts: 1, start: 0, end: 2 });
    if (epoch === 2) op.apply({ kind: 'insert', key: 'k/1', side: 'R', id: 'b', ts: 1, start: 1, end: 1 });
    return { key: 'k/1', epoch, cursor: epoch, state: op.snapshot() };
  };
  const name = (g: number): string => `k6b2f31.00000000000${g}.ckpt`;

  it('loads the last good checkpoint and reports the torn one (killed with half the file written, and after fsync before rename)', async () => {
    const torn = freshDirectory();
    const unrenamed = freshDirectory();
    const renamed = freshDirectory();
    await Promise.all([crashChildAt(torn, 'tmp-partial'), crashChildAt(unrenamed, 'tmp-synced'), crashChildAt(renamed, 'renamed')]);

    // Half written: the temporary file is torn; the first checkpoint is the latest.
    expect(readdirSync(torn).sort()).toEqual([name(1), `${name(2)}.tmp`]);
    const a = FileCheckpointStore.open(torn);
    expect(a.get('k/1')).toEqual(crashCheckpoint(1));
    expect(a.problems()).toEqual([
      {
        kind: 'incomplete',
        key: 'k/1',
        path: join(torn, `${name(2)}.tmp`),
        detail: expect.stringMatching(/torn: the body has \d+ of \d+ bytes; removed/),
      },
    ]);
    expect(readdirSync(torn)).toEqual([name(1)]);

    // Complete but never renamed: the put never returned, so it is not durable either.
    const b = FileCheckpointStore.open(unrenamed);
    expect(b.get('k/1')).toEqual(crashCheckpoint(1));
    expect(b.problems()).toEqual([
      expect.objectContaining({ kind: 'incomplete', key: 'k/1', detail: expect.stringMatching(/complete; removed/) }),
    ]);

    // Renamed: the new checkpoint is in place; the previous generation is kept.
    const c = FileCheckpointStore.open(renamed);
    expect(c.get('k/1')).toEqual(crashCheckpoint(2));
    expect(c.problems()).toEqual([]);
    expect(readdirSync(renamed).sort()).toEqual([name(1), name(2)]);
  });
});
