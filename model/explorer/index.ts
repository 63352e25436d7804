// Public API of the explorer: a generic breadth-first explicit-state model
// checker with symmetry and partial-order reduction, and its helpers.
export { check } from './checker.ts';
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
  ProgressProperty,
  ProgressSample,
  PropertyResult,
  Verdict,
  VisitedMode,
} from './types.ts';
