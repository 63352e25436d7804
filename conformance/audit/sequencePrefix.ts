// ExactlyOnce of a history whose sink records write sequence numbers: per
// key, the sequence rises, and every prefix of the sink equals the oracle
// over a prefix of the log that never shrinks (SPEC §6 P4), found greedily:
// each write moves the key's prefix to the first point where the two agree.
//
// A write is a consistent point of the sink: the lines of one key that share
// one `seq`, whether the seq numbers the key's own writes or the engine's
// batches (a transaction, a differential-dataflow batch) whose lines of
// several keys interleave. Lines of other keys between them do not split a
// write; the key's next line with another seq, or the sink's end, closes it,
// and only then is the key's prefix judged.
// The history check (historyCheck.ts) feeds it the oracle's steps and the
// sink's writes, and answers what it asks about matches and the log.
import type { AuditProperty, ViolationKind, WitnessLine } from './findings.ts';
import type { SinkChange } from './formats.ts';
import {
  type Difference,
  INSERTED,
  idProblemOf,
  type KeyPrefix,
  type MatchEntry,
  type OracleStep,
  oracleLines,
  type PendingPrefix,
  type SinkState,
  type SinkWrite,
  toggle,
} from './historyState.ts';

/** A key's pending oracle steps beyond this many: its prefix check gives up (unknown) rather than hold more. */
const MAX_KEY_STEPS = 1 << 20;

/** What the prefix check asks of the history check that drives it. */
export interface PrefixHost {
  /** The entry of a match followed now. */
  followed(match: string): MatchEntry | undefined;
  /** The entry of a match followed now, or forgotten and still remembered. */
  remembered(match: string): MatchEntry | undefined;
  /** The prefix has passed a change of this match: it may now be forgotten. */
  maybeForget(e: MatchEntry): void;
  logEnded(): boolean;
  logCut(): boolean;
  /** Has the log reader room to run further ahead of where the sink stands? */
  mayReadAhead(): boolean;
  readonly lookahead: number;
  report(
    property: AuditProperty,
    kind: ViolationKind,
    message: string,
    match: string | undefined,
    key: string | undefined,
    witness: WitnessLine[],
  ): void;
  /** ExactlyOnce cannot be judged, and why (the first reason given stays). */
  unknown(why: string): void;
}

export class SequencePrefixCheck {
  private readonly prefixes = new Map<string, KeyPrefix>();
  /** Per key, the write being read: its lines with one sequence number so far. */
  private readonly open = new Map<string, SinkWrite>();
  /** Complete writes waiting for the log to be read further, in the order they closed. */
  private readonly pending: PendingPrefix[] = [];

  /** Oracle steps held for the keys' prefixes (memory the check holds). */
  heldSteps = 0;

  constructor(private readonly host: PrefixHost) {}

  /** One record's changes to its key (the operator's own array): a step of the key's prefix. Returns the key's prefix check. */
  oracleStep(key: string, line: number, changes: OracleStep['changes']): KeyPrefix {
    const prefix = this.prefixOf(key);
    if (prefix.state === 'ok') {
      prefix.steps.push({ line, changes });
      this.heldSteps++;
      if (prefix.steps.length - prefix.head > MAX_KEY_STEPS) this.giveUp(prefix, 'its writes lag its log by more than the check holds');
    }
    return prefix;
  }

  /** A sink change of `key` at `seq` is next: the key's open write is complete unless it is the same write. */
  nextChange(key: string, seq: number | undefined): void {
    const w = this.open.get(key);
    if (w !== undefined && w.seq !== seq) this.closeWrite(w);
  }

  /** Does a complete write wait for more log? */
  waiting(): boolean {
    return this.pending.length > 0;
  }

  /** Retries the writes waiting for more log, in order; true once all are settled. */
  resume(): boolean {
    while (this.pending.length > 0) {
      if (this.advance(this.pending[0] as PendingPrefix) === 'wait') return false;
      this.pending.shift();
    }
    return true;
  }

  /**
   * The sink has ended: every open write is complete, unless the file is cut
   * short: then any open write (a batch spans keys) may have lost lines, and
   * none is judged against a prefix.
   */
  endSink(cut: boolean): void {
    const open = [...this.open.values()];
    this.open.clear();
    if (!cut) for (const w of open) this.closeWrite(w);
  }

