// The one-pass check of a recorded history: the log runs through the
// implementation's operator (the oracle: the harness shows it agrees with
// the model, and it is the faster of the two, bench/audit.ts), and the
// sink's changes are matched against what it produces, match by match:
//
// - per match, the oracle's lifecycle (inserted at a log line, perhaps
//   retracted at another) against the sink's (the lines that applied its
//   insert and retract): a change applied twice, a retracted match
//   inserted again, or a retraction of a match the sink does not hold is an
//   ExactlyOnce violation the moment it is read; at the end the sink's final
//   state of each match is the oracle's (JoinCorrect);
// - per key, when epochs are recorded, no write below the highest epoch
//   seen (Fenced); when write sequence numbers are recorded, the sequence
//   rises and every prefix of the sink equals the oracle over a prefix of
//   the log that never shrinks (ExactlyOnce, SPEC §6 P4), greedily: each
//   write moves the key's prefix to the first point where the two agree.
//
// Memory is what retention allows, not the history: a match is forgotten
// once the oracle can no longer change it (its rows are past their horizon,
// J8, or it is retracted) and the sink has applied exactly the oracle's
// changes to it. Anything the sink does to a forgotten match is a violation;
// a short cache of forgotten matches names which one, and the rest are
// judged exactly after the pass (witness.ts re-runs the records of just the
// rows involved). The log is read only as far ahead of the sink as the sink
// needs, plus a lookahead window for a sink that runs ahead of its log.
//
// The log itself is checked too, so that a corrupt recording is not blamed
// on the system: an invalid record (J1) and a re-used forgotten identity
// (J9) are bad input, not violations.
import { InputError, parseMatchId } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, RejectReason } from '../../spec/index.ts';
import { JoinOperator } from '../../impl/index.ts';
import type { AuditProperty, AuditViolation, ViolationKind, WitnessLine } from './findings.ts';
import type { SinkChange } from './formats.ts';
import { IdentityFilter } from './identityFilter.ts';

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
}

const ABSENT = 0;
const INSERTED = 1;
const RETRACTED = 2;
type SinkState = typeof ABSENT | typeof INSERTED | typeof RETRACTED;

/** One match being followed: what the oracle did to it and what the sink did. */
class MatchEntry {
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
interface SetAside {
  readonly match: string;
  readonly key: string | undefined;
  /** Why the id cannot be a match of the log at all, if it cannot. */
  readonly idProblem: string | undefined;
  readonly events: { op: 'insert' | 'retract'; line: number }[];
}

/** One record's changes to one key, as the oracle made them. */
interface OracleStep {
  readonly line: number;
  readonly changes: readonly { readonly op: 'insert' | 'retract'; readonly match: string }[];
}

/** A sink write (sequence mode): consecutive lines with the same key and sequence number. */
interface SinkWrite {
  readonly key: string;
  readonly seq: number;
  readonly lines: number[];
  /** The changes that changed the sink's relation (a repeat changes nothing). */
  readonly effective: { op: 'insert' | 'retract'; match: string }[];
}

/** The greedy prefix check of one key (P4). */
interface KeyPrefix {
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
type Difference = 'S-only' | 'R-only';

/** A write waiting for the oracle to reach a point where it agrees with the sink. */
interface PendingPrefix {
  readonly write: SinkWrite;
  readonly prefix: KeyPrefix;
  readonly diff: Map<string, Difference>;
  /** The prefix before this write, for the witness. */
  readonly from: number;
  /** Whether it has passed an oracle step yet. */
  stepped: boolean;
}

/** A binary min-heap of entries by settleAt. */
class SettleHeap {
  private readonly items: MatchEntry[] = [];
  get size(): number {
    return this.items.length;
  }
  push(e: MatchEntry): void {
    const a = this.items;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((a[p] as MatchEntry).settleAt <= e.settleAt) break;
      a[i] = a[p] as MatchEntry;
      i = p;
    }
    a[i] = e;
  }
  peek(): MatchEntry | undefined {
    return this.items[0];
  }
  pop(): MatchEntry | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const c = r < a.length && (a[r] as MatchEntry).settleAt < (a[l] as MatchEntry).settleAt ? r : l;
      if ((a[c] as MatchEntry).settleAt >= last.settleAt) break;
      a[i] = a[c] as MatchEntry;
      i = c;
    }
    a[i] = last;
    return top;
  }
}

