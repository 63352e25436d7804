// Mutants of impl/ that no conforming behaviour can tell from the
// implementation, each with the argument (docs/mutation.md): the harness
// cannot kill them because there is nothing to observe. A survivor is listed
// here only with a reason; score.ts matches a report's mutants to these
// entries by file, source line, mutator, the code replaced and its
// replacement (layout aside), so an entry goes stale, and its mutant counts
// as an open survivor again, as soon as the code it argues about changes
// (score.test.ts fails on a stale entry).
//
// The arguments sit in equivalentReasons.ts, the entries in one file per area
// of impl/; this file gathers them into one list, one entry per argument in
// the order REASONS names them.
import { ACTION_EQUIVALENTS } from './equivalentActions.ts';
import { CLUSTER_EQUIVALENTS } from './equivalentCluster.ts';
import { MATCH_EQUIVALENTS } from './equivalentMatches.ts';
import { OPERATOR_EQUIVALENTS } from './equivalentOperator.ts';
import { type EquivalentMutant, REASONS } from './equivalentReasons.ts';
import { SINK_EQUIVALENTS } from './equivalentSink.ts';
import { STRUCTURE_EQUIVALENTS } from './equivalentStructures.ts';

export type { EquivalentMutant, EquivalentSite } from './equivalentReasons.ts';
export { REASONS } from './equivalentReasons.ts';

/** Every area's entries, in the order their mutants are listed under one argument. */
const AREAS: readonly (readonly EquivalentMutant[])[] = [
  SINK_EQUIVALENTS,
  CLUSTER_EQUIVALENTS,
  ACTION_EQUIVALENTS,
  OPERATOR_EQUIVALENTS,
  STRUCTURE_EQUIVALENTS,
  MATCH_EQUIVALENTS,
];

export const EQUIVALENT_MUTANTS: readonly EquivalentMutant[] = Object.values(REASONS)
  .map((reason: string) => ({
    reason,
    mutants: AREAS.flatMap((area) => area.filter((e) => e.reason === reason).flatMap((e) => e.mutants)),
  }))
  .filter((e) => e.mutants.length > 0);
