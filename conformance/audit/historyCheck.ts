// The one-pass check of a recorded history: the log runs through the
// audit's oracle (auditOracle.ts: the join written for replaying long logs,
// which a property test holds to the reference model record by record), and
// the sink's changes are matched against what it produces, match by match:
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
//   write moves the key's prefix to the first point where the two agree
//   (sequencePrefix.ts).
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
import { InputError } from '../../spec/index.ts';
import type { LogRecord, RejectReason } from '../../spec/index.ts';
import { AuditOracle } from './auditOracle.ts';
import type { AuditProperty, AuditViolation, ViolationKind, WitnessLine } from './findings.ts';
import type { SinkChange } from './formats.ts';
import {
  ABSENT,
  idProblemOf,
  writerViolation,
  INSERTED,
  type KeyPrefix,
  keyOfMatch,
  MatchEntry,
  oracleLines,
  RETRACTED,
  type SetAside,
  SettleHeap,
  type SinkState,
  unsequenced,
} from './historyState.ts';
import { IdentityFilter } from './identityFilter.ts';
import { SequencePrefixCheck } from './sequencePrefix.ts';
import type { HistoryCheckOptions, HistoryCounts } from './historyState.ts';

export type { HistoryCheckOptions, HistoryCounts } from './historyState.ts';

/**
 * How many forgotten matches are remembered, by default, to name at once
 * what the sink does to one of them (the second pass names the rest): a
 * small map, so that forgetting stays cheap.
 */
const FORGOTTEN_CACHE = 1 << 12;

export class HistoryCheck {
  private engine: AuditOracle;
  private readonly L: number;
  private readonly D: number;
  private wmL: number | null = null;
  private wmR: number | null = null;
  private gw: number | null = null;
  private readonly table = new Map<string, MatchEntry>();
  private heap = new SettleHeap();
  /** Forgotten matches still remembered, and the ring of their ids in the order forgotten (the oldest goes first). */
  private readonly forgotten = new Map<string, MatchEntry>();
  private readonly forgottenRing: (string | undefined)[];
  private forgottenNext = 0;
  private readonly setAside = new Map<string, SetAside>();
  private identities: IdentityFilter | undefined;
  /** Records the filter flags as possible J9 violations, confirmed after the pass. */
  readonly contractSuspects: { line: number; key: string; side: string; id: string }[] = [];
  private readonly fences = new Map<string, { epoch: number; line: number }>();
  private readonly prefix: SequencePrefixCheck;
  /** Sequence numbers recorded: on the first change line, and then required on every one. */
  private sequenced: boolean | undefined;
  private epochs = false;
  /** The furthest log line whose oracle change the sink has applied: where the sink stands in the log. */
  private aligned = 0;
  private logLine = 0;
  private logEnded = false;
  private logCut: string | undefined;
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

  /** A diff sink's net changes (the messages speak of multiplicities). */
  private readonly diff: boolean;

  constructor(private readonly options: HistoryCheckOptions) {
    this.diff = options.sinkModel === 'diff';
    this.engine = new AuditOracle(options.config);
    this.L = options.config.allowedLateness;
    this.D = options.config.maxIntervalLength;
    this.identities = IdentityFilter.forIdentities(options.expectedRecords);
    this.forgottenRing = new Array<string | undefined>(Math.max(1, options.forgottenCache ?? FORGOTTEN_CACHE));
    this.prefix = new SequencePrefixCheck({
      followed: (match) => this.table.get(match),
      remembered: (match) => this.table.get(match) ?? this.forgotten.get(match),
      maybeForget: (e) => this.maybeForget(e),
      logEnded: () => this.logEnded,
      logCut: () => this.logCut !== undefined,
      mayReadAhead: () => this.mayReadAhead(),
      lookahead: options.lookahead,
      report: (property, kind, message, match, key, witness) => this.report(property, kind, message, match, key, witness),
      unknown: (why) => {
        this.unknownWhy.ExactlyOnce ??= why;
      },
    });
  }

  // ---------------------------------------------------------------------
  // The log

