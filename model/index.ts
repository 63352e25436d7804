// Public API of model/: the reference join operator and the brute-force oracle.
export {
  changeOf,
  contentOf,
  encodeJoinState,
  evict,
  globalWatermark,
  horizonOf,
  initialJoinState,
  isLateInsert,
  isLateRetract,
  isRetained,
  overlaps,
  retainedCountsOf,
  sameContent,
  sameIdentity,
  stepJoin,
  validityOf,
} from './join.ts';
export type { JoinState, JoinStep, MatchState, RowState } from './join.ts';
export {
  firstContractViolation,
  horizonRetained,
  identityString,
  initialOracleState,
  relationOf,
  stepOracle,
} from './oracle.ts';
export type { OracleState, OracleStep } from './oracle.ts';
