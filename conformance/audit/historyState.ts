// What the one-pass history check (historyCheck.ts) keeps while it reads:
// the entry of each match it follows (the oracle's lifecycle beside the
// sink's), the matches set aside for the second pass, the per-key state of
// the prefix check (P4), and the heap that says when the oracle can no
// longer change a match (J8).
import { parseMatchId } from '../../spec/index.ts';
import type { JoinConfig, RejectReason } from '../../spec/index.ts';
import type { SinkModel } from './diffSink.ts';
import type { WitnessLine } from './findings.ts';
import type { SinkChange } from './formats.ts';

/** How the history check (historyCheck.ts) is set up. */
export interface HistoryCheckOptions {
  readonly config: JoinConfig;
  /** How many log records the reader may run ahead of where the sink stands before a sink change is set aside. */
  readonly lookahead: number;
  /** Treat invalid records (J1) as the operator does (rejected, no change) rather than as a corrupt recording. */
  readonly allowInvalid: boolean;
  /** How many violations of each property are kept with their witnesses (all are counted). */
  readonly keepViolations: number;
  /** About how many records the log holds (sizes the J9 filter). */
  readonly expectedRecords: number;
  /** How many forgotten matches are remembered to name what the sink does to one of them (default 4,096). */
  readonly forgottenCache?: number;
  /** Where the log and the sink come from, for error messages. */
  readonly logName: string;
  readonly sinkName: string;
  /** `diff`: the changes offered are a diff sink's net changes per write (diffSink.ts), and the messages speak of multiplicities. */
  readonly sinkModel?: SinkModel;
  /** The no-lateness profile (L = 2^50): a record the oracle still finds late makes the verdict unknown, never a pass. */
  readonly noLateness?: boolean;
  /**
   * A log given as two files (twoInputs.ts): a match in a row whose lateness
   * depends on the order the engine consumed them is judged neither way (the
   * oracle's and the sink's changes to it are passed over).
   */
  readonly orderDependent?: (match: string) => boolean;
  /** The log's interleaving is not recorded (two files): the prefix part of ExactlyOnce, which compares against log prefixes, is not checked. */
  readonly interleavingUnknown?: boolean;
  /**
   * A partition's check (spill.ts): it sees only some of the watermarks,
   * which the partitioning counts once for all, so it counts none of them
   * (log records, watermarks, rejected).
   */
  readonly watermarksCountedApart?: boolean;
}

/** What the history check counts as it reads. */
export interface HistoryCounts {
  logRecords: number;
  watermarks: number;
  rejected: Partial<Record<RejectReason, number>>;
  oracleInserts: number;
  oracleRetracts: number;
  sinkChanges: number;
  sinkWrites: number;
  /** Matches forgotten once reconciled (what retention allows). */
  forgotten: number;
  /** Most matches followed at once. */
  peakFollowed: number;
}

export const ABSENT = 0;
export const INSERTED = 1;
export const RETRACTED = 2;
export type SinkState = typeof ABSENT | typeof INSERTED | typeof RETRACTED;

/** One match being followed: what the oracle did to it and what the sink did. */
export class MatchEntry {
  /** Log line of the record whose acceptance inserted the match (0 = not by the oracle). */
  oIns = 0;
  /** Log line of the record that retracted it (0 = not retracted). */
  oRet = 0;
  /** gw beyond which the oracle can no longer change it (J8): the inserting row's end + L + 2D. */
  settleAt = Number.POSITIVE_INFINITY;
  settled = false;
  /** Dropped from the table (reconciled, or judged). */
  dropped = false;
  sink: SinkState = ABSENT;
  /** A diff sink's multiplicity of it (--sink-model diff; unused for a set sink). */
  count = 0;
  /** Sink lines of the insert and retract the sink applied (the first of each), and of a second insert. */
  sIns = 0;
  sRet = 0;
  sAgain = 0;
  /** A violation has been reported for it: its final state is still judged, its repeats are not reported twice. */
  flagged = false;
  /** Its key's prefix check (sequence numbers recorded), which must pass it before it is forgotten. */
  prefix: KeyPrefix | undefined = undefined;
  constructor(
    readonly match: string,
    readonly key: string,
  ) {}
}

/** A match the sink changed with no entry: the oracle has not produced it (yet), or it was forgotten. */
export interface SetAside {
  readonly match: string;
  readonly key: string | undefined;
  /** Why the id cannot be a match of the log at all, if it cannot. */
  readonly idProblem: string | undefined;
  readonly events: { op: 'insert' | 'retract'; line: number }[];
}

/** One record's changes to one key, as the oracle made them. */
export interface OracleStep {
  readonly line: number;
  readonly changes: readonly { readonly op: 'insert' | 'retract'; readonly match: string }[];
}

/** A sink write (sequence mode): consecutive lines with the same key and sequence number. */
export interface SinkWrite {
  readonly key: string;
  readonly seq: number;
  readonly lines: number[];
  /** The changes that changed the sink's relation (a repeat changes nothing). */
  readonly effective: { op: 'insert' | 'retract'; match: string }[];
}