  /** One log record at `line`: the oracle's changes, the J1/J9 checks. Throws InputError for a corrupt recording. */
  pushLog(record: LogRecord, line: number): void {
    this.logLine = line;
    const counted = record.kind !== 'watermark' || this.options.watermarksCountedApart !== true;
    if (counted) this.counts.logRecords++;
    const outcome = this.engine.apply(record);
    if (outcome === 'late' && this.options.noLateness === true) {
      // J5/J6 with L = 2^50: only times more than 2^50 apart get here; an engine without lateness would have taken it.
      const why = `log line ${line} is late even with L = 2^50 (its times lie more than 2^50 before the watermark): the no-lateness profile cannot be judged exactly`;
      this.unknownWhy.JoinCorrect ??= why;
      this.unknownWhy.ExactlyOnce ??= why;
    }
    if (outcome === 'rejected') {
      const reason = this.engine.reason as RejectReason;
      if (counted) this.counts.rejected[reason] = (this.counts.rejected[reason] ?? 0) + 1;
      if (reason !== 'conflict' && !this.options.allowInvalid) {
        throw new InputError(
          'SJ112',
          `${this.options.logName}:${line}`,
          `the log holds an invalid record (J1: ${reason}); a system's log holds none (C3): the ` +
            `recording is corrupt, or pass --allow-invalid if the system consumed and rejected it`,
        );
      }
      return;
    }
    if (record.kind === 'watermark') {
      if (counted) this.counts.watermarks++;
      if (outcome === 'accepted') this.raiseWatermark(record.side === 'L' ? 'L' : 'R', record.wm);
      return;
    }
    if (outcome !== 'accepted') return;
    // J9: an identity bound anew. If the filter has seen it, it may be a forgotten one re-used.
    if (this.engine.boundNew && this.identities?.add(record.key, record.side, record.id) === true) {
      this.contractSuspects.push({ line, key: record.key, side: record.side, id: record.id });
    }
    const changes = this.engine.changes;
    const dependent = this.options.orderDependent;
    const judged = dependent === undefined ? changes : changes.filter((c) => !dependent(c.match));
    if (judged.length === 0) return;
    // The oracle's own changes (a fresh array per record) are the step.
    const prefix =
      this.sequenced !== false && this.options.interleavingUnknown !== true ? this.prefix.oracleStep(record.key, line, judged) : undefined;
    for (const c of judged) {
      if (c.op === 'insert') this.oracleInsert(c.match, record.key, line, record.end, prefix);
      else this.oracleRetract(c.match, line);
    }
  }

  /** The log has ended; `cut` when its last line was cut (a truncated recording), `how` saying how it ends. */
  endLog(cut: boolean, how = 'its last line is incomplete'): void {
    this.logEnded = true;
    this.logCut = cut ? how : undefined;
  }

