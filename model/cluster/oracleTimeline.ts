// What the never-evicting oracle says the result of each key is after each
// prefix of the log: the yardstick of ExactlyOnce (SPEC §6). A timeline per
// log array, extended one record at a time from the timeline of the log it
// was appended to (the cluster model interns its logs and records parents),
// so checking a sink write costs one oracle step, not a replay of the log.
import type { JoinConfig, LogRecord } from '../../spec/index.ts';
import { initialOracleState, stepOracle, type OracleState } from '../join/oracle.ts';

/** A relation restricted to one key, as sorted match ids joined by newlines. */
export type RelationSignature = string;

/** The oracle after a log, and for each key its relation over every prefix. */
interface Timeline {
  readonly length: number;
  readonly oracle: OracleState;
  /** Per key: the match ids in the relation after the whole log. */
  readonly relation: ReadonlyMap<string, ReadonlySet<string>>;
  /** Per key: prefixes at which the key's relation changed, and the relation from there on. */
  readonly history: ReadonlyMap<string, { readonly at: readonly number[]; readonly ids: readonly ReadonlySet<string>[] }>;
}

const parents = new WeakMap<readonly LogRecord[], readonly LogRecord[]>();
const timelines = new WeakMap<JoinConfig, WeakMap<readonly LogRecord[], Timeline>>();

/** Records that `log` is `parent` plus one record (so its timeline extends the parent's). */
export function noteAppended(parent: readonly LogRecord[], log: readonly LogRecord[]): void {
  parents.set(log, parent);
}

const empty: Timeline = { length: 0, oracle: initialOracleState, relation: new Map(), history: new Map() };

function extend(config: JoinConfig, t: Timeline, record: LogRecord): Timeline {
  const step = stepOracle(config, t.oracle, record);
  if (step.changes.length === 0) return { ...t, length: t.length + 1, oracle: step.state };
  const relation = new Map(t.relation);
  const history = new Map(t.history);
  const touched = new Set(step.changes.map((c) => c.key));
  for (const key of touched) {
    const ids = new Set(relation.get(key));
    for (const c of step.changes) if (c.key === key) c.op === 'insert' ? ids.add(c.match) : ids.delete(c.match);
    relation.set(key, ids);
    const h = history.get(key) ?? { at: [0], ids: [new Set<string>()] };
    history.set(key, { at: [...h.at, t.length + 1], ids: [...h.ids, ids] });
  }
  return { length: t.length + 1, oracle: step.state, relation, history };
}

function timelineOf(config: JoinConfig, log: readonly LogRecord[]): Timeline {
  let byLog = timelines.get(config);
  if (!byLog) timelines.set(config, (byLog = new WeakMap()));
  const known = byLog.get(log);
  if (known) return known;
  const parent = parents.get(log);
  const t =
    parent && parent.length === log.length - 1
      ? extend(config, timelineOf(config, parent), log[log.length - 1] as LogRecord)
      : log.reduce((acc, r) => extend(config, acc, r), empty);
  byLog.set(log, t);
  return t;
}

/** The oracle's state after the first `n` records of `log` (through the prefix's own timeline when the log was appended to it). */
export function oracleAfter(config: JoinConfig, log: readonly LogRecord[], n: number): OracleState {
  let prefix: readonly LogRecord[] | undefined = log;
  while (prefix !== undefined && prefix.length > n) prefix = parents.get(prefix);
  return timelineOf(config, prefix !== undefined && prefix.length === n ? prefix : log.slice(0, n)).oracle;
}

/**
 * The shortest prefix length `p >= from` of `log` whose oracle relation for
 * `key` is the set `shown` (match ids, without repeats), or undefined if
 * there is none.
 */
export function prefixShowing(
  config: JoinConfig,
  log: readonly LogRecord[],
  key: string,
  from: number,
  shown: readonly string[],
): number | undefined {
  const h = relationHistory(config, log, key);
  // The relation at prefix p is ids[i] for the last change point at[i] <= p.
  for (let i = 0; i < h.at.length; i++) {
    const start = h.at[i] as number;
    const end = i + 1 < h.at.length ? (h.at[i + 1] as number) - 1 : log.length;
    if (end < from) continue;
    const ids = h.ids[i] as ReadonlySet<string>;
    if (ids.size !== shown.length) continue;
    let same = true;
    for (const id of shown) {
      if (!ids.has(id)) {
        same = false;
        break;
      }
    }
    if (same) return Math.max(start, from);
  }
  return undefined;
}

/**
 * The prefixes of `log` at which the oracle's relation for `key` changed, and
 * the relation (match ids) from each on: the relation at prefix p is `ids[i]`
 * for the last `at[i] <= p` (`at[0]` is 0).
 */
export function relationHistory(
  config: JoinConfig,
  log: readonly LogRecord[],
  key: string,
): { readonly at: readonly number[]; readonly ids: readonly ReadonlySet<string>[] } {
  return timelineOf(config, log).history.get(key) ?? { at: [0], ids: [new Set<string>()] };
}

/** The oracle's relation for `key` over the whole log. */
export function finalRelation(config: JoinConfig, log: readonly LogRecord[], key: string): ReadonlySet<string> {
  return timelineOf(config, log).relation.get(key) ?? new Set();
}

/** The signature of a set of match ids, for one key. */
export function relationSignature(ids: readonly string[]): RelationSignature {
  return [...ids].sort().join('\n');
}
