// The small shapes of the spec's rules that no document schema names,
// shared by model/ and impl/. The document types are generated from the JSON
// Schemas (types.gen.ts).
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
