// A divergence explained: the facts lockstep found (sut/divergence.ts)
// with the one line that tells them and the rules and properties they
// break (rules.ts), computed here once, from the facts alone. Lockstep
// judges; this explains.
import { describeClusterAction, printable, protocolErrorName } from '../../spec/index.ts';
import type { Change, ClusterEvent, ExternalAction, LogRecord } from '../../spec/index.ts';
import { canonicalChanges, canonicalOutcome, diedBeforeInit, type DivergenceFacts, type DivergentStep } from '../sut/divergence.ts';
import { sameJson, showValue, type PathDiff } from '../sut/jsonDiff.ts';
import {
  differingEventFields,
  isEventOrderDifference,
  mergeRefs,
  rulesOfEventsDifference,
  rulesOfObservationPath,
  rulesOfOperatorField,
  rulesOfRefusal,
  type RuleRefs,
} from './rules.ts';
import { changesText, eventText } from './texts.ts';

// The public shape of a divergence (index.ts): the facts, `summary` and `refs`.
/** The first difference lockstep found between a system's replies and the model's, for people and tools. */
export interface Divergence {
  /**
   * Index of the step in the trace (from 0); reports count from 1 and call it step `step + 1`.
   * In kill mode, -1 is the trace's `init` killed inside its own writes (before any step).
   */
  readonly step: number;
  /** The request of that step; at level `operator` a `record` action; at step -1 the crash of the coordinator (the kill: a crash of every node, C10). */
  readonly action: ExternalAction;
  /**
   * What differs: `reply` (refused versus carried out, or the wrong error
   * code), `events` (C12), `observation` (§7), or at level `operator`
   * `outcome`, `changes`, `retained` (§3).
   */
  readonly field: 'reply' | 'events' | 'observation' | 'outcome' | 'changes' | 'retained';
  /** One line for people. */
  readonly summary: string;
  /** The model's value of `field` at that step. */
  readonly expected: unknown;
  /** The system's value. */
  readonly actual: unknown;
  /** Only the paths that differ (for `events` and `observation`; one entry otherwise). */
  readonly diff: readonly PathDiff[];
  /** The rules and properties it points at. */
  readonly refs: RuleRefs;
}

/**
 * How texts name the step of a divergence: `step N` (counting from 1), or,
 * at step -1, the trace's `init` killed inside its own writes (kill mode).
 */
export function divergenceStepText(step: number): string {
  return step < 0 ? 'init (killed here)' : `step ${step + 1}`;
}

/** The divergence lockstep found, with its summary and the rules it breaks. */
export function explainDivergence(facts: DivergenceFacts): Divergence {
  const { step, action, field, expected, actual, diff } = facts;
  const { summary, refs } = facts.at.level === 'operator' ? explainOperatorStep(facts, facts.at) : explainInstalledCopy(facts, facts.at);
  return { step, action, field, summary, expected, actual, diff, refs };
}

/** The rule of a restore: an install (C6), a failover (C8), a restart (C10). */
function restoreRule(action: ExternalAction): string {
  return action.type === 'install' ? 'C6' : action.type === 'failover' ? 'C8' : 'C10';
}

/**
 * A cluster step; when lockstep found the restore behind it (a copy
 * restored without its checkpoint's join state, or without its watermarks,
 * reproduces the system's step), the restore's rule comes first (C6 for an
 * install, C8 a failover, C10 a restart): the earliest broken decision, of
 * which the differing field is the symptom.
 */
function explainInstalledCopy(facts: DivergenceFacts, at: Extract<DivergentStep, { level: 'cluster' }>): Explained {
  const explained = explainClusterStep(facts, at);
  const fresh = at.freshInstall;
  if (!fresh) return explained;
  const rule = restoreRule(fresh.action);
  // The restore ignored (part of) the checkpoint, or the checkpoint lacked it (C4; the watermarks are part of a copy's state, C2).
  const lacked =
    fresh.lost === 'state'
      ? `an empty copy of ${fresh.key}, without its checkpoint's state (${rule}), or from a checkpoint that lacked it (C4)`
      : `a copy of ${fresh.key} without the watermarks of its checkpoint's state (${rule}), or from a checkpoint that lacked them (C2, C4)`;
  const kind = fresh.action.type === 'install' ? 'install' : fresh.action.type;
  return {
    summary: `${explained.summary}; as if the ${kind} at step ${fresh.step + 1} (${describeClusterAction(fresh.action)}) had given ${fresh.worker} ${lacked}`,
    refs: mergeRefs({ rules: fresh.lost === 'state' ? [rule, 'C4'] : [rule, 'C4', 'C2'], properties: [] }, explained.refs),
  };
}

type Explained = { readonly summary: string; readonly refs: RuleRefs };

