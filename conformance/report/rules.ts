// Which spec rules and properties a divergence breaks: from the field that
// differs to the rule ids of SPEC.md, so that a report says "C9 (the sink)"
// rather than only "/sink/deduped".
import type { ClusterEvent, ExternalAction, Outcome } from '../../spec/index.ts';

/** Rule ids (SPEC.md) and property names (SPEC §6) a divergence points at. */
export interface RuleRefs {
  readonly rules: readonly string[];
  readonly properties: readonly string[];
}

const refs = (rules: string[], properties: string[] = []): RuleRefs => ({ rules, properties });

/** J-rules behind an outcome code (J7's table). */
export function rulesOfOutcome(o: Outcome | undefined): string[] {
  switch (o?.code) {
    case 'rejected':
      return o.reason === 'conflict' ? ['J2', 'J7'] : o.reason === 'unknown_key' ? ['C3'] : ['J1', 'J7'];
    case 'late':
      return ['J5', 'J6', 'J7'];
    case 'stale':
      return ['J4', 'J7'];
    case 'duplicate':
      return ['J2', 'J6', 'J7'];
    default:
      return ['J7'];
  }
}

/** The rule that defines an action's guard and effect. */
export function rulesOfAction(a: ExternalAction): string[] {
  switch (a.type) {
    case 'record':
      return ['C3'];
    case 'freeze':
    case 'persist':
    case 'abort':
      return ['C5'];
    case 'install':
      return ['C6'];
    case 'commit':
    case 'release':
      return ['C7'];
    case 'failover':
      return ['C8'];
    case 'checkpoint':
      return ['C4'];
    case 'crash':
    case 'restart':
    case 'pause':
    case 'resume':
      return ['C10'];
    case 'duplicateInstall':
    case 'duplicateRelease':
      return ['C11'];
  }
}

/** A path of the observation (SPEC §7, cluster-observation.schema.json). */
export function rulesOfObservationPath(path: string): RuleRefs {
  const p = path.split('/').slice(1);
  switch (p[0]) {
    case 'log':
      return refs(['C3']);
    case 'coordinator':
      if (p[1] === 'up') return refs(['C10']);
      if (p[1] === 'handoff') return refs(['C5', 'C6', 'C7', 'C8'], ['Progress']);
      return refs(['C7', 'C8'], ['Fenced']);
    case 'workers':
      if (p[2] === 'status') return refs(['C10']);
      switch (p[4]) {
        case 'epoch':
          return refs(['C6', 'C7', 'C8', 'C10'], ['Fenced']);
        case 'cursor':
          return refs(['C3', 'C4']);
        case 'frozen':
          return refs(['C5', 'C6', 'C7']);
        case 'retained':
          return refs(['J8'], ['BoundedState']);
        default:
          // The copy itself is there or not.
          return refs(['C5', 'C6', 'C7', 'C9', 'C10']);
      }
    case 'store':
      return refs(['C4', 'C5']);
    case 'sink':
      if (p[1] === 'fence' || p[1] === 'fenced') return refs(['C9', 'C7', 'C8'], ['Fenced']);
      if (p[1] === 'matches') return refs(['C9', 'J6'], ['ExactlyOnce']);
      return refs(['C9'], ['ExactlyOnce']);
    default:
      return refs(['§7']);
  }
}

/** A path into a step's event list (`/<index>/<field>...`), given the expected and actual event there. */
export function rulesOfEventPath(path: string, expected: ClusterEvent | undefined, actual: ClusterEvent | undefined): RuleRefs {
  const field = path.split('/')[2];
  const e = expected ?? actual;
  if (!e || !expected || !actual || expected.type !== actual.type || field === undefined || field === 'type') {
    // A missing, extra or different event: what the action causes, in which order (C12, §7).
    return refs(['C12', '§7', ...(e ? rulesOfEvent(e) : [])]);
  }
  if (e.type === 'processed') {
    if (field === 'outcome') {
      return refs(rulesOfOutcome(expected.type === 'processed' ? expected.outcome : undefined), ['JoinCorrect']);
    }
    if (field === 'changes') return refs(['J3', 'J7'], ['JoinCorrect', 'ExactlyOnce']);
    if (field === 'fenced') return refs(['C9'], ['Fenced']);
    if (field === 'epoch') return refs(['C7', 'C8', 'C10'], ['Fenced']);
    return refs(['C3', '§7']);
  }
  return refs(rulesOfEvent(e));
}

function rulesOfEvent(e: ClusterEvent): string[] {
  switch (e.type) {
    case 'appended':
      return ['C3'];
    case 'rejected':
      return ['C3', 'J1'];
    case 'processed':
      return ['C3', 'J7'];
    case 'dropped':
      return e.reason === 'fenced' ? ['C9'] : e.reason === 'released' ? ['C7'] : ['C5'];
    case 'refused':
      return ['C6'];
    case 'restored':
      return ['C4', 'C6', 'C8', 'C10'];
  }
}

/** The operator-level fields (§3). */
export function rulesOfOperatorField(field: 'outcome' | 'changes' | 'retained' | 'error', expected: Outcome | undefined): RuleRefs {
  switch (field) {
    case 'outcome':
      return refs(rulesOfOutcome(expected), ['JoinCorrect']);
    case 'changes':
      return refs(['J3', 'J6', 'J7'], ['JoinCorrect']);
    case 'retained':
      return refs(['J8'], ['RetentionSafe', 'RetentionMinimal', 'BoundedState']);
    case 'error':
      return refs(['J7']);
  }
}

/** Merges several references, keeping first-seen order. */
export function mergeRefs(...all: RuleRefs[]): RuleRefs {
  const rules = new Set<string>();
  const properties = new Set<string>();
  for (const r of all) {
    r.rules.forEach((x) => rules.add(x));
    r.properties.forEach((x) => properties.add(x));
  }
  return { rules: [...rules], properties: [...properties] };
}

/** The title of each rule and section a report may cite (SPEC.md headings; a test keeps them in step). */
export const RULE_TITLES: Readonly<Record<string, string>> = {
  J0: 'Configuration',
  J1: 'Records and validity',
  J2: 'Row identity',
  J3: 'Match and match id',
  J4: 'Watermarks',
  J5: 'Lateness of inserts',
  J6: 'Retraction',
  J7: 'Outcomes, changes and precedence',
  J8: 'Retention',
  J9: 'Input contract: identities are not reused',
  C1: 'Configuration and initial state',
  C2: 'Durable and volatile state',
  C3: 'The log and processing',
  C4: 'Checkpoints',
  C5: 'Handoff record, freeze, persist, abort',
  C6: 'Install',
  C7: 'Commit and release',
  C8: 'Failover',
  C9: 'The sink',
  C10: 'Crashes, restarts, pauses',
  C11: 'Duplicated messages',
  C12: 'Events',
  '§7': 'Conformance semantics',
};

/** `C9 (The sink), J7 (Outcomes, ...)`. */
export function describeRules(rules: readonly string[]): string {
  return rules.map((r) => (RULE_TITLES[r] ? `${r} (${RULE_TITLES[r]})` : r)).join(', ');
}
