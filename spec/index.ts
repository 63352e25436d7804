// spec/'s API to the other folders: the constants, types and documents of the
// specification, and its reference encodings (match ids, §0 order, protocol
// levels). The document types are generated from the JSON Schemas
// (types.gen.ts, `npm run gen:types`).
export {
  BOUND_MAX,
  CHECK_CONFIG_FORMAT,
  CLUSTER_TRACE_FORMAT,
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
export { ERROR_CODES, InputError, printable } from './errors.ts';
export type { ErrorCode } from './errors.ts';
export { describeClusterAction } from './describe.ts';
export { escapeComponent, matchId, parseMatchId } from './matchId.ts';
export { rowRecord, watermarkRecord } from './records.ts';
export { compareByMatchId, compareCodePoints } from './order.ts';
export { describeSchemaError, schemaError, schemaValidator } from './schemas.ts';
export { PACKAGE_ROOT, packagePath } from './packageFiles.ts';
export { adoptReadAheadCopies, fileToOpen, needsReadAhead, readAheadCopies, readInputsAhead, releaseInputs } from './inputFiles.ts';
export type { ReadAheadOptions } from './inputFiles.ts';
export {
  Interrupted,
  PACE_SLICE_MS,
  abortReason,
  pace,
  paceDue,
  paced,
  throwIfInterrupted,
  withDeadline,
  yieldToEventLoop,
} from './pacing.ts';
export type { AbortSignalLike } from './pacing.ts';
export type { OverallVerdict } from './verdict.ts';
export {
  MAX_DOCUMENT_BYTES,
  checkAgainstSchema,
  clusterConfigProblem,
  documentFormat,
  loadAnyTrace,
  loadCheckConfig,
  loadClusterTrace,
  loadCounterexample,
  loadOperatorTrace,
  parseClusterTrace,
  parseJson,
  parseOperatorTrace,
  placeInFile,
  readDocument,
  readTextFile,
} from './documents.ts';
export type { AnyTrace } from './documents.ts';
export { firstInvalidUtf8, jsonTextError, lineColumn, pointerOffset } from './jsonText.ts';
export {
  ACTION_TAKEN,
  NONDET_PICKS,
  STREAMJOIN_ITF_FORMAT,
  decodeAction,
  encodeAction,
  isItfTrace,
  itfAsDocument,
  itfKind,
  itfStructureProblem,
  itfToClusterTrace,
  itfToCounterexample,
  itfToOperatorTrace,
} from './itf.ts';
export type { Codec, ItfState, ItfTrace, ItfValue, StreamjoinItfMeta } from './itf.ts';
export {
  LEVELS,
  PROTOCOL_ERRORS,
  PROTOCOL_V1_ERRORS,
  PROTOCOL_VERSION,
  REQUEST_TYPES,
  isProtocolV1OnlyCode,
  levelAllows,
  levelOfAction,
  okTypeOf,
  protocolErrorName,
  protocolV1ErrorName,
  renumberedCodesText,
} from './protocol.ts';
export type { ExternalAction } from './protocol.ts';
export type {
  Change,
  CheckConfig,
  ClusterAction,
  ClusterConfig,
  ClusterEvent,
  ClusterExpectation,
  ClusterInitKill,
  ClusterKill,
  ClusterObservation,
  ClusterStep,
  ClusterTrace,
  CopyObservation,
  Counterexample,
  ErrorReply,
  EventsOk,
  ImplementationInfo,
  InitOk,
  InspectOk,
  JoinConfig,
  Level,
  LogRecord,
  OperatorRecordOk,
  OperatorStep,
  OperatorTrace,
  Outcome,
  OutcomeCode,
  ProtocolReply,
  ProtocolRequest,
  RejectReason,
  RetainedCounts,
  RowRecord,
  StepExpectation,
  WatermarkRecord,
} from './types.gen.ts';
export type { RowContent, Side, Watermarks } from './types.ts';
