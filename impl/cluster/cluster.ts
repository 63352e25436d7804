// The fenced cluster of SPEC §5 (rules C1–C12), observable as §7 says:
// after every external action it processes eagerly, and `observe()` gives
// the §7 observation. Written from SPEC.md, independently of model/.
//
// The engine in parts, by job:
// - clusterState.ts: the state (durable parts through a ClusterStorage,
//   volatile copies here, C2), copies and checkpoints (C4);
// - inputChecks.ts: the config (C1) and a record action's shape;
// - guards.ts: why an action is not enabled (§5);
// - effects.ts: what each enabled action does (C3–C10);
// - handoff.ts: the fence and ownership parts, message delivery (C6–C8, C11);
// - eager.ts: eager processing (§7) and the log's indexes;
// - recovery.ts: loading and cross-checking the durable parts (C2, C10).
//
// Cost: an action does work in proportion to what it causes. A record
// appends once and wakes only the copies that read it (the copies of its
// key, or every copy for a watermark); each process step finds the copy's
// next relevant record by binary search in per-key and watermark indexes;
// eager processing visits only the copies an action may have made runnable.
// Control actions write the coordinator's record (O(keys)) when it changes;
// checkpoints and restores cost O(the key's state).
import type { ClusterAction, ClusterConfig, ClusterEvent, ClusterObservation, LogRecord } from '../../spec/index.ts';
import { describeClusterAction } from '../../spec/index.ts';
import { ClusterStoppedError } from '../errors.ts';
import { JoinOperator } from '../operator.ts';
import { setCopy, workerAt, type ClusterState, type KeySlot, type Runnable, type Worker } from './clusterState.ts';
import type { RecoveryProblem, WritePointHook } from './durableFiles.ts';
import { settle } from './eager.ts';
import { perform } from './effects.ts';
import { FileStorage } from './fileStorage.ts';
import { whyNotEnabled } from './guards.ts';
import { checkConfig, copyOfRecord } from './inputChecks.ts';
import { opensRecovering, recover } from './recovery.ts';
import { defineOwn, Sink } from './sink.ts';
import { MemoryStorage } from './storage.ts';
import type { ClusterStorage, SinkChange } from './storage.ts';

export type { WorkerStatus } from './clusterState.ts';

/** What `apply` returns: the events the action caused, in order (C12), or why it is not enabled. */
export type ClusterApplyResult = { events: ClusterEvent[] } | { error: { kind: 'not-enabled'; text: string } };

/** Options of the implementation cluster: where its durable parts live, crash injection, history recording. */
export interface ImplClusterOptions {
  /** Keep the durable parts in this directory (created if needed); without it they live in memory. */
  readonly dataDir?: string;
  /** Crash injection for tests: called at every point of every durable write to `dataDir`. */
  readonly onWritePoint?: WritePointHook;
  /** Records the history as `streamjoin audit` reads it: what the log appends, what the sink applies. */
  readonly recorder?: HistoryRecorder;
  /**
   * The process that held `dataDir` was killed: start as after a crash of
   * every node (all down, for the caller to restart) even when the directory
   * holds nothing yet, as when the kill came before the first durable write.
   */
  readonly crashed?: boolean;
}

/** The two halves of a recorded history (`streamjoin audit`): the log in order, and the changes the sink applied. */
export interface HistoryRecorder {
  /** A valid record appended to the input log (C3), in log order. */
  appended(record: LogRecord): void;
  /** The changes of one write that the sink applied (C9: neither deduplicated nor fenced), under the writer's key and epoch. */
  applied(key: string, epoch: number, changes: readonly SinkChange[]): void;
}

/**
 * The fenced cluster engine. `apply` one external action at a time;
 * `observe` after any of them. See clusterState.ts for what is durable.
 */
