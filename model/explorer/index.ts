// The explorer's API to the models built on it (model/join, model/cluster,
// the presets): a generic breadth-first explicit-state model checker with
// symmetry and partial-order reduction, the `Model` interface it checks, and
// the helpers to replay a path and hash a state.
export { ByteReader, ByteWriter } from './bytes.ts';
export { check } from './checker.ts';
export { FieldHasher } from './fingerprint.ts';
export { guardModel, ModelFault } from './guard.ts';
export { evaluateProperty, replayPath } from './replay.ts';
export { CheckSession } from './session.ts';
export type { PartOptions, SessionOptions } from './session.ts';
export type { ModelSource } from './source.ts';
export type { ByteSuccessors, CheckOptions, CheckReport, Goal, Invariant, Model, PropertyResult, StateCodec } from './types.ts';
