// The durable parts of the cluster (SPEC C2), each behind a small interface
// with an in-memory backend (this file) and an on-disk backend
// (fileStorage.ts):
//
// - the input log (C3): valid records, append-only;
// - the coordinator's table (owner and epoch per key), its in-flight handoff
//   record (C5) and the last install and release message it sent per key
//   (C11 delivers those again);
// - the checkpoint store (C4): `impl/checkpointStore.ts`;
// - the sink's journal (C9): every write and fence raise, in order; the
//   sink's state is a function of it.
//
// A write to any part is durable when the call returns. Nothing here
// decides anything: the rules are in cluster.ts and sink.ts.
import type { LogRecord } from '../../spec/index.ts';
import { MemoryCheckpointStore } from '../checkpointStore.ts';
import type { Checkpoint, CheckpointStore } from '../checkpointStore.ts';
import { ClusterStoppedError } from '../errors.ts';
import type { RecoveryProblem } from './durableFiles.ts';

/** The phases of a handoff, in order (C5–C8). */
export type HandoffPhase = 'frozen' | 'persisted' | 'installed' | 'fenced' | 'committed';

/** The coordinator's in-flight handoff record (C5, C8); it commits epoch `from + 1`. */
export interface HandoffRecord {
  /** Migration or failover (C5, C8). */
  readonly kind: 'migrate' | 'failover';
  /** The key being handed off. */
  readonly key: string;
  /** The worker the key moves from. */
  readonly src: string;
  /** The worker the key moves to. */
  readonly dst: string;
  /** The key's epoch when the handoff began. */
  readonly from: number;
  /** How far the handoff has got. */
  readonly phase: HandoffPhase;
}

/** An install message as sent (C6); a duplicate delivers exactly this again (C11). */
export interface InstallMessage {
  /** The key installed. */
  readonly key: string;
  /** The destination worker. */
  readonly dst: string;
  /** The epoch the destination's copy gets. */
  readonly epoch: number;
  /** The store's latest checkpoint of the key when the message was sent, or null for none. */
  readonly checkpoint: Checkpoint | null;
}

/** A release message as sent (C7); a duplicate delivers exactly this again (C11). */
export interface ReleaseMessage {
  /** The key released. */
  readonly key: string;
  /** The source worker, which drops the key. */
  readonly src: string;
  /** The epoch the source's copy must still have to be dropped. */
  readonly epoch: number;
}

/** The coordinator's durable record, keys in config order. */
export interface CoordinatorRecord {
  /** Per key: its owner and epoch. */
  readonly keys: readonly { readonly key: string; readonly owner: string; readonly epoch: number }[];
  /** The handoff in flight, or null. */
  readonly handoff: HandoffRecord | null;
  /** The last release message sent, per key. */
  readonly lastRelease: readonly ReleaseMessage[];
  /**
   * The checkpoint a `persist` is writing (C5), from just before the store
   * is written until the phase says persisted; absent otherwise. Recovery
   * finishes the step from it, so that a kill inside it leaves a state SPEC
   * has (before it, or after it), never the checkpoint stored with the
   * handoff still frozen.
   */
  readonly persisting?: Checkpoint;
  /**
   * The message an `install` sent (C6), saved with the phase it moves to, in
   * the same write: the message's own file is written next. Recovery saves
   * it from here, so that a kill between the two writes leaves the step
   * whole (its phase and its message, which a duplicate delivers, C11),
   * never one without the other. It stays until the next record is saved.
   */
  readonly installing?: InstallMessage;
}

/** One change of a sink write: insert or retract of a match id (C9). */
export interface SinkChange {
  /** Insert or retract. */
  readonly op: 'insert' | 'retract';
  /** The match id (SPEC J3). */
  readonly match: string;
}

/** One entry of the sink's journal: a write of one record's changes (C3, C9), or a fence raise (C7, C8). */
export type SinkEntry =
  | { readonly kind: 'write'; readonly key: string; readonly epoch: number; readonly changes: readonly SinkChange[] }
  | { readonly kind: 'fence'; readonly key: string; readonly epoch: number };

/** The durable input log (C3). */
export interface InputLog {
  /** Number of records in the log. */
  readonly length: number;
  /** The record at `index` (0 <= index < length). */
  at(index: number): LogRecord;
  /** Appends a record; durable (and so acknowledged) when it returns. */
  append(record: LogRecord): void;
}

