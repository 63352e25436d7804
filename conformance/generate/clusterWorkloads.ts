// The workloads of random cluster traces (clusterTraces.ts): logs in
// contract (J9) over a domain's keys, built above all to produce writes for
// the handoffs, fences and the sink's dedup to act on.
import fc from 'fast-check';
import { TIME_MAX } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, RowRecord, Watermarks } from '../../spec/index.ts';
import { globalWatermark, validityOf } from '../../model/index.ts';
import { type ClusterDomain, UNDECLARED_KEY } from './clusterDomains.ts';
import { conflictOf, heldState, invalidRecords } from './edges.ts';
import {
  burstRecipes,
  collisionBurstArbitrary,
  collisionOf,
  collisionRows,
  collisionRowsApart,
  randomCollisionArbitrary,
  type CollisionBurst,
  type CollisionRecipe,
} from './separators.ts';
import {
  collideArbitrary,
  collisionRecords,
  edgeRecords,
  edgeStepArbitrary,
  keepInContract,
  trackWatermarks,
  type EdgeStep,
} from './logs.ts';

/**
 * One workload step. Unlike the operator-level logs (logs.ts), which
 * exercise every J-rule, a cluster workload must above all produce *writes*:
 * matches, and retractions of matched rows, for the handoff, the fence and
 * the sink's dedup to act on. So inserts dominate, some come in overlapping
 * pairs (a match for certain), times are close together, and a retraction
 * names a row inserted before; a few retractions overtake their insert (J6),
 * and a few re-sends conflict (J2).
 */
type WorkloadOp =
  | { readonly insert: { key: number; side: 'L' | 'R'; id: number; start: number; length: number; offset: number } }
  | { readonly pair: { key: number; left: number; right: number; start: number; length: number } }
  | { readonly overtake: { key: number; side: 'L' | 'R'; id: number; start: number; length: number; offset: number } }
  | { readonly retract: number }
  | { readonly resend: number }
  | { readonly conflict: number }
  | { readonly watermark: { side: 'L' | 'R'; wm: number } }
  | { readonly odd: 'unknown_key' | 'bad_side' }
  | { readonly invalid: number }
  | { readonly edge: EdgeStep; readonly key: number }
  | { readonly horizonOf: number; readonly delta: number; readonly thenRetract: boolean }
  | { readonly rich: { key: number; start: number; mirrored: boolean } }
  | { readonly richStart: true }
  | { readonly collide: { t: number; which: number } }
  | { readonly separators: { key: number; t: number; recipes: readonly CollisionRecipe[] } }
  | { readonly burst: CollisionBurst; readonly key: number; readonly t: number };

function workloadOpArbitrary(domain: ClusterDomain, config: JoinConfig): fc.Arbitrary<WorkloadOp> {
  // Lengths within D and times near the domain's: the edge steps reach the extremes (2^50, D + 1) on purpose.
  const D = Math.min(config.maxIntervalLength, domain.maxTime);
  const slack = Math.min(config.allowedLateness + config.maxIntervalLength, 2 * domain.maxTime);
  const row = fc.record({
    key: fc.nat({ max: domain.keys.length - 1 }),
    side: fc.constantFrom('L' as const, 'R' as const),
    id: fc.nat({ max: domain.ids.length - 1 }),
    start: fc.nat({ max: domain.maxTime }),
    length: fc.nat({ max: D }),
    offset: fc.nat({ max: D }),
  });
  const pair = fc.record({
    key: fc.nat({ max: domain.keys.length - 1 }),
    left: fc.nat({ max: domain.ids.length - 1 }),
    right: fc.nat({ max: domain.ids.length - 1 }),
    start: fc.nat({ max: domain.maxTime }),
    length: fc.nat({ max: D }),
  });
  return fc.oneof(
    { weight: 6, arbitrary: row.map((insert) => ({ insert })) },
    { weight: 2, arbitrary: pair.map((p) => ({ pair: p })) },
    { weight: 1, arbitrary: row.map((overtake) => ({ overtake })) },
    { weight: 3, arbitrary: fc.nat().map((retract) => ({ retract })) },
    { weight: 1, arbitrary: fc.nat().map((resend) => ({ resend })) },
    { weight: 1, arbitrary: fc.nat().map((conflict) => ({ conflict })) },
    {
      weight: 2,
      arbitrary: fc
        .record({ side: fc.constantFrom('L' as const, 'R' as const), wm: fc.nat({ max: domain.maxTime + slack + 1 }) })
        .map((watermark) => ({ watermark })),
    },
    { weight: 1, arbitrary: fc.constantFrom('unknown_key' as const, 'bad_side' as const).map((odd) => ({ odd })) },
    // Every J1 failure alone and every pair at once, and C3's unknown key with each: rejected before the log, in J1's order.
    { weight: 2, arbitrary: fc.nat().map((invalid) => ({ invalid })) },
    {
      weight: 2,
      arbitrary: fc.record({ edge: edgeStepArbitrary(domain.ids.length), key: fc.nat({ max: domain.keys.length - 1 }) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ horizonOf: fc.nat(), delta: fc.integer({ min: -1, max: 1 }), thenRetract: fc.boolean() }),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({ key: fc.nat({ max: domain.keys.length - 1 }), start: fc.nat({ max: domain.maxTime }), mirrored: fc.boolean() })
        .map((rich) => ({ rich })),
    },
    ...(domain.colliding ? [{ weight: 4, arbitrary: collideArbitrary(domain.maxTime).map((collide) => ({ collide })) }] : []),
    // Collisions of random separators up to four characters (separators.ts), in one declared key (J3).
    ...(domain.colliding
      ? [
          {
            weight: 3,
            arbitrary: fc
              .record({
                key: fc.nat({ max: domain.keys.length - 1 }),
                t: fc.nat({ max: domain.maxTime }),
                recipes: fc.array(randomCollisionArbitrary(), { minLength: 1, maxLength: 3 }),
              })
              .map((separators) => ({ separators })),
          },
        ]
      : []),
  );
}