  /** After both files: the writes still waiting are judged on the log as it is. */
  finish(): void {
    for (const p of this.pending) this.advance(p);
    this.pending.length = 0;
  }

  /** After finish(): lets go of the keys' prefixes and their oracle steps. */
  release(): void {
    this.prefixes.clear();
    this.open.clear();
    this.pending.length = 0;
    this.heldSteps = 0;
  }

  private prefixOf(key: string): KeyPrefix {
    let p = this.prefixes.get(key);
    if (p === undefined) {
      p = { state: 'ok', steps: [], head: 0, at: 0, lastSeq: -1, lastSeqLine: 0 };
      this.prefixes.set(key, p);
    }
    return p;
  }

  private giveUp(p: KeyPrefix, why: string): void {
    this.heldSteps -= p.steps.length - p.head;
    p.state = 'unknown';
    p.steps = [];
    p.head = 0;
    this.host.unknown(`the prefix check of a key stopped: ${why}`);
  }

  /** A sink line of write `seq` of `key`; true when it starts a new write. */
  addToWrite(key: string, seq: number, line: number): boolean {
    const open = this.open.get(key);
    if (open !== undefined && open.seq === seq) {
      open.lines.push(line);
      return false;
    }
    const p = this.prefixOf(key);
    if (seq <= p.lastSeq) {
      this.host.report(
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
        this.heldSteps -= p.steps.length - p.head;
        p.state = 'failed';
        p.steps = [];
        p.head = 0;
      }
    } else {
      p.lastSeq = seq;
      p.lastSeqLine = line;
    }
    this.open.set(key, { key, seq, lines: [line], effective: [] });
    return true;
  }

  /** Records the change in its key's open write if it changed the sink's relation (whether it holds the match, before and after). */
  noteEffective(key: string, change: SinkChange, before: SinkState, after: SinkState): void {
    const open = this.open.get(key);
    if (open === undefined) return;
    if ((before === INSERTED) !== (after === INSERTED))
      open.effective.push({ op: after === INSERTED ? 'insert' : 'retract', match: change.match });
  }

  /** A key's open write is complete: find the prefix of the log it brings the sink to. */
  private closeWrite(w: SinkWrite): void {
    this.open.delete(w.key);
    const p = this.prefixOf(w.key);
    if (p.state !== 'ok') return;
    // The common write: nothing effective (the prefix stays), or exactly the key's next oracle step (the prefix passes it).
    // The general path below ends the same way for both; this one builds no difference map for them.
    if (this.pending.length === 0) {
      if (w.effective.length === 0) return;
      const step = p.steps[p.head];
      if (step !== undefined && sameChanges(w.effective, step.changes)) {
        this.passStep(p, step);
        return;
      }
    }
    const diff = new Map<string, Difference>();
    for (const c of w.effective) toggle(diff, c.match, c.op === 'insert' ? 'S-only' : 'R-only');
    const pending: PendingPrefix = { write: w, prefix: p, diff, from: p.at, stepped: false };
    // Behind another waiting write it waits its turn (they wait for the same log).
    if (this.pending.length > 0 || this.advance(pending) === 'wait') this.pending.push(pending);
  }

  /**
   * Moves the key's prefix over the oracle's steps until the sink and the
   * oracle agree (the difference is empty), or until they cannot agree at
   * any later prefix (a violation), or the log must be read further.
   */
  private advance(pw: PendingPrefix): 'done' | 'wait' {
    const { prefix: p, diff } = pw;
    for (;;) {
      if (diff.size === 0) return 'done';
      // (Checked here, between steps: the common write is one record's changes, which the next step cancels at once.)
      const hopeless = pw.stepped ? this.hopeless(diff, p.at) : undefined;
      if (hopeless !== undefined) {
        this.fail(pw, hopeless);
        return 'done';
      }
      pw.stepped = true;
      const step = p.steps[p.head];
      if (step === undefined) {
        if (!this.host.logEnded()) {
          if (this.host.mayReadAhead()) return 'wait';
          this.giveUp(
            p,
            `the sink's write ${pw.write.seq} of key ${pw.write.key} matches no prefix within ${this.host.lookahead} records of where the sink stands`,
          );
          return 'done';
        }
        if (this.host.logCut()) {
          this.giveUp(p, 'the log is cut short');
          return 'done';
        }
        this.fail(pw, this.hopeless(diff, p.at) ?? ([...diff.keys()][0] as string));
        return 'done';
      }
      for (const c of step.changes) toggle(diff, c.match, c.op === 'insert' ? 'R-only' : 'S-only');
      this.passStep(p, step);
    }
  }