export class ImplCluster {
  private readonly state: ClusterState;
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
      // Stryker disable next-line all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
      options.dataDir === undefined
        ? new MemoryStorage()
        : // Stryker disable next-line all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
          FileStorage.open(options.dataDir, config, options.onWritePoint === undefined ? {} : { onWritePoint: options.onWritePoint });
    // Stryker disable all: a constructor that throws: only for a config checkConfig refused first (docs/mutation.md)
    try {
      return new ImplCluster(config, storage, options.recorder, options.crashed === true);
    } catch (e) {
      storage.close();
      throw e;
    }
  }
  // Stryker restore all

  // Stryker disable all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
  /** A cluster over given durable parts (recovered when `storage.recovered`), e.g. `memoryStorage.reopen()`. */
  static openStorage(config: ClusterConfig, storage: ClusterStorage, recorder?: HistoryRecorder): ImplCluster {
    checkConfig(config);
    return new ImplCluster(config, storage, recorder, false);
  }
  // Stryker restore all

  private constructor(given: ClusterConfig, storage: ClusterStorage, recorder: HistoryRecorder | undefined, crashed: boolean) {
    // C10: a cluster reopened after its process died starts with every node down, whatever its directory held.
    const recovering = opensRecovering(storage, crashed);
    // Our own copy: a caller changing its config object later changes nothing here.
    const config: ClusterConfig = {
      join: { allowedLateness: given.join.allowedLateness, maxIntervalLength: given.join.maxIntervalLength },
      workers: [...given.workers] as ClusterConfig['workers'],
      keys: given.keys.map(({ key, owner }) => ({ key, owner })) as ClusterConfig['keys'],
    };
    const workers: Worker[] = config.workers.map((id, order) => ({ id, order, status: 'up', copies: new Map() }));
    const workerByName = new Map(workers.map((w) => [w.id, w]));
    const slots: KeySlot[] = config.keys.map(({ key, owner }, order) => ({
      key,
      order,
      // A listed worker (checkConfig): its position in the config.
      owner: config.workers.indexOf(owner),
      epoch: 1,
      records: [],
      holders: new Set(),
      stored: undefined,
      lastInstall: undefined,
      lastRelease: undefined,
    }));
    this.state = {
      config,
      storage,
      sink: new Sink(
        slots.map((s) => s.key),
        storage.sink,
        // Stryker disable next-line all: history recording only (serve --record): the harness runs without a recorder (docs/mutation.md)
        recorder === undefined ? undefined : (key, epoch, changes) => recorder.applied(key, epoch, changes),
      ),
      workers,
      workerByName,
      slots,
      slotByKey: new Map(slots.map((s) => [s.key, s])),
      watermarks: [],
      coordinatorUp: !recovering,
      // Stryker disable next-line all: history recording only (serve --record): the harness runs without a recorder (docs/mutation.md)
      onAppended: recorder === undefined ? undefined : (record) => recorder.appended(record),
      handoff: null,
      // mutant: frozen-key-events-in-coordinator-memory
    };
    // Stryker disable next-line all: recovery and on-disk storage only: no protocol action reopens a cluster (docs/mutation.md)
    if (recovering) recover(this.state);
    else {
      // C1: every node up; each key's owner holds an empty, active copy at cursor 0 and epoch 1.
      for (const s of slots)
        setCopy(workerAt(this.state, s.owner), s, { operator: new JoinOperator(config.join), cursor: 0, epoch: 1, frozen: false });
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
    // Stryker disable next-line all: a stopped or closed cluster: the harness never acts on one (docs/mutation.md)
    if (this.stopped !== undefined) throw new ClusterStoppedError(this.stopped);
    // A record is copied before anything else: the log must not alias the caller's object, and a record of no known kind is refused here.
    const checked: ClusterAction = action.type === 'record' ? { type: 'record', record: copyOfRecord(action.record) } : action;
    const why = whyNotEnabled(this.state, checked);
    // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    if (why !== undefined) return { error: { kind: 'not-enabled', text: `${describeClusterAction(checked)}: ${why}` } };
    const events: ClusterEvent[] = [];
    const runnable: Runnable = new Set();
    // Stryker disable all: an action that throws: the in-memory cluster throws only on a broken invariant (docs/mutation.md)
    try {
      perform(this.state, checked, events, runnable);
      settle(this.state, runnable, events);
    } catch (e) {
      // Part of the action may have happened: the volatile state is no longer known to match the durable one.
      this.stopped = `stopped: ${describeClusterAction(action)} failed part-way (${e instanceof Error ? e.message : String(e)}); reopen the cluster to recover its durable state`;
      throw e;
    }
    // Stryker restore all
    return { events };
  }

  /** The observation of SPEC §7. */
  observe(): ClusterObservation {
    // Stryker disable next-line all: a stopped or closed cluster: the harness never acts on one (docs/mutation.md)
    if (this.stopped !== undefined) throw new ClusterStoppedError(this.stopped);
    const c = this.state;
    const keys: ClusterObservation['coordinator']['keys'] = {};
    for (const s of c.slots) defineOwn(keys, s.key, { owner: workerAt(c, s.owner).id, epoch: s.epoch });
    const workers: ClusterObservation['workers'] = {};
    for (const w of c.workers) {
      const copies: ClusterObservation['workers'][string]['keys'] = {};
      for (const s of c.slots) {
        const copy = w.copies.get(s.order);
        if (copy !== undefined)
          defineOwn(copies, s.key, {
            epoch: copy.epoch,
            cursor: copy.cursor,
            frozen: copy.frozen,
            retained: copy.operator.retained(s.key),
          });
      }
      defineOwn(workers, w.id, { status: w.status, keys: copies });
    }
    const store: ClusterObservation['store'] = {};
    for (const s of c.slots)
      if (s.stored !== undefined)
        defineOwn(store, s.key, { epoch: s.stored.epoch, cursor: s.stored.cursor, retained: { ...s.stored.retained } });
    const h = c.handoff;
    return {
      log: c.storage.log.length,
      coordinator: {
        up: c.coordinatorUp,
        handoff: h === null ? null : { kind: h.kind, key: h.key, src: h.src, dst: h.dst, from: h.from, phase: h.phase },
        keys,
      },
      workers,
      store,
      sink: c.sink.observe(),
    };
  }

  // Stryker disable all: read by the durability tests only, never by the protocol (docs/mutation.md)
  /** The sink's relation: match ids inserted and not retracted, in §0 order. */
  sinkRelation(): string[] {
    return this.state.sink.relation();
  }

  /** What opening the durable parts found, dropped and reported (torn tails, unusable checkpoint files, left-over temporary files). */
  problems(): RecoveryProblem[] {
    return this.state.storage.problems();
  }
  // Stryker restore all

  // Stryker disable all: a stopped or closed cluster: the harness never acts on one (docs/mutation.md)
  /** Releases the durable parts (closes files). Writes nothing: closing is indistinguishable from a crash between actions. */
  close(): void {
    if (this.stopped === 'closed') return;
    this.stopped = 'closed';
    this.state.storage.close();
  }
}
// Stryker restore all