  private raiseWatermark(side: 'L' | 'R', wm: number): void {
    if (side === 'L') this.wmL = wm;
    else this.wmR = wm;
    if (this.wmL === null || this.wmR === null) return;
    this.gw = Math.min(this.wmL, this.wmR);
    while (this.heap.peekKey() < this.gw) {
      const e = this.heap.pop() as MatchEntry;
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
      for (const v of writerViolation(match, early.key, early.events[0]?.line ?? 0)) this.report(...v);
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
  offerSink(offered: SinkChange, line: number): boolean {
    // Two inputs (twoInputs.ts): a match of an order-dependent row is either allowed; without the interleaving, no prefix of the log to compare with.
    if (this.options.orderDependent?.(offered.match) === true) {
      this.counts.sinkChanges++;
      return true;
    }
    const change = this.options.interleavingUnknown === true && offered.seq !== undefined ? unsequenced(offered) : offered;
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
    if (this.sequenced) this.prefix.nextChange(key, change.seq);
    if (!this.prefix.resume()) return false;
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
    // A followed match is the oracle's, of key e.key (J3): a writer of that key needs no parse of the id.
    if (e !== undefined && change.key !== undefined && change.key !== e.key)
      for (const v of writerViolation(change.match, change.key, line)) this.report(...v);
    if (change.epoch !== undefined) this.checkFence(key, change.epoch, line, change.match);
    if (this.sequenced && this.prefix.addToWrite(key, change.seq as number, line)) this.counts.sinkWrites++;
    if (e !== undefined) {
      const before = e.sink;
      this.applySink(e, change.op, line);
      this.prefix.noteEffective(key, change, before, e.sink);
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
      this.prefix.noteEffective(key, change, before, change.op === 'insert' ? INSERTED : RETRACTED);
    }
    return true;
  }

  /** Has the log reader room to run further ahead of where the sink stands? */
  private mayReadAhead(): boolean {
    return !this.logEnded && this.logLine <= this.aligned + this.options.lookahead;
  }

  /** The sink has ended; `cut` when its last line was cut. `end` is its own last line's word on completeness. */
  endSink(cut: boolean, end: { complete: boolean; why?: string } | undefined, how = 'its last line is incomplete'): void {
    // A cut file may have cut its last write short: that write is not judged against a prefix.
    if (this.sequenced) this.prefix.endSink(cut);
    this.sinkEnded = true;
    if (cut) this.incompleteWhy = `the sink file is cut short (${how})`;
    else if (end !== undefined && !end.complete) this.incompleteWhy = `the recording says so${end.why ? `: ${end.why}` : ''}`;
  }

  /** The caller knows the history is incomplete (`--incomplete`). */
  markIncomplete(why: string): void {
    this.incompleteWhy ??= why;
  }

  /** Does the check wait for more log before the next sink change? (After the sink ends: whether a write still waits.) */
  waitsForLog(): boolean {
    return this.prefix.waiting() && !this.logEnded;
  }

  /** Retries a write waiting for more log; true once it is settled. */
  resumePrefix(): boolean {
    return this.prefix.resume();
  }

  private applySink(e: MatchEntry, op: 'insert' | 'retract', line: number): void {
    if (op === 'insert') {
      if (e.sink === INSERTED) {
        const message = this.diff
          ? `match ${e.match} has multiplicity 2 at the end of a write (inserted twice)`
          : `match ${e.match} is inserted a second time`;
        this.reportOnce(e, 'ExactlyOnce', 'applied-twice', message, [
          { file: 'sink', line: e.sIns, role: 'first insert' },
          { file: 'sink', line, role: 'the same insert, applied again' },
          ...oracleLines(e),
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
            ...oracleLines(e),
          ],
        );
        e.sink = INSERTED;
        e.sAgain ||= line;
      } else {
        e.sink = INSERTED;
        e.sIns = line;
      }
    } else if (e.sink === RETRACTED) {
      const message = this.diff
        ? `match ${e.match} has multiplicity -1 at the end of a write (retracted twice)`
        : `match ${e.match} is retracted a second time`;
      this.reportOnce(e, 'ExactlyOnce', 'applied-twice', message, [
        { file: 'sink', line: e.sRet, role: 'first retract' },
        { file: 'sink', line, role: 'the same retract, applied again' },
        ...oracleLines(e),
      ]);
    } else {
      if (e.sink === ABSENT) {
        this.reportOnce(
          e,
          'ExactlyOnce',
          'retract-without-insert',
          this.diff
            ? `match ${e.match} has multiplicity -1 at the end of a write: it is retracted, but the sink never held it (its insert lost, or in a later write)`
            : `match ${e.match} is retracted, but the sink never applied its insert (lost, or applied after this)`,
          [{ file: 'sink', line, role: 'retract of a match the sink does not hold' }, ...oracleLines(e)],
        );
      }
      e.sink = RETRACTED;
      e.sRet = line;
    }
    if (this.diff) {
      // A diff sink holds a match as long as its multiplicity is positive (a duplicated insert survives one retraction).
      e.count += op === 'insert' ? 1 : -1;
      e.sink = e.count >= 1 ? INSERTED : e.sRet ? RETRACTED : ABSENT;
    }
    // Where the sink stands in the log: as far as the oracle changes it has applied.
    const at = op === 'insert' ? e.oIns : e.oRet;
    if (at > this.aligned) this.aligned = at;
    this.maybeForget(e);
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
  // The end

  /** Whether the sink's final relation is judged (a complete history and a whole log). */
  private judgesFinal(): boolean {
    return this.incompleteWhy === undefined && this.logCut === undefined;
  }

  /** JoinCorrect for one match followed to the end: its final state in the sink is its final state in the oracle. */
  private judgeFinal(e: MatchEntry): void {
    const oracleHolds = e.oIns !== 0 && e.oRet === 0;
    const sinkHolds = e.sink === INSERTED;
    if (oracleHolds === sinkHolds) return;
    if (!this.judgesFinal()) return;
    if (oracleHolds) {
      this.report('JoinCorrect', 'missing', `the oracle's relation holds ${e.match}; the sink's does not`, e.match, e.key, [
        ...oracleLines(e),
        ...(e.sRet ? [{ file: 'sink' as const, line: e.sRet, role: 'the sink retracts it' }] : []),
      ]);
    } else {
      this.report('JoinCorrect', 'extra', `the sink's relation holds ${e.match}; the oracle's does not (it retracts it)`, e.match, e.key, [
        ...oracleLines(e),
        { file: 'sink', line: e.sAgain || e.sIns, role: 'the sink inserts it' },
      ]);
    }
  }

  /** After both files: judge what is still followed; what was set aside goes to the exact second pass (witness.ts). */
  finish(): SetAside[] {
    this.prefix.finish();
    for (const e of this.table.values()) this.judgeFinal(e);
    this.table.clear();
    return [...this.setAside.values()];
  }

  /**
   * Judges a set-aside match once its oracle lifecycle is known (log lines;
   * 0 = never): the sink's changes to it, on top of what the sink held when
   * it was forgotten if the oracle had produced it.
   */
  judgeSetAside(
    a: SetAside,
    oracle: { insert: number; retract: number },
    dropped: readonly { readonly why: string; readonly witness: readonly WitnessLine[] }[] = [],
  ): void {
    if (a.idProblem !== undefined || oracle.insert === 0) {
      // A row the oracle dropped (late, or a conflicting update) explains why it makes no match: cite it.
      const first = dropped[0];
      const why =
        a.idProblem ?? (first === undefined ? 'no record of the log makes this match' : `no accepted record makes it: ${first.why}`);
      const e = new MatchEntry(a.match, a.key ?? keyOfMatch(a.match));
      for (const ev of a.events) this.applySink(e, ev.op, ev.line);
      if (e.sink === INSERTED && (this.judgesFinal() || a.idProblem !== undefined)) {
        this.report('JoinCorrect', 'wrong-id', `the sink holds ${a.match}, which is not a match of the log: ${why}`, a.match, e.key, [
          ...(a.idProblem === undefined ? dropped.flatMap((d) => d.witness) : []),
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
    e.count = oracle.retract ? 0 : 1;
    for (const ev of a.events) this.applySink(e, ev.op, ev.line);
    this.judgeFinal(e);
  }

  /** Whether sequence numbers and epochs were recorded. */
  recorded(): { sequence: boolean; epochs: boolean } {
    return { sequence: this.sequenced === true, epochs: this.epochs };
  }

  /** Why the final relation is not judged, if it is not. */
  incompleteness(): string | undefined {
    if (this.logCut !== undefined) return `the log file is cut short (${this.logCut})`;
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

  /** What the check holds now: matches followed or set aside, and oracle steps its prefix checks wait on. */
  held(): number {
    return this.table.size + this.setAside.size + this.prefix.heldSteps;
  }

  /**
   * After finish(): lets go of what only the pass needed (the oracle's rows,
   * the J9 filter, the forgotten cache, the settle heap, the fences and the
   * keys' prefixes), keeping what judging the set-aside matches and the
   * report need. A history checked by partitions keeps one released check
   * per partition, so what a check keeps after this must not grow with its
   * share of the history.
   */
  release(): void {
    this.engine = new AuditOracle(this.options.config);
    this.identities = undefined;
    this.forgotten.clear();
    this.forgottenRing.length = 1;
    this.forgottenRing[0] = undefined;
    this.forgottenNext = 0;
    this.heap = new SettleHeap();
    this.fences.clear();
    this.prefix.release();
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
