// Public API of spec/: constants, types, schemas and the reference encodings.
export {
  BOUND_MAX,
  CHECK_CONFIG_FORMAT,
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
export { matchId, parseMatchId } from './matchId.ts';
export { compareByMatchId, compareCodePoints } from './order.ts';
export { describeSchemaError, schemaError, schemaValidator } from './schemas.ts';
export type { SchemaName } from './schemas.ts';
export {
  checkDocument,
  documentFormat,
  loadCheckConfig,
  loadCounterexample,
  loadOperatorTrace,
  parseJson,
  parseOperatorTrace,
  readTextFile,
} from './documents.ts';
export type {
  Change,
  CheckConfig,
  Counterexample,
  JoinConfig,
  LogRecord,
  OperatorStep,
  OperatorTrace,
  Outcome,
  OutcomeCode,
  RejectReason,
  RetainedCounts,
  RowContent,
  RowRecord,
  Side,
  StepExpectation,
  ValidRowRecord,
  ValidWatermarkRecord,
  WatermarkRecord,
  Watermarks,
} from './types.ts';
