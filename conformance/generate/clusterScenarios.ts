// The named cluster scenarios of the bounded-exhaustive traces
// (exhaustive.ts): each a cluster, a workload script and budgets per kind of
// control action and fault, in the explorer's vocabulary
// (model/cluster/boundedHistories.ts).
import { rowRecord, watermarkRecord } from '../../spec/index.ts';
import type { ClusterConfig, ExternalAction, LogRecord, RowRecord } from '../../spec/index.ts';
import type { ClusterBounds } from '../../model/index.ts';
import { TIME_EDGES, collidingRowsForEverySeparator, heldState, heldWatermarkAgain } from './edges.ts';
import { collisionOf, collisionRowsApart, everyCollisionRecipe } from './separators.ts';

/** A named bounded scenario: a cluster, a workload script, and budgets per kind of control action and fault. */
export interface ExhaustiveScenario {
  /** A cluster scenario. */
  readonly kind: 'cluster';
  /** The scenario's name. */
  readonly name: string;
  /** One line: what the scenario is about. */
  readonly description: string;
  /** The cluster config (C1). */
  readonly cluster: ClusterConfig;
  /**
   * Records appended first in every trace, each processed at once by the
   * initial owner, before any control action or fault: the operator state
   * the scenario starts from (valid records of declared keys). The script
   * is then interleaved with everything else.
   */
  readonly prelude?: readonly LogRecord[];
  /** The workload script and the budget per kind of control action and fault. */
  readonly bounds: ClusterBounds;
  /**
   * Scripts mode (clusterScripts.ts): the traces are given, each a list of
   * actions run after the prelude as it is, every one enabled where it
   * comes; exhaustive over a class their builder enumerates, not over a
   * graph. `bounds.script` is then unused, and the budgets bound each script.
   */
  readonly scripts?: readonly (readonly ExternalAction[])[];
}

/** A row record with its own ts (rowRecord's is its start). */
const row = (
  kind: 'insert' | 'retract',
  key: string,
  side: 'L' | 'R',
  id: string,
  start: number,
  end: number,
  ts: number = start,
): RowRecord => ({
  ...rowRecord(kind, key, side, id, start, end),
  ts,
});
const watermark = watermarkRecord;

const none = { migrations: 0, failovers: 0, crashes: 0, pauses: 0, duplicates: 0, checkpoints: 0 } as const;
const join = { allowedLateness: 1, maxIntervalLength: 2 } as const;

/**
 * A rich operator state for k1 under L = 1, D = 2 (horizon = end + 3, J8),
 * built before anything else happens. Afterwards: live d [1,3] (horizon 6)
 * and a [0,2] (horizon 5), bound in that order, so horizon order is not
 * insertion order; the tombstone e (a retract that overtook its insert,
 * J6, horizon 5); the matches a/d and a/b, whose right endpoint b (horizon
 * 3) is evicted (J8); both watermarks at 4, R reaching it from one below
 * and then sent again equal and one below, both stale (J4).
 */
const RICH_PRELUDE: readonly LogRecord[] = [
  row('insert', 'k1', 'R', 'd', 1, 3, 2),
  row('insert', 'k1', 'L', 'a', 0, 2, 1),
  row('insert', 'k1', 'R', 'b', 0, 0),
  row('retract', 'k1', 'R', 'e', 2, 2),
  watermark('L', 4),
  watermark('R', 3),
  watermark('R', 4),
  watermark('R', 4),
  watermark('R', 3),
];

/**
 * The state a zombie checkpoints (C4, C10): live rows a and b matched, a
 * watermark on one side; then a row that matches a and a's retraction,
 * so that a copy restored from the checkpoint and one restored empty differ
 * at once.
 */
const ZOMBIE_PRELUDE: readonly LogRecord[] = [
  row('insert', 'k1', 'L', 'a', 0, 2, 1),
  row('insert', 'k1', 'R', 'b', 1, 1),
  watermark('L', 1),
];
const ZOMBIE_SCRIPT: readonly LogRecord[] = [row('insert', 'k1', 'R', 'c', 2, 2), row('retract', 'k1', 'L', 'a', 0, 2, 1)];

/**
 * A zombie checkpoint read again (C4, C6, C10): k1 with held state on w1, which pauses while k1 fails over
 * and then checkpoints under its old epoch; `reads` budgets how the store is read after it.
 */
