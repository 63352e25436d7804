// A divergence explained: the facts lockstep found (lockstep/divergence.ts)
// with the one line that tells them and the rules and properties they
// break (rules.ts), computed here once, from the facts alone. Lockstep
// judges; this explains.
import { describeClusterAction, printable, protocolErrorName } from '../../spec/index.ts';
import type { Change, ClusterEvent, ExternalAction, LogRecord } from '../../spec/index.ts';
import type { DivergenceFacts, DivergentStep } from '../lockstep/divergence.ts';
import { showValue, type PathDiff } from '../lockstep/jsonDiff.ts';
import { mergeRefs, rulesOfEventPath, rulesOfObservationPath, rulesOfOperatorField, rulesOfRefusal, type RuleRefs } from './rules.ts';
import { eventText } from './texts.ts';

// The public shape of a divergence (index.ts): the facts, `summary` and `refs`.
export interface Divergence {
  /** Index of the step in the trace (from 0); reports count from 1 and call it step `step + 1`. */
  readonly step: number;
  /** The request of that step; at level `operator` a `record` action. */
  readonly action: ExternalAction;
  /**
   * What differs: `reply` (refused versus carried out, or the wrong error
   * code), `events` (C12), `observation` (§7), or at level `operator`
   * `outcome`, `changes`, `retained` (§3).
   */
  readonly field: 'reply' | 'events' | 'observation' | 'outcome' | 'changes' | 'retained';
  /** One line for people. */
  readonly summary: string;
  readonly expected: unknown;
  readonly actual: unknown;
  /** Only the paths that differ (for `events` and `observation`; one entry otherwise). */
  readonly diff: readonly PathDiff[];
  readonly refs: RuleRefs;
}

/** The divergence lockstep found, with its summary and the rules it breaks. */
export function explainDivergence(facts: DivergenceFacts): Divergence {
  const { step, action, field, expected, actual, diff } = facts;
  const { summary, refs } = facts.at.level === 'operator' ? explainOperatorStep(facts, facts.at) : explainClusterStep(facts, facts.at);
  return { step, action, field, summary, expected, actual, diff, refs };
}

type Explained = { readonly summary: string; readonly refs: RuleRefs };

function describeRecord(r: LogRecord): string {
  return r.kind === 'watermark'
    ? `record watermark ${r.side}=${r.wm}`
    : `record ${r.kind} ${r.key}/${r.side}/${r.id} ts=${r.ts} [${r.start},${r.end}]`;
}

const refusal = (error: { readonly code: number; readonly text: string }): string =>
  `refused with ${protocolErrorName(error.code)} (${printable(error.text, 200)})`;

/** At level operator (§3): the record's outcome, its change set or the retained counts after it. */
function explainOperatorStep(facts: DivergenceFacts, at: Extract<DivergentStep, { level: 'operator' }>): Explained {
  const { record, expected, actual } = at;
  const what = describeRecord(record);
  if ('error' in actual) return { summary: `${what}: ${refusal(actual.error)}`, refs: rulesOfOperatorField('error', record, expected) };
  const refs = (field: 'outcome' | 'changes' | 'retained'): RuleRefs => rulesOfOperatorField(field, record, expected, actual);
  switch (facts.field) {
    case 'outcome':
      return {
        summary: `${what}: outcome expected ${showValue(expected.outcome)}, actual ${showValue(facts.actual)}`,
        refs: refs('outcome'),
      };
    case 'changes': {
      // Both in canonical order (lockstep compares change sets canonically, J7).
      const ids = (cs: readonly Change[]): Set<string> => new Set(cs.map((c) => `${c.op} ${c.match}`));
      const want = ids(expected.changes);
      const got = ids(facts.actual as readonly Change[]);
      const missing = [...want].filter((c) => !got.has(c));
      const extra = [...got].filter((c) => !want.has(c));
      const parts = [missing.length ? `missing ${missing.join(', ')}` : '', extra.length ? `unexpected ${extra.join(', ')}` : ''].filter(
        Boolean,
      );
      return { summary: `${what}: the change set differs: ${parts.join('; ') || 'same ids, different fields'}`, refs: refs('changes') };
    }
    default:
      return {
        summary: `${what}: retained counts expected ${showValue(expected.retained)}, actual ${showValue(actual.retained)}`,
        refs: refs('retained'),
      };
  }
}

/** At the cluster levels: the reply (§7), the events (C12) or the observation. */
function explainClusterStep(facts: DivergenceFacts, at: Extract<DivergentStep, { level: 'cluster' }>): Explained {
  const { action } = facts;
  const what = describeClusterAction(action);
  const { expected } = at;
  const reply = at.actual.reply;
  if (facts.field === 'reply') {
    // §7: carried out though not enabled, refused with another code than not_enabled, or refused though enabled.
    const why = 'error' in expected ? expected.error : undefined;
    const refs = rulesOfRefusal(action, why ?? ('error' in reply ? reply.error.text : undefined));
    if (!('error' in reply)) return { summary: `${what}: carried out, but it is not enabled (${why})`, refs };
    return {
      summary: `${what}: ${refusal(reply.error)}, ${why !== undefined ? `expected not_enabled (${why})` : 'but it is enabled'}`,
      refs,
    };
  }
  if (facts.field === 'events') {
    const want = facts.expected as readonly ClusterEvent[];
    const got = facts.actual as readonly ClusterEvent[];
    const first = facts.diff[0];
    const index = Number(first?.path.split('/')[1] ?? 0);
    const refs = first
      ? rulesOfEventPath(first.path, want[index], got[index], action, (i) => at.records[i])
      : rulesOfRefusal(action, undefined);
    const where = first ? eventsDifference(want, got, first) : '';
    return { summary: `${what}: the events differ${where}`, refs };
  }
  const first = facts.diff[0];
  const where = first ? ` at ${first.path}: expected ${showValue(first.expected)}, actual ${showValue(first.actual)}` : '';
  const more = facts.diff.length > 1 ? ` (and ${facts.diff.length - 1} more)` : '';
  return {
    summary: `${what}: the observation differs${where}${more}`,
    refs: mergeRefs(...facts.diff.map((d) => rulesOfObservationPath(d.path, action))),
  };
}

/** One line naming where two event lists first differ: the kinds of events when they differ, else the field. */
function eventsDifference(want: readonly ClusterEvent[], got: readonly ClusterEvent[], first: PathDiff): string {
  const index = Number(first.path.split('/')[1] ?? 0);
  const w = want[index];
  const g = got[index];
  if (!w || !g || w.type !== g.type) {
    return ` at [${index}]: expected ${w ? eventText(w) : 'no event'}, actual ${g ? eventText(g) : 'no event'}`;
  }
  const field = first.path.split('/').slice(2).join('/');
  return ` at [${index}] ${eventText(w)}: ${field} expected ${showValue(first.expected)}, actual ${showValue(first.actual)}`;
}