/** The greedy prefix check of one key (P4). */
export interface KeyPrefix {
  state: 'ok' | 'failed' | 'unknown';
  /** Steps of the oracle for this key not yet passed by the sink. */
  steps: OracleStep[];
  head: number;
  /** The log line of the last step the sink has passed (0: none). */
  at: number;
  lastSeq: number;
  lastSeqLine: number;
}

/** S-only: the sink holds the match and the oracle (at the prefix) does not; R-only: the other way round. */
export type Difference = 'S-only' | 'R-only';

/** A write waiting for the oracle to reach a point where it agrees with the sink. */
export interface PendingPrefix {
  readonly write: SinkWrite;
  readonly prefix: KeyPrefix;
  readonly diff: Map<string, Difference>;
  /** The prefix before this write, for the witness. */
  readonly from: number;
  /** Whether it has passed an oracle step yet. */
  stepped: boolean;
}

/**
 * A binary min-heap of entries by settleAt. The keys are kept beside the
 * entries in a typed array: sifting compares keys only, and does not touch
 * an entry object at each level (on a large heap, a cache miss each).
 */
export class SettleHeap {
  private readonly items: MatchEntry[] = [];
  private keys = new Float64Array(1024);
  get size(): number {
    return this.items.length;
  }
  push(e: MatchEntry): void {
    const a = this.items;
    if (a.length === this.keys.length) {
      const grown = new Float64Array(this.keys.length * 2);
      grown.set(this.keys);
      this.keys = grown;
    }
    const keys = this.keys;
    const at = e.settleAt;
    let i = a.length;
    a.push(e);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((keys[p] as number) <= at) break;
      a[i] = a[p] as MatchEntry;
      keys[i] = keys[p] as number;
      i = p;
    }
    a[i] = e;
    keys[i] = at;
  }
  /** The least settleAt held, +∞ when empty. */
  peekKey(): number {
    return this.items.length === 0 ? Number.POSITIVE_INFINITY : (this.keys[0] as number);
  }
  pop(): MatchEntry | undefined {
    const a = this.items;
    const keys = this.keys;
    const top = a[0];
    const last = a.pop();
    const n = a.length;
    if (n === 0 || last === undefined) return top;
    const lastKey = keys[n] as number;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && (keys[r] as number) < (keys[l] as number) ? r : l;
      if ((keys[c] as number) >= lastKey) break;
      a[i] = a[c] as MatchEntry;
      keys[i] = keys[c] as number;
      i = c;
    }
    a[i] = last;
    keys[i] = lastKey;
    return top;
  }
}

export function toggle(diff: Map<string, Difference>, match: string, d: Difference): void {
  if (diff.has(match)) diff.delete(match);
  else diff.set(match, d);
}

/** The key of a match id (J3), or the id itself if it is not one. */
export function keyOfMatch(match: string): string {
  return parseMatchId(match)?.key ?? match;
}

/** Why a match id cannot be a match of the log, if it cannot: not of the J3 form, or not of its writer's key. */
export function idProblemOf(match: string, writerKey: string | undefined): string | undefined {
  const parts = parseMatchId(match);
  if (parts === undefined) return 'it is not a match id (SPEC J3: key/left/right, escaped)';
  if (writerKey !== undefined && parts.key !== writerKey) return `it is a match of key ${parts.key}, written by key ${writerKey}`;
  return undefined;
}

/**
 * The violation of a write of `match` under a key that is not the match's
 * (J3), as `report`'s arguments: none, or one. A wrong id whatever else the
 * write does, whether the match is followed (the oracle made it before) or
 * was set aside for it and the oracle made it after.
 */
export function writerViolation(
  match: string,
  writer: string | undefined,
  line: number,
): ['JoinCorrect', 'wrong-id', string, string, string | undefined, WitnessLine[]][] {
  const problem = writer === undefined ? undefined : idProblemOf(match, writer);
  if (problem === undefined) return [];
  const witness: WitnessLine[] = [{ file: 'sink', line, role: `the write of key ${writer}` }];
  return [['JoinCorrect', 'wrong-id', `a write changes ${match}, which is not a match of its writer: ${problem}`, match, writer, witness]];
}

/** The log lines where the oracle inserted and retracted a match (the records that did it). */
export function oracleLines(e: MatchEntry): WitnessLine[] {
  const out: WitnessLine[] = [];
  if (e.oIns) out.push({ file: 'log', line: e.oIns, role: 'the record whose acceptance inserts the match' });
  if (e.oRet) out.push({ file: 'log', line: e.oRet, role: 'the record whose acceptance retracts the match' });
  return out;
}

/** A change without its write sequence number (a log of two inputs: no log prefix to judge a write against). */
export function unsequenced(change: SinkChange): SinkChange {
  const { seq: _seq, ...rest } = change;
  return rest;
}
