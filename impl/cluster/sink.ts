// The sink (SPEC C9): per match id the state machine absent -> inserted ->
// retracted (retracted is terminal), per key a fence (the highest epoch
// raised or written), and the counters applied / deduped / fenced.
//
// Every write and every fence raise is first appended to the sink's durable
// journal and only then applied here, so the sink's state is always a
// function of its journal: recovery replays the journal through the same
// `applyEntry` that live writes use.
import { compareCodePoints } from '../../spec/index.ts';
import type { Change, ClusterObservation } from '../../spec/index.ts';
import type { SinkChange, SinkEntry, SinkJournal } from './storage.ts';

export type MatchStatus = 'inserted' | 'retracted';

/** What one change does to a match: its next state, or 'deduped' when it changes nothing (C9). */
function nextMatchStatus(now: MatchStatus | undefined, op: SinkChange['op']): MatchStatus | 'deduped' {
  if (op === 'insert') {
    // mutant: replay-from-older-checkpoint-without-dedup
    if (now === 'inserted') return 'deduped'; // C9 dedup: a replayed insert is already there.
    // mutant: last-writer-wins-sink
    if (now === 'retracted') return 'deduped'; // C9 terminal retract: a retracted match never comes back.
    return 'inserted';
  }
  if (now === 'retracted') return 'deduped'; // C9 dedup: a replayed retract is already there.
  // inserted -> retracted, and absent -> retracted too, so that a replayed
  // insert of a match whose retract came first cannot bring it back.
  return 'retracted';
}

/** Told of every change a live write applies (not the journal's replay on recovery): `streamjoin serve --record`. */
export type AppliedChanges = (key: string, epoch: number, changes: readonly SinkChange[]) => void;

export class Sink {
  private readonly keys: readonly string[];
  private readonly journal: SinkJournal;
  private readonly onApplied: AppliedChanges | undefined;
  /** Per key, the highest epoch raised or written: the sink's own record (C9). */
  private readonly fence = new Map<string, number>();
  private readonly matches = new Map<string, MatchStatus>();
  private applied = 0;
  private deduped = 0;
  private fencedChanges = 0;
  /** Match ids in §0 order as of the last listing, and the ids that came since (listing merges them in). */
  // Stryker disable next-line ArrayDeclaration: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  private sortedIds: string[] = [];
  // Stryker disable next-line ArrayDeclaration: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  private newIds: string[] = [];

  /** A sink over the declared `keys` (C1: every fence at 1) that replays what its journal holds. */
  constructor(keys: readonly string[], journal: SinkJournal, onApplied?: AppliedChanges) {
    this.keys = keys;
    this.journal = journal;
    this.onApplied = onApplied;
    for (const key of keys) this.fence.set(key, 1);
    for (const entry of journal.recovered()) this.applyEntry(entry);
  }

  /** The fence of `key`. */
  fenceOf(key: string): number {
    return this.fence.get(key) ?? 0;
  }

  /**
   * Writes the changes of one processed record of `key` under the writer's
   * `epoch`, as one durable write (C3). Returns true when the sink fenced
   * it: nothing was applied and the writer has lost the key (C9).
   */
  write(key: string, epoch: number, changes: readonly Change[]): boolean {
    // Stryker disable next-line StringLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    const entry: SinkEntry = { kind: 'write', key, epoch, changes: changes.map((c) => ({ op: c.op, match: c.match })) };
    this.journal.append(entry);
    if (this.onApplied === undefined) return this.applyEntry(entry);
    // Stryker disable all: history recording only (serve --record): the harness runs without a recorder (docs/mutation.md)
    const applied: SinkChange[] = [];
    const fenced = this.applyEntry(entry, applied);
    if (applied.length > 0) this.onApplied(key, epoch, applied);
    // Stryker restore all
    return fenced;
  }

  /** Raises the fence of `key` to `epoch` if it is lower (C7, C8); durable when it returns. */
  raiseFence(key: string, epoch: number): void {
    if (epoch <= this.fenceOf(key)) return;
    const entry: SinkEntry = { kind: 'fence', key, epoch };
    this.journal.append(entry);
    this.applyEntry(entry);
  }

  /** Applies one journal entry; for a write, returns whether it was fenced, and adds the changes it applied to `applied`. */
  private applyEntry(entry: SinkEntry, applied?: SinkChange[]): boolean {
    // mutant: sink-fence-from-caller-epochs
    const highest = this.fenceOf(entry.key);
    if (entry.kind === 'fence') {
      this.fence.set(entry.key, Math.max(highest, entry.epoch));
      // Stryker disable next-line BooleanLiteral: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      return false;
    }
    // C9 fence: judged from the sink's own record of the key's highest epoch,
    // never from an epoch the writer supplies for comparison.
    // mutant: no-fencing
    if (entry.epoch < highest) {
      this.fencedChanges += entry.changes.length;
      return true;
    }
    // Stryker disable next-line MethodExpression: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    this.fence.set(entry.key, Math.max(highest, entry.epoch));
    for (const c of entry.changes) {
      const now = this.matches.get(c.match);
      const next = nextMatchStatus(now, c.op);
      if (next === 'deduped') {
        this.deduped++;
        continue;
      }
      if (now === undefined) this.newIds.push(c.match);
      this.matches.set(c.match, next);
      this.applied++;
      applied?.push(c);
    }
    return false;
  }

  // Stryker disable all: read by the durability tests only, never by the protocol (docs/mutation.md)
  /** The match ids inserted and not retracted (the sink's relation), in §0 order. */
  relation(): string[] {
    return this.ids().filter((id) => this.matches.get(id) === 'inserted');
  }
  // Stryker restore all

  /** Every match id in §0 order; O(new ids · log + all ids) when ids came since the last call, so a write stays O(1) per change. */
  private ids(): string[] {
    if (this.newIds.length > 0) {
      // Stryker disable next-line MethodExpression: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      this.sortedIds = mergeSorted(this.sortedIds, this.newIds.sort(compareCodePoints));
      // Stryker disable next-line ArrayDeclaration: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
      this.newIds = [];
    }
    return this.sortedIds;
  }

  /** The sink part of the observation (SPEC §7). */
  observe(): ClusterObservation['sink'] {
    const fence: Record<string, number> = {};
    for (const key of this.keys) defineOwn(fence, key, this.fenceOf(key));
    const matches: Record<string, MatchStatus> = {};
    for (const id of this.ids()) defineOwn(matches, id, this.matches.get(id) as MatchStatus);
    return { fence, matches, applied: this.applied, deduped: this.deduped, fenced: this.fencedChanges };
  }
}

/** Merges two §0-ordered lists of distinct ids. */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  // Stryker disable next-line ArrayDeclaration: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
  const out: string[] = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length)
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, each mutant argued in conformance/mutation/equivalent.ts (docs/mutation.md)
    out[k++] = compareCodePoints(a[i] as string, b[j] as string) < 0 ? (a[i++] as string) : (b[j++] as string);
  while (i < a.length) out[k++] = a[i++] as string;
  while (j < b.length) out[k++] = b[j++] as string;
  return out;
}

/** Sets an own, enumerable property, whatever the name: plain assignment would set the prototype for "__proto__". */
export function defineOwn<T>(target: Record<string, T>, name: string, value: T): void {
  if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  else target[name] = value;
}
