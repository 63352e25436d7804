// Public API of impl/cluster/: the fenced cluster engine (SPEC §5, §7) and its durable parts.
export { ImplCluster } from './cluster.ts';
export type { ClusterApplyResult, HistoryRecorder, ImplClusterOptions, WorkerStatus } from './cluster.ts';
export { MemoryStorage } from './storage.ts';
export type {
  ClusterStorage,
  CoordinatorRecord,
  CoordinatorStore,
  HandoffPhase,
  HandoffRecord,
  InputLog,
  InstallMessage,
  ReleaseMessage,
  SinkChange,
  SinkEntry,
  SinkJournal,
  StoragePart,
} from './storage.ts';
export { CLUSTER_CONFIG_FORMAT, COORDINATOR_FORMAT, FileStorage, INSTALL_MESSAGE_FORMAT } from './fileStorage.ts';
export type { FileStorageOptions } from './fileStorage.ts';
export { Sink } from './sink.ts';
export type { MatchStatus } from './sink.ts';
export type { RecoveryProblem, WritePointHook } from './durableFiles.ts';
