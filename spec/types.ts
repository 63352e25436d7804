// The small shapes of the spec's rules that no document schema names,
// shared by model/ and impl/. The document types are generated from the JSON
// Schemas (types.gen.ts).
/** A side of the join: left or right (SPEC §0). */
export type Side = 'L' | 'R';

/** The content of a row (SPEC J2): a valid insert or retract without its kind. */
export interface RowContent {
  /** Join key. */
  readonly key: string;
  /** Side the row is on. */
  readonly side: Side;
  /** Row id; with key and side it is the row's identity (SPEC J2). */
  readonly id: string;
  /** Event time. */
  readonly ts: number;
  /** Start of the row's interval (SPEC J1: `start <= ts`). */
  readonly start: number;
  /** End of the row's interval (SPEC J1: `ts <= end`). */
  readonly end: number;
}

/** Per-side watermarks; `null` is −∞ (SPEC §0, J4). */
export interface Watermarks {
  /** Left watermark; `null` is −∞. */
  readonly L: number | null;
  /** Right watermark; `null` is −∞. */
  readonly R: number | null;
}