  /** The key's prefix passes its next oracle step (`step`, at its head). */
  private passStep(p: KeyPrefix, step: OracleStep): void {
    p.head++;
    this.heldSteps--;
    // Passed steps go at once when none is left (the common case), else once they are half the array:
    // a key with few steps would otherwise keep every one it ever passed (memory that grows with the history).
    if (p.head === p.steps.length) {
      p.steps = [];
      p.head = 0;
    } else if (p.head > 32 && p.head * 2 > p.steps.length) {
      p.steps = p.steps.slice(p.head);
      p.head = 0;
    }
    p.at = step.line;
    // The prefix has passed these changes: their matches may now be forgotten.
    for (const c of step.changes) {
      const e = this.host.followed(c.match);
      if (e !== undefined) this.host.maybeForget(e);
    }
  }

  /** A difference no later oracle step can cancel, if any: its match. */
  private hopeless(diff: Map<string, Difference>, at: number): string | undefined {
    for (const [match, d] of diff) {
      const e = this.host.remembered(match);
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

  private fail(pw: PendingPrefix, match: string): void {
    const { write, prefix: p, diff } = pw;
    this.heldSteps -= p.steps.length - p.head;
    p.state = 'failed';
    p.steps = [];
    p.head = 0;
    const d = diff.get(match);
    const e = this.host.remembered(match);
    const more = write.lines.length > 4 ? ` and ${write.lines.length - 4} more` : '';
    const sinkLines = write.lines.length === 1 ? `sink line ${write.lines[0]}` : `sink lines ${write.lines.slice(0, 4).join(', ')}${more}`;
    const reached = pw.from
      ? `its previous write had brought it to the log up to line ${pw.from}`
      : 'it had applied nothing of this key before';
    this.host.report(
      'ExactlyOnce',
      'prefix',
      `after write ${write.seq} of key ${write.key} (${sinkLines}) the sink ${d === 'S-only' ? 'holds' : 'does not hold'} ` +
        `${match}, but ${oracleFate(e, d === 'S-only')}; ${reached}, and no prefix of the log from there on ` +
        `agrees with the sink (P4: the prefix never shrinks)`,
      match,
      write.key,
      [
        ...(pw.from ? [{ file: 'log' as const, line: pw.from, role: 'the last record the sink had reached' }] : []),
        ...write.lines.map((line) => ({ file: 'sink' as const, line, role: `write ${write.seq}` })),
        ...(e ? oracleLines(e) : []),
      ],
    );
  }
}

/** A change as a write and an oracle step both carry it. */
export type Change = { readonly op: 'insert' | 'retract'; readonly match: string };

/**
 * Whether a write's effective changes are exactly an oracle step's, as
 * sets of (op, match): the same number, no match twice in the write, each
 * in the step with its op (a step's matches are distinct, J7). Small writes
 * only: a larger one takes the general path.
 */
export function sameChanges(effective: readonly Change[], step: OracleStep['changes']): boolean {
  const n = effective.length;
  if (n !== step.length || n > 8) return false;
  for (let i = 0; i < n; i++) {
    const c = effective[i] as Change;
    for (let j = 0; j < i; j++) if ((effective[j] as Change).match === c.match) return false;
    let found = false;
    for (let j = 0; j < n && !found; j++) {
      const o = step[j] as Change;
      found = o.match === c.match && o.op === c.op;
    }
    if (!found) return false;
  }
  return true;
}

/** What the oracle does with a match, in words, for a prefix message: why the sink's holding it (or not) matches no later prefix. */
function oracleFate(e: MatchEntry | undefined, sinkHolds: boolean): string {
  if (e === undefined) return sinkHolds ? 'no record of the log makes it' : 'the oracle holds it from a record the check no longer follows';
  if (e.oIns === 0) return 'no record of the log makes it';
  if (sinkHolds) {
    return e.oRet
      ? `the oracle retracts it at log line ${e.oRet} (inserted at log line ${e.oIns}), at or before that point`
      : `the oracle inserts it at log line ${e.oIns}, after records the sink has already applied`;
  }
  return e.oRet
    ? `the oracle inserts it at log line ${e.oIns} and retracts it only at log line ${e.oRet}`
    : `the oracle inserts it at log line ${e.oIns} and never retracts it`;
}
