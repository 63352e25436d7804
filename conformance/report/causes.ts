// One bug usually shows in many counterexamples: every example, scenario
// and random level that reaches it diverges, each minimized to much the same
// trace. Grouping them by cause tells a reader how many bugs there are and
// which one file to attach to a report for each.
import type { Level } from '../../spec/index.ts';
import type { Divergence } from './divergence.ts';

/**
 * The cause of a divergence, as one line: the level, the first field that
 * differs, the kind of step it differs at and the rules it breaks. Two
 * counterexamples with the same cause are taken for the same bug.
 */
export function causeOf(level: Level, divergence: Pick<Divergence, 'action' | 'field' | 'refs'>): string {
  const a = divergence.action;
  const step = a.type === 'record' ? `record ${a.record.kind}` : a.type;
  const rules = divergence.refs.rules.length > 0 ? divergence.refs.rules.join(', ') : 'no rule';
  return `level ${level}: ${divergence.field} at ${step}, breaks ${rules}`;
}

/** What choosing the counterexample to attach looks at. */
export interface AttachCandidate {
  /** Its cause (`causeOf`). */
  readonly cause: string;
  /** Steps of the counterexample trace. */
  readonly steps: number;
  /** What found it: an example, an exhaustive scenario, or random traces. */
  readonly origin: 'example' | 'exhaustive' | 'random';
}

/** The counterexamples of one cause: their indices (in the order found), and the one to attach. */
export interface CauseGroup {
  /** The cause, as one line (`causeOf`). */
  readonly cause: string;
  /** Indices into the list grouped, in its order. */
  readonly members: readonly number[];
  /** The index of the one to attach: the shortest; among the shortest a minimized random or exhaustive trace before an example's, then the first found. */
  readonly attach: number;
}

/**
 * Groups counterexamples by cause, in the order each cause was first found,
 * and names one per group to attach. A random or exhaustive trace is
 * preferred to an example's at equal length: it was minimized from a
 * generated trace, while an example's keeps the example's name, which reads
 * like a diagnosis it is not.
 */
export function groupByCause(items: readonly AttachCandidate[]): CauseGroup[] {
  const byCause = new Map<string, number[]>();
  items.forEach((item, i) => {
    const members = byCause.get(item.cause);
    if (members) members.push(i);
    else byCause.set(item.cause, [i]);
  });
  const rank = (i: number): readonly [number, number, number] => {
    const item = items[i] as AttachCandidate;
    return [item.steps, item.origin === 'example' ? 1 : 0, i];
  };
  const before = (a: number, b: number): boolean => {
    const [x, y] = [rank(a), rank(b)];
    for (let k = 0; k < 3; k++) if ((x[k] as number) !== (y[k] as number)) return (x[k] as number) < (y[k] as number);
    return false;
  };
  return [...byCause].map(([cause, members]) => ({
    cause,
    members,
    attach: members.reduce((best, i) => (before(i, best) ? i : best)),
  }));
}
