// The fenced cluster of SPEC §5 (rules C1–C12), observable as §7 says:
// after every external action it processes eagerly, and `observe()` gives
// the §7 observation. Written from SPEC.md, independently of model/.
//
// State, and where each part lives (C2):
// - durable, in a ClusterStorage (storage.ts: in memory, or on disk with
//   fileStorage.ts): the input log, the coordinator's table, handoff record
//   and last messages, the checkpoint store, the sink's journal;
// - volatile, here only: each worker's status and copies (one JoinOperator
//   per key copy, with its cursor, epoch and frozen flag) and whether the
//   coordinator is up.
//
// Cost: an action does work in proportion to what it causes. A record
// appends once and wakes only the copies that read it (the copies of its
// key, or every copy for a watermark); each process step finds the copy's
// next relevant record by binary search in per-key and watermark indexes;
// eager processing visits only the copies an action may have made runnable.
// Control actions write the coordinator's record (O(keys)) when it changes;
// checkpoints and restores cost O(the key's state).
import type {
  Change,
  ClusterAction,
  ClusterConfig,
  ClusterEvent,
  ClusterObservation,
  LogRecord,
  RetainedCounts,
} from '../../spec/index.ts';
import { describeClusterAction } from '../../spec/index.ts';
import type { Checkpoint } from '../checkpointStore.ts';
import { ClusterStoppedError, ConfigError, DurableStateError } from '../errors.ts';
import { JoinOperator } from '../operator.ts';
import { recordValidity } from '../validity.ts';
import type { RecoveryProblem, WritePointHook } from './durableFiles.ts';
import { FileStorage } from './fileStorage.ts';
import { defineOwn, Sink } from './sink.ts';
import { MemoryStorage } from './storage.ts';
import type { ClusterStorage, CoordinatorRecord, HandoffPhase, HandoffRecord, InstallMessage, ReleaseMessage } from './storage.ts';

/** The node id of the coordinator in crash and restart actions. */
export const COORDINATOR_NODE = 'coordinator';

export type WorkerStatus = 'up' | 'paused' | 'down';

/** What `apply` returns: the events the action caused, in order (C12), or why it is not enabled. */
export type ClusterApplyResult = { events: ClusterEvent[] } | { error: { kind: 'not-enabled'; text: string } };

export interface ImplClusterOptions {
  /** Keep the durable parts in this directory (created if needed); without it they live in memory. */
  readonly dataDir?: string;
  /** Crash injection for tests: called at every point of every durable write to `dataDir`. */
  readonly onWritePoint?: WritePointHook;
}

/** A worker's volatile copy of one key (C2). */
interface KeyCopy {
  readonly operator: JoinOperator;
  /** Index of the next log record this copy reads. */
  cursor: number;
  readonly epoch: number;
  frozen: boolean;
}

interface Worker {
  readonly id: string;
  /** Position in the config: the order of eager processing (§7). */
  readonly order: number;
  status: WorkerStatus;
  /** Copies by key position. */
  readonly copies: Map<number, KeyCopy>;
}

/** What the observation shows of a stored checkpoint (§7). */
interface StoredSummary {
  readonly epoch: number;
  readonly cursor: number;
  readonly retained: RetainedCounts;
}

