// Durable per-key checkpoints (DESIGN §3: the checkpoint store is a durable
// part; the handoff's `persist` step must be durable before `commit`).
//
// One synchronous interface, two backends: in memory (for the explorer and
// fast tests; it stores serialized copies so callers cannot alias stored
// state) and on disk. The cluster calls handoff steps one at a time and a
// crash may fall between any two, so `put` is durable when it returns and
// there are no background writes.
//
// On-disk layout: one directory; per key, files `<name>.<generation>.ckpt`,
// where <name> encodes the key and <generation> counts that key's writes.
// A write goes to `<file>.tmp`, is fsynced, renamed into place, and the
// directory is fsynced (POSIX makes the rename atomic, so a reader sees the
// whole old file or the whole new one). The newest good generation and the
// one before it are kept, so a checkpoint found bad on read falls back to
// the last good one. Each file is a header line and a body:
//
//   {"format":"streamjoin/checkpoint@1","key":"k1","generation":3,"bytes":N,"sha256":"<hex>"}\n
//   {"key":"k1","epoch":2,"cursor":17,"state":{...operator snapshot...}}
//
// A file that is torn, truncated, altered, of another format version or not
// a checkpoint at all is never loaded: it is reported (`problems()`, naming
// the key and the path) and skipped.
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { compareCodePoints } from '../spec/index.ts';
import { CheckpointStoreError, SnapshotError } from './errors.ts';
import type { CheckpointProblem, CheckpointProblemKind } from './errors.ts';
import { readSnapshot } from './snapshot.ts';
import type { OperatorSnapshot } from './snapshot.ts';

export const CHECKPOINT_FORMAT = 'streamjoin/checkpoint@1';
const FORMAT_FAMILY = 'streamjoin/checkpoint@';

/** The durable state of one key (DESIGN §3): epoch, log cursor and operator state. */
export interface Checkpoint {
  key: string;
  epoch: number;
  cursor: number;
  state: OperatorSnapshot;
}

export interface CheckpointStore {
  /** Stores `checkpoint` as the latest of its key; durable when it returns. Throws CheckpointStoreError. */
  put(checkpoint: Checkpoint): void;
  /** The latest good checkpoint of `key` (a fresh copy), or undefined. */
  get(key: string): Checkpoint | undefined;
  /** Keys that have a good checkpoint, in §0 code-point order. */
  keys(): string[];
  /** Bad checkpoints detected since the store was opened, in detection order. */
  problems(): CheckpointProblem[];
  close(): void;
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * Checks a checkpoint's envelope and that its state is a snapshot the
 * operator could restore under the snapshot's own config. Returns a detail
 * string for the first problem, or undefined.
 */
function checkpointProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'checkpoint must be an object';
  const c = value as Record<string, unknown>;
  for (const f of Object.keys(c)) if (!['key', 'epoch', 'cursor', 'state'].includes(f)) return `unknown field "${f}"`;
  if (typeof c['key'] !== 'string' || c['key'] === '') return 'key must be a non-empty string';
  if (!isCount(c['epoch'])) return 'epoch must be a non-negative integer';
  if (!isCount(c['cursor'])) return 'cursor must be a non-negative integer';
  const state = c['state'];
  const config = typeof state === 'object' && state !== null ? (state as Record<string, unknown>)['config'] : undefined;
  if (typeof config !== 'object' || config === null) return 'state must be an operator snapshot with a config';
  try {
    readSnapshot(config as OperatorSnapshot['config'], state);
  } catch (e) {
    if (e instanceof SnapshotError) return `state ${e.message}`;
    throw e;
  }
  return undefined;
}

function checkedForPut(checkpoint: Checkpoint): string {
  const problem = checkpointProblem(checkpoint);
  if (problem !== undefined) {
    const key = typeof checkpoint?.key === 'string' ? checkpoint.key : undefined;
    throw new CheckpointStoreError(`refusing to store a bad checkpoint: ${problem}`, key === undefined ? {} : { key });
  }
  // Serialize in a fixed field order: identical checkpoints give identical bytes.
  return JSON.stringify({ key: checkpoint.key, epoch: checkpoint.epoch, cursor: checkpoint.cursor, state: checkpoint.state });
}

/** In-memory backend: serialized copies, so nothing a caller holds aliases stored state. */
export class MemoryCheckpointStore implements CheckpointStore {
  private readonly stored = new Map<string, string>();
  private closed = false;