/**
 * A rich operator state for one key from time t (J6, J8): a long right row
 * d and a left row a bound before a shorter right row b (so horizon order
 * differs from insertion order), a/b and a/d matching; a retraction that
 * overtakes its insert (a tombstone); then both watermarks one past b's
 * horizon, which evicts b and keeps the match a/b with one endpoint gone.
 * Mirrored, every side is the other: the endpoint gone is the match's
 * left one. Both, because a match with one endpoint evicted is stored, and
 * snapshotted, from the endpoint that stays (a system that keeps it only
 * from its left row loses it exactly when the left row goes first).
 */
function richRows(
  config: JoinConfig,
  domain: ClusterDomain,
  t: number,
  keyed: readonly { readonly key: string; readonly mirrored: boolean }[],
): LogRecord[] {
  const len = Math.min(config.maxIntervalLength, 2);
  const id = (i: number): string => domain.ids[i % domain.ids.length] as string;
  const rows = ({ key, mirrored }: { key: string; mirrored: boolean }): RowRecord[] => {
    const at = (kind: 'insert' | 'retract', side: 'L' | 'R', i: number, start: number, end: number): RowRecord => ({
      kind,
      key,
      side: mirrored ? (side === 'L' ? 'R' : 'L') : side,
      id: id(i),
      ts: start,
      start,
      end,
    });
    return [
      at('insert', 'R', 0, t + Math.min(len, 1), t + Math.min(len, 1) + len),
      at('insert', 'L', 1, t, t + len),
      at('insert', 'R', 2, t, t),
      at('retract', 'R', 1, t + len, t + len),
    ];
  };
  // One pair of watermarks for every key's rows: a second pair would evict what the first left with one endpoint.
  const w = t + config.allowedLateness + config.maxIntervalLength + 1;
  return [...keyed.flatMap(rows), { kind: 'watermark', side: 'L', wm: w }, { kind: 'watermark', side: 'R', wm: w }];
}

