// Deliberately wrong systems, for measuring the collision generators
// (separators.ts) against any separator. At level operator: the reference join whose
// table of active matches is keyed, per key, by a naive id
// P + left + S + right + Q instead of J3's escaped triple. A match whose naive
// id is already filed is taken for the one held: it is never bound, so its
// insert change is missing, and nothing retracts or counts it later. Every
// other answer is the reference's. At levels cluster and faults: the
// reference cluster whose sink files a key's matches under the naive id
// (C9), as relay's `naive-sink-id` does with `L:a|R:b`. Unlike ledger and
// relay they are not independent implementations: each is one slip,
// parameterised by the encoding.
import { LEVELS, SPEC_VERSION } from '../../spec/index.ts';
import type { Change, ClusterConfig, ExternalAction, JoinConfig, LogRecord, Outcome, RetainedCounts } from '../../spec/index.ts';
import { IndexedJoin } from '../../model/index.ts';
import type { ActionReply, ClusterUnderTest, InProcessSut, OperatorUnderTest } from '../sut/sut.ts';
import { createModelCluster } from '../sut/modelCluster.ts';

/** How the naive id is spelled: prefix, separator, suffix. */
export interface NaiveEncoding {
  readonly prefix: string;
  readonly separator: string;
  readonly suffix: string;
}

export function naiveId(encoding: NaiveEncoding, left: string, right: string): string {
  return `${encoding.prefix}${left}${encoding.separator}${right}${encoding.suffix}`;
}

/**
 * The reference operator (IndexedJoin) seen through the naive table: the
 * matches it binds under a naive id already filed are the ones this system
 * never held. Their changes are left out, and so is their count, until the
 * reference drops them too (a retraction, or J8: gw past the later horizon
 * of their endpoints). Each step costs what the reference's does.
 */
function naiveOperator(config: JoinConfig, encoding: NaiveEncoding): OperatorUnderTest {
  const join = new IndexedJoin(config);
  const slack = config.allowedLateness + config.maxIntervalLength;
  const rowKey = (key: string, side: string, id: string): string => JSON.stringify([key, side, id]);
  const matchKey = (c: Change): string => JSON.stringify([c.key, c.left, c.right]);
  const filedAs = (c: Change): string => JSON.stringify([c.key, naiveId(encoding, c.left, c.right)]);
  // The end of every row bound (J3 needs both endpoints' to know when a match goes, J8).
  const ends = new Map<string, number>();
  // The table: naive id -> the match filed there and its horizon; and the matches taken for one filed.
  const filed = new Map<string, { match: string; horizon: number }>();
  const missing = new Map<string, number>();
  const wm: { L: number | null; R: number | null } = { L: null, R: null };
  const horizonOf = (c: Change): number =>
    Math.max(ends.get(rowKey(c.key, 'L', c.left)) ?? 0, ends.get(rowKey(c.key, 'R', c.right)) ?? 0) + slack;
  return {
    apply(record: LogRecord): { outcome: Outcome; changes: readonly Change[] } {
      const { outcome, changes } = join.apply(record);
      if (outcome.code === 'accepted' && record.kind === 'insert') ends.set(rowKey(record.key, record.side, record.id), record.end);
      const shown: Change[] = [];
      for (const c of changes) {
        const id = filedAs(c);
        if (c.op === 'insert') {
          if (filed.has(id)) missing.set(matchKey(c), horizonOf(c));
          else {
            filed.set(id, { match: matchKey(c), horizon: horizonOf(c) });
            shown.push(c);
          }
        } else if (missing.has(matchKey(c))) missing.delete(matchKey(c));
        else {
          if (filed.get(id)?.match === matchKey(c)) filed.delete(id);
          shown.push(c);
        }
      }
      if (outcome.code === 'accepted' && record.kind === 'watermark' && (record.side === 'L' || record.side === 'R')) {
        wm[record.side] = record.wm;
        if (wm.L !== null && wm.R !== null) {
          const gw = Math.min(wm.L, wm.R);
          for (const [id, f] of filed) if (gw > f.horizon) filed.delete(id);
          for (const [m, horizon] of missing) if (gw > horizon) missing.delete(m);
        }
      }
      return { outcome, changes: shown };
    },
    retained(): RetainedCounts {
      const counts = join.retained();
      return { ...counts, matches: counts.matches - missing.size };
    },
  };
}

/** The naive-id system, at level operator only. */
export function naiveIdSut(encoding: NaiveEncoding): InProcessSut {
  return {
    implementation: { name: `naive-id ${JSON.stringify(encoding.separator)}`, version: SPEC_VERSION },
    levels: LEVELS.filter((l) => l === 'operator'),
    operator: (config) => naiveOperator(config, encoding),
  };
}

/**
 * The reference cluster with a sink that files each key's matches under the
 * naive id (C9): a change whose naive id is filed already is taken for the
 * match filed there, so an insert of a second match under one id is counted
 * as a duplicate and not kept, and a retraction marks the match filed there
 * retracted. Everything but the sink's matches and counters is the
 * reference's.
 */
function naiveSinkCluster(config: ClusterConfig, encoding: NaiveEncoding): ClusterUnderTest {
  const inner = createModelCluster(config);
  const filed = new Map<string, { match: string; state: 'inserted' | 'retracted' }>();
  let applied = 0;
  let deduped = 0;
  return {
    apply(action: ExternalAction): ActionReply {
      const reply = inner.apply(action);
      if (!('events' in reply)) return reply;
      for (const e of reply.events) {
        if (e.type !== 'processed' || e.fenced) continue;
        for (const c of e.changes) {
          const id = JSON.stringify([c.key, naiveId(encoding, c.left, c.right)]);
          const entry = filed.get(id);
          if (c.op === 'insert' && entry === undefined) {
            filed.set(id, { match: c.match, state: 'inserted' });
            applied++;
          } else if (c.op === 'retract' && entry?.state !== 'retracted') {
            filed.set(id, { match: entry?.match ?? c.match, state: 'retracted' });
            applied++;
          } else deduped++;
        }
      }
      return reply;
    },
    observe() {
      const observation = inner.observe();
      const matches: Record<string, 'inserted' | 'retracted'> = {};
      for (const { match, state } of filed.values()) matches[match] = state;
      return { ...observation, sink: { ...observation.sink, matches, applied, deduped } };
    },
    close() {
      inner.close();
    },
  };
}

/** The naive-sink system, at levels cluster and faults only. */
export function naiveSinkSut(encoding: NaiveEncoding): InProcessSut {
  return {
    implementation: { name: `naive-sink ${JSON.stringify(encoding.separator)}`, version: SPEC_VERSION },
    levels: LEVELS.filter((l) => l !== 'operator'),
    cluster: (config) => naiveSinkCluster(config, encoding),
  };
}
