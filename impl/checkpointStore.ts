// Durable per-key checkpoints (SPEC C2, C4: the checkpoint store is a durable
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
// Each file is written crash-safely (crashSafeFile.ts: temporary file,
// fsync, rename, directory fsync), so a reader sees the whole old file or the
// whole new one. The newest good generation and the one before it are kept,
// so a checkpoint found bad on read falls back to the last good one. Each
// file is a checksummed header line and a body:
//
//   {"format":"streamjoin/checkpoint@1","key":"k1","generation":3,"bytes":N,"sha256":"<hex>"}\n
//   {"key":"k1","epoch":2,"cursor":17,"state":{...operator snapshot...}}
//
// A file that is torn, truncated, altered, of another format version or not
// a checkpoint at all is never loaded: it is reported (`problems()`, naming
// the key and the path) and skipped.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareCodePoints } from '../spec/index.ts';
import {
  bodyProblem,
  checksumHeader,
  checksummedFile,
  errnoOf,
  fileStemOf,
  keyOfFileStem,
  removeIfPresent,
  replaceFile,
} from './crashSafeFile.ts';
import type { ReplacePoint } from './crashSafeFile.ts';
import { CheckpointStoreError, SnapshotError } from './errors.ts';
import type { CheckpointProblem, CheckpointProblemKind } from './errors.ts';
import { readSnapshot } from './snapshot.ts';
import type { OperatorSnapshot } from './snapshot.ts';

// Stryker disable all: a format name written and read by the same code: any value reads back alike (docs/mutation.md)
export const CHECKPOINT_FORMAT = 'streamjoin/checkpoint@1';
const FORMAT_FAMILY = 'streamjoin/checkpoint@';
// Stryker restore all

/** The durable state of one key (SPEC C4): epoch, log cursor and operator state. */
export interface Checkpoint {
  /** The key checkpointed. */
  key: string;
  /** The epoch of the copy checkpointed. */
  epoch: number;
  /** Index of the next log record the copy reads. */
  cursor: number;
  /** The copy's operator state. */
  state: OperatorSnapshot;
}

/** The durable checkpoint store (SPEC C4): the latest checkpoint per key. */
export interface CheckpointStore {
  /** Stores `checkpoint` as the latest of its key; durable when it returns. Throws CheckpointStoreError. */
  put(checkpoint: Checkpoint): void;
  /** The latest good checkpoint of `key` (a fresh copy), or undefined. */
  get(key: string): Checkpoint | undefined;
  /** Keys that have a good checkpoint, in §0 code-point order. */
  keys(): string[];
  /** Bad checkpoints detected since the store was opened, in detection order. */
  problems(): CheckpointProblem[];
  /** Closes the store; later reads and writes throw CheckpointStoreError. */
  close(): void;
}

// Stryker disable all: checkpoint validation, unreachable through the protocol (docs/mutation.md)
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
// Stryker restore all

function checkedForPut(checkpoint: Checkpoint): string {
  // Stryker disable all: checkpoint validation, unreachable through the protocol (docs/mutation.md)
  const problem = checkpointProblem(checkpoint);
  if (problem !== undefined) {
    const key = typeof checkpoint?.key === 'string' ? checkpoint.key : undefined;
    throw new CheckpointStoreError(`refusing to store a bad checkpoint: ${problem}`, key === undefined ? {} : { key });
  }
  // Stryker restore all
  // Serialize in a fixed field order: identical checkpoints give identical bytes.
  return JSON.stringify({ key: checkpoint.key, epoch: checkpoint.epoch, cursor: checkpoint.cursor, state: checkpoint.state });
}

/** In-memory backend: serialized copies, so nothing a caller holds aliases stored state. */
export class MemoryCheckpointStore implements CheckpointStore {
  private readonly stored = new Map<string, string>();
  private closed = false;

  /** Stores `checkpoint` as the latest of its key (a serialized copy). Throws CheckpointStoreError. */
  put(checkpoint: Checkpoint): void {
    this.assertOpen();
    this.stored.set(checkpoint.key, checkedForPut(checkpoint));
  }

