// Types of the spec. The document types are generated from the JSON Schemas
// (types.gen.ts); the small shapes below are the rules' own vocabulary,
// shared by model/ and impl/.
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
  RowRecord,
  StepExpectation,
  WatermarkRecord,
} from './types.gen.ts';

export type Side = 'L' | 'R';

/** The content of a row (SPEC J2): a valid insert or retract without its kind. */
export interface RowContent {
  readonly key: string;
  readonly side: Side;
  readonly id: string;
  readonly ts: number;
  readonly start: number;
  readonly end: number;
}

/** Per-side watermarks; `null` is −∞ (SPEC §0, J4). */
export interface Watermarks {
  readonly L: number | null;
  readonly R: number | null;
}