  put(checkpoint: Checkpoint): void {
    this.assertOpen();
    this.stored.set(checkpoint.key, checkedForPut(checkpoint));
  }

  get(key: string): Checkpoint | undefined {
    this.assertOpen();
    const text = this.stored.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as Checkpoint);
  }

  keys(): string[] {
    this.assertOpen();
    return [...this.stored.keys()].sort(compareCodePoints);
  }

  problems(): CheckpointProblem[] {
    return [];
  }

  close(): void {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new CheckpointStoreError('the checkpoint store is closed');
  }
}

// Stryker disable all: the on-disk backend is left out of the mutation measurement with fileStorage.ts and
// durableFiles.ts (docs/mutation.md): the harness runs the in-memory backend; this one has its own crash tests.
/**
 * Points inside a file write where a test (or the cluster's crash
 * injection) may stop the process: half the bytes written and not synced;
 * the temporary file complete and fsynced but not renamed; renamed but the
 * directory not yet fsynced.
 */
export type CheckpointWritePoint = 'tmp-partial' | 'tmp-synced' | 'renamed';

export interface FileCheckpointStoreOptions {
  /** Called at each write point with the path being written. */
  readonly onWritePoint?: (point: CheckpointWritePoint, path: string) => void;
}

const FILE_PATTERN = /^([kh][0-9a-f]+)\.(\d{12})\.ckpt(\.tmp)?$/;
const MAX_HEX_NAME = 200;

/** File-name stem of a key: its UTF-8 bytes in hex (`k…`), or a SHA-256 (`h…`) when too long for a name. */
function stemOf(key: string): string {
  const hex = Buffer.from(key, 'utf8').toString('hex');
  return hex.length <= MAX_HEX_NAME ? `k${hex}` : `h${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/** The key a stem names, when the stem is reversible. */
function keyOfStem(stem: string): string | undefined {
  return stem.startsWith('k') ? Buffer.from(stem.slice(1), 'hex').toString('utf8') : undefined;
}

const fileName = (stem: string, generation: number): string => `${stem}.${String(generation).padStart(12, '0')}.ckpt`;

/** The header line of a checkpoint file, without its newline. */
function headerLine(key: string, generation: number, bytes: number, sha256: string): string {
  return JSON.stringify({ format: CHECKPOINT_FORMAT, key, generation, bytes, sha256 });
}

type Verified =
  | { readonly ok: true; readonly checkpoint: Checkpoint }
  | { readonly ok: false; readonly kind: CheckpointProblemKind; readonly detail: string; readonly key: string | undefined };

/**
 * Checks one checkpoint file's bytes; `stem` and `generation` come from the
 * name it was found under. Every header field is checked against the name
 * or the body, so no change to any byte goes unnoticed.
 */
function verifyCheckpointBytes(bytes: Buffer, stem: string, generation: number): Verified {
  let key = keyOfStem(stem);
  const bad = (kind: CheckpointProblemKind, detail: string): Verified => ({ ok: false, kind, detail, key });
  if (bytes.length === 0) return bad('truncated', 'the file is empty');
  const newline = bytes.indexOf(10);
  if (newline < 0) {
    // A cut-off header still begins like one (or is a beginning of one).
    const expected = `{"format":"${FORMAT_FAMILY}`;
    const prefix = bytes.subarray(0, Math.min(bytes.length, expected.length)).toString('utf8');
    return expected.startsWith(prefix)
      ? bad('truncated', 'the file ends inside its header')
      : bad('malformed', 'not a checkpoint file (no header line)');
  }
  let header: Record<string, unknown>;
  try {
    const parsed = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return bad('malformed', 'the header is not a JSON object');
    header = parsed as Record<string, unknown>;
  } catch {
    return bad('malformed', 'the header is not JSON');
  }
  const format = header['format'];
  if (typeof format === 'string' && format.startsWith(FORMAT_FAMILY) && format !== CHECKPOINT_FORMAT) {
    return bad('version', `format ${JSON.stringify(format)} is not ${JSON.stringify(CHECKPOINT_FORMAT)}, which this version reads`);
  }
  if (format !== CHECKPOINT_FORMAT) return bad('malformed', 'the header has no checkpoint format');
  if (typeof header['key'] === 'string') {
    if (stemOf(header['key']) !== stem)
      return bad('malformed', `the header names key ${JSON.stringify(header['key'])}, not the key of the file name`);
    key = header['key'];
  }
  if (typeof header['key'] !== 'string') return bad('malformed', 'the header has no key');
  if (header['generation'] !== generation)
    return bad('malformed', `the header says generation ${JSON.stringify(header['generation'])}, the file name ${generation}`);
  const length = header['bytes'];
  const digest = header['sha256'];
  if (!isCount(length) || typeof digest !== 'string') return bad('malformed', 'the header lacks bytes or sha256');
  if (Object.keys(header).length !== 5) return bad('malformed', 'the header has unknown fields');
  // The header is not covered by the checksum, so it must be exactly the line put writes
  // (no added whitespace, no reordered fields): then no change to it goes unnoticed.
  if (bytes.subarray(0, newline).toString('utf8') !== headerLine(header['key'], generation, length, digest)) {
    return bad('malformed', 'the header is not in canonical form');
  }
  const body = bytes.subarray(newline + 1);
  if (body.length < length) return bad('truncated', `the body has ${body.length} of ${length} bytes`);
  if (body.length > length) return bad('malformed', `${body.length - length} bytes follow the body`);
  if (createHash('sha256').update(body).digest('hex') !== digest) return bad('checksum', 'the body does not match its SHA-256');
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return bad('malformed', 'the body is not JSON');
  }
  const problem = checkpointProblem(value);
  if (problem !== undefined) return bad('malformed', problem);
  const checkpoint = value as Checkpoint;
  if (key !== undefined && checkpoint.key !== key) return bad('malformed', `the body is for key ${JSON.stringify(checkpoint.key)}`);
  return { ok: true, checkpoint };
}