/**
 * How many forgotten matches are remembered, by default, to name at once
 * what the sink does to one of them (the second pass names the rest): a
 * small map, so that forgetting stays cheap.
 */
const FORGOTTEN_CACHE = 1 << 12;
/** A key's pending oracle steps beyond this many: its prefix check gives up (unknown) rather than hold more. */
const MAX_KEY_STEPS = 1 << 20;

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

export class HistoryCheck {
  private readonly engine: JoinOperator;
  private readonly L: number;
  private readonly D: number;
  private wmL: number | null = null;
  private wmR: number | null = null;
  private gw: number | null = null;
  private readonly table = new Map<string, MatchEntry>();
  private readonly heap = new SettleHeap();
  /** Forgotten matches still remembered, and the ring of their ids in the order forgotten (the oldest goes first). */
  private readonly forgotten = new Map<string, MatchEntry>();
  private readonly forgottenRing: (string | undefined)[];
  private forgottenNext = 0;
  private readonly setAside = new Map<string, SetAside>();
  private readonly identities: IdentityFilter;
  /** Records the filter flags as possible J9 violations, confirmed after the pass. */
  readonly contractSuspects: { line: number; key: string; side: string; id: string }[] = [];
  private readonly fences = new Map<string, { epoch: number; line: number }>();
  private readonly prefixes = new Map<string, KeyPrefix>();
  private open: SinkWrite | undefined;
  private pending: PendingPrefix | undefined;
  /** Sequence numbers recorded: on the first change line, and then required on every one. */
  private sequenced: boolean | undefined;
  private epochs = false;
  /** The furthest log line whose oracle change the sink has applied: where the sink stands in the log. */
  private aligned = 0;
  private logLine = 0;
  private logEnded = false;
  private logCut = false;
  private sinkEnded = false;
  /** The sink's own last line says the history is incomplete, or a caller says so. */
  private incompleteWhy: string | undefined;
  private readonly kept: Record<AuditProperty, AuditViolation[]> = { JoinCorrect: [], ExactlyOnce: [], Fenced: [] };
  private readonly counted: Record<AuditProperty, number> = { JoinCorrect: 0, ExactlyOnce: 0, Fenced: 0 };
  private readonly unknownWhy: Partial<Record<AuditProperty, string>> = {};
  readonly counts: HistoryCounts = {
    logRecords: 0,
    watermarks: 0,
    rejected: {},
    oracleInserts: 0,
    oracleRetracts: 0,
    sinkChanges: 0,
    sinkWrites: 0,
    forgotten: 0,
    peakFollowed: 0,
  };

  constructor(private readonly options: HistoryCheckOptions) {
    this.engine = new JoinOperator(options.config);
    this.L = options.config.allowedLateness;
    this.D = options.config.maxIntervalLength;
    this.identities = IdentityFilter.forIdentities(options.expectedRecords);
    this.forgottenRing = new Array<string | undefined>(Math.max(1, options.forgottenCache ?? FORGOTTEN_CACHE));
  }

  // ---------------------------------------------------------------------
  // The log

