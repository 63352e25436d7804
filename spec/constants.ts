// Constants of the specification (SPEC §0, J0, J1). Shared by model/ and impl/:
// they are facts of the spec, not logic either side could get wrong differently.

/** Spec version this code implements (SPEC.md header). */
export const SPEC_VERSION = '1.1';

/** Smallest valid time (SPEC §0). */
export const TIME_MIN = -(2 ** 50);
/** Largest valid time (SPEC §0). */
export const TIME_MAX = 2 ** 50;
/** Largest valid L or D (SPEC J0). */
export const BOUND_MAX = 2 ** 50;

/** The two sides of the join, in order: left and right (SPEC §0). */
export const SIDES = ['L', 'R'] as const;

/** The coordinator's node id in crash and restart actions (SPEC C10); no worker may have it (C1). */
export const COORDINATOR = 'coordinator';

/** J1 validity checks in the order they are applied, then J2's conflict, then C3's unknown key. */
export const REJECT_REASONS = [
  'empty_key',
  'empty_id',
  'bad_side',
  'out_of_range',
  'ts_before_start',
  'ts_after_end',
  'too_long',
  'conflict',
  'unknown_key',
] as const;

/** Every outcome code a record can get (SPEC J7). */
export const OUTCOME_CODES = ['accepted', 'duplicate', 'late', 'stale', 'rejected'] as const;

/** `format` value of an operator trace file (SPEC §4). */
export const OPERATOR_TRACE_FORMAT = 'streamjoin/operator-trace@1';

/** `format` value of a cluster trace file (SPEC §7). */
export const CLUSTER_TRACE_FORMAT = 'streamjoin/cluster-trace@1';
/** `format` value of a counterexample file written by `streamjoin check` (SPEC §5). */
export const COUNTEREXAMPLE_FORMAT = 'streamjoin/counterexample@1';

/** `format` value of a saved `streamjoin check` configuration. */
export const CHECK_CONFIG_FORMAT = 'streamjoin/check-config@1';
