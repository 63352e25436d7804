// streamjoin's public API: what a user of the library calls. Everything else
// is internal. `etc/streamjoin.api.md` is the reviewed report of this surface
// (`npm run api` regenerates it; `npm test` fails when it is out of date).

// spec/: the documents and their loaders, the records and the cluster's
// vocabulary, the protocol's, the constants and the error codes.
export {
  CHECK_CONFIG_FORMAT,
  CLUSTER_TRACE_FORMAT,
  COUNTEREXAMPLE_FORMAT,
  OPERATOR_TRACE_FORMAT,
  loadAnyTrace,
  loadCheckConfig,
  loadClusterTrace,
  loadCounterexample,
  loadOperatorTrace,
  parseClusterTrace,
  parseOperatorTrace,
} from './spec/index.ts';
export type {
  AnyTrace,
  OperatorTrace,
  OperatorStep,
  StepExpectation,
  ClusterTrace,
  ClusterStep,
  ClusterExpectation,
  Counterexample,
  CheckConfig,
} from './spec/index.ts';
export {
  SPEC_VERSION,
  TIME_MIN,
  TIME_MAX,
  BOUND_MAX,
  SIDES,
  REJECT_REASONS,
  OUTCOME_CODES,
  COORDINATOR,
  matchId,
  parseMatchId,
  compareCodePoints,
} from './spec/index.ts';
export type {
  JoinConfig,
  LogRecord,
  RowRecord,
  WatermarkRecord,
  Side,
  Outcome,
  OutcomeCode,
  RejectReason,
  Change,
  RetainedCounts,
  ClusterConfig,
  ClusterAction,
  ExternalAction,
  ClusterEvent,
  ClusterObservation,
} from './spec/index.ts';
export { PROTOCOL_VERSION, LEVELS, PROTOCOL_ERRORS, ERROR_CODES, InputError, Interrupted } from './spec/index.ts';
export type { AbortSignalLike, OverallVerdict } from './spec/index.ts';
export type { Level, ProtocolRequest, ProtocolReply, ErrorCode } from './spec/index.ts';

// model/: the explorer (check) and the Model interface, the models and their
// presets, the reference operator and oracle, the cluster state machine.
export {
  CLUSTER_PRESETS,
  PRESETS,
  PROTOCOL_ELEMENTS,
  applyExternal,
  check,
  clusterExplorerModel,
  clusterPreset,
  contractChecker,
  firstContractViolation,
  initialClusterState,
  initialJoinState,
  initialOracleState,
  joinModel,
  observeCluster,
  presetModel,
  presetNamed,
  projectOntoKey,
  replayPath,
  resolveBounds,
  stepJoin,
  stepOracle,
  whyNotEnabled,
  withAblation,
} from './model/index.ts';
export type {
  CheckOptions,
  CheckReport,
  ClusterModelConfig,
  ClusterPreset,
  ClusterSetup,
  ClusterState,
  ClusterTransition,
  ContractChecker,
  ContractViolation,
  Goal,
  Invariant,
  JoinModelOptions,
  JoinState,
  JoinStep,
  Model,
  ModelPreset,
  ModelRendering,
  OracleState,
  PresetModel,
  PropertyResult,
  ProtocolElement,
  RenderedRow,
  RenderedStep,
  ReplayResult,
  Verdict,
} from './model/index.ts';

// impl/: the optimized operator, the fenced cluster, the checkpoint stores, their errors.
export {
  CheckpointStoreError,
  ClusterStoppedError,
  ConfigError,
  DurableStateError,
  FileCheckpointStore,
  ImplCluster,
  JoinOperator,
  MemoryCheckpointStore,
  SnapshotError,
} from './impl/index.ts';
export type { Checkpoint, CheckpointStore, ClusterApplyResult, HistoryRecorder, ImplClusterOptions } from './impl/index.ts';

