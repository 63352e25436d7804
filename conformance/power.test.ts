// The harness's power (issue 9), in its generators: rule edges in random
// traces and in the exhaustive scenarios of each level, and rich operator
// state carried across handoffs. The runs of the whole job against wrong
// systems, as `streamjoin conform` shows them, are in
// cli/conformPower.e2e.test.ts. Each would fail if its deliverable
// regressed.
import { describe, expect, inject, it } from 'vitest';
import fc from 'fast-check';
import { TIME_MAX, TIME_MIN } from '../spec/index.ts';
import type { ClusterEvent, ClusterTrace, ExternalAction, JoinConfig, LogRecord, RowRecord } from '../spec/index.ts';
import { globalWatermark, initialJoinState, stepJoin, validityOf, type JoinState } from '../model/join/join.ts';
import { initialClusterState, type ClusterState, type KeyCopy } from '../model/cluster/clusterState.ts';
import { applyExternal } from '../model/cluster/stateMachine.ts';
import { whyNotEnabled } from '../model/cluster/guards.ts';
import { coverScenario, rejectedRecords } from './generate/exhaustive.ts';
import { CLUSTER_SCENARIOS, exhaustiveScenario, type ExhaustiveScenario } from './generate/clusterScenarios.ts';
import { OPERATOR_SCENARIOS, coverOperatorScenario, type OperatorCover, type OperatorScenario } from './generate/operatorExhaustive.ts';
import { everySeparator } from './generate/separators.ts';
import { COMMON_SEPARATORS, ROW_CHECKS } from './generate/edges.ts';
import { operatorTraceArbitrary } from './generate/logs.ts';
import { indexShapes } from './generate/indexShapes.ts';
import { clusterTraceArbitrary } from './generate/clusterTraces.ts';
import { smallClusterDomain } from './generate/clusterDomains.ts';

const seed = inject('fcSeed');
const scenario = (name: string): ExhaustiveScenario => exhaustiveScenario(name) as ExhaustiveScenario;
const operatorCovers = (): OperatorCover[] => OPERATOR_SCENARIOS.map((s) => coverOperatorScenario(s));

// ---------------------------------------------------------------------------
// The edges of the rules a log reaches, computed from the state each record meets.

const isTime = (t: number): string | undefined =>
  t === TIME_MAX
    ? 'time:2^50'
    : t === TIME_MIN
      ? 'time:-2^50'
      : t === TIME_MAX + 1
        ? 'time:2^50+1'
        : t === TIME_MIN - 1
          ? 'time:-(2^50+1)'
          : undefined;

/** Which J1 checks a record fails, each on its own (not only the first). */
function failingChecks(r: LogRecord, config: JoinConfig): string[] {
  const inRange = (t: number): boolean => t >= TIME_MIN && t <= TIME_MAX;
  const side = r.side === 'L' || r.side === 'R';
  if (r.kind === 'watermark') return [...(side ? [] : ['bad_side']), ...(inRange(r.wm) ? [] : ['out_of_range'])];
  const fails: Record<(typeof ROW_CHECKS)[number], boolean> = {
    empty_key: r.key === '',
    empty_id: r.id === '',
    bad_side: !side,
    out_of_range: ![r.ts, r.start, r.end].every(inRange),
    ts_before_start: r.ts < r.start,
    ts_after_end: r.ts > r.end,
    too_long: r.end - r.start > config.maxIntervalLength,
  };
  return ROW_CHECKS.filter((c) => fails[c]);
}

/**
 * The rule edges a log of `config` reaches: L and D at 0 and 2^50 (J0);
 * times at ±2^50 and ±(2^50+1) (§0, J1); every J1 failure alone and every
 * pair at once; intervals of length D and D + 1 (J1); inserts at
 * ts = gw - L and one tick earlier (J5); watermarks equal to, one below and
 * one above the current one (J4); a watermark that leaves gw exactly at a
 * row's horizon and one that passes it by one, and retractions there (J6, J8).
 */
