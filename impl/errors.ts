// Errors of impl/. Each says where (a JSON pointer, a key, a file path) and what.

/** A snapshot that `JoinOperator.restore` refuses; nothing is restored. */
export class SnapshotError extends Error {
  /** JSON pointer of the offending field inside the snapshot ('' = the whole document). */
  readonly pointer: string;
  /** Builds the error; the message starts with the pointer. */
  constructor(pointer: string, message: string) {
    super(`${pointer === '' ? '(snapshot)' : pointer}: ${message}`);
    this.name = 'SnapshotError';
    this.pointer = pointer;
  }
}

/** A configuration outside J0; the operator is not built. */
export class ConfigError extends RangeError {
  /** Builds the error with `message`. */
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Why a stored checkpoint could not be used. */
export type CheckpointProblemKind =
  | 'incomplete' // a write that never committed (left-over temporary file)
  | 'truncated' // shorter than its header says
  | 'checksum' // bytes changed after writing
  | 'version' // a format this code does not read
  | 'malformed' // not a checkpoint at all, or its content is invalid
  | 'unreadable'; // the file system refused to read it

/** One checkpoint file that was detected as bad and not loaded. */
export interface CheckpointProblem {
  /** What is wrong with the file. */
  readonly kind: CheckpointProblemKind;
  /** The key the file belongs to, when its name or content says so. */
  readonly key: string | undefined;
  /** The file. */
  readonly path: string;
  /** What was found wrong, for people. */
  readonly detail: string;
}

/** A checkpoint store operation that failed (bad argument, I/O error). */
export class CheckpointStoreError extends Error {
  /** The key concerned, when known. */
  readonly key: string | undefined;
  /** The file concerned, when known. */
  readonly path: string | undefined;
  /** Builds the error; the message starts with the key and path given. */
  constructor(message: string, where: { key?: string; path?: string } = {}) {
    const at = [where.key !== undefined ? `key ${JSON.stringify(where.key)}` : '', where.path ?? ''].filter((s) => s !== '').join(' at ');
    super(at === '' ? message : `${at}: ${message}`);
    this.name = 'CheckpointStoreError';
    this.key = where.key;
    this.path = where.path;
  }
}

/**
 * A durable file of the cluster that cannot be used: corrupt, inconsistent
 * with the other durable parts, made under another config, or not written
 * (an I/O error). Nothing from it is loaded. `path` names the file (with
 * `:line` for a line of a journal) and `detail` says what is wrong.
 */
export class DurableStateError extends Error {
  /** The file, with `:line` for a line of a journal. */
  readonly path: string;
  /** What is wrong with it. */
  readonly detail: string;
  /** Builds the error; the message is `path: detail`. */
  constructor(path: string, detail: string) {
    super(`${path}: ${detail}`);
    this.name = 'DurableStateError';
    this.path = path;
    this.detail = detail;
  }
}

/** A call on a cluster that is closed, or stopped because a durable write failed (reopen it to recover). */
export class ClusterStoppedError extends Error {
  /** Builds the error with `message`. */
  constructor(message: string) {
    super(message);
    this.name = 'ClusterStoppedError';
  }
}