interface KeyFiles {
  readonly stem: string;
  /** Every committed generation present, ascending. */
  generations: number[];
  /** Newest generation known to verify, if any. */
  good: number | undefined;
  key: string | undefined;
}

/** On-disk backend. One process owns a directory at a time. */
export class FileCheckpointStore implements CheckpointStore {
  readonly directory: string;
  private readonly onWritePoint: ((point: CheckpointWritePoint, path: string) => void) | undefined;
  private readonly byStem = new Map<string, KeyFiles>();
  private readonly found: CheckpointProblem[] = [];
  private closed = false;

  private constructor(directory: string, options: FileCheckpointStoreOptions) {
    this.directory = directory;
    this.onWritePoint = options.onWritePoint;
  }

  /**
   * Opens (creating if needed) the store in `directory` and recovers: every
   * left-over temporary file is reported and removed, every key's newest
   * generation is verified, falling back generation by generation, and every
   * bad file is reported in `problems()`.
   */
  static open(directory: string, options: FileCheckpointStoreOptions = {}): FileCheckpointStore {
    const store = new FileCheckpointStore(directory, options);
    try {
      mkdirSync(directory, { recursive: true });
    } catch (e) {
      throw new CheckpointStoreError(`cannot create the store directory (${errnoOf(e)})`, { path: directory });
    }
    store.recover();
    return store;
  }

