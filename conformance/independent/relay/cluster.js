// The fenced cluster (SPEC §5, §7) as objects that send each other messages:
// a coordinator with its durable table, workers holding copies (each copy its
// own Operator), a checkpoint store of snapshots, and the sink.

import { bug } from './bugs.js';
import { Operator, rejectReason } from './join.js';

export class NotEnabled extends Error {}

const require = (condition, why) => {
  if (!condition) throw new NotEnabled(why);
};

/** An object safe for any property name (a key may be called __proto__). */
export const plain = (entries) => {
  const object = Object.create(null);
  for (const [name, value] of entries) object[name] = value;
  return object;
};

class Copy {
  constructor(epoch, cursor, frozen, operator) {
    Object.assign(this, { epoch, cursor, frozen, operator });
  }
}

class Worker {
  constructor(id) {
    this.id = id;
    this.status = 'up';
    this.copies = new Map();
  }

  get up() {
    return this.status === 'up';
  }
}

class Sink {
  constructor(keys) {
    this.fence = new Map(keys.map((key) => [key, 1]));
    this.byKey = new Map(keys.map((key) => [key, new Map()]));
    this.applied = 0;
    this.deduped = 0;
    this.fenced = 0;
  }

  raise(key, epoch) {
    this.fence.set(key, Math.max(this.fence.get(key), epoch));
  }

  /** C9: one record's changes at once, or none when the writer is fenced. */
  write(key, epoch, changes) {
    if (epoch < this.fence.get(key)) {
      this.fenced += changes.length;
      return false;
    }
    this.raise(key, epoch);
    const entries = this.byKey.get(key);
    for (const change of changes) {
      const filed = bug('naive-sink-id') ? `L:${change.left}|R:${change.right}` : change.match;
      const entry = entries.get(filed);
      if (change.op === 'insert' && entry === undefined) {
        entries.set(filed, { match: change.match, state: 'inserted' });
        this.applied += 1;
      } else if (change.op === 'retract' && entry?.state !== 'retracted') {
        entries.set(filed, { match: entry?.match ?? change.match, state: 'retracted' });
        this.applied += 1;
      } else {
        this.deduped += 1;
      }
    }
    return true;
  }

  observe() {
    const matches = [];
    for (const entries of this.byKey.values()) for (const { match, state } of entries.values()) matches.push([match, state]);
    return {
      fence: plain(this.fence),
      matches: plain(matches),
      applied: this.applied,
      deduped: this.deduped,
      fenced: this.fenced,
    };
  }
}

export class Cluster {
  constructor(config) {
    this.join = config.join;
    this.keys = config.keys.map((placement) => placement.key);
    this.workers = new Map(config.workers.map((id) => [id, new Worker(id)]));
    this.log = [];
    this.coordinator = { up: true, handoff: null, table: new Map() };
    for (const { key, owner } of config.keys) {
      this.coordinator.table.set(key, { owner, epoch: 1 });
      this.workers.get(owner).copies.set(key, new Copy(1, 0, false, this.emptyOperator()));
    }
    this.store = new Map();
    this.sink = new Sink(this.keys);
    this.lastInstall = new Map();
    this.lastRelease = new Map();
  }

  emptyOperator() {
    return new Operator(this.join.allowedLateness, this.join.maxIntervalLength);
  }

  // -- processing (C3, §7) --------------------------------------------------------

  nextRecord(key, cursor) {
    for (let index = cursor; index < this.log.length; index++) {
      const record = this.log[index];
      if (record.kind === 'watermark' || record.key === key) return index;
    }
    return -1;
  }

  firstEnabledStep() {
    for (const worker of this.workers.values()) {
      if (!worker.up) continue;
      for (const key of this.keys) {
        const copy = worker.copies.get(key);
        if (copy !== undefined && !copy.frozen && this.nextRecord(key, copy.cursor) >= 0) return [worker, key, copy];
      }
    }
    return null;
  }