function materializeWorkload(domain: ClusterDomain, config: JoinConfig, ops: readonly WorkloadOp[]): LogRecord[] {
  const out: LogRecord[] = [];
  // Each collision step tags its ids with its number, so that no two steps bind one identity at two times (J2).
  let collisionSteps = 0;
  const rows: RowRecord[] = [];
  // The watermarks each record will meet: every copy reads the log in order (C3), so the log's own J4 watermarks are theirs.
  let wm: Watermarks = { L: null, R: null };
  const put = (r: LogRecord): void => {
    out.push(r);
    wm = trackWatermarks(wm, r, config);
  };
  // Records of the edge, rich and colliding steps; their valid inserts are rows later steps may retract or re-send.
  const emit = (records: readonly LogRecord[]): void => {
    for (const r of records) {
      put(r);
      if (r.kind === 'insert' && validityOf(r, config) === undefined) rows.push(r);
    }
  };
  const rowOf = (
    kind: 'insert' | 'retract',
    r: { key: number; side: 'L' | 'R'; id: number; start: number; length: number; offset: number },
  ): RowRecord => ({
    kind,
    key: domain.keys[r.key] as string,
    side: r.side,
    id: domain.ids[r.id] as string,
    ts: r.start + (r.offset % (r.length + 1)),
    start: r.start,
    end: r.start + r.length,
  });
  for (const op of ops) {
    if ('edge' in op) {
      emit(edgeRecords(config, wm, op.edge, { key: domain.keys[op.key % domain.keys.length] as string, ids: domain.ids }));
      continue;
    }
    if ('invalid' in op) {
      // Three in a row: rejected before the log, they cost no state and cover the list three times as fast.
      const all = invalidRecords(config, { key: domain.keys[0] as string, id: domain.ids[0] as string, unknownKey: UNDECLARED_KEY });
      for (let i = 0; i < 3; i++) put(all[(op.invalid + i) % all.length] as LogRecord);
      continue;
    }
    if ('richStart' in op) {
      // Both orientations at once, on the first key and the last (every domain has two keys or more).
      const keyed = [
        { key: domain.keys[0] as string, mirrored: false },
        { key: domain.keys.at(-1) as string, mirrored: true },
      ];
      emit(richRows(config, domain, 0, keyed));
      continue;
    }
    if ('rich' in op) {
      const key = domain.keys[op.rich.key % domain.keys.length] as string;
      emit(richRows(config, domain, op.rich.start, [{ key, mirrored: op.rich.mirrored }]));
      continue;
    }
    if ('collide' in op) {
      if (domain.colliding) emit(collisionRecords(op.collide, domain.keys, wm, config));
      continue;
    }
    if ('separators' in op) {
      // On time at the watermarks they meet (J5), so that both matches of each collision are made; then the first match's left row retracted.
      const gw = globalWatermark(wm);
      const t = gw === null ? op.separators.t : Math.max(op.separators.t, gw - config.allowedLateness);
      const key = domain.keys[op.separators.key % domain.keys.length] as string;
      const n = collisionSteps++;
      const collisions = op.separators.recipes.map((r, i) => collisionOf(r, `${n}.${i}`));
      emit(collisions.flatMap((c) => collisionRows(c, key, t)));
      for (const c of collisions) put({ kind: 'retract', key, side: 'L', id: c.left[0], ts: t, start: t, end: t });
      continue;
    }
    if ('burst' in op) {
      // Members of the whole class (separators.ts) in one key, collision i at the instants t + 2i and t + 2i + 1, so that
      // only its two colliding matches are made, its ids tagged so that no identity is bound twice (J2). A sink that files a key's matches
      // under a naive id (J3, C9) keeps one entry for two matches: it shows at the insert that binds the second.
      const gw = globalWatermark(wm);
      const recipes = burstRecipes(op.burst);
      const t = Math.min(TIME_MAX - 2 * recipes.length, gw === null ? op.t : Math.max(op.t, gw - config.allowedLateness));
      const key = domain.keys[op.key % domain.keys.length] as string;
      const n = collisionSteps++;
      emit(recipes.flatMap((r, i) => collisionRowsApart(collisionOf(r, `${n}.${i}`), key, t + 2 * i)));
      continue;
    }
    if ('horizonOf' in op) {
      // Both watermarks at a row's horizon plus delta; then, maybe, its retraction: on time at the horizon, late one past it (J6, J8).
      const target = rows[op.horizonOf % Math.max(1, rows.length)];
      if (!target) continue;
      const w = target.end + config.allowedLateness + config.maxIntervalLength + op.delta;
      emit([
        { kind: 'watermark', side: 'L', wm: w },
        { kind: 'watermark', side: 'R', wm: w },
        ...(op.thenRetract ? [{ ...target, kind: 'retract' as const }] : []),
      ]);
      continue;
    }
    if ('pair' in op) {
      // Two rows of one key that overlap: a match, for certain (J3).
      const { key, left, right, start, length } = op.pair;
      for (const [side, id] of [
        ['L', left],
        ['R', right],
      ] as const) {
        const r: RowRecord = {
          kind: 'insert',
          key: domain.keys[key] as string,
          side,
          id: domain.ids[id] as string,
          ts: start,
          start,
          end: start + length,
        };
        put(r);
        rows.push(r);
      }
    } else if ('insert' in op || 'overtake' in op) {
      const row = 'insert' in op ? rowOf('insert', op.insert) : rowOf('retract', op.overtake);
      put(row);
      rows.push(row);
    } else if ('retract' in op || 'resend' in op || 'conflict' in op) {
      const i = 'retract' in op ? op.retract : 'resend' in op ? op.resend : op.conflict;
      const row = rows[i % Math.max(1, rows.length)];
      if (!row) continue;
      if ('retract' in op) put({ ...row, kind: 'retract' });
      else if ('resend' in op) put({ ...row });
      // J2: the same identity with other (valid) content: rejected as a conflict. Which of ts, start and end
      // differ is every nonempty subset of them, as an insert or a retract (`conflictOf`): of the rows from the
      // one picked on, the first whose content can differ in just those fields and stay valid.
      else {
        let conflict: RowRecord | undefined;
        // The row from floor(n / 14), the subset and kind from n mod 14 (conflictOf): independent of each other.
        const from = Math.floor(op.conflict / 14);
        for (let k = 0; k < rows.length && conflict === undefined; k++)
          conflict = conflictOf(rows[(from + k) % rows.length] as RowRecord, op.conflict, config);
        put(conflict ?? { ...row, kind: 'insert', ts: row.ts + 1, start: row.start + 1, end: row.end + 1 });
      }
    } else if ('watermark' in op) {
      put({ kind: 'watermark', ...op.watermark });
    } else if (op.odd === 'unknown_key') {
      // C3: a valid record of a key the cluster does not declare is rejected before the log.
      put({ kind: 'insert', key: UNDECLARED_KEY, side: 'L', id: 'a', ts: 1, start: 1, end: 1 });
    } else {
      put({ kind: 'watermark', side: 'X', wm: 1 });
    }
  }
  return out;
}

