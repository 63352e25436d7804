// Recovery after a crash of the whole cluster (C2, C10): the durable parts
// are loaded and checked against each other before any node restarts.
import { DurableStateError } from '../errors.ts';
import { setPhase, slotAt, slotOf, storeCheckpoint, storedCheckpoint, workerNamed, type ClusterState } from './clusterState.ts';
import { indexRecord } from './eager.ts';
import type { ClusterStorage } from './storage.ts';

/**
 * C10: whether a cluster opens as after a crash of every node: its durable
 * parts hold this cluster's state, or the process that held them was killed
 * (even before its first durable write, when they hold nothing yet).
 */
export function opensRecovering(storage: ClusterStorage, crashed: boolean): boolean {
  return storage.recovered || crashed;
}

/**
 * Loads the durable parts after a crash of the whole cluster: every node
 * is down, so no copy exists. Checks that the parts agree with each other
 * and throws DurableStateError naming the part that does not.
 */
export function recover(c: ClusterState): void {
  for (const w of c.workers) w.status = 'down';
  const log = c.storage.log;
  for (let i = 0; i < log.length; i++) indexRecord(c, log.at(i), i);
  const record = c.storage.coordinator.load();
  if (record !== undefined) {
    for (const [i, row] of record.keys.entries()) {
      const slot = slotAt(c, i);
      slot.owner = workerNamed(c, row.owner).order;
      slot.epoch = row.epoch;
    }
    c.handoff = record.handoff;
    for (const m of record.lastRelease) slotOf(c, m.key).lastRelease = m;
  }
  // C6: an install saves its message in the record with its phase, then in the message's own file; a
  // kill between the two leaves it in the record alone, and recovery finishes the step from there.
  const installing = record?.installing;
  const messages = [
    ...c.storage.coordinator.installMessages().map((m) => ({ m, part: 'install' as const })),
    ...(installing === undefined ? [] : [{ m: installing, part: 'coordinator' as const }]),
  ];
  for (const { m, part } of messages) {
    // Stryker disable all: validation of a damaged data directory: no process kill leaves one (docs/mutation.md)
    if (m.checkpoint !== null && m.checkpoint.cursor > log.length) {
      throw new DurableStateError(
        c.storage.where(part),
        `the install message of ${JSON.stringify(m.key)} restores cursor ${m.checkpoint.cursor}, past the log's ${log.length} records`,
      );
    }
    // Stryker restore all
    slotOf(c, m.key).lastInstall = m;
  }
  if (installing !== undefined) c.storage.coordinator.saveInstall(installing);
  // Stryker disable all: validation of a damaged data directory: no process kill leaves one (docs/mutation.md)
  for (const key of c.storage.checkpoints.keys()) {
    if (!c.slotByKey.has(key))
      throw new DurableStateError(
        c.storage.where('checkpoints'),
        `holds a checkpoint of ${JSON.stringify(key)}, which is not a declared key`,
      );
  }
  // Stryker restore all
  for (const slot of c.slots) {
    const cp = storedCheckpoint(c, slot);
    // Stryker disable all: validation of a damaged data directory: no process kill leaves one (docs/mutation.md)
    if (cp !== undefined && cp.cursor > log.length) {
      throw new DurableStateError(
        c.storage.where('checkpoints'),
        `the checkpoint of ${JSON.stringify(slot.key)} has cursor ${cp.cursor}, past the log's ${log.length} records`,
      );
    }
    const join = c.config.join;
    if (
      cp !== undefined &&
      (cp.state.config.allowedLateness !== join.allowedLateness || cp.state.config.maxIntervalLength !== join.maxIntervalLength)
    ) {
      throw new DurableStateError(
        c.storage.where('checkpoints'),
        `the checkpoint of ${JSON.stringify(slot.key)} was taken under another join config`,
      );
    }
    // C7, C8: the fence is raised before ownership is written, so it is never behind the table.
    if (c.sink.fenceOf(slot.key) < slot.epoch) {
      throw new DurableStateError(
        c.storage.where('sink'),
        `the fence of ${JSON.stringify(slot.key)} is ${c.sink.fenceOf(slot.key)}, behind its committed epoch ` +
          `${slot.epoch}: the sink and the coordinator's table do not belong together`,
      );
    }
  }
  // Stryker restore all
  // C7, C8: the fence part is one step (the fence raised, phase fenced). Its two writes (the
  // handoff record first, then the sink's fence) may be split by a crash: recovery completes it, so
  // that the state recovered is one SPEC has.
  const h = c.handoff;
  if (h !== null && h.phase === 'fenced') c.sink.raiseFence(h.key, h.from + 1);
  // C5: persist is one step too; its writes (the checkpoint named in the record, the store, the
  // phase) may be split by a crash. Once the record names the checkpoint, recovery writes it again
  // and moves the phase on: the state recovered is the step's, whichever write the crash fell after.
  const persisting = record?.persisting;
  if (h !== null && h.phase === 'frozen' && persisting !== undefined) {
    storeCheckpoint(c, slotOf(c, h.key), persisting);
    setPhase(c, 'persisted');
  }
}