  /** The latest checkpoint of `key` (a fresh copy), or undefined. */
  get(key: string): Checkpoint | undefined {
    this.assertOpen();
    const text = this.stored.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as Checkpoint);
  }

  // Stryker disable all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
  /** Keys that have a checkpoint, in §0 code-point order. */
  keys(): string[] {
    this.assertOpen();
    return [...this.stored.keys()].sort(compareCodePoints);
  }
  // Stryker restore all

  // Stryker disable all: the in-memory store never holds a bad checkpoint and is never used once closed (docs/mutation.md)
  /** Always empty: the in-memory store never holds a bad checkpoint. */
  problems(): CheckpointProblem[] {
    return [];
  }

  /** Closes the store; later reads and writes throw CheckpointStoreError. */
  close(): void {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new CheckpointStoreError('the checkpoint store is closed');
  }
}
// Stryker restore all

// The on-disk backend: `serve --data` runs it, and the harness's kill mode
// (conform --kill) judges it, as it does the rest of the durable parts.
/** Points inside a file write where a test (or the cluster's crash injection) may stop the process (see `ReplacePoint`). */
export type CheckpointWritePoint = ReplacePoint;

/** Options of `FileCheckpointStore.open`. */
export interface FileCheckpointStoreOptions {
  /** Called at each write point with the path being written. */
  readonly onWritePoint?: (point: CheckpointWritePoint, path: string) => void;
}

const FILE_PATTERN = /^([kh][0-9a-f]+)\.(\d{12})\.ckpt(\.tmp)?$/;
const fileName = (stem: string, generation: number): string => `${stem}.${String(generation).padStart(12, '0')}.ckpt`;

/** The header fields of a checkpoint file before its body's length and checksum. */
const headerFields = (key: string, generation: number): Readonly<Record<string, string | number>> => ({
  format: CHECKPOINT_FORMAT,
  key,
  generation,
});

type Verified =
  | { readonly ok: true; readonly checkpoint: Checkpoint }
  | { readonly ok: false; readonly kind: CheckpointProblemKind; readonly detail: string; readonly key: string | undefined };

/**
 * Checks one checkpoint file's bytes; `stem` and `generation` come from the
 * name it was found under. Every header field is checked against the name
 * or the body, so no change to any byte goes unnoticed.
 */
function verifyCheckpointBytes(bytes: Buffer, stem: string, generation: number): Verified {
  // Stryker disable all: validation of a damaged data directory: no process kill leaves one (docs/mutation.md)
  // Every check below refuses only a file a crash-safe write never leaves; the
  // lines that read a good file back (restored one by one) are measured.
  let key = keyOfFileStem(stem);
  const bad = (kind: CheckpointProblemKind, detail: string): Verified => ({ ok: false, kind, detail, key });
  if (bytes.length === 0) return bad('truncated', 'the file is empty');
  // Stryker restore next-line all
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
    // Stryker restore next-line all
    const parsed = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return bad('malformed', 'the header is not a JSON object');
    // Stryker restore next-line all
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
    if (fileStemOf(header['key']) !== stem)
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
  if (bytes.subarray(0, newline).toString('utf8') !== checksumHeader(headerFields(header['key'], generation), length, digest)) {
    return bad('malformed', 'the header is not in canonical form');
  }
  // Stryker restore next-line all
  const body = bytes.subarray(newline + 1);
  const problem = bodyProblem(body, length, digest);
  if (problem !== undefined) return bad(problem.kind, problem.detail);
  let value: unknown;
  try {
    // Stryker restore next-line all
    value = JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return bad('malformed', 'the body is not JSON');
  }
  const invalid = checkpointProblem(value);
  if (invalid !== undefined) return bad('malformed', invalid);
  // Stryker restore next-line all
  const checkpoint = value as Checkpoint;
  if (key !== undefined && checkpoint.key !== key) return bad('malformed', `the body is for key ${JSON.stringify(checkpoint.key)}`);
  // Stryker restore next-line all
  return { ok: true, checkpoint };
  // Stryker restore all
}

// Stryker disable all: a failing file system: a process kill never makes a read or a write fail (docs/mutation.md)
/** A file's bytes, or why it cannot be read (its errno code). */
function readOrWhy(path: string): Buffer | string {
  try {
    return readFileSync(path);
  } catch (e) {
    return errnoOf(e);
  }
}

/** The names in the store's directory; CheckpointStoreError when it cannot be listed. */
function storeListing(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch (e) {
    throw new CheckpointStoreError(`cannot list the store directory (${errnoOf(e)})`, { path: directory });
  }
}
// Stryker restore all