  /** One log record at `line`: the oracle's changes, the J1/J9 checks. Throws InputError for a corrupt recording. */
  pushLog(record: LogRecord, line: number): void {
    this.logLine = line;
    this.counts.logRecords++;
    let liveBefore = 0;
    if (record.kind === 'retract') liveBefore = this.engine.retained(record.key).live;
    const { outcome, changes } = this.engine.apply(record);
    if (outcome.code === 'rejected') {
      const reason = outcome.reason as RejectReason;
      this.counts.rejected[reason] = (this.counts.rejected[reason] ?? 0) + 1;
      if (reason !== 'conflict' && !this.options.allowInvalid) {
        throw new InputError(
          'SJ112',
          `${this.options.logName}:${line}`,
          `the log holds an invalid record (J1: ${reason}); a system's log holds none (C3): the recording is corrupt, or pass --allow-invalid if the system consumed and rejected it`,
        );
      }
      return;
    }
    if (record.kind === 'watermark') {
      this.counts.watermarks++;
      if (outcome.code === 'accepted') this.raiseWatermark(record.side === 'L' ? 'L' : 'R', record.wm);
      return;
    }
    if (outcome.code !== 'accepted') return;
    // J9: an identity bound anew. If the filter has seen it, it may be a forgotten one re-used.
    const bindsAnew = record.kind === 'insert' || this.engine.retained(record.key).live >= liveBefore;
    if (bindsAnew && this.identities.add(record.key, record.side, record.id)) {
      this.contractSuspects.push({ line, key: record.key, side: record.side, id: record.id });
    }
    if (changes.length === 0) return;
    const prefix = this.sequenced !== false ? this.prefixOf(record.key) : undefined;
    if (prefix !== undefined && prefix.state === 'ok') {
      // The operator's own changes (a fresh array per record) are the step.
      prefix.steps.push({ line, changes });
      if (prefix.steps.length - prefix.head > MAX_KEY_STEPS)
        this.giveUpPrefix(prefix, 'its writes lag its log by more than the check holds');
    }
    for (const c of changes) {
      if (c.op === 'insert') this.oracleInsert(c.match, record.key, line, record.end, prefix);
      else this.oracleRetract(c.match, line);
    }
  }

  /** The log has ended; `cut` when its last line was cut (a truncated recording). */
  endLog(cut: boolean): void {
    this.logEnded = true;
    this.logCut = cut;
  }

  private raiseWatermark(side: 'L' | 'R', wm: number): void {
    if (side === 'L') this.wmL = wm;
    else this.wmR = wm;
    if (this.wmL === null || this.wmR === null) return;
    this.gw = Math.min(this.wmL, this.wmR);
    for (let e = this.heap.peek(); e !== undefined && e.settleAt < this.gw; e = this.heap.peek()) {
      this.heap.pop();
      if (e.dropped) continue;
      e.settled = true;
      this.maybeForget(e);
    }
  }

  private oracleInsert(match: string, key: string, line: number, end: number, prefix: KeyPrefix | undefined): void {
    this.counts.oracleInserts++;
    let e = this.table.get(match);
    if (e !== undefined) throw new Error(`internal: the oracle inserted ${match} twice (log line ${line})`);
    e = new MatchEntry(match, key);
    e.prefix = prefix;
    e.oIns = line;
    // J8: a partner overlaps the inserting row, so it ends by end + D; the match can be retracted until gw passes that + L + D.
    e.settleAt = end + this.L + 2 * this.D;
    this.table.set(match, e);
    if (this.table.size > this.counts.peakFollowed) this.counts.peakFollowed = this.table.size;
    this.heap.push(e);
    const early = this.setAside.size === 0 ? undefined : this.setAside.get(match);
    if (early !== undefined) {
      // The sink applied these before the log reader got here: apply them now, in their order.
      this.setAside.delete(match);
      for (const ev of early.events) this.applySink(e, ev.op, ev.line);
    }
  }

  private oracleRetract(match: string, line: number): void {
    this.counts.oracleRetracts++;
    const e = this.table.get(match);
    if (e === undefined) throw new Error(`internal: the oracle retracted ${match}, which it does not follow (log line ${line})`);
    e.oRet = line;
    e.settled = true; // J6: retracted is terminal.
    this.maybeForget(e);
  }

  // ---------------------------------------------------------------------
  // The sink

