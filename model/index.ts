// model/'s API to the other folders (and, in part, to the library's users
// through the root index.ts): the explorer, the models and presets, the
// reference operator and oracle, the cluster state machine. Files inside
// model/ import each other directly.

// The explorer: a generic explicit-state model checker.
export { check } from './explorer/checker.ts';
export { CheckSession } from './explorer/session.ts';
export type { PartOptions, SessionOptions } from './explorer/session.ts';
export type { SimulationProgress, SimulationReport } from './explorer/simulate.ts';
export type { ModelSource } from './explorer/source.ts';
export { importModule } from './explorer/source.ts';
export { guardModel, ModelFault } from './explorer/guard.ts';
export { evaluateProperty, jsonDiff, replayPath } from './explorer/replay.ts';
export type { ReplayResult } from './explorer/replay.ts';
export type {
  CheckOptions,
  CheckReport,
  Goal,
  Invariant,
  Model,
  ModelRendering,
  Path,
  ProgressSample,
  PropertyResult,
  RenderedRow,
  RenderedStep,
  Verdict,
  VisitedMode,
} from './explorer/types.ts';
// The presets `streamjoin check` runs.
export { PRESETS, clusterModelConfigOf, joinModelOptionsOf, presetModel, presetNamed, presetSource, resolveBounds } from './presets.ts';
export type { ModelPreset, PresetModel } from './presets.ts';
// The join (SPEC §1–§3): reference operator, oracle, and the join's explorer model.
export { globalWatermark, initialJoinState, retainedCountsOf, stepJoin } from './join/join.ts';
export type { JoinState, JoinStep, RowState } from './join/join.ts';
export { IndexedJoin } from './join/joinIndex.ts';
export { initialOracleState, stepOracle } from './join/oracle.ts';
export { contractChecker, firstContractViolation } from './join/contract.ts';
export type { ContractChecker, ContractViolation } from './join/contract.ts';
export type { OracleState } from './join/oracle.ts';
export { describeRecord, joinModel, recordDomain } from './join/joinModel.ts';
export type { JoinModelBounds, JoinModelOptions } from './join/joinModel.ts';
export type { JoinModelState } from './join/joinModelState.ts';
export { isLateInsert, isLateRetract, validityOf } from './join/join.ts';
// The cluster (SPEC §5): state, guards, effects; its bounded histories, explorer model and presets (§6).
export { PROTOCOL_ELEMENTS, initialClusterState, withCopy } from './cluster/clusterState.ts';
export type { ClusterSetup, ClusterState, ClusterTransition, ProtocolElement } from './cluster/clusterState.ts';
export { whyNotEnabled } from './cluster/guards.ts';
export { applyExternal, observeCluster, transition } from './cluster/stateMachine.ts';
export {
  budgetOf,
  clusterActionKind,
  enabledClusterActions,
  encodeExplored,
  initialExplored,
  isFault,
  isQuiescent,
  nextEager,
  nextExplored,
} from './cluster/boundedHistories.ts';
export type { ClusterBounds, ClusterModelConfig, ExploredState } from './cluster/boundedHistories.ts';
export { clusterExplorerModel, expectedClusterKinds } from './cluster/explorerModel.ts';
export type { LabelledAction } from './cluster/explorerModel.ts';
export { CLUSTER_PRESETS, clusterPreset, projectOntoKey, withAblation } from './cluster/presets.ts';
export type { ClusterPreset } from './cluster/presets.ts';
