// Builders for the spec's records (SPEC J1), for the hand-written scripts of
// the model's presets and the conformance scenarios.
import type { Side } from './types.ts';
import type { LogRecord, RowRecord } from './types.gen.ts';

/** An insert or retract of `[start, end]` with `ts = start`. */
export function rowRecord(kind: 'insert' | 'retract', key: string, side: Side, id: string, start: number, end: number): RowRecord {
  return { kind, key, side, id, ts: start, start, end };
}

/** A watermark record: side `side` has seen every time below `wm` (SPEC J4). */
export function watermarkRecord(side: Side, wm: number): LogRecord {
  return { kind: 'watermark', side, wm };
}