// conformance/: the conform job, the systems under test (in-process, over
// protocol v2, and the protocol server for your own), lockstep runs, random
// traces, exhaustive scenarios, the mutant catalogue, counterexample files.
export { runConform } from './conformance/job/conform.ts';
export type {
  ConformOptions,
  ConformReport,
  ConformSystem,
  ConformVerdict,
  TraceInput,
  TraceRun,
  TraceSource,
} from './conformance/job/conformTypes.ts';
export { builtInTraces } from './conformance/job/traceFilesPart.ts';
export type { Failure } from './conformance/report/failure.ts';
export { causeOf, groupByCause } from './conformance/report/causes.ts';
export type { AttachCandidate, CauseGroup } from './conformance/report/causes.ts';
export { DEFAULT_LINK_BASE } from './conformance/report/specLinks.ts';
export type { LinkBase } from './conformance/report/specLinks.ts';
export type { Shard } from './conformance/job/shard.ts';
export { spawnSystem } from './conformance/adapters/process.ts';
export type { ProcessOptions } from './conformance/adapters/process.ts';
export { inProcessSystem } from './conformance/adapters/inProcess.ts';
export { createProtocolServer } from './conformance/adapters/protocolServer.ts';
export type { ProtocolServer } from './conformance/adapters/protocolServer.ts';
export { implSut } from './conformance/adapters/implSut.ts';
export { modelSut } from './conformance/sut/modelSut.ts';
export { SutConfigError, SutUnavailable } from './conformance/sut/sut.ts';
export type {
  ClusterUnderTest,
  InProcessSut,
  OperatorFactory,
  OperatorUnderTest,
  StderrExcerpt,
  SystemUnderTest,
} from './conformance/sut/sut.ts';
export { createModelOperator } from './conformance/sut/modelOperator.ts';
// Engines that decide matches only (a dataflow engine, a database): streamjoin keeps the spec's books, the engine matches.
export { JoinBookkeeping, matchingEngineSystem } from './conformance/adapters/matchingEngine.ts';
export type {
  Admission,
  EngineMatch,
  MatchingEngine,
  MatchingEngineFactory,
  MatchingEngineOptions,
} from './conformance/adapters/matchingEngine.ts';
export { runOperatorTrace } from './conformance/lockstep/operatorTrace.ts';
export type { OperatorTraceResult } from './conformance/lockstep/operatorTrace.ts';
// A trace in lockstep: judged by lockstep/, its divergence explained by report/.
export { runClusterLockstep, runOperatorLockstep } from './conformance/views/explainedRuns.ts';
export type { ClusterRunResult, OperatorRunResult } from './conformance/views/explainedRuns.ts';
export type { Divergence } from './conformance/report/divergence.ts';
export { configuredLogArbitrary, logArbitrary } from './conformance/generate/logs.ts';
export type { LogDomain } from './conformance/generate/logs.ts';
export { clusterTraceArbitrary } from './conformance/generate/clusterTraces.ts';
export { EXHAUSTIVE_SCENARIOS, coverAnyScenario } from './conformance/generate/exhaustive.ts';
export type { AnyCover, AnyScenario, ScenarioCover } from './conformance/generate/exhaustive.ts';
export type { ExhaustiveScenario } from './conformance/generate/clusterScenarios.ts';
export type { OperatorCover, OperatorScenario } from './conformance/generate/operatorExhaustive.ts';
export { MUTANTS } from './conformance/mutants/catalogue.ts';
export type { Mutant } from './conformance/mutants/catalogue.ts';
export { runMutants } from './conformance/job/mutantsJob.ts';
export type { MutantsOptions, MutantsReport } from './conformance/job/mutantsJob.ts';
export { writeCounterexample } from './conformance/views/counterexampleFiles.ts';
export type { Argv, CounterexampleTarget, WrittenCounterexample } from './conformance/views/counterexampleFiles.ts';
// Views of a counterexample: Markdown with Mermaid, the self-contained HTML viewer, ITF, the model explorer.
export { viewOfFile, writeViewerOf } from './conformance/views/viewFiles.ts';
export type { CounterexampleView } from './conformance/views/view.ts';
export { counterexampleMarkdown } from './conformance/views/markdown.ts';
export { counterexampleHtml } from './conformance/views/html.ts';
export { conformanceItf, modelItf } from './conformance/views/itf.ts';
export { itfToClusterTrace, itfToCounterexample, itfToOperatorTrace } from './spec/index.ts';
export type { ItfTrace, ItfValue } from './spec/index.ts';
export { startExploreServer } from './explore/server.ts';
export type { ExploreServer } from './explore/server.ts';
// Recorded histories (docs/audit.md): streamjoin audit, the recorder the cluster writes them with, example histories.
export { auditHistory, loadAuditConfig } from './conformance/audit/audit.ts';
export { UNBOUNDED_LATENESS } from './conformance/audit/audit.ts';
export type { AuditOptions, AuditProfile, AuditProgress, AuditResult, AuditVerdict } from './conformance/audit/audit.ts';
export type { OrderDependentRecord, TwoInputsSummary } from './conformance/audit/twoInputs.ts';
export { SINK_MODELS } from './conformance/audit/diffSink.ts';
export type { SinkModel } from './conformance/audit/diffSink.ts';
export type { AuditProperty, AuditPropertyResult, AuditViolation, ViolationKind, WitnessLine } from './conformance/audit/findings.ts';
export { HISTORY_FORMATS, READ_FORMATS } from './conformance/audit/formats.ts';
export type { HistoryFormat, ReadFormat } from './conformance/audit/formats.ts';
export { COLUMN_FIELDS, loadColumnMapping } from './conformance/audit/columns.ts';
export type { ColumnField, ColumnMapping, ReadingOptions } from './conformance/audit/columns.ts';
export { TIME_UNITS } from './conformance/audit/times.ts';
export type { TimeUnit } from './conformance/audit/times.ts';
export { HistoryFiles } from './conformance/adapters/recorder.ts';
export { writeExampleHistory } from './conformance/audit/example.ts';
export type { ExampleHistory, ExampleOptions } from './conformance/audit/example.ts';
export { DAMAGE_KINDS, damageSink } from './conformance/audit/damage.ts';
export type { Damage, DamageKind } from './conformance/audit/damage.ts';
