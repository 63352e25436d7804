// What the never-evicting oracle says the result of each key is after each
// prefix of the log: the yardstick of ExactlyOnce (SPEC §6). A timeline per
// log array, extended one record at a time from the timeline of the log it
// was appended to (the cluster model interns its logs and records parents),
// so checking a sink write costs one oracle step, not a replay of the log.
import type { JoinConfig, LogRecord } from '../../spec/index.ts';
import { initialOracleState, stepOracle, type OracleState } from '../join/oracle.ts';

/** A relation restricted to one key, as sorted match ids joined by newlines. */
export type RelationSignature = string;

/** The oracle after a log, and for each key the signatures of its relation over every prefix. */
interface Timeline {
  readonly length: number;
  readonly oracle: OracleState;
  /** Per key: the match ids in the relation after the whole log. */
  readonly relation: ReadonlyMap<string, ReadonlySet<string>>;
  /** Per key: prefixes at which the key's relation changed, and the signature from there on. */
  readonly history: ReadonlyMap<string, { readonly at: readonly number[]; readonly sig: readonly RelationSignature[] }>;
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
    const h = history.get(key) ?? { at: [0], sig: [''] };
    history.set(key, { at: [...h.at, t.length + 1], sig: [...h.sig, relationSignature([...ids])] });
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

/**
 * The shortest prefix length `p >= from` of `log` whose oracle relation for
 * `key` has signature `shown`, or undefined if there is none.
 */
export function prefixShowing(
  config: JoinConfig,
  log: readonly LogRecord[],
  key: string,
  from: number,
  shown: RelationSignature,
): number | undefined {
  const h = timelineOf(config, log).history.get(key) ?? { at: [0], sig: [''] };
  // The signature at prefix p is sig[i] for the last change point at[i] <= p.
  for (let i = 0; i < h.at.length; i++) {
    const start = h.at[i] as number;
    const end = i + 1 < h.at.length ? (h.at[i + 1] as number) - 1 : log.length;
    if (end < from || h.sig[i] !== shown) continue;
    return Math.max(start, from);
  }
  return undefined;
}

/** The oracle's relation for `key` over the whole log. */
export function finalRelation(config: JoinConfig, log: readonly LogRecord[], key: string): RelationSignature {
  return relationSignature([...(timelineOf(config, log).relation.get(key) ?? [])]);
}

/** The signature of a set of match ids, for one key. */
export function relationSignature(ids: readonly string[]): RelationSignature {
  return [...ids].sort().join('\n');
}
