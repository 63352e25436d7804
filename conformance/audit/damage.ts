// Real-world damage to a recorded sink (streamjoin format, as the recorder
// writes it), for proving `streamjoin audit` on faults and for showing it
// (`audit --example DIR --damage KIND`): each kind is what a broken sink,
// transport or recording does, and says which property it breaks.
import type { AuditProperty, ViolationKind } from './findings.ts';

/** The kinds of damage `audit --example DIR --damage KIND` can do to a recorded sink. */
export const DAMAGE_KINDS = [
  'lost-write',
  'duplicate-write',
  'resurrection',
  'zombie-write',
  'reorder',
  'truncate',
  'malformed-line',
] as const;
/** One kind of damage. */
export type DamageKind = (typeof DAMAGE_KINDS)[number];

interface ChangeLine {
  readonly op: 'insert' | 'retract';
  readonly match: string;
  readonly key: string;
  readonly epoch: number;
  readonly seq: number;
}

/** One line of a recorded sink: a change, or anything else (the end line). */
interface SinkLine {
  readonly text: string;
  readonly change?: ChangeLine;
}

/** What a damage did, and what audit must say about it. */
export interface Damage {
  /** The kind of damage. */
  readonly kind: DamageKind;
  /** The damaged sink file's text. */
  readonly text: string;
  /** Where the damage is and what it did, for people. */
  readonly description: string;
  /** Lines of the damaged file the damage put there (1-based). */
  readonly lines: readonly number[];
  /** The matches it touches. */
  readonly matches: readonly string[];
  /** Verdicts audit may give: violations of these properties and kinds (any one suffices), or unknown, or bad input. */
  readonly expect:
    | { readonly verdict: 'violation'; readonly findings: readonly { property: AuditProperty; kind: ViolationKind }[] }
    | { readonly verdict: 'unknown' }
    | { readonly verdict: 'bad-input'; readonly code: 'SJ101' };
}

function parse(text: string): SinkLine[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const v = JSON.parse(l) as Partial<ChangeLine> & { end?: unknown };
      return v.op !== undefined ? { text: l, change: v as ChangeLine } : { text: l };
    });
}

const render = (lines: readonly SinkLine[]): string => lines.map((l) => `${l.text}\n`).join('');
const lineOf = (change: ChangeLine): SinkLine => ({ text: JSON.stringify(change), change });

/** The writes: runs of consecutive change lines with the same key and seq, as [first, end) indexes. */
function writesOf(lines: readonly SinkLine[]): { first: number; end: number; key: string; seq: number }[] {
  const out: { first: number; end: number; key: string; seq: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const c = lines[i]?.change;
    if (c === undefined) continue;
    const last = out.at(-1);
    if (last !== undefined && last.end === i && last.key === c.key && last.seq === c.seq) last.end = i + 1;
    else out.push({ first: i, end: i + 1, key: c.key, seq: c.seq });
  }
  return out;
}

/**
 * Damages the recorded sink `text` with `kind`, choosing where with
 * `pick` (a number in [0, 1)); undefined if this sink offers no place for
 * it (e.g. no retraction to resurrect, no key that changed epoch).
 */
