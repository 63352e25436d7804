// Public API of impl/: the optimized operator, its snapshot format, the
// interval index, the durable checkpoint store and the fenced cluster.
export { JoinOperator } from './operator.ts';
export type { ApplyResult, EvictionWork } from './operator.ts';
export { SNAPSHOT_FORMAT, readSnapshot } from './snapshot.ts';
export type { OperatorCounters, OperatorSnapshot, SnapshotMatch, SnapshotRow } from './snapshot.ts';
export { encodeMatchId } from './matchId.ts';
export { IntervalNode, IntervalTree } from './intervalTree.ts';
export { HorizonHeap } from './horizonHeap.ts';
export type { HorizonEntry } from './horizonHeap.ts';
export { CHECKPOINT_FORMAT, FileCheckpointStore, MemoryCheckpointStore } from './checkpointStore.ts';
export type { Checkpoint, CheckpointStore, CheckpointWritePoint, FileCheckpointStoreOptions } from './checkpointStore.ts';
export { CheckpointStoreError, ConfigError, SnapshotError } from './errors.ts';
export type { CheckpointProblem, CheckpointProblemKind } from './errors.ts';
export { rowValidity, recordValidity, watermarkValidity } from './validity.ts';
export { ClusterStoppedError, DurableStateError } from './errors.ts';
export {
  CLUSTER_CONFIG_FORMAT,
  COORDINATOR_FORMAT,
  FileStorage,
  ImplCluster,
  INSTALL_MESSAGE_FORMAT,
  MemoryStorage,
  Sink,
} from './cluster/index.ts';
export type {
  ClusterApplyResult,
  ClusterStorage,
  CoordinatorRecord,
  CoordinatorStore,
  FileStorageOptions,
  HistoryRecorder,
  HandoffPhase,
  HandoffRecord,
  ImplClusterOptions,
  InputLog,
  InstallMessage,
  MatchStatus,
  RecoveryProblem,
  ReleaseMessage,
  SinkChange,
  SinkEntry,
  SinkJournal,
  StoragePart,
  WorkerStatus,
  WritePointHook,
} from './cluster/index.ts';