  /**
   * One sink change at `line`. Returns false, having done nothing with it,
   * when the log must be read further first (the driver then feeds log
   * records and offers the change again).
   */
  offerSink(change: SinkChange, line: number): boolean {
    if (this.sequenced === undefined) this.sequenced = change.seq !== undefined;
    else if (this.sequenced !== (change.seq !== undefined)) {
      throw new InputError(
        'SJ102',
        `${this.options.sinkName}:${line}`,
        this.sequenced ? 'seq is missing; the first change has one, so every change must' : 'seq is here, but not on the first change',
      );
    }
    const key = change.key ?? keyOfMatch(change.match);
    // A new write closes the one open before it; its prefix check may need more log.
    if (this.sequenced && this.open !== undefined && (this.open.key !== key || this.open.seq !== change.seq)) {
      this.closeWrite();
    }
    if (this.pending !== undefined && !this.resumePrefix()) return false;
    let e = this.table.get(change.match);
    if (e === undefined) {
      e = this.forgotten.get(change.match);
      if (e !== undefined) {
        // The sink changes a match it had settled with the oracle: follow it again, to judge its end.
        this.forgotten.delete(change.match);
        e.dropped = false;
        this.table.set(change.match, e);
      }
    }
    const idProblem = e === undefined ? (change.idProblem ?? idProblemOf(change.match, change.key)) : undefined;
    if (e === undefined && !this.setAside.has(change.match) && idProblem === undefined && this.mayReadAhead()) return false;

    this.counts.sinkChanges++;
    if (change.epoch !== undefined) this.checkFence(key, change.epoch, line, change.match);
    if (this.sequenced) this.addToWrite(key, change.seq as number, line);
    if (e !== undefined) {
      const before = e.sink;
      this.applySink(e, change.op, line);
      this.noteEffective(change, before);
    } else {
      let aside = this.setAside.get(change.match);
      if (aside === undefined) {
        aside = { match: change.match, key: change.key, idProblem, events: [] };
        this.setAside.set(change.match, aside);
      }
      // What the sink holds of it now: what its last applied change made it.
      const last = aside.events.at(-1);
      const before: SinkState = last === undefined ? ABSENT : last.op === 'insert' ? INSERTED : RETRACTED;
      aside.events.push({ op: change.op, line });
      this.noteEffective(change, before);
    }
    return true;
  }

  /** Has the log reader room to run further ahead of where the sink stands? */
  private mayReadAhead(): boolean {
    return !this.logEnded && this.logLine <= this.aligned + this.options.lookahead;
  }

  /** The sink has ended; `cut` when its last line was cut. `end` is its own last line's word on completeness. */
  endSink(cut: boolean, end: { complete: boolean; why?: string } | undefined): void {
    // A cut file may have cut its last write short: that write is not judged against a prefix.
    if (this.sequenced && this.open !== undefined) {
      if (cut) this.open = undefined;
      else this.closeWrite();
    }
    this.sinkEnded = true;
    if (cut) this.incompleteWhy = 'the sink file is cut short (its last line is incomplete)';
    else if (end !== undefined && !end.complete) this.incompleteWhy = `the recording says so${end.why ? `: ${end.why}` : ''}`;
  }

  /** The caller knows the history is incomplete (`--incomplete`). */
  markIncomplete(why: string): void {
    this.incompleteWhy ??= why;
  }

  /** Does the check wait for more log before the next sink change? (After the sink ends: whether a write still waits.) */
  waitsForLog(): boolean {
    return this.pending !== undefined && !this.logEnded;
  }

  /** Retries a write waiting for more log; true once it is settled. */
  resumePrefix(): boolean {
    const p = this.pending;
    if (p === undefined) return true;
    const outcome = this.advancePrefix(p);
    if (outcome === 'wait') return false;
    this.pending = undefined;
    return true;
  }

