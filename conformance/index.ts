// Public API of conformance/: the harness. Systems under test (in-process and
// over protocol v1), lockstep runners at both levels, random traces with
// shrinking, explanations of divergences, and the conform job.
export { OperatorTraceChecker, runOperatorTrace, withExpectations as withOperatorTraceExpectations } from './lockstep/operatorTrace.ts';
export type { OperatorFactory, OperatorObservation, OperatorTraceResult, OperatorUnderTest } from './lockstep/operatorTrace.ts';
export { createModelOperator } from './adapters/modelOperator.ts';
export { createModelCluster } from './adapters/modelCluster.ts';
export { modelSut } from './adapters/modelSut.ts';
export { builtInImpl, createImplOperator, implOperatorFactory } from './adapters/implOperator.ts';
export type { ImplModule } from './adapters/implOperator.ts';
export { createImplCluster } from './adapters/implCluster.ts';
export type { ImplClusterOptions } from './adapters/implCluster.ts';
export { IMPL_INFO, implSut, implSutOf } from './adapters/implSut.ts';
export type { ImplSutOptions } from './adapters/implSut.ts';
export { inProcessSystem } from './adapters/inProcess.ts';
export { DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, spawnSystem } from './adapters/process.ts';
export type { ProcessOptions } from './adapters/process.ts';
export { SutConfigError, SutUnavailable } from './adapters/sut.ts';
export type {
  ActionReply,
  ClusterSession,
  ClusterStepReply,
  ClusterUnderTest,
  InProcessSut,
  OperatorSession,
  RecordReply,
  SutError,
  SutInfo,
  SystemUnderTest,
} from './adapters/sut.ts';
export { createProtocolServer, serveStream } from './adapters/protocolServer.ts';
export type { ProtocolServer } from './adapters/protocolServer.ts';
export { DEFAULT_MAX_LINE_BYTES, LineSplitter } from './adapters/lines.ts';
export type { LineEvent } from './adapters/lines.ts';
export {
  PrefixSharingModel,
  actionsOf,
  compareClusterStep,
  expectedClusterSteps,
  modelClusterSteps,
  runClusterLockstep,
  runClusterLockstepPipelined,
  withClusterExpectations,
} from './lockstep/clusterLockstep.ts';
export type {
  ClusterRunResult,
  ExpectedClusterStep,
  ModelDisagreement,
  PipelinedResult,
  PipelineOptions,
} from './lockstep/clusterLockstep.ts';
export {
  EXHAUSTIVE_SCENARIOS,
  ScenarioError,
  coverScenario,
  coverageTable,
  exhaustiveScenario,
  isCrashPoint,
  missingCoverage,
  requiredCoverage,
  withoutPrefixes,
} from './generate/exhaustive.ts';
export type { ExhaustiveScenario, ScenarioCover } from './generate/exhaustive.ts';
export {
  compareOperatorStep,
  expectedOperatorSteps,
  modelOperatorSteps,
  runOperatorLockstep,
  withOperatorExpectations,
} from './lockstep/operatorLockstep.ts';
export type { ExpectedOperatorStep, OperatorRunResult } from './lockstep/operatorLockstep.ts';
export { canonicalChanges, canonicalEvents, canonicalOutcome } from './lockstep/divergence.ts';
export type { Divergence } from './lockstep/divergence.ts';
export { RULE_TITLES, describeRules, rulesOfAction, rulesOfObservationPath } from './report/rules.ts';
export type { RuleRefs } from './report/rules.ts';
export { diffJson, prettyJson, sameJson } from './lockstep/jsonDiff.ts';
export type { PathDiff } from './lockstep/jsonDiff.ts';
export { clusterDiagram, describeDivergence, eventText, explainCounterexample, operatorDiagram, renderDiagram } from './report/explain.ts';
export type { DiagramRow, ExplainContext } from './report/explain.ts';
export { runConform } from './conform.ts';
export { levelOfClusterTrace, runTrace, withExpectations, withoutExpectations } from './lockstep/anyTrace.ts';
export { minimizeTrace } from './lockstep/minimize.ts';
export type {
  ConformOptions,
  ConformReport,
  ExampleResult,
  ExhaustiveResult,
  Failure,
  RandomResult,
  TraceSource,
  Unknown,
  Verdict,
} from './conform.ts';
export {
  clusterStepsArbitrary,
  clusterTraceArbitrary,
  controlActions,
  crashEverything,
  interpretChoiceItems,
  interpretChoices,
  longClusterDomain,
  modelChoiceSteps,
  oddClusterDomain,
  smallClusterDomain,
  workloadArbitrary,
} from './generate/clusterTraces.ts';
export type { ChoiceItem, ChoiceStep, ChoiceStepsOptions, ClusterDomain, ControlChoice } from './generate/clusterTraces.ts';
export {
  configArbitrary,
  configuredLogArbitrary,
  keepInContract,
  logArbitrary,
  oddDomain,
  operatorTraceArbitrary,
  smallDomain,
} from './generate/logs.ts';
export type { LogDomain } from './generate/logs.ts';
export { clusterContractViolation, loadCheckedTrace, runTraceFile, runTraceFiles } from './lockstep/traceFiles.ts';
export type { TraceFileResult } from './lockstep/traceFiles.ts';
export { MUTANTS, mutantNamed } from './mutants/catalogue.ts';
export type { Mutant, SourcePatch } from './mutants/catalogue.ts';
export {
  MutantPatchError,
  PROJECT_ROOT,
  applyPatch,
  loadMutantImpl,
  materializeMutant,
  mutantSut,
  patchedFiles,
  removeDir,
} from './mutants/load.ts';
export { runMutant, runMutantByPart, runMutants } from './mutants/run.ts';
export type { MutantByPart, MutantResult, MutantsOptions, MutantsReport } from './mutants/run.ts';