  processEagerly(events) {
    for (let next = this.firstEnabledStep(); next !== null; next = this.firstEnabledStep()) {
      const [worker, key, copy] = next;
      const index = this.nextRecord(key, copy.cursor);
      const { outcome, changes } = copy.operator.apply(this.log[index]);
      copy.cursor = index + 1;
      const fenced = changes.length > 0 && !this.sink.write(key, copy.epoch, changes);
      events.push({ type: 'processed', worker: worker.id, key, index, epoch: copy.epoch, outcome, changes, fenced });
      if (fenced && !bug('fenced-writer-keeps-copy')) {
        worker.copies.delete(key);
        events.push({ type: 'dropped', worker: worker.id, key, reason: 'fenced' });
      }
    }
  }

  // -- helpers of the guards ----------------------------------------------------------

  worker(id) {
    const found = this.workers.get(id);
    require(found !== undefined, `${id} is not a worker`);
    return found;
  }

  entry(key) {
    const found = this.coordinator.table.get(key);
    require(found !== undefined, `${key} is not a declared key`);
    return found;
  }

  coordinatorUp() {
    require(this.coordinator.up, 'the coordinator is down');
  }

  migration(key, phases) {
    const handoff = this.coordinator.handoff;
    require(handoff !== null &&
      handoff.kind === 'migrate' &&
      handoff.key === key &&
      phases.includes(handoff.phase), `no migration of ${key} in ${phases.join('/')}`);
    return handoff;
  }

  checkpointOf(copy, key) {
    this.store.set(key, { epoch: copy.epoch, cursor: copy.cursor, snapshot: copy.operator.snapshot() });
  }

  restore(worker, key, epoch, checkpoint, frozen, events) {
    const cursor = checkpoint === undefined ? 0 : checkpoint.cursor;
    const operator = checkpoint === undefined ? this.emptyOperator() : Operator.restore(checkpoint.snapshot);
    worker.copies.set(key, new Copy(epoch, cursor, frozen, operator));
    events.push({ type: 'restored', worker: worker.id, key, cursor, epoch });
  }

  deliverInstall({ to, key, epoch, checkpoint }, events) {
    const worker = this.workers.get(to);
    const held = worker.copies.get(key);
    const stale = held !== undefined && (bug('install-equal-epoch') ? held.epoch > epoch : held.epoch >= epoch);
    if (stale) events.push({ type: 'refused', worker: to, key, reason: 'stale-epoch' });
    else this.restore(worker, key, epoch, checkpoint, true, events);
  }

  deliverRelease({ to, key, epoch }, events) {
    const worker = this.workers.get(to);
    const held = worker.copies.get(key);
    if (worker.up && held !== undefined && (bug('release-no-epoch-check') || held.epoch === epoch)) {
      worker.copies.delete(key);
      events.push({ type: 'dropped', worker: to, key, reason: 'released' });
    }
  }

  /** C7 part 2, and C8's ownership part for a failover. */
  publishOwner(handoff, events) {
    const entry = this.coordinator.table.get(handoff.key);
    entry.owner = handoff.dst;
    entry.epoch = handoff.from + 1;
    const target = this.workers.get(handoff.dst);
    if (handoff.kind === 'migrate') {
      target.copies.get(handoff.key).frozen = false;
      handoff.phase = 'committed';
      return;
    }
    this.coordinator.handoff = null;
    if (target.up) this.restore(target, handoff.key, entry.epoch, this.store.get(handoff.key), false, events);
  }

  // -- the actions (§5) -----------------------------------------------------------------

  record({ record }, events) {
    const reason =
      rejectReason(record, this.join.maxIntervalLength) ??
      (record.kind !== 'watermark' && !this.coordinator.table.has(record.key) ? 'unknown_key' : null);
    if (reason !== null) {
      events.push({ type: 'rejected', outcome: { code: 'rejected', reason } });
      return;
    }
    events.push({ type: 'appended', index: this.log.length });
    this.log.push(record);
  }