  private applySink(e: MatchEntry, op: 'insert' | 'retract', line: number): void {
    if (op === 'insert') {
      if (e.sink === INSERTED) {
        this.reportOnce(e, 'ExactlyOnce', 'applied-twice', `match ${e.match} is inserted a second time`, [
          { file: 'sink', line: e.sIns, role: 'first insert' },
          { file: 'sink', line, role: 'the same insert, applied again' },
          ...this.oracleLines(e),
        ]);
        e.sAgain ||= line;
      } else if (e.sink === RETRACTED) {
        this.reportOnce(
          e,
          'ExactlyOnce',
          'resurrected',
          `match ${e.match} is inserted again after it was retracted (retracted is terminal, C9)`,
          [
            ...(e.sIns ? [{ file: 'sink' as const, line: e.sIns, role: 'insert' }] : []),
            { file: 'sink', line: e.sRet, role: 'retract' },
            { file: 'sink', line, role: 'insert again' },
            ...this.oracleLines(e),
          ],
        );
        e.sink = INSERTED;
        e.sAgain ||= line;
      } else {
        e.sink = INSERTED;
        e.sIns = line;
      }
    } else if (e.sink === RETRACTED) {
      this.reportOnce(e, 'ExactlyOnce', 'applied-twice', `match ${e.match} is retracted a second time`, [
        { file: 'sink', line: e.sRet, role: 'first retract' },
        { file: 'sink', line, role: 'the same retract, applied again' },
        ...this.oracleLines(e),
      ]);
    } else {
      if (e.sink === ABSENT) {
        this.reportOnce(
          e,
          'ExactlyOnce',
          'retract-without-insert',
          `match ${e.match} is retracted, but the sink never applied its insert (lost, or applied after this)`,
          [{ file: 'sink', line, role: 'retract of a match the sink does not hold' }, ...this.oracleLines(e)],
        );
      }
      e.sink = RETRACTED;
      e.sRet = line;
    }
    // Where the sink stands in the log: as far as the oracle changes it has applied.
    const at = op === 'insert' ? e.oIns : e.oRet;
    if (at > this.aligned) this.aligned = at;
    this.maybeForget(e);
  }

  /** The log lines where the oracle inserted and retracted a match (the records that did it). */
  private oracleLines(e: MatchEntry): WitnessLine[] {
    const out: WitnessLine[] = [];
    if (e.oIns) out.push({ file: 'log', line: e.oIns, role: 'the record whose acceptance inserts the match' });
    if (e.oRet) out.push({ file: 'log', line: e.oRet, role: 'the record whose acceptance retracts the match' });
    return out;
  }

  /**
   * A match the oracle can no longer change, and to which the sink has
   * applied exactly the oracle's changes, is forgotten (kept only in a short
   * cache, to name what the sink might still do to it).
   */
  private maybeForget(e: MatchEntry): void {
    if (e.dropped || !e.settled) return;
    // The key's prefix check (P4) still needs it until its prefix has passed the match's last oracle change.
    const p = e.prefix;
    if (p !== undefined && p.state === 'ok' && p.at < (e.oRet || e.oIns)) return;
    const reconciled = e.oRet ? e.sink === RETRACTED && e.sIns !== 0 : e.sink === INSERTED;
    if (!reconciled) {
      // After the sink's end nothing more can come: judge it now, rather than hold it.
      if (this.sinkEnded) {
        this.judgeFinal(e);
        this.drop(e);
      }
      return;
    }
    this.drop(e);
    this.counts.forgotten++;
    // A ring, not the map's own order: deleting from the front of a Map and asking for its first key again costs a scan past the holes.
    const ring = this.forgottenRing;
    const oldest = ring[this.forgottenNext];
    if (oldest !== undefined && this.forgotten.get(oldest)?.dropped === true) this.forgotten.delete(oldest);
    ring[this.forgottenNext] = e.match;
    this.forgottenNext = (this.forgottenNext + 1) % ring.length;
    this.forgotten.set(e.match, e);
  }

  private drop(e: MatchEntry): void {
    e.dropped = true;
    this.table.delete(e.match);
  }

  // ---------------------------------------------------------------------
  // Fenced (C9)

  private checkFence(key: string, epoch: number, line: number, match: string): void {
    this.epochs = true;
    const fence = this.fences.get(key);
    if (fence !== undefined && epoch < fence.epoch) {
      this.report(
        'Fenced',
        'below-fence',
        `a write of key ${key} at epoch ${epoch} is applied after one at epoch ${fence.epoch}`,
        match,
        key,
        [
          { file: 'sink', line: fence.line, role: `a write at epoch ${fence.epoch}` },
          { file: 'sink', line, role: `the write at epoch ${epoch}, below the fence` },
        ],
      );
      return;
    }
    if (fence === undefined || epoch > fence.epoch) this.fences.set(key, { epoch, line });
  }

