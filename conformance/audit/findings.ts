// What an audit finds: violations of the three properties with their
// witnesses, and the verdict of each property (SPEC §6: P1 JoinCorrect, P4
// ExactlyOnce, P5 Fenced, as they read on a recorded history).

export const AUDIT_PROPERTIES = ['JoinCorrect', 'ExactlyOnce', 'Fenced'] as const;
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
  readonly file: 'log' | 'sink';
  readonly line: number;
  /** What this line is in the story (`inserts the row`, `first insert`, `the write below the fence`). */
  readonly role: string;
  /** The file, when it is not the one `file` names in the report: one of the two files of a log given as two (left, right). */
  readonly path?: string;
  text?: string;
}

export interface AuditViolation {
  readonly property: AuditProperty;
  readonly kind: ViolationKind;
  readonly message: string;
  readonly match?: string;
  readonly key?: string;
  readonly witness: WitnessLine[];
}

export type PropertyVerdict = 'holds' | 'violated' | 'unknown' | 'not-checked';

export interface AuditPropertyResult {
  readonly property: AuditProperty;
  readonly verdict: PropertyVerdict;
  /** What was checked, or why not, for people. */
  readonly scope: string;
  readonly violations: number;
}