/** As a cluster record step says it (spec/describe.ts): names escaped, so that a line break in a key stays on the line. */
function describeRecord(r: LogRecord): string {
  return describeClusterAction({ type: 'record', record: r });
}

/** The session's init refused: the first step never went out (PROTOCOL.md: every config the harness sends is valid). */
const initRefusedHere = (what: string, why: string, rules: readonly string[]): Explained => ({
  summary: `${what}: never sent, because the session's ${printable(why, 300)}; a system takes every config J0${rules.includes('C1') ? ' and C1' : ''} allow${rules.includes('C1') ? '' : 's'}`,
  refs: { rules: [...rules], properties: [] },
});

/** A step the system died on, and died on again when the trace was run once more up to it (lockstep/deaths.ts). */
const diedHere = (died: string): string =>
  `the system died handling it (${printable(died, 600)}), and again when the trace was run once more up to it, in a fresh process`;

const refusal = (error: { readonly code: number; readonly text: string }): string =>
  `refused with ${protocolErrorName(error.code)} (${printable(error.text, 200)})`;

/** At level operator (§3): the record's outcome, its change set or the retained counts after it. */
function explainOperatorStep(facts: DivergenceFacts, at: Extract<DivergentStep, { level: 'operator' }>): Explained {
  const { record, expected, actual } = at;
  const what = describeRecord(record);
  // A death is read as an error reply to the record would be (PROTOCOL.md): the rules of what it must produce.
  if (at.initRefused !== undefined) return initRefusedHere(what, at.initRefused, ['J0']);
  // Dead before its init's reply came (its lines may be lost with it): the config, or the first record, is what it died on.
  if (at.died !== undefined && diedBeforeInit(at.died))
    return {
      summary: `${what}: ${diedHere(at.died)}`,
      refs: mergeRefs({ rules: ['J0'], properties: [] }, rulesOfOperatorField('error', record, expected)),
    };
  if (at.died !== undefined || actual === undefined)
    return { summary: `${what}: ${diedHere(at.died ?? 'no reply')}`, refs: rulesOfOperatorField('error', record, expected) };
  if ('error' in actual) return { summary: `${what}: ${refusal(actual.error)}`, refs: rulesOfOperatorField('error', record, expected) };
  // The rules of the earliest field that differs (lockstep's field: outcome, then changes, then retained, §3); the line lists every one.
  const refs = rulesOfOperatorField(
    facts.field === 'outcome' || facts.field === 'changes' ? facts.field : 'retained',
    record,
    expected,
    actual,
  );
  const outcome = canonicalOutcome(actual.outcome);
  const changes = canonicalChanges(actual.changes);
  const parts: string[] = [];
  if (!sameJson(outcome, expected.outcome)) parts.push(`outcome expected ${showValue(expected.outcome)}, actual ${showValue(outcome)}`);
  if (!sameJson(changes, expected.changes)) {
    // Both in canonical order (lockstep compares change sets canonically, J7).
    const ids = (cs: readonly Change[]): Set<string> => new Set(cs.map((c) => `${c.op} ${c.match}`));
    const want = ids(expected.changes);
    const got = ids(changes);
    const missing = [...want].filter((c) => !got.has(c));
    const extra = [...got].filter((c) => !want.has(c));
    const which = [missing.length ? `missing ${missing.join(', ')}` : '', extra.length ? `unexpected ${extra.join(', ')}` : ''].filter(
      Boolean,
    );
    parts.push(`the change set differs: ${which.join('; ') || 'same ids, different fields'}`);
  }
  if (!sameJson(actual.retained, expected.retained))
    parts.push(`retained counts expected ${showValue(expected.retained)}, actual ${showValue(actual.retained)}`);
  return { summary: `${what}: ${parts.join('; ')}`, refs };
}