  // ---------------------------------------------------------------------
  // ExactlyOnce with sequence numbers: the sequence, and the prefix (P4)

  private prefixOf(key: string): KeyPrefix {
    let p = this.prefixes.get(key);
    if (p === undefined) {
      p = { state: 'ok', steps: [], head: 0, at: 0, lastSeq: -1, lastSeqLine: 0 };
      this.prefixes.set(key, p);
    }
    return p;
  }

  private giveUpPrefix(p: KeyPrefix, why: string): void {
    p.state = 'unknown';
    p.steps = [];
    p.head = 0;
    this.unknownWhy.ExactlyOnce ??= `the prefix check of a key stopped: ${why}`;
  }

  private addToWrite(key: string, seq: number, line: number): void {
    if (this.open !== undefined && this.open.key === key && this.open.seq === seq) {
      this.open.lines.push(line);
      return;
    }
    this.counts.sinkWrites++;
    const p = this.prefixOf(key);
    if (seq <= p.lastSeq) {
      this.report(
        'ExactlyOnce',
        'sequence',
        `write ${seq} of key ${key} is applied after write ${p.lastSeq} (a write applied twice, or out of order)`,
        undefined,
        key,
        [
          { file: 'sink', line: p.lastSeqLine, role: `write ${p.lastSeq}` },
          { file: 'sink', line, role: `write ${seq}` },
        ],
      );
      if (p.state === 'ok') {
        p.state = 'failed';
        p.steps = [];
      }
    } else {
      p.lastSeq = seq;
      p.lastSeqLine = line;
    }
    this.open = { key, seq, lines: [line], effective: [] };
  }

  /** Records the change in the open write if it changed the sink's relation (set semantics). */
  private noteEffective(change: SinkChange, before: SinkState): void {
    if (!this.sequenced || this.open === undefined) return;
    const effective = change.op === 'insert' ? before !== INSERTED : before === INSERTED;
    if (effective) this.open.effective.push({ op: change.op, match: change.match });
  }

  /** The open write is complete: find the prefix of the log it brings the sink to. */
  private closeWrite(): void {
    const w = this.open as SinkWrite;
    this.open = undefined;
    const p = this.prefixOf(w.key);
    if (p.state !== 'ok') return;
    const diff = new Map<string, Difference>();
    for (const c of w.effective) toggle(diff, c.match, c.op === 'insert' ? 'S-only' : 'R-only');
    const pending: PendingPrefix = { write: w, prefix: p, diff, from: p.at, stepped: false };
    if (this.advancePrefix(pending) === 'wait') this.pending = pending;
  }

  /**
   * Moves the key's prefix over the oracle's steps until the sink and the
   * oracle agree (the difference is empty), or until they cannot agree at
   * any later prefix (a violation), or the log must be read further.
   */
  private advancePrefix(pw: PendingPrefix): 'done' | 'wait' {
    const { prefix: p, diff } = pw;
    for (;;) {
      if (diff.size === 0) return 'done';
      // (Checked here, between steps: the common write is one record's changes, which the next step cancels at once.)
      const hopeless = pw.stepped ? this.hopeless(diff, p.at) : undefined;
      if (hopeless !== undefined) {
        this.failPrefix(pw, hopeless);
        return 'done';
      }
      pw.stepped = true;
      const step = p.steps[p.head];
      if (step === undefined) {
        if (!this.logEnded) {
          if (this.mayReadAhead()) return 'wait';
          this.giveUpPrefix(
            p,
            `the sink's write ${pw.write.seq} of key ${pw.write.key} matches no prefix within ${this.options.lookahead} records of where the sink stands`,
          );
          return 'done';
        }
        if (this.logCut) {
          this.giveUpPrefix(p, 'the log is cut short');
          return 'done';
        }
        this.failPrefix(pw, this.hopeless(diff, p.at) ?? ([...diff.keys()][0] as string));
        return 'done';
      }
      p.head++;
      if (p.head > 1024 && p.head * 2 > p.steps.length) {
        p.steps = p.steps.slice(p.head);
        p.head = 0;
      }
      p.at = step.line;
      for (const c of step.changes) toggle(diff, c.match, c.op === 'insert' ? 'R-only' : 'S-only');
      // The prefix has passed these changes: their matches may now be forgotten.
      for (const c of step.changes) {
        const e = this.table.get(c.match);
        if (e !== undefined) this.maybeForget(e);
      }
    }
  }