/** The coordinator's durable table, handoff record and last messages. */
export interface CoordinatorStore {
  /** The last record saved, or undefined if none was (the table is then still C1's). */
  load(): CoordinatorRecord | undefined;
  /** Saves the coordinator's record; durable when it returns. */
  save(record: CoordinatorRecord): void;
  /** The last install message saved per key. */
  installMessages(): InstallMessage[];
  /** Saves the last install message of its key; durable when it returns. */
  saveInstall(message: InstallMessage): void;
}

/** The sink's durable journal. */
export interface SinkJournal {
  /** The entries found when the storage was opened, in order. */
  recovered(): readonly SinkEntry[];
  /** Appends an entry; durable when it returns. */
  append(entry: SinkEntry): void;
}

/** A durable part of the cluster, as `ClusterStorage.where` names it. */
export type StoragePart = 'log' | 'coordinator' | 'install' | 'checkpoints' | 'sink';

/** All durable parts of one cluster. */
export interface ClusterStorage {
  /** True when the parts already held a cluster's state when opened (the cluster then starts with every node down). */
  readonly recovered: boolean;
  /** The input log (C3). */
  readonly log: InputLog;
  /** The coordinator's table, handoff record and last messages. */
  readonly coordinator: CoordinatorStore;
  /** The checkpoint store (C4). */
  readonly checkpoints: CheckpointStore;
  /** The sink's journal (C9). */
  readonly sink: SinkJournal;
  /** What opening found, dropped and reported (torn tails, unusable checkpoint files, left-over temporary files). */
  problems(): RecoveryProblem[];
  /** Where a part lives, for error messages (a path, or "memory:<part>"). */
  where(part: StoragePart): string;
  /** Closes every part. */
  close(): void;
}

class MemoryInputLog implements InputLog {
  constructor(private readonly records: LogRecord[]) {}
  get length(): number {
    return this.records.length;
  }
  at(index: number): LogRecord {
    return this.records[index] as LogRecord;
  }
  append(record: LogRecord): void {
    this.records.push(record);
  }
}

/** What a memory storage keeps across `reopen()`: everything durable. */
interface MemoryParts {
  readonly records: LogRecord[];
  coordinator: string | undefined;
  readonly installs: Map<string, InstallMessage>;
  readonly checkpoints: MemoryCheckpointStore;
  readonly sink: SinkEntry[];
}

/**
 * The in-memory backend: durable for as long as the process lives. The
 * coordinator record is kept serialized, so nothing the cluster holds
 * aliases it; messages, log records and sink entries are never mutated.
 * `reopen()` gives the same parts to a new cluster, as after a crash of
 * every node: a test of recovery without a disk.
 */
export class MemoryStorage implements ClusterStorage {
  readonly recovered: boolean;
  readonly log: InputLog;
  readonly coordinator: CoordinatorStore;
  readonly checkpoints: CheckpointStore;
  readonly sink: SinkJournal;
  private readonly parts: MemoryParts;
  // Stryker disable next-line all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
  private closed = false;

  constructor(parts?: MemoryParts) {
    // Stryker disable next-line all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
    this.recovered = parts !== undefined;
    const p: MemoryParts = parts ?? {
      records: [],
      coordinator: undefined,
      installs: new Map(),
      checkpoints: new MemoryCheckpointStore(),
      sink: [],
    };
    this.parts = p;
    this.log = new MemoryInputLog(p.records);
    this.coordinator = {
      // Stryker disable next-line all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
      load: () => (p.coordinator === undefined ? undefined : (JSON.parse(p.coordinator) as CoordinatorRecord)),
      // Stryker disable next-line all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
      save: (record) => {
        p.coordinator = JSON.stringify(record);
      },
      // Stryker disable next-line all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
      installMessages: () => [...p.installs.values()],
      // Stryker disable next-line all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
      saveInstall: (message) => {
        p.installs.set(message.key, message);
      },
    };
    this.checkpoints = p.checkpoints;
    // Stryker disable next-line all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
    const recoveredSink = [...p.sink];
    this.sink = {
      recovered: () => recoveredSink,
      // Stryker disable next-line all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
      append: (entry) => {
        p.sink.push(entry);
      },
    };
  }

  // Stryker disable all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
  /** The same durable parts, for a new cluster that recovers them. This storage must not be used any more. */
  reopen(): MemoryStorage {
    if (this.closed) throw new ClusterStoppedError('this memory storage was closed; reopen the storage it was reopened from');
    this.closed = true;
    return new MemoryStorage(this.parts);
  }

  problems(): RecoveryProblem[] {
    return [];
  }

  where(part: StoragePart): string {
    return `memory:${part}`;
  }
  // Stryker restore all

  close(): void {
    // The parts stay, for reopen(); nothing is held open.
  }
}
