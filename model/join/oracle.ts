// The brute-force oracle: never evicts, and recomputes the join of all
// accepted rows from scratch after every record; the changes of a record are
// the difference between the relation before and after it. Because it
// remembers every identity, it is also the brute-force definition of the
// input contract (J9); contract.ts checks the same in one linear pass.
import { compareByMatchId, matchId } from '../../spec/index.ts';
import type { Change, JoinConfig, LogRecord, Outcome, RowContent, Side, Watermarks } from '../../spec/index.ts';
import {
  contentOf,
  globalWatermark,
  horizonOf,
  isLateInsert,
  isLateRetract,
  isRetained,
  overlaps,
  sameContent,
  sameIdentity,
  validityOf,
  type RowState,
} from './join.ts';

/** The oracle's state: watermarks and every identity ever bound. */
export interface OracleState {
  /** Per-side watermarks (J4). */
  readonly wm: Watermarks;
  /** Every identity ever bound, in binding order; never evicted. */
  readonly rows: readonly RowState[];
}

/** The result of one record through the oracle. */
export interface OracleStep {
  /** The state after the record. */
  readonly state: OracleState;
  /** The record's outcome (J7). */
  readonly outcome: Outcome;
  /** The changes it emits, in canonical order. */
  readonly changes: readonly Change[];
  /** Set when the record breaks the input contract (J9); state is then unchanged. */
  readonly contractViolation?: string;
}

/** The oracle's state before any record: no watermark, no row. */
export const initialOracleState: OracleState = { wm: { L: null, R: null }, rows: [] };

/** J3: the whole result relation of a set of rows, by match id. */
export function relationOf(rows: readonly RowState[]): Map<string, Change> {
  const out = new Map<string, Change>();
  for (const l of rows) {
    if (!l.live || l.side !== 'L') continue;
    for (const r of rows) {
      if (!r.live || r.side !== 'R' || r.key !== l.key || !overlaps(l, r)) continue;
      const match = matchId(l.key, l.id, r.id);
      out.set(match, { op: 'insert', match, key: l.key, left: l.id, right: r.id });
    }
  }
  return out;
}

function diff(before: Map<string, Change>, after: Map<string, Change>): Change[] {
  const changes: Change[] = [];
  for (const [id, c] of after) if (!before.has(id)) changes.push(c);
  for (const [id, c] of before) if (!after.has(id)) changes.push({ ...c, op: 'retract' });
  return changes.sort(compareByMatchId);
}

const same = (state: OracleState, outcome: Outcome): OracleStep => ({ state, outcome, changes: [] });

/** One record, by the J7 table, without eviction. */
export function stepOracle(config: JoinConfig, state: OracleState, record: LogRecord): OracleStep {
  const invalid = validityOf(record, config);
  if (invalid) return same(state, { code: 'rejected', reason: invalid });
  if (record.kind === 'watermark') {
    const side = record.side as Side;
    const current = state.wm[side];
    if (current !== null && record.wm <= current) return same(state, { code: 'stale' });
    return same({ ...state, wm: { ...state.wm, [side]: record.wm } }, { code: 'accepted' });
  }
  const row: RowContent = contentOf(record);
  const gw = globalWatermark(state.wm);
  const late = record.kind === 'insert' ? isLateInsert(row, gw, config) : isLateRetract(row, gw, config);
  if (late) return same(state, { code: 'late' });

  const bound = state.rows.find((r) => sameIdentity(r, row));
  if (bound && !isRetained(bound.end, gw, config)) {
    return {
      ...same(state, { code: 'rejected', reason: 'conflict' }),
      contractViolation:
        `identity (${row.key}, ${row.side}, ${row.id}) is reused after its row passed its horizon ` +
        `${bound.end} + L + D = ${horizonOf(bound.end, config)} < gw ${String(gw)} (J9)`,
    };
  }
  if (bound && !sameContent(bound, row)) return same(state, { code: 'rejected', reason: 'conflict' });
  if (bound && (record.kind === 'insert' || !bound.live)) return same(state, { code: 'duplicate' });

  const rows =
    record.kind === 'insert'
      ? [...state.rows, { ...row, live: true }]
      : bound
        ? state.rows.map((r) => (r === bound ? { ...r, live: false } : r))
        : [...state.rows, { ...row, live: false }];
  // The record changes only its own key's matches: compare that key's relations.
  const ofKey = (all: readonly RowState[]): RowState[] => all.filter((r) => r.key === row.key);
  return {
    state: { ...state, rows },
    outcome: { code: 'accepted' },
    changes: diff(relationOf(ofKey(state.rows)), relationOf(ofKey(rows))),
  };
}

/**
 * J8 as a set: the rows and matches the horizon rule says are retained in
 * this oracle state. Rows as identity strings, matches as match ids.
 */
export function horizonRetained(config: JoinConfig, state: OracleState): { rows: string[]; matches: string[] } {
  const gw = globalWatermark(state.wm);
  const kept = state.rows.filter((r) => isRetained(r.end, gw, config));
  const keptIds = new Set(kept.map((r) => identityString(r)));
  const matches = [...relationOf(state.rows).values()]
    .filter(
      (m) =>
        keptIds.has(identityString({ key: m.key, side: 'L', id: m.left })) ||
        keptIds.has(identityString({ key: m.key, side: 'R', id: m.right })),
    )
    .map((m) => m.match);
  return { rows: kept.map((r) => `${identityString(r)}${r.live ? '' : '†'}`).sort(), matches: matches.sort() };
}

/** A printable identity `(key, side, id)`. */
export function identityString(r: { key: string; side: Side; id: string }): string {
  return JSON.stringify([r.key, r.side, r.id]);
}
