// Public API of impl/: the optimized operator, its snapshot format, the
// interval index and the durable checkpoint store.
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