function edgesOf(config: JoinConfig, records: readonly LogRecord[]): Set<string> {
  const out = new Set<string>();
  const L = config.allowedLateness;
  const D = config.maxIntervalLength;
  for (const [name, v] of [
    ['L', L],
    ['D', D],
  ] as const) {
    if (v === 0) out.add(`${name}=0`);
    if (v === 2 ** 50) out.add(`${name}=2^50`);
  }
  let state: JoinState = initialJoinState;
  for (const r of records) {
    const times = r.kind === 'watermark' ? [r.wm] : [r.ts, r.start, r.end];
    for (const t of times) {
      const e = isTime(t);
      if (e) out.add(e);
    }
    const fails = failingChecks(r, config);
    if (fails.length === 1 || fails.length === 2) out.add(`invalid:${r.kind === 'watermark' ? 'watermark:' : ''}${fails.join('+')}`);
    if (r.kind !== 'watermark') {
      if (r.end - r.start === D && validityOf(r, config) === undefined) out.add('length=D');
      if (r.end - r.start === D + 1 && fails.includes('too_long')) out.add('length=D+1');
    }
    const gw = globalWatermark(state.wm);
    if (validityOf(r, config) === undefined && gw !== null) {
      if (r.kind === 'insert' && r.ts === gw - L) out.add('insert:ts=gw-L');
      if (r.kind === 'insert' && r.ts === gw - L - 1) out.add('insert:ts=gw-L-1');
      if (r.kind === 'retract' && gw === r.end + L + D) out.add('retract:gw=end+L+D');
      if (r.kind === 'retract' && gw === r.end + L + D + 1) out.add('retract:gw=end+L+D+1');
    }
    if (r.kind === 'watermark' && validityOf(r, config) === undefined) {
      const current = state.wm[r.side as 'L' | 'R'];
      if (current !== null && r.wm === current) out.add('watermark:equal');
      if (current !== null && r.wm === current - 1) out.add('watermark:below');
      if (current !== null && r.wm === current + 1) out.add('watermark:above');
    }
    const before = state;
    state = stepJoin(config, state, r).state;
    const after = globalWatermark(state.wm);
    if (r.kind === 'watermark' && after !== null && after !== globalWatermark(before.wm)) {
      for (const row of before.rows) {
        if (after === row.end + L + D) out.add('watermark:gw=end+L+D');
        if (after === row.end + L + D + 1) out.add('watermark:gw=end+L+D+1');
      }
    }
  }
  return out;
}

const pairs = ROW_CHECKS.flatMap((a, i) => ROW_CHECKS.slice(i + 1).map((b) => `invalid:${a}+${b}`));
/** Every edge a log can reach (edgesOf), whatever the config. */
const REQUIRED_EDGES = [
  'L=0',
  'L=2^50',
  'D=0',
  'D=2^50',
  'time:2^50',
  'time:-2^50',
  'time:2^50+1',
  'time:-(2^50+1)',
  ...ROW_CHECKS.map((c) => `invalid:${c}`),
  ...pairs,
  'invalid:watermark:bad_side',
  'invalid:watermark:out_of_range',
  'invalid:watermark:bad_side+out_of_range',
  'length=D',
  'length=D+1',
  'insert:ts=gw-L',
  'insert:ts=gw-L-1',
  'watermark:equal',
  'watermark:below',
  'watermark:above',
  'watermark:gw=end+L+D',
  'watermark:gw=end+L+D+1',
  'retract:gw=end+L+D',
  'retract:gw=end+L+D+1',
];

const missing = (seen: Set<string>): string[] => REQUIRED_EDGES.filter((e) => !seen.has(e));

/** The records of a cluster trace, in order. */
const recordsOf = (t: ClusterTrace): LogRecord[] => t.steps.flatMap(({ action }) => (action.type === 'record' ? [action.record] : []));

