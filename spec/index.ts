// Public API of spec/: constants, types, schemas and the reference encodings.
export {
  BOUND_MAX,
  CLUSTER_TRACE_FORMAT,
  CHECK_CONFIG_FORMAT,
  COORDINATOR,
  COUNTEREXAMPLE_FORMAT,
  OPERATOR_TRACE_FORMAT,
  OUTCOME_CODES,
  REJECT_REASONS,
  SIDES,
  SPEC_VERSION,
  TIME_MAX,
  TIME_MIN,
} from './constants.ts';
export { ERROR_CODES, InputError } from './errors.ts';
export type { ErrorCode } from './errors.ts';
export { describeClusterAction } from './describe.ts';
export { matchId, parseMatchId } from './matchId.ts';
export { compareByMatchId, compareCodePoints } from './order.ts';
export { describeSchemaError, schemaError, schemaValidator } from './schemas.ts';
export { PACKAGE_ROOT, packagePath } from './packageFiles.ts';
export type { SchemaName } from './schemas.ts';
export {
  checkDocument,
  clusterConfigProblem,
  documentFormat,
  loadAnyTrace,
  loadClusterTrace,
  loadCheckConfig,
  loadCounterexample,
  loadOperatorTrace,
  parseClusterTrace,
  parseJson,
  parseOperatorTrace,
  readTextFile,
} from './documents.ts';
export type { AnyTrace } from './documents.ts';
export {
  LEVELS,
  PROTOCOL_ERRORS,
  PROTOCOL_VERSION,
  REQUEST_TYPES,
  levelAllows,
  levelOfAction,
  okTypeOf,
  protocolErrorName,
} from './protocol.ts';
export type { ExternalAction, ProtocolErrorName } from './protocol.ts';
export type {
  Change,
  ClusterAction,
  ClusterConfig,
  ClusterEvent,
  ClusterExpectation,
  ClusterObservation,
  ClusterStep,
  ClusterTrace,
  CopyObservation,
  ErrorReply,
  EventsOk,
  HandoffObservation,
  ImplementationInfo,
  InitOk,
  InitRequest,
  InspectOk,
  CheckConfig,
  Counterexample,
  JoinConfig,
  Level,
  LogRecord,
  OperatorRecordOk,
  OperatorStep,
  OperatorTrace,
  Outcome,
  OutcomeCode,
  ProtocolErrorCode,
  ProtocolReply,
  ProtocolRequest,
  RejectReason,
  RetainedCounts,
  RowContent,
  RowRecord,
  Side,
  StepExpectation,
  WatermarkRecord,
  Watermarks,
} from './types.ts';