/** At the cluster levels: the reply (§7), the events (C12) or the observation. */
function explainClusterStep(facts: DivergenceFacts, at: Extract<DivergentStep, { level: 'cluster' }>): Explained {
  const { action } = facts;
  // Step -1: the observation after a kill inside init (kill mode), a crash of every node (C10).
  const what = facts.step < 0 ? 'init killed inside its own writes (a crash of every node, C10)' : describeClusterAction(action);
  const { expected } = at;
  if (at.initRefused !== undefined) return initRefusedHere(what, at.initRefused, ['J0', 'C1']);
  if (at.died !== undefined && diedBeforeInit(at.died))
    return {
      summary: `${what}: ${diedHere(at.died)}`,
      refs: mergeRefs({ rules: ['J0', 'C1'], properties: [] }, rulesOfRefusal(action, 'error' in expected ? expected.error : undefined)),
    };
  if (at.died !== undefined || at.actual === undefined) {
    // The reply never came (the rules of carrying out the action, as for a refusal of it), or the inspect's answer (§7).
    const why = 'error' in expected ? expected.error : undefined;
    return facts.field === 'observation'
      ? { summary: `${what}: the inspect after it, ${diedHere(at.died ?? 'no reply')}`, refs: { rules: ['§7'], properties: [] } }
      : { summary: `${what}: ${diedHere(at.died ?? 'no reply')}`, refs: rulesOfRefusal(action, why) };
  }
  const reply = at.actual.reply;
  if (at.reattachFailed !== undefined) {
    // Kill mode: the restarted system could not resume the session its directory holds.
    return {
      summary: `${what}, killed here: the system could not re-attach after the kill (${printable(at.reattachFailed, 200)}): it must resume the session its directory holds, as after a crash of every node`,
      refs: { rules: ['C2', 'C10'], properties: [] },
    };
  }
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
      ? rulesOfEventsDifference(want, got, facts.diff, index, action, (i) => at.records[i])
      : rulesOfRefusal(action, undefined);
    const where = first ? eventsDifference(want, got, facts.diff, index) : '';
    return { summary: `${what}: the events differ${where}`, refs };
  }
  // Every path that differs, in §7's order of the observation (the earliest decides the first rule cited).
  const diff = [...facts.diff].sort((a, b) => observationRank(a.path) - observationRank(b.path));
  const storeWriter = (path: string): ExternalAction | null | undefined => {
    const key = path.split('/')[2];
    if (!path.startsWith('/store/') || key === undefined || at.storeWriters === undefined) return undefined;
    return at.storeWriters[key.replace(/~1/g, '/').replace(/~0/g, '~')]?.action ?? null;
  };
  const where = diff.map((d) => `${d.path}: expected ${shortValue(d.expected)}, actual ${shortValue(d.actual)}`).join('; ');
  return {
    summary: `${what}: the observation differs${where ? ` at ${where}` : ''}`,
    refs: mergeRefs(...diff.map((d) => rulesOfObservationPath(d.path, action, storeWriter(d.path)))),
  };
}

/** §7 lists the observation: the log, the coordinator, the workers' copies, the store, the sink. */
const OBSERVATION_ORDER = ['log', 'coordinator', 'workers', 'store', 'sink'];
const observationRank = (path: string): number => {
  const i = OBSERVATION_ORDER.indexOf(path.split('/')[1] ?? '');
  return i < 0 ? OBSERVATION_ORDER.length : i;
};

/** A value in a one-line summary: compact JSON, bounded. */
const shortValue = (v: unknown): string => {
  const s = showValue(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
};

/**
 * One line naming where two event lists first differ: the order when the
 * same events come in another order, the kinds of events when they differ,
 * else every field of that event that differs (earliest decision first);
 * then how many later events differ too.
 */
function eventsDifference(want: readonly ClusterEvent[], got: readonly ClusterEvent[], diff: readonly PathDiff[], index: number): string {
  const w = want[index];
  const g = got[index];
  const later = new Set(diff.map((d) => d.path.split('/')[1]).filter((i) => i !== String(index))).size;
  const more = later > 0 ? `; and ${later} later event${later > 1 ? 's' : ''} differ${later > 1 ? '' : 's'}` : '';
  if (w && g && isEventOrderDifference(want, got, index)) {
    const list = (es: readonly ClusterEvent[]): string => es.slice(index).map(eventText).join(', ');
    return ` in order from [${index}] (eager processing's order, §7): expected ${list(want)}; actual ${list(got)}`;
  }
  if (!w || !g || w.type !== g.type) {
    return ` at [${index}]: expected ${w ? eventText(w) : 'no event'}, actual ${g ? eventText(g) : 'no event'}${more}`;
  }
  const fields = differingEventFields(diff, index).map((f) => fieldDifference(f, w, g));
  return ` at [${index}] ${eventText(w)}: ${fields.join('; ')}${more}`;
}

/** One field of an event that differs: both values, or for changes (a set, J7) the ids missing and unexpected. */
function fieldDifference(field: string, w: ClusterEvent, g: ClusterEvent): string {
  const e = (w as unknown as Record<string, unknown>)[field];
  const a = (g as unknown as Record<string, unknown>)[field];
  if (field === 'changes' && Array.isArray(e) && Array.isArray(a)) {
    const ids = (cs: readonly Change[]): string[] => cs.map((c) => changesText([c]));
    const want = ids(e as Change[]);
    const got = ids(a as Change[]);
    const missing = want.filter((c) => !got.includes(c));
    const extra = got.filter((c) => !want.includes(c));
    const parts = [missing.length ? `missing ${missing.join(' ')}` : '', extra.length ? `unexpected ${extra.join(' ')}` : ''].filter(
      Boolean,
    );
    return `changes ${parts.join(', ') || 'with the same ids differ in their fields'}`;
  }
  return `${field} expected ${shortValue(e)}, actual ${shortValue(a)}`;
}
