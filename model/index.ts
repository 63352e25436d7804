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
} from './join/join.ts';
export type { JoinState, JoinStep, MatchState, RowState } from './join/join.ts';
export { contractChecker, firstContractViolation } from './join/contract.ts';
export type { ContractChecker, ContractViolation } from './join/contract.ts';
export {
  horizonRetained,
  identityString,
  initialOracleState,
  relationOf,
  stepOracle,
} from './join/oracle.ts';
export type { OracleState, OracleStep } from './join/oracle.ts';
// The explorer (explicit-state model checker) and the models and presets on it.
export { check, collisionProbability, evaluateProperty, FieldHasher, fingerprintHex, jsonDiff, replayPath } from './explorer/index.ts';
export type {
  CheckOptions,
  CheckReport,
  Goal,
  Invariant,
  Model,
  PartialOrderHook,
  Path,
  ProgressProperty,
  ProgressSample,
  PropertyEvaluation,
  PropertyResult,
  ReplayResult,
  ReplayStep,
  Verdict,
  VisitedMode,
} from './explorer/index.ts';
export { JOIN_ABLATIONS, describeRecord, joinModel, recordDomain } from './join/joinModel.ts';
export type { JoinAction, JoinModelBounds, JoinModelOptions, JoinModelState, OperatorStepFunction } from './join/joinModel.ts';
export { PRESETS, presetModel, presetNamed, resolveBounds } from './presets.ts';
export type { AblationElement, BoundParameter, ModelPreset, PresetModel } from './presets.ts';
// The cluster: the handoff state machine (SPEC §5), its explorer model and presets (SPEC §6).
export { PROTOCOL_ELEMENTS, PROTOCOL_ELEMENT_DESCRIPTIONS, initialClusterState } from './cluster/clusterState.ts';
export { applyAction, applyExternal, observeCluster, settle, transition } from './cluster/stateMachine.ts';
export { sinkRelation } from './cluster/sink.ts';
export { whyNotEnabled } from './cluster/guards.ts';
export type {
  Checkpoint,
  ClusterSetup,
  ClusterState,
  ClusterTransition,
  CoordinatorState,
  HandoffRecord,
  InstallMessage,
  KeyCopy,
  ProtocolElement,
  ReleaseMessage,
  SinkState,
  WorkerState,
} from './cluster/clusterState.ts';
export { enabledClusterActions, initialExplored, isFault, isQuiescent, nextEager, nextExplored } from './cluster/boundedHistories.ts';
export type { Budget, ClusterBounds, ClusterModelConfig, ExploredState } from './cluster/boundedHistories.ts';
export { clusterExplorerModel, expectedClusterKinds } from './cluster/explorerModel.ts';
export type { LabelledAction } from './cluster/explorerModel.ts';
export { CLUSTER_PRESETS, clusterPreset, projectOntoKey, withAblation } from './cluster/presets.ts';
export type { ClusterPreset } from './cluster/presets.ts';