  freeze({ key, to }, _events) {
    const entry = this.entry(key);
    const target = this.worker(to);
    this.coordinatorUp();
    require(this.coordinator.handoff === null, 'a handoff is in flight');
    require(to !== entry.owner, `${to} owns ${key} already`);
    const source = this.workers.get(entry.owner);
    require(source.up && target.up, 'the owner and the destination must be up');
    const copy = source.copies.get(key);
    require(copy !== undefined && !copy.frozen && copy.epoch === entry.epoch, `${entry.owner} has no active copy of ${key}`);
    copy.frozen = true;
    this.coordinator.handoff = { kind: 'migrate', key, src: entry.owner, dst: to, from: entry.epoch, phase: 'frozen' };
  }

  persist({ key }, _events) {
    this.entry(key);
    this.coordinatorUp();
    const handoff = this.migration(key, ['frozen']);
    const source = this.workers.get(handoff.src);
    const copy = source.copies.get(key);
    require(source.up && copy?.frozen === true, `${handoff.src} no longer holds the frozen copy`);
    this.checkpointOf(copy, key);
    handoff.phase = 'persisted';
  }

  install({ key }, events) {
    this.entry(key);
    this.coordinatorUp();
    const handoff = this.migration(key, ['persisted', 'installed', 'fenced']);
    require(this.workers.get(handoff.dst).up, `${handoff.dst} is not up`);
    const message = { to: handoff.dst, key, epoch: handoff.from + 1, checkpoint: this.store.get(key) };
    this.lastInstall.set(key, message);
    if (handoff.phase !== 'fenced') handoff.phase = 'installed';
    this.deliverInstall(message, events);
  }

  commit({ key, crashAfterFence = false }, events) {
    this.entry(key);
    this.coordinatorUp();
    const handoff = this.coordinator.handoff;
    require(handoff !== null && handoff.key === key, `no handoff of ${key} in flight`);
    const target = this.workers.get(handoff.dst);
    if (handoff.kind === 'migrate') {
      require(['installed', 'fenced'].includes(handoff.phase), `the migration of ${key} is not installed`);
      require(target.up && target.copies.get(key)?.epoch === handoff.from + 1, `${handoff.dst} lacks the installed copy`);
    } else {
      require(handoff.phase === 'fenced' && target.status !== 'paused', `the failover of ${key} cannot complete now`);
    }
    require(!crashAfterFence || handoff.phase === 'installed', 'no crash point between the parts in this phase');
    if (handoff.phase === 'installed') {
      this.sink.raise(key, handoff.from + 1);
      handoff.phase = 'fenced';
      if (crashAfterFence) {
        this.coordinator.up = false;
        return;
      }
    }
    this.publishOwner(handoff, events);
  }

  release({ key }, events) {
    this.entry(key);
    this.coordinatorUp();
    const handoff = this.migration(key, ['committed']);
    require(this.workers.get(handoff.src).status !== 'paused', `${handoff.src} is paused`);
    this.coordinator.handoff = null;
    const message = { to: handoff.src, key, epoch: handoff.from };
    this.lastRelease.set(key, message);
    this.deliverRelease(message, events);
  }

  abort({ key }, events) {
    this.entry(key);
    this.coordinatorUp();
    const handoff = this.coordinator.handoff;
    const ours = bug('abort-any-key') || handoff?.key === key;
    require(handoff !== null &&
      ours &&
      handoff.kind === 'migrate' &&
      ['frozen', 'persisted', 'installed'].includes(handoff.phase), `no migration of ${key} to abort`);
    const source = this.workers.get(handoff.src);
    require(source.status !== 'paused', `${handoff.src} is paused`);
    this.coordinator.handoff = null;
    const held = source.copies.get(handoff.key);
    if (source.up && held?.frozen && held.epoch === handoff.from) held.frozen = false;
    const target = this.workers.get(handoff.dst);
    const installed = target.copies.get(handoff.key);
    if (target.up && installed?.frozen && installed.epoch === handoff.from + 1) {
      target.copies.delete(handoff.key);
      events.push({ type: 'dropped', worker: target.id, key: handoff.key, reason: 'aborted' });
    }
  }

