// streamjoin's programmatic API: explicit named exports of each part.
// spec/: the normative vocabulary, schemas and reference encodings.
export {
  BOUND_MAX,
  COORDINATOR,
  ERROR_CODES,
  InputError,
  OPERATOR_TRACE_FORMAT,
  OUTCOME_CODES,
  REJECT_REASONS,
  SIDES,
  SPEC_VERSION,
  TIME_MAX,
  TIME_MIN,
  compareCodePoints,
  loadOperatorTrace,
  matchId,
  parseMatchId,
  parseOperatorTrace,
  schemaError,
} from './spec/index.ts';
export type {
  Change,
  JoinConfig,
  LogRecord,
  OperatorTrace,
  Outcome,
  RejectReason,
  RetainedCounts,
} from './spec/index.ts';
// model/: the reference operator and oracle, the cluster model, the explorer.
export { check, firstContractViolation, initialJoinState, initialOracleState, stepJoin, stepOracle } from './model/index.ts';
export type { CheckOptions, CheckReport, JoinState, Model, OracleState } from './model/index.ts';
export {
  CLUSTER_PRESETS,
  PRESETS,
  PROTOCOL_ELEMENTS,
  applyExternal,
  clusterExplorerModel,
  clusterPreset,
  initialClusterState,
  observeCluster,
  presetNamed,
  projectOntoKey,
  whyNotEnabled,
  withAblation,
} from './model/index.ts';
export type { ClusterSetup, ClusterState, ProtocolElement } from './model/index.ts';
// impl/: the optimized operator, the durable checkpoint store, the fenced cluster.
export { FileCheckpointStore, ImplCluster, JoinOperator, MemoryCheckpointStore } from './impl/index.ts';
export type { CheckpointStore } from './impl/index.ts';
// conformance/: running traces against any operator.
export { runOperatorTrace } from './conformance/lockstep/operatorTrace.ts';
export type { OperatorUnderTest, OperatorTraceResult } from './conformance/lockstep/operatorTrace.ts';
export { createModelOperator } from './conformance/adapters/modelOperator.ts';
export { configuredLogArbitrary, logArbitrary } from './conformance/generate/logs.ts';
// conformance/: the harness (protocol v2, adapters, lockstep, random traces, the conform job).
export {
  EXHAUSTIVE_SCENARIOS,
  MUTANTS,
  createProtocolServer,
  implSut,
  inProcessSystem,
  modelSut,
  runClusterLockstep,
  runConform,
  runMutants,
  runOperatorLockstep,
  spawnSystem,
  SutUnavailable,
} from './conformance/index.ts';
export type { ConformReport, Divergence, InProcessSut, SystemUnderTest } from './conformance/index.ts';