  put(checkpoint: Checkpoint): void {
    this.assertOpen();
    const body = Buffer.from(checkedForPut(checkpoint), 'utf8');
    const key = checkpoint.key;
    const stem = stemOf(key);
    const files = this.byStem.get(stem) ?? { stem, generations: [], good: undefined, key };
    const generation = (files.generations.at(-1) ?? 0) + 1;
    const header = headerLine(key, generation, body.length, createHash('sha256').update(body).digest('hex'));
    const bytes = Buffer.concat([Buffer.from(`${header}\n`, 'utf8'), body]);
    const path = join(this.directory, fileName(stem, generation));
    const tmp = `${path}.tmp`;
    try {
      const fd = openSync(tmp, 'w');
      try {
        // Two writes, so that "half written" is a real state a crash can leave.
        const half = bytes.length >> 1;
        writeFully(fd, bytes.subarray(0, half));
        this.onWritePoint?.('tmp-partial', tmp);
        writeFully(fd, bytes.subarray(half));
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      this.onWritePoint?.('tmp-synced', tmp);
      renameSync(tmp, path);
      this.onWritePoint?.('renamed', path);
      this.syncDirectory();
    } catch (e) {
      if (e instanceof CheckpointStoreError) throw e;
      tryUnlink(tmp);
      throw new CheckpointStoreError(`checkpoint not stored (${errnoOf(e)}); the previous one stays the latest`, { key, path: tmp });
    }
    const previousGood = files.good;
    files.generations.push(generation);
    files.good = generation;
    files.key = key;
    this.byStem.set(stem, files);
    // Keep this generation and the previous good one; older files go.
    const keep = new Set([generation, previousGood]);
    files.generations = files.generations.filter((g) => {
      if (keep.has(g)) return true;
      tryUnlink(join(this.directory, fileName(stem, g)));
      return false;
    });
  }

  get(key: string): Checkpoint | undefined {
    this.assertOpen();
    const files = this.byStem.get(stemOf(key));
    if (files === undefined) return undefined;
    // The index says which generation verified at open or at put; re-read and
    // re-verify, since the file may have been damaged since.
    for (let i = files.generations.length - 1; i >= 0; i--) {
      const generation = files.generations[i] as number;
      if (files.good !== undefined && generation > files.good) continue;
      const checked = this.verifyFile(files.stem, generation);
      if (checked.ok && checked.checkpoint.key === key) {
        files.good = generation;
        return checked.checkpoint;
      }
    }
    files.good = undefined;
    return undefined;
  }

  keys(): string[] {
    this.assertOpen();
    const out: string[] = [];
    for (const files of this.byStem.values()) if (files.good !== undefined && files.key !== undefined) out.push(files.key);
    return out.sort(compareCodePoints);
  }

  problems(): CheckpointProblem[] {
    return this.found.map((p) => ({ ...p }));
  }

  close(): void {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new CheckpointStoreError('the checkpoint store is closed', { path: this.directory });
  }

  private report(problem: CheckpointProblem): void {
    if (!this.found.some((p) => p.path === problem.path && p.kind === problem.kind && p.detail === problem.detail))
      this.found.push(problem);
  }

  private verifyFile(stem: string, generation: number): Verified {
    const path = join(this.directory, fileName(stem, generation));
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (e) {
      const v: Verified = { ok: false, kind: 'unreadable', detail: `cannot read (${errnoOf(e)})`, key: keyOfStem(stem) };
      this.report({ kind: v.kind, key: v.key, path, detail: v.detail });
      return v;
    }
    const v = verifyCheckpointBytes(bytes, stem, generation);
    if (!v.ok) this.report({ kind: v.kind, key: v.key, path, detail: v.detail });
    return v;
  }

  private recover(): void {
    let names: string[];
    try {
      names = readdirSync(this.directory);
    } catch (e) {
      throw new CheckpointStoreError(`cannot list the store directory (${errnoOf(e)})`, { path: this.directory });
    }
    for (const name of names.sort()) {
      const path = join(this.directory, name);
      const m = FILE_PATTERN.exec(name);
      if (m === null) {
        this.report({ kind: 'malformed', key: undefined, path, detail: 'not a checkpoint file name; ignored' });
        continue;
      }
      const stem = m[1] as string;
      const generation = Number(m[2]);
      if (m[3] !== undefined) {
        // A write that never returned: by construction it was not durable, so
        // nobody can depend on it. Report what was left, then remove it.
        let detail = 'a write that never committed (crash before rename)';
        try {
          const v = verifyCheckpointBytes(readFileSync(path), stem, generation);
          detail += v.ok ? '; the file was complete' : `; torn: ${v.detail}`;
          this.report({ kind: 'incomplete', key: v.ok ? v.checkpoint.key : v.key, path, detail: `${detail}; removed` });
        } catch (e) {
          this.report({ kind: 'incomplete', key: keyOfStem(stem), path, detail: `${detail}; unreadable (${errnoOf(e)}); removed` });
        }
        tryUnlink(path);
        continue;
      }
      const files = this.byStem.get(stem) ?? { stem, generations: [], good: undefined, key: keyOfStem(stem) };
      files.generations.push(generation);
      this.byStem.set(stem, files);
    }
    for (const files of this.byStem.values()) {
      files.generations.sort((a, b) => a - b);
      for (let i = files.generations.length - 1; i >= 0; i--) {
        const v = this.verifyFile(files.stem, files.generations[i] as number);
        if (v.ok) {
          files.good = files.generations[i];
          files.key = v.checkpoint.key;
          break;
        }
      }
    }
  }

  private syncDirectory(): void {
    const fd = openSync(this.directory, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

function writeFully(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

function tryUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone, or not ours to remove: either way nothing depends on it.
  }
}

function errnoOf(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code ?? (e instanceof Error ? e.message : String(e));
}