function zombieCheckpointScenario(name: string, description: string, reads: Partial<ClusterBounds>): ExhaustiveScenario {
  return {
    kind: 'cluster',
    name,
    description,
    cluster: { join, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    prelude: [...heldState('k1'), ...ZOMBIE_PRELUDE],
    bounds: { ...none, script: ZOMBIE_SCRIPT, pauses: 1, failovers: 1, checkpoints: 1, ...reads },
  };
}

/**
 * Two keys with state of their own (C3: each copy reads only its key's
 * records): k1 a match a/b, k2 a live row a, a watermark; then a row that
 * matches in each and a retraction in k1.
 */
const TWO_KEYS_PRELUDE: readonly LogRecord[] = [
  row('insert', 'k1', 'L', 'a', 0, 2),
  row('insert', 'k1', 'R', 'b', 1, 1),
  row('insert', 'k2', 'L', 'a', 0, 2),
  watermark('L', 1),
];
const TWO_KEYS_SCRIPT: readonly LogRecord[] = [
  row('insert', 'k1', 'R', 'c', 2, 2),
  row('insert', 'k2', 'R', 'c', 2, 2),
  row('retract', 'k1', 'L', 'a', 0, 2),
];

/**
 * The scripts of `colliding-separators-across-a-handoff` (J3, C9, C6): every
 * collision of the class (separators.ts: the sandwich of every separator
 * of zero, one or two characters, of every punctuation-letter-punctuation triple
 * and quoted punctuation, and the half-escaped and percent forms), in chunks
 * of `chunk`, all in the one key k: collision i of a chunk at the instants
 * 2i and 2i + 1 (`collisionRowsApart`: only its two colliding matches are
 * made) with its ids tagged by its place in the class, so that no two share
 * an identity (J2). Per chunk: half the collisions inserted by the owner w1,
 * which writes both colliding matches of each to the sink; k migrated to w2,
 * whose installed copy holds them (C6); the other half inserted by w2; then
 * both watermarks past every horizon, which evicts them all (J8). A sink
 * that files a key's matches under a naive id P + left + S + right + Q keeps
 * one of two colliding matches: it shows at the insert that binds the second.
 */
/** The planned migration of key k from its owner to w2, every step of the handoff (C5-C7), as the scripts send it. */
const migrateToW2: readonly ExternalAction[] = [
  { type: 'freeze', key: 'k', to: 'w2' },
  { type: 'persist', key: 'k' },
  { type: 'install', key: 'k' },
  { type: 'commit', key: 'k' },
  { type: 'release', key: 'k' },
];

export function collidingSeparatorScripts(chunk: number): ExternalAction[][] {
  const recipes = everyCollisionRecipe();
  const record = (r: LogRecord): ExternalAction => ({ type: 'record', record: r });
  const out: ExternalAction[][] = [];
  for (let from = 0; from < recipes.length; from += chunk) {
    const part = recipes.slice(from, from + chunk).map((r, i) => collisionRowsApart(collisionOf(r, `.${from + i}`), 'k', 2 * i));
    const half = Math.ceil(part.length / 2);
    out.push([
      ...part.slice(0, half).flat().map(record),
      ...migrateToW2,
      ...part.slice(half).flat().map(record),
      record(watermark('L', 2 * part.length)),
      record(watermark('R', 2 * part.length)),
    ]);
  }
  return out;
}

let separatorScripts: ExternalAction[][] | undefined;

/** The largest eviction queue a `restored-eviction-queue-of-every-size` script restores: past two doublings of 16. */
export const RESTORED_QUEUE_SIZES = 34;

/**
 * The scripts of `restored-eviction-queue-of-every-size` (C6, C8, C10, J8):
 * after the held state of every scenario (`heldState`: three entries at
 * instant -1), for every n from 0 to RESTORED_QUEUE_SIZES - 1 and each way a
 * copy is restored from a checkpoint (an install, a failover, a restart), n
 * left rows of k inserted by w1 in descending order of end (instants n - 1 down to 0,
 * L = D = 0: horizon = end), so that the restored eviction queue is never in
 * insertion order; the copy restored; two rows more, one past every other
 * end and one at 0, so that the restored queue must keep growing in order;
 * then the left watermark past everything and the right one up one instant
 * at a time, each evicting exactly one instant's rows, observed after every
 * step. An index or queue rebuilt wrongly at some size (a capacity, a
 * doubling, a sift that stops early) evicts a row too early or too late.
 */
export function restoredQueueScripts(): ExternalAction[][] {
  const record = (r: LogRecord): ExternalAction => ({ type: 'record', record: r });
  const point = (id: string, t: number): ExternalAction => record(row('insert', 'k', 'L', id, t, t));
  const restores: readonly (readonly ExternalAction[])[] = [
    migrateToW2,
    [
      { type: 'checkpoint', worker: 'w1', key: 'k' },
      { type: 'crash', node: 'w1' },
      { type: 'failover', key: 'k', to: 'w2' },
    ],
    [
      { type: 'checkpoint', worker: 'w1', key: 'k' },
      { type: 'crash', node: 'w1' },
      { type: 'restart', node: 'w1' },
    ],
  ];
  const out: ExternalAction[][] = [];
  for (let n = 0; n < RESTORED_QUEUE_SIZES; n++) {
    for (const restore of restores) {
      const rows = Array.from({ length: n }, (_, i) => point(`r${i}`, n - 1 - i));
      const ticks = Array.from({ length: n + 1 }, (_, t) => record(watermark('R', t + 1)));
      out.push([...rows, ...restore, point('late-end', n), point('zero-end', 0), record(watermark('L', n + 1)), ...ticks]);
    }
  }
  return out;
}

let restoredQueues: ExternalAction[][] | undefined;

/**
 * The scenarios. Most keep one key (keys are independent,
 * SPEC §6; the two-key ones are there for the guards and recoveries that
 * must tell keys apart) and budgets of one or two, so that every crash point is reached,
 * and a second fault during the recovery from the first, while the state
 * graphs stay small enough to run in full against a process (about 45,600
 * interleavings in all, probes included in them).
 */
export const CLUSTER_SCENARIOS: readonly ExhaustiveScenario[] = [
  {
    kind: 'cluster',
    name: 'migration-under-traffic',
    description:
      'a planned migration of k1 from w1 while a match and its retraction arrive; up to two crashes anywhere (source, ' +
      'destination, coordinator, idle worker, also between the parts of commit and of failover and during recovery), with ' +
      'every restart, abort and failover that can follow',
    cluster: { join, workers: ['w1', 'w2', 'w3'], keys: [{ key: 'k1', owner: 'w1' }] },
    prelude: heldState('k1'),
    bounds: {
      ...none,
      script: [row('insert', 'k1', 'L', 'a', 1, 2), row('insert', 'k1', 'R', 'b', 2, 3), row('retract', 'k1', 'L', 'a', 1, 2)],
      migrations: 1,
      failovers: 1,
      crashes: 2,
    },
  },
  {
    kind: 'cluster',
    name: 'failover-replay-from-older-checkpoint',
    description:
      'up to two periodic checkpoints at any point, then the owner crashes and the key fails over (the coordinator may crash ' +
      'between the parts): the new owner replays the log from the older checkpoint and the sink absorbs the repeats',
    cluster: { join, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    prelude: heldState('k1'),
    bounds: {
      ...none,
      script: [
        heldWatermarkAgain(),
        row('insert', 'k1', 'L', 'a', 1, 2),
        row('insert', 'k1', 'R', 'b', 2, 3),
        row('retract', 'k1', 'L', 'a', 1, 2),
      ],
      failovers: 1,
      crashes: 2,
      checkpoints: 2,
    },
  },
  {
    kind: 'cluster',
    name: 'zombie-after-failover',
    description:
      'the owner pauses, is declared dead and failed over (the coordinator may crash between the fence and the ownership; up ' +
      'to two crashes), then resumes as a zombie with its old epoch and writes: fenced',
    cluster: { join, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    prelude: heldState('k1'),
    bounds: {
      ...none,
      script: [row('insert', 'k1', 'L', 'a', 1, 2), row('insert', 'k1', 'R', 'b', 2, 3), row('retract', 'k1', 'R', 'b', 2, 3)],
      failovers: 1,
      crashes: 2,
      pauses: 1,
    },
  },
  {
    kind: 'cluster',
    name: 'duplicates-after-the-store-moved',
    description:
      'a migration (committed or aborted at any phase) whose install and release messages are delivered again after ' +
      "the owner checkpointed a later state: a duplicate carries the checkpoint it was sent with, not the store's " +
      'latest (C11: exactly as sent; C4, C6)',
    cluster: { join, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    prelude: heldState('k1'),
    bounds: {
      ...none,
      script: [row('insert', 'k1', 'L', 'c', 1, 2)],
      migrations: 1,
      duplicates: 1,
      checkpoints: 1,
    },
  },
  {
    kind: 'cluster',
    name: 'duplicates-and-retractions-across-a-handoff',
    description:
      'a retraction that overtakes its insert (the insert that follows is a duplicate of the tombstone) and a match with its ' +
      'retraction, ids with / and %, crossing a migration with up to two duplicated install and release messages and one ' +
      'crash anywhere',
    cluster: { join, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    prelude: heldState('k1'),
    bounds: {
      ...none,
      // Ids with the characters the match-id encoding escapes (J3).
      script: [
        row('retract', 'k1', 'R', 'd%', 1, 1),
        row('insert', 'k1', 'L', 'a/1', 1, 2),
        row('insert', 'k1', 'R', 'd%', 1, 1),
        row('insert', 'k1', 'R', 'b', 2, 3),
        row('retract', 'k1', 'L', 'a/1', 1, 2),
      ],
      migrations: 1,
      duplicates: 2,
      crashes: 1,
    },
  },
  {
    kind: 'cluster',
    name: 'watermark-passes-horizon-during-handoff',
    description:
      "the watermark passes one row's horizon (J8) while the key is being handed over, and stops at the other's boundary, " +
      'whose retraction must still retract the match: eviction under a migration with up to two crashes anywhere',
    cluster: { join, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    prelude: heldState('k1'),
    bounds: {
      ...none,
      // Horizons (J8, L + D = 3): a at 5, b at 6. At gw = 6, a is evicted, b is
      // held at its boundary, and so is the match a/b; b's retraction is on time
      // and must retract a/b although a is gone.
      script: [
        row('insert', 'k1', 'L', 'a', 1, 2),
        row('insert', 'k1', 'R', 'b', 2, 3),
        watermark('L', 6),
        watermark('R', 6),
        row('retract', 'k1', 'R', 'b', 2, 3),
      ],
      migrations: 1,
      crashes: 2,
    },
  },
  {
    kind: 'cluster',
    name: 'rich-state-across-a-handoff',
    description:
      'k1 carries a rich operator state (live rows whose horizon order is not their insertion order, a tombstone, a ' +
      'match whose right endpoint is evicted, both watermarks set) into a migration, a failover or a restart; then ' +
      'inserts at the lateness edge (ts = gw - L on time, gw - L - 1 late), the retraction of the row whose partner ' +
      'is evicted, and watermarks one past two horizons and exactly at a third; up to one crash anywhere',
    cluster: { join, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    prelude: RICH_PRELUDE,
    bounds: {
      ...none,
      script: [
        // gw = 4, L = 1: ts = 3 is exactly on time (J5), ts = 2 one tick late.
        row('insert', 'k1', 'L', 'f', 2, 3, 3),
        row('insert', 'k1', 'R', 'g', 2, 2),
        // a's horizon is 5 >= gw: on time; it retracts a/d and a/b, whose b is evicted (J6, J8).
        row('retract', 'k1', 'L', 'a', 0, 2, 1),
        watermark('L', 6),
        // gw = 6: one past the horizon of e and a (5), they go; d (horizon 6) stays, at its boundary (J8).
        watermark('R', 6),
      ],
      migrations: 1,
      failovers: 1,
      crashes: 1,
    },
  },
  {
    kind: 'cluster',
    name: 'failover-with-duplicates-and-failback',
    description:
      'k1, with a rich operator state, migrates from w1 to w2; w2 crashes and k1 fails back to w1, its owner before, ' +
      'while the last install and release messages are delivered again (up to two duplicates, before and after the ' +
      'failover, to a restarted w2 too): the epoch checks of install and release (C6, C7) decide; at the end a ' +
      'retraction one tick past its horizon (J6)',
    cluster: { join, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    prelude: RICH_PRELUDE,
    bounds: {
      ...none,
      // gw = 6 = horizon(e) + 1: the retraction of e is late by one tick (J6).
      script: [row('retract', 'k1', 'L', 'a', 0, 2, 1), watermark('L', 6), watermark('R', 6), row('retract', 'k1', 'R', 'e', 2, 2)],
      migrations: 1,
      failovers: 1,
      crashes: 1,
      duplicates: 2,
    },
  },
  {
    kind: 'cluster',
    name: 'zombie-failback-with-duplicates',
    description:
      'k1, with a rich operator state, migrates from w1 to w2; w2 pauses, k1 fails back to w1, and w2 resumes as a ' +
      'zombie holding epoch 2 while the last install and release messages are delivered again (up to two duplicates): ' +
      'fenced writes, and the epoch checks of install and release (C6, C7, C9)',
    cluster: { join, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    prelude: RICH_PRELUDE,
    bounds: {
      ...none,
      script: [row('retract', 'k1', 'L', 'a', 0, 2, 1), watermark('L', 6), watermark('R', 6)],
      migrations: 1,
      failovers: 1,
      pauses: 1,
      duplicates: 2,
    },
  },
  {
    kind: 'cluster',
    name: 'colliding-ids',
    description:
      'L = D = 0 and ids whose naive concatenation collides for every common separator (|, :, /, comma, -, space, ' +
      'none): (k, x, y{s}z) and (k, x{s}y, z) are distinct matches (J3); their retraction crosses a migration with ' +
      'one crash anywhere',
    cluster: { join: { allowedLateness: 0, maxIntervalLength: 0 }, workers: ['w1', 'w2'], keys: [{ key: 'k', owner: 'w1' }] },
    prelude: [...heldState('k'), ...collidingRowsForEverySeparator('k')],
    bounds: {
      ...none,
      script: [heldWatermarkAgain(), row('retract', 'k', 'L', 'x', 0, 0), row('retract', 'k', 'R', 'z', 1, 1)],
      migrations: 1,
      crashes: 1,
    },
  },
  {
    kind: 'cluster',
    name: 'extreme-times',
    description:
      'L = D = 2^50 and times at both ends of the range (2^50, -2^50): intervals of length exactly D, an insert at ts ' +
      '= gw - L = -2^50, the watermark at 2^50, a retraction at a horizon of 3 * 2^50; across a migration or a ' +
      'failover with one crash anywhere',
    cluster: {
      join: { allowedLateness: TIME_EDGES.max, maxIntervalLength: TIME_EDGES.max },
      workers: ['w1', 'w2'],
      keys: [{ key: 'k1', owner: 'w1' }],
    },
    prelude: [
      row('insert', 'k1', 'L', 'a', TIME_EDGES.min, 0, TIME_EDGES.min),
      row('insert', 'k1', 'R', 'b', 0, TIME_EDGES.max, TIME_EDGES.max),
      watermark('L', TIME_EDGES.max),
      watermark('R', 0),
    ],
    bounds: {
      ...none,
      script: [
        // gw = 0, L = 2^50: ts = -2^50 = gw - L is on time; it overlaps b at 0.
        row('insert', 'k1', 'L', 'c', TIME_EDGES.min, 0, TIME_EDGES.min),
        watermark('R', TIME_EDGES.max),
        // gw = 2^50 <= b's horizon 3 * 2^50: on time, retracts a/b and c/b.
        row('retract', 'k1', 'R', 'b', 0, TIME_EDGES.max, TIME_EDGES.max),
      ],
      migrations: 1,
      failovers: 1,
      crashes: 1,
    },
  },
  {
    kind: 'cluster',
    name: 'colliding-separators-across-a-handoff',
    description:
      'L = D = 0; for every separator S of the class operator-colliding-separators builds (none, one or two characters of ' +
      'punctuation, the space, L and R; every punctuation-letter-punctuation triple such as |R:; quoted punctuation; the ' +
      'half-escaped and percent forms), the sandwich left x, left x{S}y, right y{S}z, right z in one key at instants ' +
      'of its own, whose matches (x, y{S}z) and (x{S}y, z) a naive sink id P+left+S+right+Q files alike (J3, C9); in ' +
      'chunks of 16, half inserted before the key migrates (C6), half after, then all evicted',
    cluster: { join: { allowedLateness: 0, maxIntervalLength: 0 }, workers: ['w1', 'w2'], keys: [{ key: 'k', owner: 'w1' }] },
    bounds: { ...none, script: [], migrations: 1 },
    // Built when first asked for (some 20,000 actions): not at every start of the command.
    get scripts() {
      separatorScripts ??= collidingSeparatorScripts(16);
      return separatorScripts;
    },
  },
  {
    kind: 'cluster',
    name: 'restored-eviction-queue-of-every-size',
    description:
      'L = D = 0; for every n from 0 to 33 and each restore from a checkpoint (an install, a failover, a restart), k ' +
      'holds the held state and n left rows inserted in descending order of end (3 to 36 entries); the copy is restored (C6, C8, C10), two rows more ' +
      'arrive (one past every end, one at 0), and the right watermark rises one instant at a time, each step evicting ' +
      'exactly the rows of one instant (J8): an eviction queue or index rebuilt wrongly at some size shows at once',
    cluster: { join: { allowedLateness: 0, maxIntervalLength: 0 }, workers: ['w1', 'w2'], keys: [{ key: 'k', owner: 'w1' }] },
    prelude: heldState('k'),
    bounds: { ...none, script: [], migrations: 1, failovers: 1, crashes: 1, checkpoints: 1 },
    get scripts() {
      restoredQueues ??= restoredQueueScripts();
      return restoredQueues;
    },
  },
  zombieCheckpointScenario(
    'zombie-checkpoint-installed',
    'k1 with live rows, a match and a watermark; the owner w1 pauses, k1 fails over to w2, w1 resumes as a zombie ' +
      'holding epoch 1 and writes a periodic checkpoint under it (C4: the store keeps the epoch of the copy that wrote ' +
      'it); then k1 migrates, and an install may send the zombie’s checkpoint (C6), which is read again',
    { migrations: 1 },
  ),
  zombieCheckpointScenario(
    'zombie-checkpoint-recovered',
    'k1 with live rows, a match and a watermark; the owner w1 pauses, k1 fails over to w2, w1 resumes as a zombie and ' +
      'checkpoints under epoch 1; up to one crash anywhere, so that the owner restarts and recovers k1 from the ' +
      'zombie’s checkpoint (C4, C10) and replays the log from its cursor',
    { crashes: 1 },
  ),
  {
    kind: 'cluster',
    name: 'two-keys-handoff-while-the-other-runs',
    description:
      'k1 and k2 on w1, each with rows and a match: up to two migrations, one key at a time, while records of both ' +
      'arrive, so that a later install goes to the worker that already holds the other key under a newer epoch (the ' +
      'install epoch check is about the key installed, C6); an abort, a commit or a release of the key not in flight ' +
      'is refused (C5)',
    cluster: {
      join,
      workers: ['w1', 'w2'],
      keys: [
        { key: 'k1', owner: 'w1' },
        { key: 'k2', owner: 'w1' },
      ],
    },
    prelude: [...heldState('k1', 'k2'), ...TWO_KEYS_PRELUDE],
    bounds: { ...none, script: TWO_KEYS_SCRIPT, migrations: 2 },
  },
  {
    kind: 'cluster',
    name: 'two-keys-failover-of-a-shared-owner',
    description:
      'w1 owns both k1 and k2; it crashes (or the coordinator does), and each key fails over on its own, one checkpoint ' +
      'at any point; the restarted w1 recovers whatever the table still gives it (C8, C10): recoveries that must tell ' +
      'the keys apart',
    cluster: {
      join,
      workers: ['w1', 'w2'],
      keys: [
        { key: 'k1', owner: 'w1' },
        { key: 'k2', owner: 'w1' },
      ],
    },
    prelude: [...heldState('k1', 'k2'), ...TWO_KEYS_PRELUDE],
    bounds: { ...none, script: [heldWatermarkAgain(), ...TWO_KEYS_SCRIPT], failovers: 2, crashes: 1, checkpoints: 1 },
  },
];

export function exhaustiveScenario(name: string): ExhaustiveScenario | undefined {
  return CLUSTER_SCENARIOS.find((s) => s.name === name);
}
