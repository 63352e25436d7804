// The state of the fenced cluster (SPEC C2) as the engine holds it, and the
// small operations on it that every part of the engine uses: finding keys and
// workers, holding and dropping copies, checkpoints (C4) and the
// coordinator's durable record.
//
// Where each part lives (C2):
// - durable, in a ClusterStorage (storage.ts: in memory, or on disk with
//   fileStorage.ts): the input log, the coordinator's table, handoff record
//   and last messages, the checkpoint store, the sink's journal;
// - volatile, here only: each worker's status and copies (one JoinOperator
//   per key copy, with its cursor, epoch and frozen flag) and whether the
//   coordinator is up.
import type { ClusterConfig, ClusterEvent, LogRecord, RetainedCounts } from '../../spec/index.ts';
import type { Checkpoint } from '../checkpointStore.ts';
import { JoinOperator } from '../operator.ts';
import type { Sink } from './sink.ts';
import type { ClusterStorage, CoordinatorRecord, HandoffPhase, HandoffRecord, InstallMessage, ReleaseMessage } from './storage.ts';

export type WorkerStatus = 'up' | 'paused' | 'down';

/** A worker's volatile copy of one key (C2). */
export interface KeyCopy {
  readonly operator: JoinOperator;
  /** Index of the next log record this copy reads. */
  cursor: number;
  readonly epoch: number;
  frozen: boolean;
}

export interface Worker {
  readonly id: string;
  /** Position in the config: the order of eager processing (§7). */
  readonly order: number;
  status: WorkerStatus;
  /** Copies by key position. */
  readonly copies: Map<number, KeyCopy>;
}

/** What the observation shows of a stored checkpoint (§7). */
export interface StoredSummary {
  readonly epoch: number;
  readonly cursor: number;
  readonly retained: RetainedCounts;
}

/** Everything the cluster keeps per declared key. */
export interface KeySlot {
  readonly key: string;
  /** Position in the config: the order of eager processing (§7). */
  readonly order: number;
  /** The coordinator's table (durable): owner (a worker position) and epoch. */
  owner: number;
  epoch: number;
  /** Log indexes of this key's inserts and retracts, ascending. */
  readonly records: number[];
  /** The workers that hold a copy of this key. */
  readonly holders: Set<Worker>;
  /** The store's latest checkpoint of this key, as observed. */
  stored: StoredSummary | undefined;
  /** The last install and release message sent (durable; C11 delivers them again). */
  lastInstall: InstallMessage | undefined;
  lastRelease: ReleaseMessage | undefined;
}

/** The whole cluster: its config, durable parts and volatile state. */
export interface ClusterState {
  readonly config: ClusterConfig;
  readonly storage: ClusterStorage;
  readonly sink: Sink;
  /** Workers in config order. */
  readonly workers: readonly Worker[];
  readonly workerByName: ReadonlyMap<string, Worker>;
  /** Declared keys in config order. */
  readonly slots: readonly KeySlot[];
  readonly slotByKey: ReadonlyMap<string, KeySlot>;
  /** Log indexes of watermarks, ascending: every copy reads them (C3). */
  readonly watermarks: number[];
  coordinatorUp: boolean;
  /** The coordinator's in-flight handoff record (durable). */
  handoff: HandoffRecord | null;
  /** Told of every record appended to the log (`streamjoin serve --record`). */
  readonly onAppended: ((record: LogRecord) => void) | undefined;
}

/** The copies an action may have made runnable, as worker position × key count + key position. */
export type Runnable = Set<number>;

// Lookups of what the guards (guards.ts) or the config have established
// exists: a miss is a bug in the engine, and throws.

/** The slot of a declared key. */
export function slotOf(c: ClusterState, key: string): KeySlot {
  const slot = c.slotByKey.get(key);
  // Stryker disable next-line all: an internal lookup that refuses an argument no caller passes (docs/mutation.md)
  if (slot === undefined) throw new Error(`no declared key ${JSON.stringify(key)}`);
  return slot;
}

/** The slot of the key at position `order` in the config. */
export function slotAt(c: ClusterState, order: number): KeySlot {
  const slot = c.slots[order];
  // Stryker disable next-line all: an internal lookup that refuses an argument no caller passes (docs/mutation.md)
  if (slot === undefined) throw new Error(`no key at position ${order}`);
  return slot;
}

/** A listed worker, by name. */
export function workerNamed(c: ClusterState, id: string): Worker {
  const w = c.workerByName.get(id);
  // Stryker disable next-line all: an internal lookup that refuses an argument no caller passes (docs/mutation.md)
  if (w === undefined) throw new Error(`no worker ${JSON.stringify(id)}`);
  return w;
}

/** The worker at position `order` in the config (a key's owner is kept as one). */
export function workerAt(c: ClusterState, order: number): Worker {
  const w = c.workers[order];
  // Stryker disable next-line all: an internal lookup that refuses an argument no caller passes (docs/mutation.md)
  if (w === undefined) throw new Error(`no worker at position ${order}`);
  return w;
}

/** The copy of `slot`'s key that `w` holds. */
export function copyOf(w: Worker, slot: KeySlot): KeyCopy {
  const copy = w.copies.get(slot.order);
  // Stryker disable next-line all: an internal lookup that refuses an argument no caller passes (docs/mutation.md)
  if (copy === undefined) throw new Error(`${w.id} holds no copy of ${JSON.stringify(slot.key)}`);
  return copy;
}

