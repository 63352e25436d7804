// impl/'s API to the other folders: the optimized operator, the fenced
// cluster, the checkpoint stores and their errors. The mutant harness loads a
// patched copy of this very module (conformance/adapters/implOperator.ts,
// `ImplModule`). Files inside impl/ import each other directly.
export { JoinOperator } from './operator.ts';
export { ImplCluster } from './cluster/cluster.ts';
export type { ClusterApplyResult, ImplClusterOptions } from './cluster/cluster.ts';
export { FileCheckpointStore, MemoryCheckpointStore } from './checkpointStore.ts';
export type { Checkpoint, CheckpointStore } from './checkpointStore.ts';
export { CheckpointStoreError, ClusterStoppedError, ConfigError, DurableStateError, SnapshotError } from './errors.ts';
