// Checking an engine live that cannot report the spec's outcomes. A
// dataflow engine or a database (d2ts, Postgres, Materialize) computes a
// join's result incrementally, but has no notion of a record being late,
// stale, a duplicate or a conflict, and keeps no tombstones. Here streamjoin
// does that bookkeeping itself, with the reference model's rules: validity
// (J1), identities, duplicates and conflicts (J2), watermarks (J4), lateness
// of inserts (J5) and retractions with their tombstones (J6), eviction and
// the retained counts (J8). The engine is told only what changes the set of
// live rows, an accepted insert or the accepted retraction of a live row, and
// decides only which matches that makes or withdraws: the part of the
// join that is the engine's own. The lockstep runner then compares the
// engine's matches with the model's, record by record.
import { IndexedJoin } from '../../model/index.ts';
import {
  Interrupted,
  PROTOCOL_ERRORS,
  matchId,
  pace,
  paceDue,
  type Change,
  type ClusterConfig,
  type ImplementationInfo,
  type JoinConfig,
  type Level,
  type LogRecord,
  type Outcome,
  type RetainedCounts,
  type RowContent,
  type RowRecord,
} from '../../spec/index.ts';
import { SutUnavailable, type ClusterSession, type OperatorSession, type RecordReply, type SystemUnderTest } from '../sut/sut.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

/**
 * A match an engine makes or withdraws: the key and the ids of its `L` and
 * `R` rows. The match id (J3) is computed from them, so an engine never
 * needs the id's escaping.
 */
export interface EngineMatch {
  /** `insert`: the record makes the match; `retract`: it withdraws it. */
  readonly op: 'insert' | 'retract';
  /** The join key of both rows. */
  readonly key: string;
  /** The id of the match's `L` row. */
  readonly left: string;
  /** The id of the match's `R` row. */
  readonly right: string;
}

/**
 * An engine that decides matches only. `apply` is called with each record
 * that changes the live rows: an accepted insert (the row is live from now
 * on) and an accepted retract of a live row (it is live no more), never
 * with a late, stale, duplicate, conflicting or invalid record, nor with the
 * retract that overtakes its insert (J6: that binds a tombstone, and the
 * insert, when it comes, is a duplicate). It returns the matches the record
 * makes (`insert`) or withdraws (`retract`), as an array, a promise of
 * one, or an async iterable (an engine's output stream, read to its end). Watermarks are not passed on: by J8 no later accepted record can
 * match a row past its horizon, so an engine that keeps every row forever
 * gives the same matches.
 */
export interface MatchingEngine {
  /** The matches `record` makes (an insert) or withdraws (a retract): all at once, or streamed as the engine emits them. */
  apply(record: RowRecord): readonly EngineMatch[] | Promise<readonly EngineMatch[]> | AsyncIterable<EngineMatch>;
  /** Called when its session ends (the next one opens, or the system closes). */
  close?(): void | Promise<void>;
}

/** Starts a fresh engine for a session with `config` (J0). */
export type MatchingEngineFactory = (config: JoinConfig) => MatchingEngine | Promise<MatchingEngine>;

/** What the bookkeeping decided for one record (J7). */
export interface Admission {
  /** The record's outcome (J7). */
  readonly outcome: Outcome;
  /** The record to pass to the engine: an accepted insert, or the accepted retract of a live row; else absent. */
  readonly forward?: RowRecord;
  /** The retained counts after it (§3, J8). */
  readonly retained: RetainedCounts;
}

/**
 * The spec's bookkeeping for an engine that decides matches only: J1, J2,
 * J4–J6 and J8, by the reference model. `admit` says, for each record of
 * the log in order, its outcome and whether the engine must see it. A job
 * puts it in front of its engine to turn the engine into a join that keeps
 * SPEC (its changelog then audits valid), as `matchingEngineSystem` does to
 * check one live.
 */
export class JoinBookkeeping {
  private readonly join: IndexedJoin;

  /** Empty bookkeeping for a join with this configuration (J0). */
  constructor(config: JoinConfig) {
    this.join = new IndexedJoin(config);
  }

  /** The next record of the log: its outcome, and whether the engine must see it. */
  admit(record: LogRecord): Admission {
    // A retract reaches the engine only if it ends a live row (J6): one that
    // overtakes its insert binds a tombstone and changes no match.
    // (A retract of another side than L or R is invalid, J1, and binds nothing: its lookup finds nothing.)
    const wasLive = record.kind === 'retract' ? this.join.bound(record as RowContent)?.live === true : false;
    const { outcome } = this.join.apply(record);
    const retained = this.join.retained();
    const accepted = outcome.code === 'accepted';
    const forward = accepted && (record.kind === 'insert' || (record.kind === 'retract' && wasLive)) ? (record as RowRecord) : undefined;
    return forward ? { outcome, forward, retained } : { outcome, retained };
  }
}

