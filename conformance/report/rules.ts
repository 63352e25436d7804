// Which spec rules and properties a divergence breaks: the rules that decide
// the differing field for the action at hand, so that a report says "J6
// (Retraction)" for a retract whose changes are wrong and "C6 (Install)" for
// an install refused when it should not be, rather than only "/sink/deduped".
import { REJECT_REASONS } from '../../spec/index.ts';
import type { Change, ClusterEvent, ExternalAction, LogRecord, Outcome, RejectReason, RetainedCounts } from '../../spec/index.ts';
import { sameJson, type PathDiff } from '../sut/jsonDiff.ts';

/** Rule ids (SPEC.md) and property names (SPEC §6) a divergence points at. */
export interface RuleRefs {
  /** Rule ids (e.g. `J7`, `C9`). */
  readonly rules: readonly string[];
  /** Property names (e.g. `ExactlyOnce`). */
  readonly properties: readonly string[];
  /** Which check of a rule's ordered table decides, e.g. `J1 check 5 (ts_before_start)`. */
  readonly checks?: readonly string[];
}

const refs = (rules: string[], properties: string[] = [], checks: string[] = []): RuleRefs =>
  checks.length > 0 ? { rules, properties, checks } : { rules, properties };

/** `J1 check 5 (ts_before_start)`: the row of J1's table a reject reason comes from. */
export function j1Check(reason: RejectReason): string | undefined {
  // REJECT_REASONS lists J1's seven checks in their order, then J2's conflict and C3's unknown key.
  const order = REJECT_REASONS.indexOf(reason);
  return order < 0 || order >= 7 ? undefined : `J1 check ${order + 1} (${reason})`;
}

/**
 * The rule that decides an outcome of a record of this kind (J7's table,
 * column by column): validity J1 (conflict J2, an undeclared key C3),
 * lateness J5 for an insert and J6 for a retract, staleness J4, a duplicate
 * J2 (a retract's duplicate is its tombstone, J6); `accepted` is what is left
 * when no earlier check applies, so it names no rule of its own.
 */
function rulesOfOutcomeFor(kind: LogRecord['kind'] | undefined, o: Outcome): { rules: string[]; checks: string[] } {
  switch (o.code) {
    case 'rejected': {
      if (o.reason === 'conflict') return { rules: ['J2'], checks: [] };
      if (o.reason === 'unknown_key') return { rules: ['C3'], checks: [] };
      const check = o.reason === undefined ? undefined : j1Check(o.reason);
      return { rules: ['J1'], checks: check ? [check] : [] };
    }
    case 'late':
      return { rules: [kind === 'retract' ? 'J6' : 'J5'], checks: [] };
    case 'stale':
      return { rules: ['J4'], checks: [] };
    case 'duplicate':
      return { rules: kind === 'retract' ? ['J6', 'J2'] : ['J2'], checks: [] };
    case 'accepted':
      return { rules: kind === 'watermark' ? ['J4'] : [], checks: [] };
  }
}

/** The rules that decide an outcome of a record of this kind (J7's table), for a view of a run's outcomes. */
export function rulesOfOutcome(o: Outcome, kind?: LogRecord['kind']): string[] {
  const rules = rulesOfOutcomeFor(kind, o).rules;
  return rules.length > 0 ? rules : ['J7'];
}

/**
 * A record's outcome differs: the rules of both outcomes (the one the system
 * should have applied and the one it applied instead), and J7's precedence
 * when both are decided by a check (which check comes first).
 */
export function rulesOfOutcomeDifference(record: LogRecord | undefined, expected: Outcome, actual: Outcome | undefined): RuleRefs {
  const kind = record?.kind;
  const e = rulesOfOutcomeFor(kind, expected);
  const a = actual ? rulesOfOutcomeFor(kind, actual) : { rules: [], checks: [] };
  const precedence = actual !== undefined && expected.code !== 'accepted' && actual.code !== 'accepted' ? ['J7'] : [];
  const rules = unique([...e.rules, ...a.rules, ...precedence]);
  return refs(rules.length > 0 ? rules : ['J7'], ['JoinCorrect'], unique([...e.checks, ...a.checks]));
}

/** A match id as J3 writes it: three parts, each escaped (no `/`, `%` only in `%25` or `%2F`). */
export function isSpecMatchId(id: string): boolean {
  const parts = id.split('/');
  return parts.length === 3 && parts.every((p) => /^(?:[^%]|%25|%2F)*$/.test(p));
}

/**
 * A record's change set differs. An insert's changes are its matches (J3); a
 * retract's are the retractions of its active matches (J6), whose endpoints
 * may already be evicted (J8); a match id not written as J3 says, or two
 * sets that pair up one to one but under different ids, is J3's encoding.
 * Any other record has no changes at all (J7).
 */
