// Times of a recorded log as real pipelines write them: integers in any
// unit (epoch milliseconds, microseconds, nanoseconds), as JSON numbers or
// as their decimal text, or ISO-8601 date-times. SPEC J1 takes times in
// [-2^50, 2^50]; an epoch in microseconds (about 1.8·10^15 today) or
// nanoseconds lies beyond. They are judged exactly, never rounded: every
// time of a log is read as a BigInt and taken relative to one origin, the
// log's first time when that one lies beyond 2^50 (else 0: the times as
// written). Only differences of times matter to the join (J5–J8), so the
// verdicts are those of the times as written, and L and D are in the same
// unit.
import { problemAt } from './jsonLine.ts';

/** The units a log's times may be in (`--time-unit`): seconds, milliseconds, microseconds, nanoseconds. */
export const TIME_UNITS = ['s', 'ms', 'us', 'ns'] as const;
/** The unit of a log's times: how an ISO-8601 date-time is read, and the unit of L and D. */
export type TimeUnit = (typeof TIME_UNITS)[number];

const NANOS: Record<TimeUnit, bigint> = { s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };
const UNIT_NAMES: Record<TimeUnit, string> = { s: 'seconds', ms: 'milliseconds', us: 'microseconds', ns: 'nanoseconds' };
const LIMIT = 2n ** 50n;
const LIMIT_NUMBER = 2 ** 50;

const ISO = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?([Zz]|[+-]\d{2}(?::?\d{2})?)$/;

/** An ISO-8601 date-time in `unit` since the epoch, exactly; a message if it is none or is finer than the unit. */
export function isoTime(text: string, unit: TimeUnit): bigint | string {
  const m = ISO.exec(text);
  if (m === null) return 'is not an ISO-8601 date-time with its offset (2024-05-01T12:00:00.123456Z, or +02:00 for Z)';
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const fraction = m[7] ?? '';
  const zone = m[8] as string;
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) {
    return 'is not a date-time of the calendar (month, day, hour, minute or second out of range)';
  }
  let nanos = BigInt(ms) * 1_000_000n + BigInt(fraction.padEnd(9, '0'));
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1n : 1n;
    const digits = zone.slice(1).replace(':', '');
    const minutes = BigInt(Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0'));
    nanos -= sign * minutes * 60_000_000_000n;
  }
  const per = NANOS[unit];
  if (nanos % per !== 0n) return `is finer than the time unit (${UNIT_NAMES[unit]}): pass a finer --time-unit`;
  return nanos / per;
}

/** The times of one log: each read exactly, relative to the log's origin. */
export class LogTimes {
  private origin: bigint | undefined;

  constructor(private readonly unit: TimeUnit = 'ms') {}

  /** The time at `pointer` of a line (a JSON number, its decimal text, or ISO-8601) as a SPEC time: SJ102 if it is none. */
  read(value: unknown, pointer: string): number {
    // The common case, an integer in SPEC's range with the origin 0 (or still to be fixed): as written, no BigInt.
    const inRange = typeof value === 'number' && Number.isInteger(value) && value >= -LIMIT_NUMBER && value <= LIMIT_NUMBER;
    if (inRange && (this.origin === undefined || this.origin === 0n)) {
      this.origin = 0n;
      return value;
    }
    let t: bigint;
    if (typeof value === 'number') {
      if (!Number.isInteger(value)) throw problemAt(pointer, `a time must be an integer or an ISO-8601 date-time, got ${value}`);
      t = BigInt(value);
    } else if (typeof value === 'string' && /^-?\d+$/.test(value)) {
      t = BigInt(value);
    } else if (typeof value === 'string') {
      const iso = isoTime(value, this.unit);
      if (typeof iso === 'string') throw problemAt(pointer, `the time "${value}" ${iso}`);
      t = iso;
    } else {
      throw problemAt(
        pointer,
        `a time must be an integer or an ISO-8601 date-time, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`,
      );
    }
    // The first time fixes the origin: 0 when it is in SPEC's range, else itself.
    this.origin ??= t >= -LIMIT && t <= LIMIT ? 0n : t;
    // A difference beyond 2^53 is out of SPEC's range however it is rounded (J1 out_of_range).
    return Number(t - this.origin);
  }

  /** What the reader did with the times, if anything: the origin they are relative to. */
  note(): string | undefined {
    if (this.origin === undefined || this.origin === 0n) return undefined;
    return `times are read relative to the log's first time, ${this.origin} (beyond SPEC's 2^50), exactly; L and D are in the same unit`;
  }
}
