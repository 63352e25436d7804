// J1 validity, in the spec's order, shared by the operator (which rejects an
// invalid record it is given) and the cluster (which rejects it before it
// reaches the log, C3). One function each, so that the operator and the
// cluster can never disagree about what is valid.
import { TIME_MAX, TIME_MIN } from '../spec/index.ts';
import type { LogRecord, RejectReason, RowRecord, WatermarkRecord } from '../spec/index.ts';

// Written so that NaN is out of range too.
const inTimeRange = (t: number): boolean => t >= TIME_MIN && t <= TIME_MAX;

/** J1 for an insert or retract: the first failing check, or undefined when valid. */
export function rowValidity(r: RowRecord, maxIntervalLength: number): RejectReason | undefined {
  if (r.key === '') return 'empty_key';
  if (r.id === '') return 'empty_id';
  if (r.side !== 'L' && r.side !== 'R') return 'bad_side';
  if (!inTimeRange(r.ts) || !inTimeRange(r.start) || !inTimeRange(r.end)) return 'out_of_range';
  // J1: a reversed interval fails one of these two checks; it is never repaired by swapping.
  if (r.ts < r.start) return 'ts_before_start';
  if (r.ts > r.end) return 'ts_after_end';
  if (r.end - r.start > maxIntervalLength) return 'too_long';
  return undefined;
}

/** J1 for a watermark: the first failing check, or undefined when valid. */
export function watermarkValidity(r: WatermarkRecord): RejectReason | undefined {
  if (r.side !== 'L' && r.side !== 'R') return 'bad_side';
  if (!inTimeRange(r.wm)) return 'out_of_range';
  return undefined;
}

/** J1 for any record. */
export function recordValidity(r: LogRecord, maxIntervalLength: number): RejectReason | undefined {
  return r.kind === 'watermark' ? watermarkValidity(r as WatermarkRecord) : rowValidity(r as RowRecord, maxIntervalLength);
}