export function rulesOfChangesDifference(
  record: LogRecord | undefined,
  outcome: Outcome | undefined,
  expected: readonly Change[],
  actual: readonly Change[],
): RuleRefs {
  const idRules = actual.some((c) => !isSpecMatchId(c.match)) || sameShapeOtherIds(expected, actual) ? ['J3'] : [];
  const properties = ['JoinCorrect'];
  if (outcome !== undefined && outcome.code !== 'accepted') return refs(['J7', ...idRules], properties);
  switch (record?.kind) {
    case 'insert':
      return refs(['J3'], properties);
    case 'retract':
      return refs(['J6', ...idRules], properties);
    case 'watermark':
      return refs(['J7', 'J8', ...idRules], properties);
    default:
      return refs(['J3', 'J6', 'J7'], properties);
  }
}

/** Same number of changes of each op, different ids: the matches are right, their names are not. */
function sameShapeOtherIds(expected: readonly Change[], actual: readonly Change[]): boolean {
  if (expected.length !== actual.length || expected.length === 0) return false;
  const ops = (cs: readonly Change[]): string =>
    cs
      .map((c) => `${c.op} ${c.key} ${c.left} ${c.right}`)
      .sort()
      .join('\n');
  const ids = (cs: readonly Change[]): string =>
    cs
      .map((c) => c.match)
      .sort()
      .join('\n');
  return ops(expected) === ops(actual) && ids(expected) !== ids(actual);
}

/**
 * The retained counts differ after a record: after a watermark, eviction
 * (J8); after an insert, the live row it binds (J2) and the matches it makes
 * (J3); after a retract, its tombstone and the matches it ends (J6). A rule
 * whose bound is at stake is J8 in every case.
 */
export function rulesOfRetainedDifference(
  record: LogRecord | undefined,
  expected: RetainedCounts,
  actual: RetainedCounts | undefined,
): RuleRefs {
  const properties = ['RetentionSafe', 'RetentionMinimal', 'BoundedState'];
  const differs = (f: 'live' | 'tombstones' | 'matches'): boolean => actual === undefined || actual[f] !== expected[f];
  switch (record?.kind) {
    case 'insert':
      return refs(
        unique([...(differs('live') || differs('tombstones') ? ['J2'] : []), ...(differs('matches') ? ['J3'] : []), 'J8']),
        properties,
      );
    case 'retract':
      return refs(['J6', 'J8'], properties);
    default:
      return refs(['J8'], properties);
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
      return ['C11', 'C6'];
    case 'duplicateRelease':
      return ['C11', 'C7'];
  }
}

/**
 * An action carried out that is not enabled, or refused when it is: the
 * rule of its guard, and C10 when the guard that decides is a node being
 * down or paused (the model's reason says which).
 */
export function rulesOfRefusal(a: ExternalAction, why: string | undefined): RuleRefs {
  const nodeState = why !== undefined && /\b(?:not up|paused|is down|is up)\b/.test(why) && !rulesOfAction(a).includes('C10');
  return refs([...rulesOfAction(a), ...(nodeState ? ['C10'] : []), '§7']);
}

/**
 * The rule of the action that wrote a key's checkpoint into the store: a
 * periodic checkpoint C4, persist C5 (which writes a C4 checkpoint); any
 * other action writes none, so a store it changed breaks its own rule and
 * C4's (only those two write the store).
 */
export function rulesOfStoreWriter(writer: ExternalAction): string[] {
  if (writer.type === 'checkpoint') return ['C4'];
  if (writer.type === 'persist') return ['C5', 'C4'];
  return unique([...rulesOfAction(writer), 'C4']);
}

/**
 * A path of the observation (SPEC §7, cluster-observation.schema.json), after
 * `action` (when known). A store path cites the rule of the action that
 * wrote that checkpoint (`storeWriter`: the model's last writer of the key,
 * lockstep's fact; null when the model wrote none, so the system wrote it at
 * `action`).
 */