/** How `matchingEngineSystem` names and runs the engine. */
export interface MatchingEngineOptions {
  /** How the system names itself (the protocol's `init_ok`). */
  readonly implementation: ImplementationInfo;
  /** Starts the engine, once per session. */
  readonly engine: MatchingEngineFactory;
  /** How to name it in messages (default: the implementation's name). */
  readonly label?: string;
  /** Aborting it interrupts the system: its calls reject with SutUnavailable. */
  readonly signal?: AbortSignalLike;
}

/** A reply's matches checked for shape and turned into changes (J3); a message if they are not matches. */
function changesOf(matches: unknown): Change[] | string {
  if (!Array.isArray(matches)) return `the engine returned ${typeof matches}, not an array of matches`;
  const changes: Change[] = [];
  for (const m of matches as unknown[]) {
    const { op, key, left, right } = (typeof m === 'object' && m !== null ? m : {}) as Record<string, unknown>;
    if ((op !== 'insert' && op !== 'retract') || typeof key !== 'string' || typeof left !== 'string' || typeof right !== 'string')
      return `the engine returned ${JSON.stringify(m)}, not a match {op: "insert"|"retract", key, left, right}`;
    changes.push({ op, match: matchId(key, left, right), key, left, right });
  }
  return changes;
}

/** An engine's answer as a value: a streamed one read to its end. */
async function collected(answer: ReturnType<MatchingEngine['apply']>): Promise<unknown> {
  if (typeof answer === 'object' && answer !== null && Symbol.asyncIterator in answer) {
    const all: EngineMatch[] = [];
    for await (const m of answer) all.push(m);
    return all;
  }
  return answer;
}

const internalError = (text: string): RecordReply => ({ error: { code: PROTOCOL_ERRORS.internal_error, text } });

/**
 * An engine that decides matches only, as a system under test at level
 * `operator`: the outcome and retained counts of each record come from the
 * bookkeeping (`JoinBookkeeping`), its changes from the engine. A divergence
 * is therefore always in `changes`: a match the engine missed, made twice,
 * made wrong, or failed to withdraw. An engine that throws gives the
 * record an `internal_error` reply, as over the protocol.
 */
export function matchingEngineSystem(options: MatchingEngineOptions): SystemUnderTest {
  const { implementation, signal } = options;
  const levels: readonly Level[] = ['operator'];
  let queue: Promise<unknown> = Promise.resolve();
  // Requests are carried out one at a time, in order, as over the protocol.
  const inOrder = <T>(request: () => Promise<T>): Promise<T> => {
    const done = queue.then(request);
    queue = done.catch(() => undefined);
    return done;
  };
  const paced = async (): Promise<void> => {
    try {
      await pace(signal);
    } catch (e) {
      throw e instanceof Interrupted ? new SutUnavailable(e.message) : e;
    }
  };
  let current: MatchingEngine | undefined;
  const endSession = async (): Promise<void> => {
    const engine = current;
    current = undefined;
    try {
      await engine?.close?.();
    } catch {
      // An engine that fails to close has given all its replies already: nothing is left to judge.
    }
  };

  async function openOperator(config: JoinConfig): Promise<OperatorSession> {
    await paced();
    await endSession();
    const bookkeeping = new JoinBookkeeping(config);
    let engine: MatchingEngine;
    try {
      engine = await options.engine(config);
    } catch (e) {
      throw new SutUnavailable(`${implementation.name} could not start: ${e instanceof Error ? e.message : String(e)}`);
    }
    current = engine;
    const one = async (record: LogRecord): Promise<RecordReply> => {
      const { outcome, forward, retained } = bookkeeping.admit(record);
      if (!forward) return { outcome, changes: [], retained };
      let matches: unknown;
      try {
        matches = await collected(engine.apply(forward));
      } catch (e) {
        return internalError(e instanceof Error ? e.message : String(e));
      }
      const changes = changesOf(matches);
      return typeof changes === 'string' ? internalError(changes) : { outcome, changes, retained };
    };
    return {
      records: (records) =>
        inOrder(async () => {
          const out: RecordReply[] = [];
          for (const record of records) {
            if (paceDue(signal)) await paced();
            out.push(await one(record));
          }
          return out;
        }),
    };
  }

  return {
    label: options.label ?? implementation.name,
    info: () =>
      inOrder(async () => {
        await paced();
        return { implementation, levels };
      }),
    openOperator: (config) => inOrder(() => openOperator(config)),
    openCluster: (_config: ClusterConfig, level: Level): Promise<ClusterSession> =>
      inOrder(async () => {
        throw new SutUnavailable(`${implementation.name} does not support level ${level}`);
      }),
    close: () => inOrder(endSession),
  };
}
