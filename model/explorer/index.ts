// Public API of the explorer: a generic breadth-first explicit-state model
// checker with symmetry and partial-order reduction, and its helpers.
export { ByteReader, ByteWriter } from './bytes.ts';
export { check } from './checker.ts';
export { CheckSession } from './session.ts';
export type { PartOptions, SessionOptions } from './session.ts';
export type { ModelSource } from './source.ts';
export { collisionProbability, FieldHasher, fingerprintHex } from './fingerprint.ts';
export { evaluateProperty, jsonDiff, replayPath } from './replay.ts';
export type { PropertyEvaluation, ReplayResult, ReplayStep } from './replay.ts';
export type {
  CheckOptions,
  CheckReport,
  Goal,
  Invariant,
  Model,
  PartialOrderHook,
  Path,
  StateCodec,
  ProgressProperty,
  ProgressSample,
  PropertyResult,
  Verdict,
  VisitedMode,
} from './types.ts';