export function rulesOfObservationPath(path: string, action?: ExternalAction, storeWriter?: ExternalAction | null): RuleRefs {
  const p = path.split('/').slice(1);
  // The action that changed the field decides it; a record changes state by processing it (C3).
  const byAction = action ? rulesOfAction(action) : [];
  switch (p[0]) {
    case 'log':
      return refs(['C3']);
    case 'coordinator':
      if (p[1] === 'up') return refs(['C10']);
      if (p[1] === 'handoff') return refs(unique([...byAction.filter((r) => r !== 'C3'), 'C5', 'C6', 'C7', 'C8']), ['Progress']);
      return refs(['C7', 'C8'], ['Fenced']);
    case 'workers':
      if (p[2] === 'status') return refs(['C10']);
      switch (p[4]) {
        case 'epoch':
          return refs(unique([...byAction, 'C6', 'C7', 'C8', 'C10']), ['Fenced']);
        case 'cursor':
          return refs(unique([...byAction, 'C3', 'C4']));
        case 'frozen':
          return refs(unique([...byAction, 'C5', 'C6', 'C7']));
        case 'retained':
          // After a record, what processing it retained (J2–J8); after any other action, that action made the copy what it is
          // (install C6, failover C8 and restart C10 restore a checkpoint's join state, C4).
          if (action?.type === 'record') return rulesOfRetainedField(action.record, p[5]);
          if (action === undefined) return refs(['J8'], ['BoundedState']);
          return refs(unique([...byAction, ...(restores(action) ? ['C4'] : [])]), ['BoundedState']);
        default:
          // The copy itself is there or not.
          return refs(unique([...byAction, 'C5', 'C6', 'C7', 'C9', 'C10']));
      }
    case 'store':
      // Only a periodic checkpoint (C4) and persist (C5) write the store: the one that wrote this key's checkpoint decides it.
      if (storeWriter) return refs(rulesOfStoreWriter(storeWriter));
      if (storeWriter === null && action) return refs(rulesOfStoreWriter(action));
      return refs(['C4', 'C5']);
    case 'sink':
      if (p[1] === 'fence' || p[1] === 'fenced')
        return refs(unique(['C9', ...byAction.filter((r) => r === 'C7' || r === 'C8')]), ['Fenced']);
      if (p[1] === 'matches') return refs(['C9'], ['ExactlyOnce']);
      return refs(['C9'], ['ExactlyOnce']);
    default:
      return refs(['§7']);
  }
}

/** Whether an action may restore a checkpoint into a copy (C6, C8, C10 by way of C4). */
const restores = (a: ExternalAction): boolean =>
  a.type === 'install' || a.type === 'duplicateInstall' || a.type === 'failover' || a.type === 'restart' || a.type === 'commit';

/** One retained count (`live`, `tombstones`, `matches`) differs after a record. */
function rulesOfRetainedField(record: LogRecord, field: string | undefined): RuleRefs {
  const expected: RetainedCounts = { live: 0, tombstones: 0, matches: 0 };
  const actual: RetainedCounts = {
    ...expected,
    ...(field === 'live' || field === 'tombstones' || field === 'matches' ? { [field]: 1 } : {}),
  };
  return rulesOfRetainedDifference(record, expected, field === undefined ? undefined : actual);
}

/**
 * A path into a step's event list (`/<index>/<field>...`), given the expected
 * and actual event there, the step's action, and the log record a
 * `processed` event applies (found by its index).
 */
export function rulesOfEventPath(
  path: string,
  expected: ClusterEvent | undefined,
  actual: ClusterEvent | undefined,
  action?: ExternalAction,
  recordAt?: (index: number) => LogRecord | undefined,
): RuleRefs {
  const field = path.split('/')[2];
  const byAction = action ? rulesOfAction(action) : [];
  if (!expected || !actual || expected.type !== actual.type || field === undefined || field === 'type') {
    // A missing, extra or different event: the rules of each kind, and of the action that causes them.
    const rules = unique([
      ...(expected ? rulesOfEvent(expected, action) : []),
      ...(actual ? rulesOfEvent(actual, action) : []),
      ...byAction,
      ...(expected && actual ? ['C12'] : []),
    ]);
    return refs(rules);
  }
  if (expected.type === 'processed' && actual.type === 'processed') {
    const record = recordAt?.(expected.index);
    if (field === 'outcome') return rulesOfOutcomeDifference(record, expected.outcome, actual.outcome);
    if (field === 'changes') return rulesOfChangesDifference(record, expected.outcome, expected.changes, actual.changes);
    if (field === 'fenced') return refs(['C9'], ['Fenced']);
    if (field === 'epoch') return refs(unique([...byAction, 'C6', 'C7', 'C8', 'C10']), ['Fenced']);
    // Which record a copy processes next, and where: C3.
    return refs(['C3']);
  }
  if (expected.type === 'rejected' && actual.type === 'rejected') {
    return rulesOfOutcomeDifference(action?.type === 'record' ? action.record : undefined, expected.outcome, actual.outcome);
  }
  if (expected.type === 'restored' && field === 'cursor') {
    // Install's own rule says what it restores (C6: the checkpoint's state and cursor); failover (C8) and restart (C10) defer to C4.
    const installs = action?.type === 'install' || action?.type === 'duplicateInstall';
    return refs(installs ? unique([...byAction, 'C4']) : unique(['C4', ...byAction]));
  }
  return refs(unique([...rulesOfEvent(expected, action), ...byAction]));
}