  /** A difference no later oracle step can cancel, if any: its match. */
  private hopeless(diff: Map<string, Difference>, at: number): string | undefined {
    for (const [match, d] of diff) {
      const e = this.table.get(match) ?? this.forgotten.get(match);
      if (d === 'S-only') {
        // Cancelled only by the oracle inserting it later.
        if (e !== undefined && e.oIns !== 0 && e.oIns <= at) return match;
        if (e === undefined && idProblemOf(match, undefined) !== undefined) return match;
      } else if (e === undefined || (e.oRet === 0 && e.settled) || (e.oRet !== 0 && e.oRet <= at)) {
        // R-only: cancelled only by the oracle retracting it later (the sink skipping an insert and its retraction).
        return match;
      }
    }
    return undefined;
  }

  private failPrefix(pw: PendingPrefix, match: string): void {
    const { write, prefix: p, diff } = pw;
    p.state = 'failed';
    p.steps = [];
    p.head = 0;
    const d = diff.get(match);
    const e = this.table.get(match) ?? this.forgotten.get(match);
    const what =
      d === 'S-only'
        ? `the sink holds ${match}, and no later record of the log adds it`
        : `the sink does not hold ${match}, and no later record of the log removes it`;
    this.report(
      'ExactlyOnce',
      'prefix',
      `after write ${write.seq} of key ${write.key}, the sink equals the oracle over no prefix of the log at or after the one it equalled before (log line ${pw.from}): ${what}`,
      match,
      write.key,
      [
        ...(pw.from ? [{ file: 'log' as const, line: pw.from, role: 'the last record the sink had reached' }] : []),
        ...write.lines.map((line) => ({ file: 'sink' as const, line, role: `write ${write.seq}` })),
        ...(e ? this.oracleLines(e) : []),
      ],
    );
  }

  // ---------------------------------------------------------------------
  // The end

  /** Whether the sink's final relation is judged (a complete history and a whole log). */
  private judgesFinal(): boolean {
    return this.incompleteWhy === undefined && !this.logCut;
  }

  /** JoinCorrect for one match followed to the end: its final state in the sink is its final state in the oracle. */
  private judgeFinal(e: MatchEntry): void {
    const oracleHolds = e.oIns !== 0 && e.oRet === 0;
    const sinkHolds = e.sink === INSERTED;
    if (oracleHolds === sinkHolds) return;
    if (!this.judgesFinal()) return;
    if (oracleHolds) {
      this.report('JoinCorrect', 'missing', `the oracle's relation holds ${e.match}; the sink's does not`, e.match, e.key, [
        ...this.oracleLines(e),
        ...(e.sRet ? [{ file: 'sink' as const, line: e.sRet, role: 'the sink retracts it' }] : []),
      ]);
    } else {
      this.report('JoinCorrect', 'extra', `the sink's relation holds ${e.match}; the oracle's does not (it retracts it)`, e.match, e.key, [
        ...this.oracleLines(e),
        { file: 'sink', line: e.sAgain || e.sIns, role: 'the sink inserts it' },
      ]);
    }
  }

  /** After both files: judge what is still followed; what was set aside goes to the exact second pass (witness.ts). */
  finish(): SetAside[] {
    if (this.pending !== undefined) {
      this.advancePrefix(this.pending);
      this.pending = undefined;
    }
    for (const e of this.table.values()) this.judgeFinal(e);
    this.table.clear();
    return [...this.setAside.values()];
  }