/**
 * The records every workload starts with (edges.ts `heldState`): in every
 * key, rows, a tombstone and both watermarks, so that whatever handoff,
 * failover or restart comes moves state a fresh copy lacks (C6, C8, C10).
 * The trace sends them before its first control choice.
 */
export function workloadPrelude(domain: ClusterDomain): LogRecord[] {
  return heldState(...domain.keys);
}

/**
 * The burst of collisions a cluster workload may carry (J3, C9): up to
 * twice `CLUSTER_BURST_SLICE` consecutive members of the whole class
 * (separators.ts `everyCollisionRecipe`, from a random place) and a few of
 * random separators of zero to four characters, in one key. Half the
 * workloads carry one: 1,000 random traces per level meet some 95 % of the
 * class (200 traces, some 44 %; the exhaustive scenario
 * `colliding-separators-across-a-handoff` runs all of it), which the sink's
 * id must keep apart; it shrinks, so that a
 * counterexample keeps only the collisions it needs.
 */
const CLUSTER_BURST_SLICE = 32;
const CLUSTER_BURST_RANDOM = 4;

/** A cluster workload for `config` over the domain's keys, in contract (J9), after its prelude (`workloadPrelude`). */
export function workloadArbitrary(domain: ClusterDomain, config: JoinConfig): fc.Arbitrary<LogRecord[]> {
  // One workload in three begins with a rich state, so that the handoffs, failovers and restarts that follow carry it: for
  // the first key, and mirrored for the last (richRows).
  const richStart = fc.integer({ min: 0, max: 2 }).map((n) => n === 2);
  const burst = fc.option(
    fc.record({
      burst: collisionBurstArbitrary(CLUSTER_BURST_SLICE, CLUSTER_BURST_RANDOM),
      key: fc.nat({ max: domain.keys.length - 1 }),
      t: fc.nat({ max: domain.maxTime }),
      at: fc.nat(),
    }),
    { freq: 2 },
  );
  return fc
    .tuple(richStart, fc.array(workloadOpArbitrary(domain, config), { minLength: domain.minRecords, maxLength: domain.maxRecords }), burst)
    .map(([rich, ops, b]) => {
      // The burst at a random place among the steps.
      const at = b === null ? 0 : b.at % (ops.length + 1);
      const all: WorkloadOp[] = b === null ? ops : [...ops.slice(0, at), { burst: b.burst, key: b.key, t: b.t }, ...ops.slice(at)];
      return keepInContract(config, [
        ...workloadPrelude(domain),
        ...materializeWorkload(domain, config, rich ? [{ richStart: true }, ...all] : all),
      ]);
    });
}
