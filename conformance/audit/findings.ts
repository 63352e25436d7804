// What an audit finds: violations of the three properties with their
// witnesses, and the verdict of each property (SPEC §6: P1 JoinCorrect, P4
// ExactlyOnce, P5 Fenced, as they read on a recorded history).

/** The properties an audit judges (SPEC §6: P1, P4, P5). */
export const AUDIT_PROPERTIES = ['JoinCorrect', 'ExactlyOnce', 'Fenced'] as const;
/** One property an audit judges. */
export type AuditProperty = (typeof AUDIT_PROPERTIES)[number];

/** What kind of departure a violation is. */
export type ViolationKind =
  /** JoinCorrect: a match of the oracle's final relation that the sink does not hold. */
  | 'missing'
  /** JoinCorrect: a match the sink holds that the oracle has retracted. */
  | 'extra'
  /** JoinCorrect: a match id that is no match of the log (or not of its writer's key, or not well-formed). */
  | 'wrong-id'
  /** ExactlyOnce: a change the sink applied a second time. */
  | 'applied-twice'
  /** ExactlyOnce: a retracted match inserted again (C9: retracted is terminal). */
  | 'resurrected'
  /** ExactlyOnce: a retraction of a match the sink does not hold (its insert was lost, or comes after it). */
  | 'retract-without-insert'
  /** ExactlyOnce: a write's sequence number goes back (a write applied twice, or out of order). */
  | 'sequence'
  /** ExactlyOnce: after a write, the sink equals the oracle over no prefix of the log at or after the one it equalled before (P4). */
  | 'prefix'
  /** Fenced: a write below the highest epoch already seen for its key (C9). */
  | 'below-fence';

/** One line of a witness: a log record or a sink change, by file and line number; `text` is the line itself, once read. */
export interface WitnessLine {
  /** Which file the line is in. */
  readonly file: 'log' | 'sink';
  /** Its line number (1-based). */
  readonly line: number;
  /** What this line is in the story (`inserts the row`, `first insert`, `the write below the fence`). */
  readonly role: string;
  /** The file, when it is not the one `file` names in the report: one of the two files of a log given as two (left, right). */
  readonly path?: string;
  /** The line itself, once read. */
  text?: string;
}

/** One violation an audit found, with the lines that witness it. */
export interface AuditViolation {
  /** The property it breaks. */
  readonly property: AuditProperty;
  /** What kind of departure it is. */
  readonly kind: ViolationKind;
  /** What is wrong, for people. */
  readonly message: string;
  /** The match id concerned, if one is. */
  readonly match?: string;
  /** The key concerned, if one is. */
  readonly key?: string;
  /** The log and sink lines that show it. */
  readonly witness: WitnessLine[];
}

/** A property's verdict in an audit; `not-checked` and `unknown` are never `holds`. */
export type PropertyVerdict = 'holds' | 'violated' | 'unknown' | 'not-checked';

/** One property's result in an audit. */
export interface AuditPropertyResult {
  /** The property. */
  readonly property: AuditProperty;
  /** Its verdict. */
  readonly verdict: PropertyVerdict;
  /** What was checked, or why not, for people. */
  readonly scope: string;
  /** Violations found (all of them, not only those kept). */
  readonly violations: number;
}