/**
 * The fields of an event in the order their decisions are taken (C12 lists
 * them so): which copy processes which record (C3, §7's eager order), at
 * which epoch, its outcome (J7's table) before its changes (J3, J6), then
 * the sink's fence (C9).
 */
export const EVENT_FIELD_ORDER: readonly string[] = [
  'type',
  'worker',
  'key',
  'index',
  'cursor',
  'epoch',
  'outcome',
  'changes',
  'fenced',
  'reason',
];

/** The fields of one event that differ (from the diff's paths into it), earliest decision first. */
export function differingEventFields(diff: readonly PathDiff[], index: number): string[] {
  const fields = unique(
    diff
      .map((d) => d.path.split('/'))
      .filter((p) => p[1] === String(index))
      .map((p) => p[2] ?? 'type'),
  );
  const rank = (f: string): number => {
    const i = EVENT_FIELD_ORDER.indexOf(f);
    return i < 0 ? EVENT_FIELD_ORDER.length : i;
  };
  return fields.sort((a, b) => rank(a) - rank(b));
}

/**
 * The events are the right ones in the wrong order from `index` on: each of
 * the two events there comes later in the other list. That is C12's order,
 * which eager processing fixes (§7: first worker, then first key, in config
 * order), not the rule of either event.
 */
export function isEventOrderDifference(want: readonly ClusterEvent[], got: readonly ClusterEvent[], index: number): boolean {
  const w = want[index];
  const g = got[index];
  if (!w || !g || sameJson(w, g)) return false;
  return want.slice(index + 1).some((e) => sameJson(e, g)) && got.slice(index + 1).some((e) => sameJson(e, w));
}

/**
 * A step's event lists differ, first at `index`: the rules of the earliest
 * broken decision there (an order C12; else the earliest differing field
 * of the event, EVENT_FIELD_ORDER).
 */
export function rulesOfEventsDifference(
  want: readonly ClusterEvent[],
  got: readonly ClusterEvent[],
  diff: readonly PathDiff[],
  index: number,
  action?: ExternalAction,
  recordAt?: (index: number) => LogRecord | undefined,
): RuleRefs {
  if (isEventOrderDifference(want, got, index)) return refs(['C12', '§7']);
  const field = differingEventFields(diff, index)[0] ?? 'type';
  return rulesOfEventPath(`/${index}/${field}`, want[index], got[index], action, recordAt);
}

/** The rules that make an event happen (C12 lists them). */
function rulesOfEvent(e: ClusterEvent, action: ExternalAction | undefined): string[] {
  switch (e.type) {
    case 'appended':
      return ['C3'];
    case 'rejected':
      return rulesOfOutcomeFor(action?.type === 'record' ? action.record.kind : undefined, e.outcome).rules;
    case 'processed':
      return ['C3'];
    case 'dropped':
      return e.reason === 'fenced' ? ['C9'] : e.reason === 'released' ? ['C7'] : ['C5'];
    case 'refused':
      return ['C6'];
    case 'restored':
      return ['C4'];
  }
}

/** The operator-level fields (§3), for `record`. */
export function rulesOfOperatorField(
  field: 'outcome' | 'changes' | 'retained' | 'error',
  record: LogRecord,
  expected: { readonly outcome: Outcome; readonly changes: readonly Change[]; readonly retained: RetainedCounts },
  actual?: { readonly outcome?: Outcome; readonly changes?: readonly Change[]; readonly retained?: RetainedCounts },
): RuleRefs {
  switch (field) {
    case 'outcome':
      return rulesOfOutcomeDifference(record, expected.outcome, actual?.outcome);
    case 'changes':
      return rulesOfChangesDifference(record, expected.outcome, expected.changes, actual?.changes ?? []);
    case 'retained':
      return rulesOfRetainedDifference(record, expected.retained, actual?.retained);
    case 'error':
      // Every record yields exactly one outcome (J7); refusing one is a protocol answer where none is allowed (§7).
      return refs(['J7', '§7']);
  }
}

function unique(xs: readonly string[]): string[] {
  return [...new Set(xs)];
}

/** Merges several references, keeping first-seen order. */
export function mergeRefs(...all: RuleRefs[]): RuleRefs {
  const rules = new Set<string>();
  const properties = new Set<string>();
  const checks = new Set<string>();
  for (const r of all) {
    r.rules.forEach((x) => rules.add(x));
    r.properties.forEach((x) => properties.add(x));
    r.checks?.forEach((x) => checks.add(x));
  }
  return refs([...rules], [...properties], [...checks]);
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