describe('J0, J1, J4, J5, J6, J8 edges: every numeric field is drawn at the exact edges of the rules', () => {
  it(
    'random operator traces reach every edge (±2^50, ±(2^50+1), every pair of J1 failures, lengths D and D + 1, ts = gw - L and ' +
      'one less, watermarks equal, below and above, gw at a horizon and one past it, L and D at 0 and 2^50)',
    () => {
      const seen = new Set<string>();
      for (const t of fc.sample(operatorTraceArbitrary(), { seed, numRuns: 1000 })) {
        for (const e of edgesOf(
          t.config,
          t.steps.map((s) => s.record),
        ))
          seen.add(e);
      }
      expect(missing(seen)).toEqual([]);
    },
  );

  it('J3, J8: random operator traces reach states larger than the small domains (dozens of rows held at once, many of one horizon, some of them retracted, all evicted at once)', () => {
    // An indexed operator's structures change shape only past a size (a heap
    // grows, a balanced tree rotates both ways at several depths): a share of
    // the random traces must hold many rows at once and evict many with one watermark.
    let largest = 0;
    let largestEviction = 0;
    let largestTie = 0;
    // A row of the other side probing a tie of 8 or more live rows right after some of them were retracted.
    let holedTieProbes = 0;
    for (const t of fc.sample(operatorTraceArbitrary(), { seed, numRuns: 300 })) {
      let state: JoinState = initialJoinState;
      let withdrawnFromTie = null as { key: string; side: string } | null;
      for (const { record } of t.steps) {
        if (record.kind === 'insert' && withdrawnFromTie?.key === record.key && withdrawnFromTie.side !== record.side) holedTieProbes++;
        if (record.kind === 'retract') {
          const tie = state.rows.filter((r) => r.live && r.key === record.key && r.side === record.side && r.end === record.end);
          if (tie.length >= 8 && tie.some((r) => r.id === record.id)) withdrawnFromTie = { key: record.key, side: record.side };
        } else withdrawnFromTie = null;
        const next = stepJoin(t.config, state, record).state;
        largestEviction = Math.max(largestEviction, state.rows.length - next.rows.length);
        state = next;
        largest = Math.max(largest, state.rows.length);
        const ends = new Map<number, number>();
        for (const r of state.rows) ends.set(r.end, (ends.get(r.end) ?? 0) + 1);
        largestTie = Math.max(largestTie, ...ends.values(), 0);
      }
    }
    // The small domains hold at most 20 rows (2 keys, 2 sides, 5 ids); over 40 seeds the least largest state was 35.
    expect(largest).toBeGreaterThan(24);
    // More rows evicted by one watermark than any small bound holds (the eviction queue starts with room for 16).
    expect(largestEviction).toBeGreaterThan(20);
    // Rows that share one horizon (a burst of one instant): more than 16, so eviction breaks ties at scale.
    expect(largestTie).toBeGreaterThan(16);
    // An index that loses rows from the middle of a tie, not only its minimum, and is probed at once (the withdrawn
    // bursts of wide logs): over seeds 1–130 at least 37 such probes (the threshold was 35, and a seed of the unit
    // tier's fell below it), at most 25 from the traces' scattered retractions alone.
    expect(holedTieProbes).toBeGreaterThan(30);
  });

  it('random cluster traces reach every edge too, the watermark-relative ones computed from the state the record meets', () => {
    const seen = new Set<string>();
    for (const t of fc.sample(clusterTraceArbitrary('faults'), { seed, numRuns: 400 })) {
      for (const e of edgesOf(t.config.join, recordsOf(t))) seen.add(e);
    }
    expect(missing(seen)).toEqual([]);
  });

  it('the exhaustive scenarios reach every edge at level operator, and at the cluster levels (their scripts, preludes and rejection probes)', () => {
    const operatorSeen = new Set<string>();
    for (const cover of operatorCovers()) {
      for (const t of cover.traces) {
        for (const e of edgesOf(
          t.config,
          t.steps.map((st) => st.record),
        ))
          operatorSeen.add(e);
      }
    }
    expect(missing(operatorSeen)).toEqual([]);
    const clusterSeen = new Set<string>();
    for (const s of CLUSTER_SCENARIOS) {
      for (const e of edgesOf(s.cluster.join, [...(s.prelude ?? []), ...s.bounds.script])) clusterSeen.add(e);
      for (const e of edgesOf(s.cluster.join, rejectedRecords(s.cluster)))
        if (e.startsWith('invalid') || e.startsWith('time') || e.startsWith('length')) clusterSeen.add(e);
    }
    expect(missing(clusterSeen)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------

/** The join state of the copy a handoff moves, fails over or restarts, and whether it is rich (J6, J8). */
function isRich(join: JoinState, config: JoinConfig): boolean {
  const live = join.rows.filter((r) => r.live);
  const horizonOrder = [...live].sort((a, b) => a.end - b.end).map((r) => r.id);
  const held = (side: 'L' | 'R', id: string, key: string): boolean =>
    join.rows.some((r) => r.key === key && r.side === side && r.id === id);
  return (
    live.length >= 2 &&
    horizonOrder.join() !== live.map((r) => r.id).join() &&
    join.rows.some((r) => !r.live) &&
    join.matches.some((m) => !held('L', m.left, m.key) || !held('R', m.right, m.key)) &&
    join.wm.L !== null &&
    join.wm.R !== null &&
    config.allowedLateness + config.maxIntervalLength >= 0
  );
}

/** The join state a copy of `key` has once it has read the whole log (what a failover or a restart rebuilds, C3, C8, C10). */
function stateFromLog(log: readonly LogRecord[], key: string, config: JoinConfig): JoinState {
  let state = initialJoinState;
  for (const r of log) if (r.kind === 'watermark' || r.key === key) state = stepJoin(config, state, r).state;
  return state;
}

/** The handoffs of a trace that carry a rich state: persist or checkpoint of a rich copy, failover or restart of a key whose state is rich. */
function richHandoffs(trace: ClusterTrace): string[] {
  const setup = { ...trace.config, checkProperties: false };
  let state: ClusterState = initialClusterState(setup);
  const out: string[] = [];
  for (const { action } of trace.steps) {
    if (action.type === 'process') continue;
    if (whyNotEnabled(setup, state, action) !== undefined) continue;
    const h = state.coordinator.handoff;
    if (action.type === 'persist' && h) {
      const copy: KeyCopy | undefined = state.workers[h.src]?.keys[action.key];
      if (copy && isRich(copy.join, setup.join)) out.push('persist');
    }
    if (action.type === 'checkpoint') {
      const copy = state.workers[action.worker]?.keys[action.key];
      if (copy && isRich(copy.join, setup.join)) out.push('checkpoint');
    }
    if (action.type === 'failover' && isRich(stateFromLog(state.log, action.key, setup.join), setup.join)) out.push('failover');
    if (action.type === 'restart' && action.node !== 'coordinator') {
      for (const [k, owner] of Object.entries(state.coordinator.owner)) {
        if (owner === action.node && isRich(stateFromLog(state.log, k, setup.join), setup.join)) out.push('restart');
      }
    }
    state = applyExternal(setup, state, action).state;
  }
  return out;
}

describe('J6, J8 across handoffs: keys moved, failed over or restarted with rich operator state', () => {
  it(
    'the rich-state scenario persists, fails over and restarts k1 while it holds live rows out of horizon order, a tombstone, ' +
      'a match whose endpoint is evicted and both watermarks',
    () => {
      const cover = coverScenario(scenario('rich-state-across-a-handoff'));
      const kinds = new Set(cover.traces.flatMap(richHandoffs));
      expect([...kinds].sort()).toEqual(expect.arrayContaining(['failover', 'persist', 'restart']));
    },
  );

  it('C6–C8, C11: a failover together with duplicated messages, back to the worker that owned the key before', () => {
    for (const name of ['failover-with-duplicates-and-failback', 'zombie-failback-with-duplicates']) {
      const cover = coverScenario(scenario(name));
      const failback = cover.traces.some((t) => {
        const owners = [t.config.keys[0].owner];
        let failedBack = false;
        for (const { action } of t.steps) {
          if (action.type === 'freeze') owners.push(action.to);
          if (action.type === 'failover' && owners.slice(0, -1).includes(action.to)) failedBack = true;
          if (failedBack && (action.type === 'duplicateRelease' || action.type === 'duplicateInstall')) return true;
        }
        return false;
      });
      expect(failback, name).toBe(true);
    }
  });

  it('random cluster traces carry rich state into handoffs, failovers and restarts too', () => {
    const kinds = new Set<string>();
    for (const t of fc.sample(clusterTraceArbitrary('faults'), { seed, numRuns: 400 })) for (const k of richHandoffs(t)) kinds.add(k);
    // Moved (persisted or checkpointed for a migration) and recovered (failed over or restarted) with rich state.
    expect(kinds.has('persist') || kinds.has('checkpoint')).toBe(true);
    expect(kinds.has('failover') || kinds.has('restart')).toBe(true);
  });
});

// ---------------------------------------------------------------------------
// The index's and the heap's shapes (issue 21, item 7), computed from the model's state each record meets
// (generate/indexShapes.ts); mutants/indexHeapBugs.test.ts runs systems with those bugs against them.

describe('J3, J6, J8: the interval index and the heap of horizons, at the shapes where their invariants are easy to break', () => {
  it('random operator traces delete two-child nodes whose left part reaches past the rest and probe the gap, and evict a key’s last live row under a later tombstone', () => {
    let gapProbes = 0;
    let lastLive = 0;
    for (const t of fc.sample(operatorTraceArbitrary(), { seed, numRuns: 300 })) {
      const s = indexShapes(t);
      gapProbes += s.gapProbes.length;
      lastLive += s.lastLiveUnderTombstone.length;
    }
    // Over 300 traces at seed 1: 38 gap probes and 71 such evictions (the wide logs' gap and last-live steps); 0 and 12 before them.
    expect(gapProbes).toBeGreaterThan(12);
    expect(lastLive).toBeGreaterThan(30);
  });
});

// ---------------------------------------------------------------------------
// Configurations of every size, zombie checkpoints read again, and state at every handoff (issue 21, items 2, 3, 5).

/** Each enabled external action of a trace with the model's state before and after it and its events (SPEC §7). */
function* modelSteps(
  trace: ClusterTrace,
): Generator<{ action: ExternalAction; before: ClusterState; after: ClusterState; events: ClusterEvent[] }> {
  const setup = { ...trace.config, checkProperties: false };
  let state: ClusterState = initialClusterState(setup);
  for (const { action } of trace.steps) {
    if (action.type === 'process' || whyNotEnabled(setup, state, action) !== undefined) continue;
    const t = applyExternal(setup, state, action);
    yield { action, before: state, after: t.state, events: t.events };
    state = t.state;
  }
}

/**
 * Actions whose eager processing (SPEC §7) works on copies numbered on both
 * sides of 10 (worker index × keys + key index, in config order), one of
 * them 2 or more: where ordering copies by their numbers as text ('10' <
 * '2') differs from ordering them as numbers.
 */
/** SPEC §7: the steps whose processed copies (config order) are not in the order of their worker and key names. */
function eagerOrderNotByName(trace: ClusterTrace): number {
  let n = 0;
  for (const { events } of modelSteps(trace)) {
    const copies = events.flatMap((e) => (e.type === 'processed' ? [`${e.worker}\u0000${e.key}`] : []));
    const byName = [...copies].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (copies.some((c, i) => c !== byName[i])) n++;
  }
  return n;
}

function eagerOrdersPastTen(trace: ClusterTrace): number {
  const keys = trace.config.keys.map((k) => k.key);
  const ordinal = (w: string, k: string): number => trace.config.workers.indexOf(w) * keys.length + keys.indexOf(k);
  let n = 0;
  for (const { events } of modelSteps(trace)) {
    const copies = events.flatMap((e) => (e.type === 'processed' ? [ordinal(e.worker, e.key)] : []));
    if (copies.some((o) => o >= 10) && copies.some((o) => o >= 2 && o < 10)) n++;
  }
  return n;
}

/**
 * C4: checkpoints written by a zombie (a copy whose epoch is behind the
 * table's), and each later read of the store while it still holds one: a
 * copy restored from it by a restart, a failover (or the commit that
 * completes one) or an install (the `restored` event, C6, C8, C10).
 */
function zombieCheckpointReads(trace: ClusterTrace): string[] {
  const zombieStore = new Set<string>();
  const out: string[] = [];
  for (const { action, before, events } of modelSteps(trace)) {
    // A failover split at its fence restores at the commit that completes it (C8): a failover's read all the same.
    const kind = action.type === 'commit' && before.coordinator.handoff?.kind === 'failover' ? 'failover' : action.type;
    for (const e of events) if (e.type === 'restored' && zombieStore.has(e.key)) out.push(`read:${kind}`);
    if (action.type === 'checkpoint') {
      const copy = before.workers[action.worker]?.keys[action.key];
      const zombie = copy !== undefined && copy.epoch < (before.coordinator.epoch[action.key] ?? 0);
      if (zombie) out.push('zombie-checkpoint');
      if (zombie) zombieStore.add(action.key);
      else zombieStore.delete(action.key);
    }
    if (action.type === 'persist' && before.coordinator.handoff) zombieStore.delete(before.coordinator.handoff.key);
  }
  return out;
}

/**
 * C6, C8, C10: the handoffs of a trace (a freeze, a failover, a restart of a
 * worker the table gives keys) where the key moved holds no state a fresh
 * copy lacks: no row, no tombstone, no watermark in what the log gives it.
 */
function handoffsOfEmptyKeys(trace: ClusterTrace): { handoffs: number; empty: number } {
  let handoffs = 0;
  let empty = 0;
  for (const { action, before } of modelSteps(trace)) {
    const moved =
      action.type === 'freeze' || action.type === 'failover'
        ? [action.key]
        : action.type === 'restart' && action.node !== 'coordinator'
          ? Object.entries(before.coordinator.owner).flatMap(([k, owner]) => (owner === action.node ? [k] : []))
          : [];
    for (const key of moved) {
      handoffs++;
      const join = stateFromLog(before.log, key, trace.config.join);
      if (join.rows.length === 0 && join.wm.L === null && join.wm.R === null) empty++;
    }
  }
  return { handoffs, empty };
}

describe('C5–C10 and SPEC §7 at every size: configurations, zombie checkpoints read again, state in every handoff', () => {
  it('random cluster configurations reach 5 workers and 6 keys, and eager processing orders copies numbered past ten in a share of the traces', () => {
    for (const level of ['cluster', 'faults'] as const) {
      const traces = fc.sample(clusterTraceArbitrary(level), { seed, numRuns: 300 });
      expect(Math.max(...traces.map((t) => t.config.workers.length)), level).toBe(5);
      expect(Math.max(...traces.map((t) => t.config.keys.length)), level).toBe(6);
      const past = traces.filter((t) => eagerOrdersPastTen(t) > 0).length;
      // Over 1,000 traces at seed 1: 225 (cluster) and 225 (faults); none before the wide configurations.
      expect(past, level).toBeGreaterThan(25);
    }
  });

  it('SPEC §7: random cluster configurations declare their workers and keys in every order, so that going through them by name instead of in config order shows', () => {
    for (const level of ['cluster', 'faults'] as const) {
      const traces = fc.sample(clusterTraceArbitrary(level, smallClusterDomain), { seed, numRuns: 300 });
      const orders = (names: (t: ClusterTrace) => readonly string[]): Set<string> =>
        new Set(traces.filter((t) => names(t).length === 3 || names(t).length === 2).map((t) => names(t).join(' ')));
      // Every order of the two keys, and of the three workers where a config takes all three.
      expect(orders((t) => t.config.keys.map((k) => k.key)).size, level).toBe(2);
      expect([...orders((t) => t.config.workers)].filter((o) => o.split(' ').length === 3).length, level).toBe(6);
      // Every order of the two keys with every placement of them on two workers: the order is drawn apart from
      // who owns what (a system whose bug needs both, say two keys of one owner declared out of name order, is met).
      const placed = new Set(
        traces
          .filter((t) => t.config.workers.length === 2 && t.config.keys.length === 2)
          .map((t) => {
            const owner = (key: string): number => t.config.workers.indexOf(t.config.keys.find((k) => k.key === key)?.owner as string);
            const names = t.config.keys.map((k) => k.key);
            return `${names.join(' ')} ${[...names].sort().map(owner).join('')}`;
          }),
      );
      expect(placed.size, level).toBe(8);
      // Steps whose eager processing (config order) is not the order of the names: a system that sorts by name differs there.
      const unsorted = traces.filter((t) => eagerOrderNotByName(t) > 0).length;
      // Over 1,000 traces at seed 1: 550 (cluster) and 613 (faults); none before the configurations were permuted.
      expect(unsorted, level).toBeGreaterThan(60);
    }
  });

  it('C4: random faults traces checkpoint from a zombie and read that checkpoint again, by a restart, a failover and an install', () => {
    const reads = new Map<string, number>();
    for (const t of fc.sample(clusterTraceArbitrary('faults'), { seed, numRuns: 300 }))
      for (const r of new Set(zombieCheckpointReads(t))) reads.set(r, (reads.get(r) ?? 0) + 1);
    // Over 1,000 traces at seed 1: 218 with a zombie checkpoint, read again by a restart in 124, a failover in 116 (or
    // the commit that completes one), an install in 69; 9 and 1 (a restart) before the zombie-checkpoint sequences.
    expect(reads.get('zombie-checkpoint') ?? 0).toBeGreaterThan(25);
    for (const kind of ['read:restart', 'read:failover', 'read:install']) expect(reads.get(kind) ?? 0, kind).toBeGreaterThan(5);
  });

  it('C4, C6, C10: the zombie-checkpoint scenarios read the zombie’s checkpoint again, by an install and by a restart', () => {
    const installed = coverScenario(scenario('zombie-checkpoint-installed')).traces.flatMap(zombieCheckpointReads);
    const recovered = coverScenario(scenario('zombie-checkpoint-recovered')).traces.flatMap(zombieCheckpointReads);
    expect(installed).toContain('read:install');
    expect(recovered).toContain('read:restart');
  });

  it('C6, C8, C10: every handoff, failover and restart in the cluster scenarios and in random cluster traces moves a key that holds state', () => {
    let handoffs = 0;
    for (const s of CLUSTER_SCENARIOS) {
      for (const t of coverScenario(s, { probes: false }).traces.slice(0, 200)) {
        const h = handoffsOfEmptyKeys(t);
        expect(h.empty, `${s.name}: ${t.name}`).toBe(0);
        handoffs += h.handoffs;
      }
    }
    for (const level of ['cluster', 'faults'] as const) {
      for (const t of fc.sample(clusterTraceArbitrary(level), { seed, numRuns: 200 })) {
        const h = handoffsOfEmptyKeys(t);
        expect(h.empty, `random ${level}`).toBe(0);
        handoffs += h.handoffs;
      }
    }
    expect(handoffs).toBeGreaterThan(1000);
  });
});

// ---------------------------------------------------------------------------
// J3 for any separator (issue 21, item 1).

/**
 * The separators S (up to four characters, the empty one too) for which rows
 * of one key, live at once, make two distinct matches concatenate alike: left
 * ids a and a{S}m, right ids m{S}c and c, so (a, m{S}c) and (a{S}m, c) are
 * filed alike by any naive id P + left + S + right + Q.
 */
function collidingSeparators(rows: readonly LogRecord[]): Set<string> {
  const out = new Set<string>();
  const byKey = new Map<string, { L: Set<string>; R: Set<string> }>();
  for (const r of rows) {
    if (r.kind !== 'insert') continue;
    const ids = byKey.get(r.key) ?? { L: new Set<string>(), R: new Set<string>() };
    byKey.set(r.key, ids);
    if (r.side === 'L' || r.side === 'R') ids[r.side].add(r.id);
  }
  for (const { L, R } of byKey.values()) {
    for (const a of L) {
      for (const longer of L) {
        if (longer.length <= a.length || !longer.startsWith(a)) continue;
        const rest = longer.slice(a.length);
        for (let n = 0; n <= Math.min(4, rest.length - 1); n++) {
          const [s, m] = [rest.slice(0, n), rest.slice(n)];
          for (const right of R) if (right.startsWith(m + s) && R.has(right.slice(m.length + s.length))) out.add(s);
        }
      }
    }
  }
  return out;
}

/**
 * The naive row identities (J2) of the separator S, each a name and a function: key+S+id with no side (one store
 * for both sides), the same per side (a store each), the side spelled in key+S+side+S+id, and for a
 * punctuation-letter-punctuation triple a{l}b the side between a and b, key+a+side+b+id.
 */
function naiveRowIdentities(separator: string): [string, (r: RowRecord) => string][] {
  const [a, l, b] = [...separator];
  if (separator.length === 3 && (l === 'L' || l === 'R')) return [['side between a and b', (r) => `${r.key}${a}${r.side}${b}${r.id}`]];
  return [
    ['no side', (r) => `${r.key}${separator}${r.id}`],
    ['per side', (r) => `${r.side}\u0000${r.key}${separator}${r.id}`],
    ['side spelled', (r) => `${r.key}${separator}${r.side}${separator}${r.id}`],
  ];
}

/** Whether two distinct rows inserted in `records` have one naive identity under `identity` (J2). */
function rowsCollide(records: readonly LogRecord[], identity: (r: RowRecord) => string): boolean {
  const seen = new Map<string, string>();
  for (const r of records) {
    if (r.kind !== 'insert') continue;
    const exact = JSON.stringify([r.key, r.side, r.id]);
    const naive = identity(r);
    const other = seen.get(naive);
    if (other !== undefined && other !== exact) return true;
    seen.set(naive, exact);
  }
  return false;
}

describe('J2 for any separator: rows of two keys that a naive row identity files as one', () => {
  it('the exhaustive scenario operator-colliding-separators makes every separator of the class collide under every naive row identity of it (no side, per side, the side spelled in)', () => {
    const cover = coverOperatorScenario(OPERATOR_SCENARIOS.find((s) => s.name === 'operator-colliding-separators') as OperatorScenario);
    const logs = cover.traces.map((t) => t.steps.map((x) => x.record));
    // Each search starts at the log where the last one found its collision (the scripts follow the class's order, so
    // the next is near), and goes round every log before it gives up.
    let from = 0;
    const found = (identity: (r: RowRecord) => string): boolean => {
      for (let k = 0; k < logs.length; k++) {
        const at = (from + k) % logs.length;
        if (rowsCollide(logs[at] as LogRecord[], identity)) {
          from = at;
          return true;
        }
      }
      return false;
    };
    const missed = everySeparator().flatMap((sep) =>
      naiveRowIdentities(sep)
        .filter(([, identity]) => !found(identity))
        .map(([name]) => `${JSON.stringify(sep)} ${name}`),
    );
    expect(missed).toEqual([]);
  });

  it('every random operator trace with a burst makes rows collide under every naive row identity of every common separator', () => {
    const logs = fc
      .sample(operatorTraceArbitrary(), { seed, numRuns: 300 })
      .map((t) => t.steps.map((x) => x.record))
      .filter((records) => records.some((r) => r.kind === 'insert' && /^b\d+\./.test(r.key)));
    // The colliding domain's traces, one in seven: 35 to 60 of 300 over eight seeds.
    expect(logs.length).toBeGreaterThan(15);
    for (const sep of COMMON_SEPARATORS)
      for (const [name, identity] of naiveRowIdentities(sep)) {
        const missed = logs.filter((records) => !rowsCollide(records, identity)).length;
        expect(missed, `${JSON.stringify(sep)} ${name}`).toBe(0);
      }
  });
});

describe('J3 for any separator: ids that collide under a naive id, whatever it joins its parts with', () => {
  it('the exhaustive scenario operator-colliding-separators makes every separator of the class collide (0-2 characters of punctuation, space, L, R; punctuation-letter-punctuation; quoted punctuation)', () => {
    const cover = coverOperatorScenario(OPERATOR_SCENARIOS.find((s) => s.name === 'operator-colliding-separators') as OperatorScenario);
    const seen = new Set<string>();
    for (const t of cover.traces) for (const s of collidingSeparators(t.steps.map((x) => x.record))) seen.add(s);
    expect(everySeparator().filter((s) => !seen.has(s))).toEqual([]);
    expect(everySeparator().length).toBeGreaterThan(3000);
  });

  it('random traces make separators of two to four characters collide at every level', () => {
    const operator = new Set<string>();
    for (const t of fc.sample(operatorTraceArbitrary(), { seed, numRuns: 300 }))
      for (const s of collidingSeparators(t.steps.map((x) => x.record))) if (s.length >= 2) operator.add(s);
    // A burst of 96 members of the class in one trace in seven: some 4,000 draws of the class in 300 traces.
    expect(operator.size).toBeGreaterThan(1000);
    for (const level of ['cluster', 'faults'] as const) {
      const cluster = new Set<string>();
      for (const t of fc.sample(clusterTraceArbitrary(level), { seed, numRuns: 300 }))
        for (const s of collidingSeparators(recordsOf(t))) if (s.length >= 2) cluster.add(s);
      expect(cluster.size, level).toBeGreaterThan(10);
      expect([...cluster].some((s) => s.length >= 3)).toBe(true);
    }
  });

  it('random cluster traces make the empty separator (the parts simply concatenated) collide outside the colliding domain too', () => {
    // The class's member of length zero, through the bursts and the random separators every domain carries: not only through
    // the colliding domain's steps for the common separators, one cluster trace in eight. Some 24 traces in 600 on average
    // (without it, 0 to 2). The workloads are the same at both cluster levels. (At level operator the bursts ride on the
    // colliding domain alone, whose steps make it collide in every trace that carries them.)
    const traces = fc.sample(clusterTraceArbitrary('faults', smallClusterDomain), { seed, numRuns: 600 }).map(recordsOf);
    expect(traces.filter((records) => collidingSeparators(records).has('')).length).toBeGreaterThanOrEqual(8);
  });
});