/** The coordinator's in-flight handoff record. */
export function inFlight(c: ClusterState): HandoffRecord {
  // Stryker disable next-line all: an internal lookup that refuses an argument no caller passes (docs/mutation.md)
  if (c.handoff === null) throw new Error('no handoff is in flight');
  return c.handoff;
}

export function handoffOf(c: ClusterState, key: string): HandoffRecord | undefined {
  const h = c.handoff;
  return h !== null && h.key === key ? h : undefined;
}

export function setCopy(w: Worker, slot: KeySlot, copy: KeyCopy): void {
  w.copies.set(slot.order, copy);
  slot.holders.add(w);
}

export function dropCopy(w: Worker, slot: KeySlot): void {
  w.copies.delete(slot.order);
  slot.holders.delete(w);
}

/**
 * Writes the coordinator's durable record: table, handoff record, last
 * release messages, and what a step in progress writes next (`persisting`,
 * `installing`: storage.ts).
 */
// Stryker disable all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
export function saveCoordinator(c: ClusterState, step: Pick<CoordinatorRecord, 'persisting' | 'installing'> = {}): void {
  const record: CoordinatorRecord = {
    keys: c.slots.map((s) => ({ key: s.key, owner: workerAt(c, s.owner).id, epoch: s.epoch })),
    handoff: c.handoff,
    lastRelease: c.slots.flatMap((s) => (s.lastRelease === undefined ? [] : [s.lastRelease])),
    ...(step.persisting === undefined ? {} : { persisting: step.persisting }),
    ...(step.installing === undefined ? {} : { installing: step.installing }),
  };
  c.storage.coordinator.save(record);
}
// Stryker restore all

export function setPhase(c: ClusterState, phase: HandoffPhase): void {
  c.handoff = { ...inFlight(c), phase };
  saveCoordinator(c);
}

// ---------------------------------------------------------------------------
// Checkpoints (C4) and the copies rebuilt from them

/** Retained counts of one key in a checkpoint's operator snapshot (§7), without restoring it. */
function retainedInSnapshot(checkpoint: Checkpoint): RetainedCounts {
  let live = 0;
  let tombstones = 0;
  for (const row of checkpoint.state.rows) {
    if (row.key !== checkpoint.key) continue;
    if (row.live) live++;
    else tombstones++;
  }
  let matches = 0;
  for (const m of checkpoint.state.matches) if (m.key === checkpoint.key) matches++;
  return { live, tombstones, matches };
}

/** C4: the copy's (epoch, cursor, state) becomes the key's latest checkpoint; durable when this returns. */
export function writeCheckpoint(c: ClusterState, slot: KeySlot, copy: KeyCopy): void {
  c.storage.checkpoints.put(checkpointOf(slot, copy));
  slot.stored = { epoch: copy.epoch, cursor: copy.cursor, retained: copy.operator.retained(slot.key) };
}

/** The checkpoint of a key's copy (C4): its epoch, cursor and operator state. */
export function checkpointOf(slot: KeySlot, copy: KeyCopy): Checkpoint {
  return { key: slot.key, epoch: copy.epoch, cursor: copy.cursor, state: copy.operator.snapshot() };
}

/** Writes `checkpoint` (taken earlier) to the store as the key's latest; keeps the observed summary in step with it. */
export function storeCheckpoint(c: ClusterState, slot: KeySlot, checkpoint: Checkpoint): void {
  c.storage.checkpoints.put(checkpoint);
  slot.stored = { epoch: checkpoint.epoch, cursor: checkpoint.cursor, retained: retainedInSnapshot(checkpoint) };
}

/** The store's latest checkpoint of the key, or undefined; keeps the observed summary in step with it. */
export function storedCheckpoint(c: ClusterState, slot: KeySlot): Checkpoint | undefined {
  const cp = c.storage.checkpoints.get(slot.key);
  slot.stored = cp === undefined ? undefined : { epoch: cp.epoch, cursor: cp.cursor, retained: retainedInSnapshot(cp) };
  return cp;
}

/** C4, C8, C10: failover and restart rebuild a key from its LATEST durable checkpoint. */
function checkpointToRecoverFrom(c: ClusterState, slot: KeySlot): Checkpoint | undefined {
  // mutant: replay-from-older-checkpoint-without-dedup
  return storedCheckpoint(c, slot);
}

/** C4: a copy from a checkpoint's (state, cursor), or empty at cursor 0; it resumes reading the log at that cursor. */
export function rebuildCopy(c: ClusterState, checkpoint: Checkpoint | undefined, epoch: number, frozen: boolean): KeyCopy {
  const join = c.config.join;
  if (checkpoint === undefined) return { operator: new JoinOperator(join), cursor: 0, epoch, frozen };
  return { operator: JoinOperator.restore(join, checkpoint.state), cursor: checkpoint.cursor, epoch, frozen };
}

/** C8/C10: an active copy of the key at `epoch`, from the latest checkpoint. */
export function recoverCopy(c: ClusterState, w: Worker, slot: KeySlot, epoch: number, events: ClusterEvent[]): void {
  const copy = rebuildCopy(c, checkpointToRecoverFrom(c, slot), epoch, false);
  setCopy(w, slot, copy);
  events.push({ type: 'restored', worker: w.id, key: slot.key, cursor: copy.cursor, epoch });
}