  failover({ key, to, crashAfterFence = false }, events) {
    const entry = this.entry(key);
    const target = this.worker(to);
    this.coordinatorUp();
    require(this.coordinator.handoff === null, 'a handoff is in flight');
    require(!this.workers.get(entry.owner).up, `${entry.owner}, the owner of ${key}, is up`);
    require(target.up, `${to} is not up`);
    const handoff = { kind: 'failover', key, src: entry.owner, dst: to, from: entry.epoch, phase: 'fenced' };
    this.coordinator.handoff = handoff;
    this.sink.raise(key, handoff.from + 1);
    if (crashAfterFence) this.coordinator.up = false;
    else this.publishOwner(handoff, events);
  }

  checkpoint({ worker: id, key }, _events) {
    this.entry(key);
    const worker = this.worker(id);
    const copy = worker.copies.get(key);
    require(worker.up && copy !== undefined && !copy.frozen, `${id} has no active copy of ${key}`);
    this.checkpointOf(copy, key);
  }

  crash({ node }, _events) {
    if (node === 'coordinator') {
      require(this.coordinator.up, 'the coordinator is down');
      this.coordinator.up = false;
      return;
    }
    const worker = this.worker(node);
    require(worker.status !== 'down', `${node} is down`);
    worker.status = 'down';
    worker.copies.clear();
  }

  restart({ node }, events) {
    if (node === 'coordinator') {
      require(!this.coordinator.up, 'the coordinator is up');
      this.coordinator.up = true;
      return;
    }
    const worker = this.worker(node);
    require(worker.status === 'down', `${node} is not down`);
    worker.status = 'up';
    for (const key of this.keys) {
      const entry = this.coordinator.table.get(key);
      if (entry.owner !== node) continue;
      this.restore(worker, key, entry.epoch, bug('restart-fresh') ? undefined : this.store.get(key), false, events);
    }
  }

  pause({ worker: id }, _events) {
    const worker = this.worker(id);
    require(worker.up, `${id} is not up`);
    worker.status = 'paused';
  }

  resume({ worker: id }, _events) {
    const worker = this.worker(id);
    require(worker.status === 'paused', `${id} is not paused`);
    worker.status = 'up';
  }

  duplicateInstall({ key }, events) {
    this.entry(key);
    const message = this.lastInstall.get(key);
    require(message !== undefined && this.workers.get(message.to).up, `no install of ${key} can be delivered`);
    this.deliverInstall(message, events);
  }

  duplicateRelease({ key }, events) {
    this.entry(key);
    const message = this.lastRelease.get(key);
    require(message !== undefined && this.workers.get(message.to).up, `no release of ${key} can be delivered`);
    this.deliverRelease(message, events);
  }

  observe() {
    const copyView = (copy, key) => ({
      epoch: copy.epoch,
      cursor: copy.cursor,
      frozen: copy.frozen,
      retained: copy.operator.retained(key),
    });
    const { handoff, up, table } = this.coordinator;
    return {
      log: this.log.length,
      coordinator: {
        up,
        handoff: handoff === null ? null : { ...handoff },
        keys: plain([...table].map(([key, { owner, epoch }]) => [key, { owner, epoch }])),
      },
      workers: plain(
        [...this.workers.values()].map((worker) => [
          worker.id,
          { status: worker.status, keys: plain([...worker.copies].map(([key, copy]) => [key, copyView(copy, key)])) },
        ]),
      ),
      store: plain(
        [...this.store].map(([key, { epoch, cursor, snapshot }]) => [
          key,
          { epoch, cursor, retained: Operator.restore(snapshot).retained(key) },
        ]),
      ),
      sink: this.sink.observe(),
    };
  }
}