/** Everything the cluster keeps per declared key. */
interface KeySlot {
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

/** The copies an action may have made runnable, as worker position × key count + key position. */
type Runnable = Set<number>;

/** The first position in ascending `xs` whose value is >= `x`. */
function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((xs[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A copy of the record with exactly its fields, so the log never aliases the caller's object. */
function copyOfRecord(record: LogRecord): LogRecord {
  if (typeof record !== 'object' || record === null) throw new TypeError('a record action needs a record object');
  switch (record.kind) {
    case 'watermark':
      return { kind: 'watermark', side: record.side, wm: record.wm };
    case 'insert':
    case 'retract':
      return { kind: record.kind, key: record.key, side: record.side, id: record.id, ts: record.ts, start: record.start, end: record.end };
    default:
      throw new TypeError(
        `record.kind must be insert, retract or watermark, got ${JSON.stringify((record as { kind?: unknown } | undefined)?.kind)}`,
      );
  }
}

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

/** C1 / cluster-config schema: the checks a schema cannot express. Throws ConfigError naming the field. */
function checkConfig(config: ClusterConfig): void {
  if (!Array.isArray(config.workers) || config.workers.length === 0) throw new ConfigError('config.workers must list at least one worker');
  const workers = new Set<string>();
  config.workers.forEach((w, i) => {
    if (typeof w !== 'string' || w === '') throw new ConfigError(`config.workers[${i}] must be a non-empty string`);
    if (w === COORDINATOR_NODE) throw new ConfigError(`config.workers[${i}] must not be "${COORDINATOR_NODE}", the coordinator's node id`);
    if (workers.has(w)) throw new ConfigError(`config.workers[${i}] repeats worker ${JSON.stringify(w)}`);
    workers.add(w);
  });
  if (!Array.isArray(config.keys) || config.keys.length === 0) throw new ConfigError('config.keys must declare at least one key');
  const keys = new Set<string>();
  config.keys.forEach(({ key, owner }, i) => {
    if (typeof key !== 'string' || key === '') throw new ConfigError(`config.keys[${i}].key must be a non-empty string`);
    if (keys.has(key)) throw new ConfigError(`config.keys[${i}] repeats key ${JSON.stringify(key)}`);
    if (!workers.has(owner)) throw new ConfigError(`config.keys[${i}].owner ${JSON.stringify(owner)} is not a listed worker`);
    keys.add(key);
  });
  // J0, by the operator's own check.
  new JoinOperator(config.join);
}

/** Install is enabled in these phases (C6): only once `persist` has made the checkpoint durable. */
const INSTALL_PHASES: readonly HandoffPhase[] = ['persisted', 'installed', 'fenced'];

/**
 * The fenced cluster engine. `apply` one external action at a time;
 * `observe` after any of them. See the file comment for what is durable.
 */
export class ImplCluster {
  private readonly config: ClusterConfig;
  private readonly storage: ClusterStorage;
  private readonly sink: Sink;
  private readonly workers: Worker[];
  private readonly workerByName = new Map<string, Worker>();
  private readonly slots: KeySlot[];
  private readonly slotByKey = new Map<string, KeySlot>();
  /** Log indexes of watermarks, ascending: every copy reads them (C3). */
  private readonly watermarks: number[] = [];
  private coordinatorUp: boolean;
  /** The coordinator's in-flight handoff record (durable). */
  private handoff: HandoffRecord | null = null;
  /** Set when the cluster is closed, or when an action failed part-way (its volatile state is then unknown). */
  private stopped: string | undefined;

  /**
   * A cluster with `config`. With `options.dataDir`, its durable parts live
   * in that directory: a new directory starts as C1 says; a directory that
   * already holds this cluster's state is recovered, and the cluster starts
   * with every worker and the coordinator down (they crashed with the
   * process) for the caller to restart. Throws ConfigError for a bad config
   * and DurableStateError, naming the file, for durable state it cannot use.
   */
  static open(config: ClusterConfig, options: ImplClusterOptions = {}): ImplCluster {
    checkConfig(config);
    const storage =
      options.dataDir === undefined
        ? new MemoryStorage()
        : FileStorage.open(options.dataDir, config, options.onWritePoint === undefined ? {} : { onWritePoint: options.onWritePoint });
    try {
      return new ImplCluster(config, storage);
    } catch (e) {
      storage.close();
      throw e;
    }
  }

  /** A cluster over given durable parts (recovered when `storage.recovered`), e.g. `memoryStorage.reopen()`. */
  static openStorage(config: ClusterConfig, storage: ClusterStorage): ImplCluster {
    checkConfig(config);
    return new ImplCluster(config, storage);
  }

  private constructor(given: ClusterConfig, storage: ClusterStorage) {
    // Our own copy: a caller changing its config object later changes nothing here.
    const config: ClusterConfig = {
      join: { allowedLateness: given.join.allowedLateness, maxIntervalLength: given.join.maxIntervalLength },
      workers: [...given.workers] as ClusterConfig['workers'],
      keys: given.keys.map(({ key, owner }) => ({ key, owner })) as ClusterConfig['keys'],
    };
    this.config = config;
    this.storage = storage;
    this.workers = config.workers.map((id, order) => ({ id, order, status: 'up', copies: new Map() }));
    for (const w of this.workers) this.workerByName.set(w.id, w);
    this.slots = config.keys.map(({ key, owner }, order) => ({
      key,
      order,
      owner: (this.workerByName.get(owner) as Worker).order,
      epoch: 1,
      records: [],
      holders: new Set(),
      stored: undefined,
      lastInstall: undefined,
      lastRelease: undefined,
    }));
    for (const s of this.slots) this.slotByKey.set(s.key, s);
    this.sink = new Sink(
      this.slots.map((s) => s.key),
      storage.sink,
    );
    if (storage.recovered) {
      this.coordinatorUp = false;
      this.recover();
    } else {
      // C1: every node up; each key's owner holds an empty, active copy at cursor 0 and epoch 1.
      this.coordinatorUp = true;
      for (const s of this.slots)
        this.setCopy(this.workers[s.owner] as Worker, s, { operator: new JoinOperator(config.join), cursor: 0, epoch: 1, frozen: false });
    }
  }

  /**
   * Loads the durable parts after a crash of the whole cluster: every node
   * is down, so no copy exists. Checks that the parts agree with each other
   * and throws DurableStateError naming the part that does not.
   */
  private recover(): void {
    for (const w of this.workers) w.status = 'down';
    const log = this.storage.log;
    for (let i = 0; i < log.length; i++) this.indexRecord(log.at(i), i);
    const record = this.storage.coordinator.load();
    if (record !== undefined) {
      for (const [i, row] of record.keys.entries()) {
        const slot = this.slots[i] as KeySlot;
        slot.owner = (this.workerByName.get(row.owner) as Worker).order;
        slot.epoch = row.epoch;
      }
      this.handoff = record.handoff;
      for (const m of record.lastRelease) (this.slotByKey.get(m.key) as KeySlot).lastRelease = m;
    }
    for (const m of this.storage.coordinator.installMessages()) {
      if (m.checkpoint !== null && m.checkpoint.cursor > log.length) {
        throw new DurableStateError(
          this.storage.where('install'),
          `the install message of ${JSON.stringify(m.key)} restores cursor ${m.checkpoint.cursor}, past the log's ${log.length} records`,
        );
      }
      (this.slotByKey.get(m.key) as KeySlot).lastInstall = m;
    }
    for (const key of this.storage.checkpoints.keys()) {
      if (!this.slotByKey.has(key))
        throw new DurableStateError(
          this.storage.where('checkpoints'),
          `holds a checkpoint of ${JSON.stringify(key)}, which is not a declared key`,
        );
    }
    for (const slot of this.slots) {
      const cp = this.storedCheckpoint(slot);
      if (cp !== undefined && cp.cursor > log.length) {
        throw new DurableStateError(
          this.storage.where('checkpoints'),
          `the checkpoint of ${JSON.stringify(slot.key)} has cursor ${cp.cursor}, past the log's ${log.length} records`,
        );
      }
      const join = this.config.join;
      if (
        cp !== undefined &&
        (cp.state.config.allowedLateness !== join.allowedLateness || cp.state.config.maxIntervalLength !== join.maxIntervalLength)
      ) {
        throw new DurableStateError(
          this.storage.where('checkpoints'),
          `the checkpoint of ${JSON.stringify(slot.key)} was taken under another join config`,
        );
      }
      // C7, C8: the fence is raised before ownership is written, so it is never behind the table.
      if (this.sink.fenceOf(slot.key) < slot.epoch) {
        throw new DurableStateError(
          this.storage.where('sink'),
          `the fence of ${JSON.stringify(slot.key)} is ${this.sink.fenceOf(slot.key)}, behind its committed epoch ${slot.epoch}: the sink and the coordinator's table do not belong together`,
        );
      }
    }
  }

  // -------------------------------------------------------------------------
  // Public API

  /**
   * Applies one external action (SPEC §5) and then processes eagerly (§7).
   * An action that is not enabled changes nothing and returns an error
   * saying why. Throws TypeError for an action of no known type, and
   * ClusterStoppedError once closed or after a durable write failed.
   */
  apply(action: ClusterAction): ClusterApplyResult {
    if (this.stopped !== undefined) throw new ClusterStoppedError(this.stopped);
    // A record is copied before anything else: the log must not alias the caller's object, and a record of no known kind is refused here.
    const checked: ClusterAction = action.type === 'record' ? { type: 'record', record: copyOfRecord(action.record) } : action;
    const why = this.whyNotEnabled(checked);
    if (why !== undefined) return { error: { kind: 'not-enabled', text: `${describeClusterAction(checked)}: ${why}` } };
    const events: ClusterEvent[] = [];
    const runnable: Runnable = new Set();
    try {
      this.perform(checked, events, runnable);
      this.settle(runnable, events);
    } catch (e) {
      // Part of the action may have happened: the volatile state is no longer known to match the durable one.
      this.stopped = `stopped: ${describeClusterAction(action)} failed part-way (${e instanceof Error ? e.message : String(e)}); reopen the cluster to recover its durable state`;
      throw e;
    }
    return { events };
  }

  /** The observation of SPEC §7. */
  observe(): ClusterObservation {
    if (this.stopped !== undefined) throw new ClusterStoppedError(this.stopped);
    const keys: ClusterObservation['coordinator']['keys'] = {};
    for (const s of this.slots) defineOwn(keys, s.key, { owner: (this.workers[s.owner] as Worker).id, epoch: s.epoch });
    const workers: ClusterObservation['workers'] = {};
    for (const w of this.workers) {
      const copies: ClusterObservation['workers'][string]['keys'] = {};
      for (const s of this.slots) {
        const c = w.copies.get(s.order);
        if (c !== undefined)
          defineOwn(copies, s.key, { epoch: c.epoch, cursor: c.cursor, frozen: c.frozen, retained: c.operator.retained(s.key) });
      }
      defineOwn(workers, w.id, { status: w.status, keys: copies });
    }
    const store: ClusterObservation['store'] = {};
    for (const s of this.slots)
      if (s.stored !== undefined)
        defineOwn(store, s.key, { epoch: s.stored.epoch, cursor: s.stored.cursor, retained: { ...s.stored.retained } });
    const h = this.handoff;
    return {
      log: this.storage.log.length,
      coordinator: {
        up: this.coordinatorUp,
        handoff: h === null ? null : { kind: h.kind, key: h.key, src: h.src, dst: h.dst, from: h.from, phase: h.phase },
        keys,
      },
      workers,
      store,
      sink: this.sink.observe(),
    };
  }

  /** The sink's relation: match ids inserted and not retracted, in §0 order. */
  sinkRelation(): string[] {
    return this.sink.relation();
  }

  /** What opening the durable parts found, dropped and reported (torn tails, unusable checkpoint files, left-over temporary files). */
  problems(): RecoveryProblem[] {
    return this.storage.problems();
  }

  /** Releases the durable parts (closes files). Writes nothing: closing is indistinguishable from a crash between actions. */
  close(): void {
    if (this.stopped === 'closed') return;
    this.stopped = 'closed';
    this.storage.close();
  }

  // -------------------------------------------------------------------------
  // Guards (SPEC §5): why an action is not enabled, or undefined when it is.

  private whyNotEnabled(a: ClusterAction): string | undefined {
    const coordinatorDown = this.coordinatorUp ? undefined : 'the coordinator is down';
    switch (a.type) {
      case 'record':
        return undefined;
      case 'process':
        // §7: processing is eager, so after every action no process step is left enabled.
        return 'processing runs eagerly after every action (SPEC §7); no process step is pending';
      case 'freeze': {
        const slot = this.slotByKey.get(a.key);
        const to = this.workerByName.get(a.to);
        if (coordinatorDown) return coordinatorDown;
        if (slot === undefined) return `unknown key ${a.key}`;
        if (to === undefined) return `unknown worker ${a.to}`;
        if (this.handoff !== null) return `a handoff of ${this.handoff.key} is in flight`;
        const src = this.workers[slot.owner] as Worker;
        if (to === src) return `${a.to} already owns ${a.key}`;
        if (src.status !== 'up') return `the owner ${src.id} is not up`;
        if (to.status !== 'up') return `${to.id} is not up`;
        const copy = src.copies.get(slot.order);
        if (copy === undefined || copy.frozen || copy.epoch !== slot.epoch)
          return `the owner ${src.id} holds no active copy of ${a.key} at epoch ${slot.epoch}`;
        return undefined;
      }
      case 'persist': {
        const h = this.handoffOf(a.key);
        if (coordinatorDown) return coordinatorDown;
        if (h === undefined || h.kind !== 'migrate' || h.phase !== 'frozen') return `no migration of ${a.key} awaits persist`;
        const src = this.workerByName.get(h.src) as Worker;
        if (src.status !== 'up') return `the source ${src.id} is not up`;
        const copy = src.copies.get(this.slotOf(a.key).order);
        if (copy === undefined || !copy.frozen) return `the source ${src.id} holds no frozen copy of ${a.key}`;
        return undefined;
      }
      case 'install': {
        const h = this.handoffOf(a.key);
        if (coordinatorDown) return coordinatorDown;
        if (h === undefined || h.kind !== 'migrate' || !INSTALL_PHASES.includes(h.phase))
          return `no migration of ${a.key} awaits install (it needs a persisted checkpoint)`;
        if ((this.workerByName.get(h.dst) as Worker).status !== 'up') return `the destination ${h.dst} is not up`;
        return undefined;
      }
      case 'duplicateInstall': {
        const m = this.slotByKey.get(a.key)?.lastInstall;
        if (m === undefined) return `no install of ${a.key} was ever sent`;
        if ((this.workerByName.get(m.dst) as Worker).status !== 'up') return `its destination ${m.dst} is not up`;
        return undefined;
      }
      case 'duplicateRelease': {
        const m = this.slotByKey.get(a.key)?.lastRelease;
        if (m === undefined) return `no release of ${a.key} was ever sent`;
        if ((this.workerByName.get(m.src) as Worker).status !== 'up') return `its source ${m.src} is not up`;
        return undefined;
      }
      case 'commit': {
        const h = this.handoffOf(a.key);
        if (coordinatorDown) return coordinatorDown;
        if (h === undefined || (h.phase !== 'installed' && h.phase !== 'fenced')) return `no handoff of ${a.key} awaits commit`;
        if (a.crashAfterFence && h.phase !== 'installed')
          return 'the fence is already raised, so there is no crash point between the parts';
        const dst = this.workerByName.get(h.dst) as Worker;
        if (h.kind === 'migrate') {
          if (dst.status !== 'up') return `the destination ${dst.id} is not up`;
          const copy = dst.copies.get(this.slotOf(a.key).order);
          if (copy === undefined || copy.epoch !== h.from + 1)
            return `the destination ${dst.id} holds no installed copy of ${a.key} at epoch ${h.from + 1}`;
        } else if (dst.status === 'paused') return `the destination ${dst.id} is paused`;
        return undefined;
      }
      case 'release': {
        const h = this.handoffOf(a.key);
        if (coordinatorDown) return coordinatorDown;
        if (h === undefined || h.phase !== 'committed') return `no handoff of ${a.key} awaits release`;
        if ((this.workerByName.get(h.src) as Worker).status === 'paused') return `the source ${h.src} is paused`;
        return undefined;
      }
      case 'abort': {
        const h = this.handoffOf(a.key);
        if (coordinatorDown) return coordinatorDown;
        if (h === undefined || h.kind !== 'migrate') return `no migration of ${a.key} is in flight`;
        if (h.phase === 'fenced' || h.phase === 'committed') return 'past the fence a handoff only goes forward (C5)';
        if ((this.workerByName.get(h.src) as Worker).status === 'paused') return `the source ${h.src} is paused`;
        return undefined;
      }
      case 'failover': {
        const slot = this.slotByKey.get(a.key);
        const to = this.workerByName.get(a.to);
        if (coordinatorDown) return coordinatorDown;
        if (slot === undefined) return `unknown key ${a.key}`;
        if (to === undefined) return `unknown worker ${a.to}`;
        if (this.handoff !== null) return `a handoff of ${this.handoff.key} is in flight`;
        const owner = this.workers[slot.owner] as Worker;
        if (owner.status === 'up') return `the owner ${owner.id} is up`;
        if (to.status !== 'up') return `${to.id} is not up`;
        return undefined;
      }
      case 'checkpoint': {
        const w = this.workerByName.get(a.worker);
        const slot = this.slotByKey.get(a.key);
        if (w === undefined) return `unknown worker ${a.worker}`;
        if (slot === undefined) return `unknown key ${a.key}`;
        if (w.status !== 'up') return `${w.id} is not up`;
        const copy = w.copies.get(slot.order);
        if (copy === undefined || copy.frozen) return `${w.id} holds no active copy of ${a.key}`;
        return undefined;
      }
      case 'crash': {
        if (a.node === COORDINATOR_NODE) return this.coordinatorUp ? undefined : 'the coordinator is already down';
        const w = this.workerByName.get(a.node);
        if (w === undefined) return `unknown node ${a.node}`;
        return w.status === 'down' ? `${w.id} is already down` : undefined;
      }
      case 'restart': {
        if (a.node === COORDINATOR_NODE) return this.coordinatorUp ? 'the coordinator is up' : undefined;
        const w = this.workerByName.get(a.node);
        if (w === undefined) return `unknown node ${a.node}`;
        return w.status === 'down' ? undefined : `${w.id} is not down`;
      }
      case 'pause': {
        const w = this.workerByName.get(a.worker);
        if (w === undefined) return `unknown worker ${a.worker}`;
        return w.status === 'up' ? undefined : `${w.id} is not up`;
      }
      case 'resume': {
        const w = this.workerByName.get(a.worker);
        if (w === undefined) return `unknown worker ${a.worker}`;
        return w.status === 'paused' ? undefined : `${w.id} is not paused`;
      }
      default:
        throw new TypeError(`action.type ${JSON.stringify((a as { type?: unknown }).type)} is not a cluster action`);
    }
  }

  // -------------------------------------------------------------------------
  // Effects of enabled actions. Durable writes come before the volatile
  // changes they announce.

  private perform(a: ClusterAction, events: ClusterEvent[], runnable: Runnable): void {
    switch (a.type) {
      case 'record':
        return this.appendRecord(a.record, events, runnable);
      case 'process':
        return; // never enabled (see whyNotEnabled)
      case 'freeze': {
        // C5: record the handoff durably, then stop the source's copy.
        const slot = this.slotOf(a.key);
        const src = this.workers[slot.owner] as Worker;
        this.handoff = { kind: 'migrate', key: slot.key, src: src.id, dst: a.to, from: slot.epoch, phase: 'frozen' };
        this.saveCoordinator();
        (src.copies.get(slot.order) as KeyCopy).frozen = true;
        return;
      }
      case 'persist': {
        // C5: the frozen source's checkpoint is durable before the handoff may move on to install.
        const h = this.handoff as HandoffRecord;
        const slot = this.slotOf(h.key);
        this.writeCheckpoint(slot, (this.workerByName.get(h.src) as Worker).copies.get(slot.order) as KeyCopy);
        this.setPhase('persisted');
        return;
      }
      case 'install': {
        // C6: send the store's latest checkpoint (or none) at epoch from + 1.
        const h = this.handoff as HandoffRecord;
        const slot = this.slotOf(h.key);
        const message: InstallMessage = { key: slot.key, dst: h.dst, epoch: h.from + 1, checkpoint: this.storedCheckpoint(slot) ?? null };
        this.storage.coordinator.saveInstall(message);
        slot.lastInstall = message;
        this.deliverInstall(message, events);
        if (h.phase !== 'fenced') this.setPhase('installed');
        return;
      }
      case 'duplicateInstall':
        return this.deliverInstall(this.slotOf(a.key).lastInstall as InstallMessage, events);
      case 'duplicateRelease':
        return this.deliverRelease(this.slotOf(a.key).lastRelease as ReleaseMessage, events);
      case 'commit': {
        // C7: the fence part, then the ownership part; the coordinator may crash between them.
        let h = this.handoff as HandoffRecord;
        if (h.phase === 'installed') {
          h = this.fencePart(h);
          if (a.crashAfterFence) {
            this.coordinatorUp = false;
            return;
          }
        } else {
          // Phase fenced: the fence part ran before a crash. Raising the fence again is a
          // no-op unless that crash fell between writing the phase and raising the fence.
          this.sink.raiseFence(h.key, h.from + 1);
        }
        return this.ownershipPart(h, events, runnable);
      }
      case 'release': {
        // C7: the handoff is over; tell the source to let go of the old epoch.
        const h = this.handoff as HandoffRecord;
        const slot = this.slotOf(h.key);
        const message: ReleaseMessage = { key: slot.key, src: h.src, epoch: h.from };
        slot.lastRelease = message;
        this.handoff = null;
        this.saveCoordinator();
        if ((this.workerByName.get(h.src) as Worker).status === 'up') this.deliverRelease(message, events);
        return;
      }
      case 'abort': {
        // C5: before the fence a handoff may be abandoned; the source goes on under the old epoch.
        const h = this.handoff as HandoffRecord;
        const slot = this.slotOf(h.key);
        this.handoff = null;
        this.saveCoordinator();
        const src = this.workerByName.get(h.src) as Worker;
        const srcCopy = src.copies.get(slot.order);
        if (src.status === 'up' && srcCopy !== undefined && srcCopy.frozen && srcCopy.epoch === h.from) {
          srcCopy.frozen = false;
          this.wake(runnable, src, slot);
        }
        const dst = this.workerByName.get(h.dst) as Worker;
        const dstCopy = dst.copies.get(slot.order);
        if (dst.status === 'up' && dstCopy !== undefined && dstCopy.frozen && dstCopy.epoch === h.from + 1) {
          this.dropCopy(dst, slot);
          events.push({ type: 'dropped', worker: dst.id, key: slot.key, reason: 'aborted' });
        }
        return;
      }
      case 'failover': {
        // C8: the fence part, then ownership to a live worker that recovers the key.
        const slot = this.slotOf(a.key);
        const h = this.fencePart({
          kind: 'failover',
          key: slot.key,
          src: (this.workers[slot.owner] as Worker).id,
          dst: a.to,
          from: slot.epoch,
          phase: 'fenced',
        });
        if (a.crashAfterFence) {
          this.coordinatorUp = false;
          return;
        }
        return this.ownershipPart(h, events, runnable);
      }
      case 'checkpoint': {
        // C4: a periodic checkpoint of an active copy.
        const w = this.workerByName.get(a.worker) as Worker;
        const slot = this.slotOf(a.key);
        this.writeCheckpoint(slot, w.copies.get(slot.order) as KeyCopy);
        return;
      }
      case 'crash': {
        // C10: a crash loses the node's volatile state; durable parts are untouched.
        if (a.node === COORDINATOR_NODE) {
          this.coordinatorUp = false;
          return;
        }
        const w = this.workerByName.get(a.node) as Worker;
        w.status = 'down';
        for (const order of [...w.copies.keys()]) this.dropCopy(w, this.slots[order] as KeySlot);
        return;
      }
      case 'restart': {
        if (a.node === COORDINATOR_NODE) {
          // C10: the durable record is intact; an in-flight handoff continues from its phase.
          this.coordinatorUp = true;
          return;
        }
        // C10: up with no copies, then recover every key the table gives it, under the key's epoch.
        const w = this.workerByName.get(a.node) as Worker;
        w.status = 'up';
        for (const slot of this.slots) {
          if (slot.owner !== w.order) continue;
          this.recoverCopy(w, slot, slot.epoch, events);
          this.wake(runnable, w, slot);
        }
        return;
      }
      case 'pause':
        // C10: stops acting, keeps its copies.
        (this.workerByName.get(a.worker) as Worker).status = 'paused';
        return;
      case 'resume': {
        // C10: acts again with the copies and epochs it had (a zombie, if its keys moved meanwhile).
        const w = this.workerByName.get(a.worker) as Worker;
        w.status = 'up';
        for (const order of w.copies.keys()) this.wake(runnable, w, this.slots[order] as KeySlot);
        return;
      }
    }
  }

  /** C3: validate, append durably, and wake the copies that read the record. */
  private appendRecord(record: LogRecord, events: ClusterEvent[], runnable: Runnable): void {
    const slot = record.kind === 'watermark' ? undefined : this.slotByKey.get(record.key);
    const reason =
      recordValidity(record, this.config.join.maxIntervalLength) ??
      (record.kind !== 'watermark' && slot === undefined ? 'unknown_key' : undefined);
    if (reason !== undefined) {
      events.push({ type: 'rejected', outcome: { code: 'rejected', reason } });
      return;
    }
    const index = this.storage.log.length;
    // C3: every valid record goes to the durable log, whether or not its key is
    // frozen. A frozen key's records wait there for whichever copy owns the key
    // next, which reads them from its checkpoint's cursor; none is held anywhere else.
    this.storage.log.append(record);
    this.indexRecord(record, index);
    events.push({ type: 'appended', index });
    if (slot === undefined) {
      // A watermark is read by every copy (C3); only the copies that exist are visited.
      for (const w of this.workers)
        if (w.status === 'up') for (const order of w.copies.keys()) this.wake(runnable, w, this.slots[order] as KeySlot);
    } else {
      for (const w of slot.holders) this.wake(runnable, w, slot);
    }
  }

  private indexRecord(record: LogRecord, index: number): void {
    if (record.kind === 'watermark') this.watermarks.push(index);
    else (this.slotByKey.get(record.key) as KeySlot).records.push(index);
  }

  /** C3: the index of the next record a copy of `slot` at `cursor` reads (its key's rows and every watermark), or the log length. */
  private nextRelevant(slot: KeySlot, cursor: number): number {
    const own = slot.records[lowerBound(slot.records, cursor)];
    const wm = this.watermarks[lowerBound(this.watermarks, cursor)];
    const next = own === undefined ? wm : wm === undefined ? own : Math.min(own, wm);
    return next ?? this.storage.log.length;
  }

  /** C3: a worker processes a copy only while it is up and the copy is active; a frozen copy's records stay in the log. */
  private canProcess(w: Worker, copy: KeyCopy): boolean {
    return w.status === 'up' && !copy.frozen;
  }

  private wake(runnable: Runnable, w: Worker, slot: KeySlot): void {
    runnable.add(w.order * this.slots.length + slot.order);
  }

  /**
   * §7 eager processing: repeatedly the first worker in config order, then
   * its first key in config order, with an enabled process step. Processing
   * one copy never enables another (it touches only that copy and the sink),
   * so visiting the woken copies once, in that order, each to the end of its
   * backlog, is the same run.
   */
  private settle(runnable: Runnable, events: ClusterEvent[]): void {
    if (runnable.size === 0) return;
    const order = [...runnable].sort((a, b) => a - b);
    const keyCount = this.slots.length;
    for (const id of order) {
      const w = this.workers[Math.floor(id / keyCount)] as Worker;
      const slot = this.slots[id % keyCount] as KeySlot;
      const copy = w.copies.get(slot.order);
      if (copy !== undefined && this.canProcess(w, copy)) this.processBacklog(w, slot, copy, events);
    }
  }

  /** C3/C9: the copy reads its relevant records to the end of the log, writing each record's changes as one write. */
  private processBacklog(w: Worker, slot: KeySlot, copy: KeyCopy, events: ClusterEvent[]): void {
    const log = this.storage.log;
    for (;;) {
      const index = this.nextRelevant(slot, copy.cursor);
      if (index >= log.length) return;
      const { outcome, changes } = copy.operator.apply(log.at(index));
      copy.cursor = index + 1;
      const fenced = changes.length > 0 && this.sink.write(slot.key, copy.epoch, changes);
      events.push({
        type: 'processed',
        worker: w.id,
        key: slot.key,
        index,
        epoch: copy.epoch,
        outcome,
        changes: changes as Change[],
        fenced,
      });
      if (fenced) {
        // C9: a writer the sink has fenced has lost the key; it stops and forgets it.
        this.dropCopy(w, slot);
        events.push({ type: 'dropped', worker: w.id, key: slot.key, reason: 'fenced' });
        return;
      }
    }
  }

  // -------------------------------------------------------------------------
  // Handoff parts and messages

  /**
   * C7/C8 first part: the handoff's phase becomes `fenced`, and the sink's
   * fence for the key is raised to from + 1. The record is written first: a
   * crash between the two leaves phase `fenced` with the fence not yet up,
   * which the next commit completes (it raises the fence again before the
   * ownership part); the other order could leave the fence raised with the
   * handoff still abortable, the key's owner fenced and nobody to take over.
   */
  private fencePart(h: HandoffRecord): HandoffRecord {
    const fenced: HandoffRecord = { ...h, phase: 'fenced' };
    this.handoff = fenced;
    this.saveCoordinator();
    this.sink.raiseFence(h.key, h.from + 1);
    return fenced;
  }

  /** C7/C8 second part: write ownership; a migrate's destination starts, a failover's recovers the key. */
  private ownershipPart(h: HandoffRecord, events: ClusterEvent[], runnable: Runnable): void {
    const slot = this.slotOf(h.key);
    const dst = this.workerByName.get(h.dst) as Worker;
    slot.owner = dst.order;
    slot.epoch = h.from + 1;
    this.handoff = h.kind === 'migrate' ? { ...h, phase: 'committed' } : null;
    this.saveCoordinator();
    if (h.kind === 'migrate') {
      (dst.copies.get(slot.order) as KeyCopy).frozen = false;
      this.wake(runnable, dst, slot);
    } else if (dst.status === 'up') {
      this.recoverCopy(dst, slot, slot.epoch, events);
      this.wake(runnable, dst, slot);
    }
    // A failover to a down worker: ownership is written; it recovers the key when it restarts (C10).
  }

  /** C6: deliver an install message, subject to the install epoch check. */
  private deliverInstall(m: InstallMessage, events: ClusterEvent[]): void {
    const dst = this.workerByName.get(m.dst) as Worker;
    const slot = this.slotOf(m.key);
    const held = dst.copies.get(slot.order);
    // C6 install epoch check: refuse an epoch the destination already has, or has passed.
    if (held !== undefined && held.epoch >= m.epoch) {
      events.push({ type: 'refused', worker: dst.id, key: slot.key, reason: 'stale-epoch' });
      return;
    }
    const copy = this.rebuildCopy(m.checkpoint ?? undefined, m.epoch, true);
    this.setCopy(dst, slot, copy);
    events.push({ type: 'restored', worker: dst.id, key: slot.key, cursor: copy.cursor, epoch: m.epoch });
  }

  /** C7: deliver a release message, subject to the release epoch check. */
  private deliverRelease(m: ReleaseMessage, events: ClusterEvent[]): void {
    const src = this.workerByName.get(m.src) as Worker;
    const slot = this.slotOf(m.key);
    const copy = src.copies.get(slot.order);
    // C7 release epoch check: drop the copy only if it is still of the released epoch.
    if (copy === undefined || copy.epoch !== m.epoch) return;
    this.dropCopy(src, slot);
    events.push({ type: 'dropped', worker: src.id, key: slot.key, reason: 'released' });
  }

  private setPhase(phase: HandoffPhase): void {
    this.handoff = { ...(this.handoff as HandoffRecord), phase };
    this.saveCoordinator();
  }

  /** Writes the coordinator's durable record: table, handoff record, last release messages. */
  private saveCoordinator(): void {
    const record: CoordinatorRecord = {
      keys: this.slots.map((s) => ({ key: s.key, owner: (this.workers[s.owner] as Worker).id, epoch: s.epoch })),
      handoff: this.handoff,
      lastRelease: this.slots.flatMap((s) => (s.lastRelease === undefined ? [] : [s.lastRelease])),
    };
    this.storage.coordinator.save(record);
  }

  // -------------------------------------------------------------------------
  // Checkpoints and copies

  /** C4: the copy's (epoch, cursor, state) becomes the key's latest checkpoint; durable when this returns. */
  private writeCheckpoint(slot: KeySlot, copy: KeyCopy): void {
    this.storage.checkpoints.put({ key: slot.key, epoch: copy.epoch, cursor: copy.cursor, state: copy.operator.snapshot() });
    slot.stored = { epoch: copy.epoch, cursor: copy.cursor, retained: copy.operator.retained(slot.key) };
  }

  /** The store's latest checkpoint of the key, or undefined; keeps the observed summary in step with it. */
  private storedCheckpoint(slot: KeySlot): Checkpoint | undefined {
    const cp = this.storage.checkpoints.get(slot.key);
    slot.stored = cp === undefined ? undefined : { epoch: cp.epoch, cursor: cp.cursor, retained: retainedInSnapshot(cp) };
    return cp;
  }

  /** C4, C8, C10: failover and restart rebuild a key from its LATEST durable checkpoint. */
  private checkpointToRecoverFrom(slot: KeySlot): Checkpoint | undefined {
    return this.storedCheckpoint(slot);
  }

  /** C8/C10: an active copy of the key at `epoch`, from the latest checkpoint. */
  private recoverCopy(w: Worker, slot: KeySlot, epoch: number, events: ClusterEvent[]): void {
    const copy = this.rebuildCopy(this.checkpointToRecoverFrom(slot), epoch, false);
    this.setCopy(w, slot, copy);
    events.push({ type: 'restored', worker: w.id, key: slot.key, cursor: copy.cursor, epoch });
  }

  /** C4: a copy from a checkpoint's (state, cursor), or empty at cursor 0; it resumes reading the log at that cursor. */
  private rebuildCopy(checkpoint: Checkpoint | undefined, epoch: number, frozen: boolean): KeyCopy {
    const join = this.config.join;
    if (checkpoint === undefined) return { operator: new JoinOperator(join), cursor: 0, epoch, frozen };
    return { operator: JoinOperator.restore(join, checkpoint.state), cursor: checkpoint.cursor, epoch, frozen };
  }

  private setCopy(w: Worker, slot: KeySlot, copy: KeyCopy): void {
    w.copies.set(slot.order, copy);
    slot.holders.add(w);
  }

  private dropCopy(w: Worker, slot: KeySlot): void {
    w.copies.delete(slot.order);
    slot.holders.delete(w);
  }

  private slotOf(key: string): KeySlot {
    return this.slotByKey.get(key) as KeySlot;
  }

  private handoffOf(key: string): HandoffRecord | undefined {
    const h = this.handoff;
    return h !== null && h.key === key ? h : undefined;
  }
}