  /**
   * Judges a set-aside match once its oracle lifecycle is known (log lines;
   * 0 = never): the sink's changes to it, on top of what the sink held when
   * it was forgotten if the oracle had produced it.
   */
  judgeSetAside(a: SetAside, oracle: { insert: number; retract: number }): void {
    if (a.idProblem !== undefined || oracle.insert === 0) {
      const why = a.idProblem ?? 'no record of the log makes this match';
      const e = new MatchEntry(a.match, a.key ?? keyOfMatch(a.match));
      for (const ev of a.events) this.applySink(e, ev.op, ev.line);
      if (e.sink === INSERTED && (this.judgesFinal() || a.idProblem !== undefined)) {
        this.report('JoinCorrect', 'wrong-id', `the sink holds ${a.match}, which is not a match of the log: ${why}`, a.match, e.key, [
          { file: 'sink', line: e.sAgain || e.sIns, role: 'the sink inserts it' },
        ]);
      }
      return;
    }
    // The oracle made it, and the sink had applied exactly its changes when it was forgotten.
    // (Left unsettled while its events are applied, so that it is judged once, on its final state.)
    const e = new MatchEntry(a.match, a.key ?? keyOfMatch(a.match));
    e.oIns = oracle.insert;
    e.oRet = oracle.retract;
    e.sink = oracle.retract ? RETRACTED : INSERTED;
    for (const ev of a.events) this.applySink(e, ev.op, ev.line);
    this.judgeFinal(e);
  }

  /** Whether sequence numbers and epochs were recorded. */
  recorded(): { sequence: boolean; epochs: boolean } {
    return { sequence: this.sequenced === true, epochs: this.epochs };
  }

  /** Why the final relation is not judged, if it is not. */
  incompleteness(): string | undefined {
    if (this.logCut) return 'the log file is cut short (its last line is incomplete)';
    return this.incompleteWhy;
  }

  violations(): {
    kept: Record<AuditProperty, AuditViolation[]>;
    counted: Record<AuditProperty, number>;
    unknown: Partial<Record<AuditProperty, string>>;
  } {
    return { kept: this.kept, counted: this.counted, unknown: this.unknownWhy };
  }

  /** Matches followed now (memory that retention allows). */
  followed(): number {
    return this.table.size + this.setAside.size;
  }

  private reportOnce(e: MatchEntry, property: AuditProperty, kind: ViolationKind, message: string, witness: WitnessLine[]): void {
    if (e.flagged) {
      this.counted[property]++;
      return;
    }
    e.flagged = true;
    this.report(property, kind, message, e.match, e.key, witness);
  }

  private report(
    property: AuditProperty,
    kind: ViolationKind,
    message: string,
    match: string | undefined,
    key: string | undefined,
    witness: WitnessLine[],
  ): void {
    this.counted[property]++;
    const kept = this.kept[property];
    if (kept.length >= this.options.keepViolations) return;
    // One witness line per file line, its roles together.
    const lines: WitnessLine[] = [];
    for (const w of witness) {
      if (w.line <= 0) continue;
      const same = lines.find((x) => x.file === w.file && x.line === w.line);
      if (same === undefined) lines.push({ ...w });
      else if (!same.role.includes(w.role)) lines[lines.indexOf(same)] = { ...same, role: `${same.role}; ${w.role}` };
    }
    const v: AuditViolation = { property, kind, message, witness: lines };
    kept.push(match === undefined ? (key === undefined ? v : { ...v, key }) : { ...v, match, ...(key === undefined ? {} : { key }) });
  }
}

function toggle(diff: Map<string, Difference>, match: string, d: Difference): void {
  if (diff.has(match)) diff.delete(match);
  else diff.set(match, d);
}

/** The key of a match id (J3), or the id itself if it is not one. */
function keyOfMatch(match: string): string {
  return parseMatchId(match)?.key ?? match;
}

/** Why a match id cannot be a match of the log, if it cannot: not of the J3 form, or not of its writer's key. */
function idProblemOf(match: string, writerKey: string | undefined): string | undefined {
  const parts = parseMatchId(match);
  if (parts === undefined) return 'it is not a match id (SPEC J3: key/left/right, escaped)';
  if (writerKey !== undefined && parts.key !== writerKey) return `it is a match of key ${parts.key}, written by key ${writerKey}`;
  return undefined;
}
