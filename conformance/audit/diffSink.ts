// The diff reading of a sink (`--sink-model diff`, docs/audit.md): each line
// is a signed multiplicity change of its match (+1 for an insert, −1 for a
// retraction, or its `diff` field), as differential dataflow, Materialize,
// Pathway and Flink's retract streams write them. What counts is the
// multiplicity at each consistent point of the sink — the end of a write,
// the lines of one key that share one `seq` (a batch) — not inside it: a
// retraction that overtakes its insert inside a batch, or a count of 2 that
// the batch brings back to 1, is fine.
//
// The batcher nets each write's lines per match and hands the history check
// (historyCheck.ts) only the net changes, as set changes, when the write
// closes: a net +1 is an insert, −1 a retraction, 0 nothing; a net beyond
// ±1 is as many changes, which the check reports as a change applied twice
// or a retraction of what the sink does not hold — a multiplicity outside
// 0..1 at a consistent point (ExactlyOnce). Without sequence numbers every
// line is its own consistent point.
import { InputError } from '../../spec/index.ts';
import type { SinkChange } from './formats.ts';
import { keyOfMatch } from './historyState.ts';

/** How a sink's lines are read (`--sink-model`). */
export const SINK_MODELS = ['set', 'diff'] as const;
/** How a sink's lines are read: `set` or `diff`. */
export type SinkModel = (typeof SINK_MODELS)[number];

/** A net change handed to the history check, with the sink line that cites it. */
export interface NetChange {
  readonly change: SinkChange;
  readonly line: number;
}

interface MatchNet {
  net: number;
  /** The lines that add to it and take from it, in order (the last ones cite a net change). */
  readonly plus: number[];
  readonly minus: number[];
  /** The match's last line, whose key, epoch and seq a net change carries. */
  last: SinkChange;
}

interface OpenBatch {
  readonly seq: number;
  /** Per match, in the order the batch first touched it. */
  readonly matches: Map<string, MatchNet>;
}

/** The signed multiplicity change of one line; a `diff` that contradicts its op is bad input. */
export function weightOf(change: SinkChange, where: string): number {
  const sign = change.op === 'insert' ? 1 : -1;
  if (change.diff === undefined) return sign;
  if (!Number.isInteger(change.diff) || change.diff === 0 || Math.sign(change.diff) !== sign) {
    throw new InputError(
      'SJ102',
      where,
      `diff ${change.diff} disagrees with op "${change.op}" (an insert's diff is a positive integer, a retraction's a negative one)`,
    );
  }
  return change.diff;
}

export class DiffSinkBatcher {
  private readonly open = new Map<string, OpenBatch>();
  /** Lines read, and net changes handed on. */
  lines = 0;
  netChanges = 0;

  constructor(private readonly sinkName: string) {}

  /** One sink line; returns the net changes of the writes it closes (and its own, without sequence numbers). */
  push(change: SinkChange, line: number): NetChange[] {
    this.lines++;
    const w = weightOf(change, `${this.sinkName}:${line}`);
    if (change.seq === undefined) return this.expand(change, w, w > 0 ? [line] : [], w < 0 ? [line] : []);
    const key = change.key ?? keyOfMatch(change.match);
    let batch = this.open.get(key);
    let out: NetChange[] = [];
    if (batch !== undefined && batch.seq !== change.seq) {
      out = this.release(batch);
      this.open.delete(key);
      batch = undefined;
    }
    if (batch === undefined) {
      batch = { seq: change.seq, matches: new Map() };
      this.open.set(key, batch);
    }
    let m = batch.matches.get(change.match);
    if (m === undefined) {
      m = { net: 0, plus: [], minus: [], last: change };
      batch.matches.set(change.match, m);
    }
    m.net += w;
    m.last = change;
    for (let i = 0; i < Math.abs(w); i++) (w > 0 ? m.plus : m.minus).push(line);
    return out;
  }

  /** The sink has ended: every open write closes, in the order the keys opened them (a cut file's too: its lines were applied). */
  end(): NetChange[] {
    const out: NetChange[] = [];
    for (const batch of this.open.values()) out.push(...this.release(batch));
    this.open.clear();
    return out;
  }

  private release(batch: OpenBatch): NetChange[] {
    const out: NetChange[] = [];
    for (const m of batch.matches.values()) out.push(...this.expand(m.last, m.net, m.plus, m.minus));
    return out;
  }

  /** A net change of `net` as |net| set changes, each citing one of the last lines that made it. */
  private expand(last: SinkChange, net: number, plus: readonly number[], minus: readonly number[]): NetChange[] {
    if (net === 0) return [];
    const op = net > 0 ? 'insert' : 'retract';
    const lines = net > 0 ? plus : minus;
    const n = Math.abs(net);
    const out: NetChange[] = [];
    for (let i = 0; i < n; i++) {
      const { diff: _diff, ...rest } = last;
      out.push({ change: { ...rest, op }, line: lines[Math.max(0, lines.length - n + i)] as number });
    }
    this.netChanges += n;
    return out;
  }
}