export function damageSink(text: string, kind: DamageKind, pick: () => number): Damage | undefined {
  const lines = parse(text);
  const writes = writesOf(lines);
  const choose = <T>(xs: readonly T[]): T | undefined => xs[Math.floor(pick() * xs.length)];
  const changeAt = (i: number): ChangeLine => lines[i]?.change as ChangeLine;
  switch (kind) {
    case 'lost-write': {
      const w = choose(writes);
      if (w === undefined) return undefined;
      const lost = lines.slice(w.first, w.end).map((l) => l.change as ChangeLine);
      const rest = [...lines.slice(0, w.first), ...lines.slice(w.end)];
      // A lost insert whose match the sink later retracts shows as that retraction (ExactlyOnce); else the final relation differs.
      const retractedLater = new Set(lines.slice(w.end).flatMap((l) => (l.change?.op === 'retract' ? [l.change.match] : [])));
      const findings = lost.map((c) =>
        c.op === 'retract'
          ? { property: 'JoinCorrect' as const, kind: 'extra' as const }
          : retractedLater.has(c.match)
            ? { property: 'ExactlyOnce' as const, kind: 'retract-without-insert' as const }
            : { property: 'JoinCorrect' as const, kind: 'missing' as const },
      );
      return {
        kind,
        text: render(rest),
        description: `write ${w.seq} of key ${w.key} (lines ${w.first + 1}-${w.end}) lost`,
        lines: [],
        matches: lost.map((c) => c.match),
        expect: { verdict: 'violation', findings },
      };
    }
    case 'duplicate-write': {
      const w = choose(writes);
      if (w === undefined) return undefined;
      const copy = lines.slice(w.first, w.end);
      const out = [...lines.slice(0, w.end), ...copy, ...lines.slice(w.end)];
      return {
        kind,
        text: render(out),
        description: `write ${w.seq} of key ${w.key} (lines ${w.first + 1}-${w.end}) applied twice`,
        lines: copy.map((_, i) => w.end + i + 1),
        matches: copy.map((l) => (l.change as ChangeLine).match),
        expect: { verdict: 'violation', findings: [{ property: 'ExactlyOnce', kind: 'applied-twice' }] },
      };
    }
    case 'resurrection': {
      const retracts = lines.flatMap((l, i) => (l.change?.op === 'retract' ? [i] : []));
      const at = choose(retracts);
      if (at === undefined) return undefined;
      const r = changeAt(at);
      const again = lineOf({ ...r, op: 'insert' });
      const out = [...lines.slice(0, at + 1), again, ...lines.slice(at + 1)];
      return {
        kind,
        text: render(out),
        description: `match ${r.match}, retracted at line ${at + 1}, inserted again at line ${at + 2}`,
        lines: [at + 2],
        matches: [r.match],
        expect: { verdict: 'violation', findings: [{ property: 'ExactlyOnce', kind: 'resurrected' }] },
      };
    }
    case 'zombie-write': {
      // A key whose writes moved to a higher epoch: after its last write, its earliest write comes again under the old epoch.
      const candidates = [...new Set(writes.map((w) => w.key))].filter((key) => {
        const epochs = writes.filter((w) => w.key === key).map((w) => changeAt(w.first).epoch);
        return Math.min(...epochs) < Math.max(...epochs);
      });
      const key = choose(candidates);
      if (key === undefined) return undefined;
      const mine = writes.filter((w) => w.key === key);
      const first = mine[0] as (typeof mine)[number];
      const last = mine.at(-1) as (typeof mine)[number];
      const high = changeAt(last.first);
      const zombie = lines
        .slice(first.first, first.end)
        .map((l) => lineOf({ ...(l.change as ChangeLine), seq: last.seq + 1, epoch: high.epoch - 1 }));
      const out = [...lines.slice(0, last.end), ...zombie, ...lines.slice(last.end)];
      return {
        kind,
        text: render(out),
        description:
          `a zombie of key ${key} writes again at epoch ${high.epoch - 1} after the key's writes ` +
          `reached epoch ${high.epoch} (lines ${last.end + 1}-${last.end + zombie.length})`,
        lines: zombie.map((_, i) => last.end + i + 1),
        matches: zombie.map((l) => (l.change as ChangeLine).match),
        expect: { verdict: 'violation', findings: [{ property: 'Fenced', kind: 'below-fence' }] },
      };
    }
    case 'reorder': {
      // A write that inserts a match, moved after the write that retracts it.
      const pairs = writes.flatMap((w) =>
        lines.slice(w.first, w.end).flatMap((l) => {
          const c = l.change as ChangeLine;
          if (c.op !== 'insert') return [];
          const r = writes.find(
            (x) => x.first >= w.end && lines.slice(x.first, x.end).some((y) => y.change?.op === 'retract' && y.change.match === c.match),
          );
          return r === undefined ? [] : [{ w, r, match: c.match }];
        }),
      );
      const p = choose(pairs);
      if (p === undefined) return undefined;
      const moved = lines.slice(p.w.first, p.w.end);
      const out = [...lines.slice(0, p.w.first), ...lines.slice(p.w.end, p.r.end), ...moved, ...lines.slice(p.r.end)];
      const at = p.r.end - moved.length;
      return {
        kind,
        text: render(out),
        description: `write ${p.w.seq} of key ${p.w.key}, which inserts ${p.match}, moved after the write that retracts it (now lines ${at + 1}-${at + moved.length})`,
        lines: moved.map((_, i) => at + i + 1),
        matches: [p.match],
        expect: {
          verdict: 'violation',
          findings: [
            { property: 'ExactlyOnce', kind: 'retract-without-insert' },
            { property: 'ExactlyOnce', kind: 'resurrected' },
            { property: 'ExactlyOnce', kind: 'sequence' },
          ],
        },
      };
    }
    case 'truncate': {
      // Cut inside a change line (not at a line's end): the recording stopped mid-write.
      const changeLines = lines.flatMap((l, i) => (l.change !== undefined ? [i] : []));
      const at = choose(changeLines);
      if (at === undefined) return undefined;
      const before = render(lines.slice(0, at));
      const line = (lines[at] as SinkLine).text;
      const cut = 1 + Math.floor(pick() * (line.length - 2));
      return {
        kind,
        text: before + line.slice(0, cut),
        description: `the file cut at line ${at + 1}, after ${cut} of its ${line.length} characters`,
        lines: [at + 1],
        matches: [],
        expect: { verdict: 'unknown' },
      };
    }
    case 'malformed-line': {
      const changeLines = lines.flatMap((l, i) => (l.change !== undefined && i < lines.length - 1 ? [i] : []));
      const at = choose(changeLines);
      if (at === undefined) return undefined;
      const line = (lines[at] as SinkLine).text;
      const out = [...lines.slice(0, at), { text: `${line.slice(0, -1)},}` }, ...lines.slice(at + 1)];
      return {
        kind,
        text: render(out),
        description: `line ${at + 1} is not JSON`,
        lines: [at + 1],
        matches: [],
        expect: { verdict: 'bad-input', code: 'SJ101' },
      };
    }
  }
}