interface KeyFiles {
  readonly stem: string;
  /** Every committed generation present, ascending. */
  generations: number[];
  /** Newest generation known to verify, if any. */
  good: number | undefined;
  key: string | undefined;
}

/**
 * Runs a write of the store; when the file system fails it, throws the
 * CheckpointStoreError `failed` makes of the cause (its errno code). One place
 * for the catches and their errors, so that they can be left out of the
 * mutation run as a whole.
 */
// Stryker disable all: a failing file system: a process kill never makes a read or a write fail (docs/mutation.md)
function orStoreError(write: () => void, failed: (cause: string) => CheckpointStoreError): void {
  try {
    write();
  } catch (e) {
    throw failed(errnoOf(e));
  }
}
const directoryNotCreated =
  (directory: string) =>
  (cause: string): CheckpointStoreError =>
    new CheckpointStoreError(`cannot create the store directory (${cause})`, { path: directory });
const notStored =
  (key: string, path: string) =>
  (cause: string): CheckpointStoreError =>
    new CheckpointStoreError(`checkpoint not stored (${cause}); the previous one stays the latest`, { key, path: `${path}.tmp` });
// Stryker restore all

/** On-disk backend. One process owns a directory at a time. */
export class FileCheckpointStore implements CheckpointStore {
  /** The directory the store lives in. */
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
    orStoreError(() => mkdirSync(directory, { recursive: true }), directoryNotCreated(directory));
    store.recover();
    return store;
  }

  /** Writes `checkpoint` as its key's next generation (replacing the file atomically); keeps it and the previous good one. */
  put(checkpoint: Checkpoint): void {
    // Stryker disable next-line all: a stopped or closed cluster: the harness never acts on one (docs/mutation.md)
    this.assertOpen();
    const body = Buffer.from(checkedForPut(checkpoint), 'utf8');
    const key = checkpoint.key;
    const stem = fileStemOf(key);
    const files = this.byStem.get(stem) ?? { stem, generations: [], good: undefined, key };
    const generation = (files.generations.at(-1) ?? 0) + 1;
    const path = join(this.directory, fileName(stem, generation));
    orStoreError(() => replaceFile(path, checksummedFile(headerFields(key, generation), body), this.onWritePoint), notStored(key, path));
    const previousGood = files.good;
    files.generations.push(generation);
    files.good = generation;
    files.key = key;
    this.byStem.set(stem, files);
    // Keep this generation and the previous good one; older files go.
    const keep = new Set([generation, previousGood]);
    // Stryker disable next-line MethodExpression: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    files.generations = files.generations.filter((g) => {
      if (keep.has(g)) return true;
      removeIfPresent(join(this.directory, fileName(stem, g)));
      // Stryker disable next-line BooleanLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      return false;
    });
  }

  /** The newest generation of `key` that verifies (re-read from disk), or undefined. */
  get(key: string): Checkpoint | undefined {
    // Stryker disable next-line all: a stopped or closed cluster: the harness never acts on one (docs/mutation.md)
    this.assertOpen();
    const files = this.byStem.get(fileStemOf(key));
    if (files === undefined) return undefined;
    // The index says which generation verified at open or at put; re-read and
    // re-verify, since the file may have been damaged since.
    for (const generation of [...files.generations].reverse()) {
      // Stryker disable next-line all: validation of a damaged data directory: no process kill leaves one (docs/mutation.md)
      if (files.good !== undefined && generation > files.good) continue;
      const checked = this.verifyFile(files.stem, generation);
      // Stryker disable next-line all: validation of a damaged data directory: no process kill leaves one (docs/mutation.md)
      if (checked.ok && checked.checkpoint.key === key) {
        files.good = generation;
        return checked.checkpoint;
      }
    }
    // Stryker disable all: validation of a damaged data directory: no process kill leaves one (docs/mutation.md)
    files.good = undefined;
    return undefined;
    // Stryker restore all
  }

  /** Keys that have a good checkpoint, in §0 code-point order. */
  keys(): string[] {
    // Stryker disable next-line all: a stopped or closed cluster: the harness never acts on one (docs/mutation.md)
    this.assertOpen();
    const out: string[] = [];
    for (const files of this.byStem.values()) if (files.good !== undefined && files.key !== undefined) out.push(files.key);
    return out.sort(compareCodePoints);
  }

  // Stryker disable all: read by the durability tests only, never by the protocol (docs/mutation.md)
  /** Bad checkpoint files found since the store was opened, in detection order. */
  problems(): CheckpointProblem[] {
    return this.found.map((p) => ({ ...p }));
  }

  // Stryker disable all: a stopped or closed cluster: the harness never acts on one (docs/mutation.md)
  /** Closes the store; later reads and writes throw CheckpointStoreError. */
  close(): void {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new CheckpointStoreError('the checkpoint store is closed', { path: this.directory });
  }
  // Stryker restore all
  // Stryker disable all: read by the durability tests only, never by the protocol (docs/mutation.md)

  private report(problem: CheckpointProblem): void {
    if (!this.found.some((p) => p.path === problem.path && p.kind === problem.kind && p.detail === problem.detail))
      this.found.push(problem);
  }

  /** A file that cannot be read (`why`: its errno), reported. */
  private unreadable(path: string, stem: string, why: string): Verified {
    const v: Verified = { ok: false, kind: 'unreadable', detail: `cannot read (${why})`, key: keyOfFileStem(stem) };
    this.report({ kind: v.kind, key: v.key, path, detail: v.detail });
    return v;
  }
  // Stryker restore all

  private verifyFile(stem: string, generation: number): Verified {
    const path = join(this.directory, fileName(stem, generation));
    const bytes = readOrWhy(path);
    // Stryker disable next-line all: a failing file system: a process kill never makes a read or a write fail (docs/mutation.md)
    if (typeof bytes === 'string') return this.unreadable(path, stem, bytes);
    const v = verifyCheckpointBytes(bytes, stem, generation);
    // Stryker disable next-line all: read by the durability tests only, never by the protocol (docs/mutation.md)
    if (!v.ok) this.report({ kind: v.kind, key: v.key, path, detail: v.detail });
    return v;
  }

  private recover(): void {
    const names = storeListing(this.directory);
    // Stryker disable next-line MethodExpression: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    for (const name of names.sort()) {
      const path = join(this.directory, name);
      const m = FILE_PATTERN.exec(name);
      // Stryker disable all: validation of a damaged data directory: no process kill leaves one (docs/mutation.md)
      if (m === null) {
        this.report({ kind: 'malformed', key: undefined, path, detail: 'not a checkpoint file name; ignored' });
        continue;
      }
      // Stryker restore all
      const stem = m[1] as string;
      const generation = Number(m[2]);
      // Stryker disable next-line BlockStatement: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      if (m[3] !== undefined) {
        // A write that never returned: by construction it was not durable, so
        // nobody can depend on it. Report what was left, then remove it.
        // Stryker disable all: read by the durability tests only, never by the protocol (docs/mutation.md)
        let detail = 'a write that never committed (crash before rename)';
        try {
          const v = verifyCheckpointBytes(readFileSync(path), stem, generation);
          detail += v.ok ? '; the file was complete' : `; torn: ${v.detail}`;
          this.report({ kind: 'incomplete', key: v.ok ? v.checkpoint.key : v.key, path, detail: `${detail}; removed` });
        } catch (e) {
          this.report({ kind: 'incomplete', key: keyOfFileStem(stem), path, detail: `${detail}; unreadable (${errnoOf(e)}); removed` });
        }
        // Stryker restore all
        removeIfPresent(path);
        continue;
      }
      // Stryker disable next-line ArrayDeclaration: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      const files = this.byStem.get(stem) ?? { stem, generations: [], good: undefined, key: keyOfFileStem(stem) };
      files.generations.push(generation);
      this.byStem.set(stem, files);
    }
    // Stryker disable next-line BlockStatement: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    for (const files of this.byStem.values()) {
      // Stryker disable next-line MethodExpression: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      // Stryker disable next-line ArithmeticOperator,ArrowFunction: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      files.generations.sort((a, b) => a - b);
      for (const generation of [...files.generations].reverse()) {
        const v = this.verifyFile(files.stem, generation);
        // Stryker disable next-line BlockStatement,ConditionalExpression: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
        if (v.ok) {
          files.good = generation;
          files.key = v.checkpoint.key;
          break;
        }
      }
    }
  }
}
