// The rows of a recorded history under the user's own column names: which
// column holds a row's key, side, id, ts, start and end (SPEC J1), and a
// match row's match id, key, left and right ids (J3). Given as a small JSON
// file or inline (`--columns key=user_id,id=order_id,ts=event_time`),
// documented in docs/audit.md. Values are read as pipelines write them:
// keys and ids that are numbers as their decimal text, sides through an
// optional table of names (`"sides": {"orders": "L", "payments": "R"}`),
// times by times.ts.
import { InputError, matchId, readDocument, TIME_MAX, TIME_MIN } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, RowContent } from '../../spec/index.ts';
import { globalWatermark, isLateInsert, isLateRetract, validityOf } from '../../model/index.ts';
import { problemAt } from './jsonLine.ts';
import { LogTimes, type TimeUnit } from './times.ts';

/** The fields a column may be given for. */
export const COLUMN_FIELDS = ['key', 'side', 'id', 'ts', 'start', 'end', 'match', 'left', 'right'] as const;
/** One field a column may be given for. */
export type ColumnField = (typeof COLUMN_FIELDS)[number];

/** The user's column names for a history's rows (`--columns`, docs/audit.md). */
export interface ColumnMapping {
  /** The user's column for each field (default: the field's own name). */
  readonly columns: Partial<Record<ColumnField, string>>;
  /** The side a value of the side column stands for, when it is not `L` or `R` itself. */
  readonly sides: Readonly<Record<string, string>>;
  /** The order of the fields in a positional row (Flink's print connector), as user column names. */
  readonly order?: readonly string[];
}

/** How the rows of a history are read (all optional: the field names as they are, times as numbers in ms). */
export interface ReadingOptions {
  /** The user's column names (default: the fields' own). */
  readonly columns?: ColumnMapping;
  /** The unit of the log's times: how ISO-8601 date-times are read (default ms). */
  readonly timeUnit?: TimeUnit;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A column mapping: a JSON file `{"columns": {...}, "sides": {...}, "order": [...]}`
 * (`columns` may be left out: its fields then stand at the top), or inline
 * `field=column,...` (with `side.NAME=L` for the side table). SJ105 for an
 * unknown field.
 */
export function loadColumnMapping(spec: string): ColumnMapping {
  if (/^[a-z.]+=/.test(spec) && !spec.endsWith('.json')) return inlineMapping(spec);
  const doc = readDocument(spec);
  const value = doc.value;
  if (!isObject(value)) throw new InputError('SJ102', spec, 'a column mapping is a JSON object');
  const { sides, order, columns: nested, ...top } = value;
  const columns = nested ?? top;
  if (!isObject(columns)) throw new InputError('SJ102', spec, '"columns" must be an object of field: column name');
  const mapping: Partial<Record<ColumnField, string>> = {};
  for (const [field, column] of Object.entries(columns)) {
    if (!(COLUMN_FIELDS as readonly string[]).includes(field))
      throw new InputError('SJ102', spec, `"${field}" is not a field (${COLUMN_FIELDS.join(', ')})`);
    if (typeof column !== 'string') throw new InputError('SJ102', spec, `the column of "${field}" must be a string`);
    mapping[field as ColumnField] = column;
  }
  if (sides !== undefined && (!isObject(sides) || Object.values(sides).some((s) => s !== 'L' && s !== 'R')))
    throw new InputError('SJ102', spec, '"sides" must map side names to "L" or "R"');
  if (order !== undefined && (!Array.isArray(order) || order.some((c) => typeof c !== 'string')))
    throw new InputError('SJ102', spec, '"order" must be a list of column names');
  return {
    columns: mapping,
    sides: (sides ?? {}) as Record<string, string>,
    ...(order === undefined ? {} : { order: order as string[] }),
  };
}

function inlineMapping(spec: string): ColumnMapping {
  const columns: Partial<Record<ColumnField, string>> = {};
  const sides: Record<string, string> = {};
  let order: string[] | undefined;
  for (const part of spec.split(',')) {
    const eq = part.indexOf('=');
    const field = part.slice(0, eq).trim();
    const column = part.slice(eq + 1).trim();
    if (eq < 0 || column === '') throw new InputError('SJ105', 'usage', `--columns: "${part}" is not field=column`);
    if (field.startsWith('side.')) {
      if (column !== 'L' && column !== 'R') throw new InputError('SJ105', 'usage', `--columns: ${field} must be L or R`);
      sides[field.slice(5)] = column;
    } else if (field === 'order') order = column.split(/\s+/);
    else if ((COLUMN_FIELDS as readonly string[]).includes(field)) columns[field as ColumnField] = column;
    else throw new InputError('SJ105', 'usage', `--columns: "${field}" is not a field (${COLUMN_FIELDS.join(', ')}, side.NAME, order)`);
  }
  return { columns, sides, ...(order === undefined ? {} : { order }) };
}

/** The decimal text of a key or id written as a number; the string itself; SJ102 for anything else. */
function textOf(value: unknown, pointer: string, what: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  throw problemAt(pointer, `${what} must be a string or an integer, got ${value === undefined ? 'nothing' : JSON.stringify(value)}`);
}

const escapePointer = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * What a `before` holding only a row's key columns stands for: the content
 * its identity is bound with (J2: the first content wins), and whether the
 * row is live or a tombstone (J6).
 */
interface KnownRow {
  readonly record: LogRecord & { kind: 'insert' };
  live: boolean;
}

/**
 * The rows of one history file, read under a mapping: log rows (with their
 * times, relative to the log's origin) and match rows. It remembers the
 * content every row identity of the log is bound with, so that a delete or
 * update whose `before` holds only the row's key columns (Postgres's default
 * replica identity, as Debezium writes it) retracts the row it names, with
 * the content the join holds for it: bound as the join binds (J1 valid, not
 * late, J5/J6; the first content wins, J2, so a conflicting insert or
 * retraction changes nothing; a retraction before its insert binds a
 * tombstone, J6) and forgotten past its horizon (J8).
 */
export class RowReader {
  readonly times: LogTimes;
  private readonly columns: Partial<Record<ColumnField, string>>;
  private readonly sides: Readonly<Record<string, string>>;
  /** Bound rows by id (then key and side): what a key-only `before` resolves to. */
  private readonly live = new Map<string, KnownRow[]>();
  /** The join config (J0), once known: rows are then bound as the join binds them, and forgotten past their horizon (J8). */
  private config: JoinConfig | undefined;
  private keyOnly = 0;
  private lateKeyOnly = 0;
  /** The log's watermarks so far, per side (J4). */
  private readonly wm: { L: number | null; R: number | null } = { L: null, R: null };
  private sinceSweep = 0;
  /** Whether a remembered row was ever forgotten past its horizon. */
  private swept = false;
  /** The order of the fields in a positional row, as user column names. */
  readonly order: readonly string[] | undefined;

  /**
   * `remember`: keep each live row's content, for a key-only `before` (only
   * Debezium writes one; the other formats' rows are whole, and remembering
   * would cost memory for every live row).
   */
  constructor(
    reading: ReadingOptions = {},
    private readonly remember = false,
  ) {
    this.times = new LogTimes(reading.timeUnit ?? 'ms');
    this.columns = reading.columns?.columns ?? {};
    this.sides = reading.columns?.sides ?? {};
    this.order = reading.columns?.order;
  }

  /** The user's column for a field. */
  column(field: ColumnField): string {
    return this.columns[field] ?? field;
  }

  private field(row: Record<string, unknown>, field: ColumnField, pointer: string): { value: unknown; pointer: string } {
    const column = this.column(field);
    return { value: row[column], pointer: `${pointer}/${escapePointer(column)}` };
  }

  private text(row: Record<string, unknown>, field: 'key' | 'id' | 'left' | 'right' | 'match', pointer: string): string {
    const f = this.field(row, field, pointer);
    return textOf(f.value, f.pointer, `the ${field} (column "${this.column(field)}")`);
  }

  private side(row: Record<string, unknown>, pointer: string): string {
    const f = this.field(row, 'side', pointer);
    return this.sideName(textOf(f.value, f.pointer, `the side (column "${this.column('side')}")`));
  }

  /** The side a side name stands for (through the side table; `L` and `R` stand for themselves). */
  sideName(name: string): string {
    return this.sides[name] ?? name;
  }

  private time(row: Record<string, unknown>, field: 'ts' | 'start' | 'end', pointer: string): number {
    const f = this.field(row, field, pointer);
    return this.times.read(f.value, f.pointer);
  }

  /** Whether a row holds its content, or only its key columns (the rest absent or null). */
  private hasContent(row: Record<string, unknown>): boolean {
    return (['ts', 'start', 'end'] as const).some((f) => {
      const v = row[this.column(f)];
      return v !== undefined && v !== null;
    });
  }

  /** A row inserted (`+I`, `c`, `after`): a log record, remembered for a later key-only `before`. */
  insert(row: Record<string, unknown>, pointer: string): LogRecord {
    const record = {
      kind: 'insert' as const,
      key: this.text(row, 'key', pointer),
      side: this.side(row, pointer),
      id: this.text(row, 'id', pointer),
      ts: this.time(row, 'ts', pointer),
      start: this.time(row, 'start', pointer),
      end: this.time(row, 'end', pointer),
    };
    if (!this.remember) return record;
    this.sweep();
    // J7: an insert the join rejects or drops as late binds nothing; one of a bound identity changes nothing (J2).
    if (this.binds(record) && this.boundRow(record.key, record.side, record.id) === undefined) this.bind(record, true);
    return record;
  }

  /** Whether a record reaches J7's identity check: J1 valid, and not late (J5, J6). */
  private binds(record: LogRecord & { kind: 'insert' | 'retract' }): boolean {
    const config = this.config;
    if (config === undefined) return true;
    if (validityOf(record, config) !== undefined) return false;
    // Valid (J1): its side is L or R (the lateness tests read only its times).
    const row = record as RowContent;
    const gw = globalWatermark(this.wm);
    return record.kind === 'insert' ? !isLateInsert(row, gw, config) : !isLateRetract(row, gw, config);
  }

  /** The row bound under an identity and not past its horizon (J8), if any. */
  private boundRow(key: string, side: string, id: string): KnownRow | undefined {
    const found = this.live.get(id)?.find((k) => k.record.key === key && k.record.side === side);
    return found === undefined || this.pastHorizon(found) ? undefined : found;
  }

  /** J8: its horizon passed (a retraction of it would be late, J6). */
  private pastHorizon(k: KnownRow): boolean {
    // (The lateness test reads only the row's end.)
    return this.config !== undefined && isLateRetract(k.record as RowContent, globalWatermark(this.wm), this.config);
  }

  /** Binds an identity with a record's content (replacing a row of it past its horizon). */
  private bind(record: LogRecord & { kind: 'insert' | 'retract' }, live: boolean): void {
    const content = { ...record, kind: 'insert' as const };
    const rest = (this.live.get(record.id) ?? []).filter((k) => k.record.key !== record.key || k.record.side !== record.side);
    this.live.set(record.id, [...rest, { record: content, live }]);
  }

  /**
   * A row retracted (`-D`, `-U`, `d`, `before`): its record. A row with only
   * its key columns is the live row they name (SJ102 if none is, or more than one).
   */
  retract(row: Record<string, unknown>, pointer: string): LogRecord {
    if (!this.remember || this.hasContent(row)) {
      const record: LogRecord = {
        kind: 'retract',
        key: this.text(row, 'key', pointer),
        side: this.side(row, pointer),
        id: this.text(row, 'id', pointer),
        ts: this.time(row, 'ts', pointer),
        start: this.time(row, 'start', pointer),
        end: this.time(row, 'end', pointer),
      };
      if (this.remember && this.binds(record)) {
        const bound = this.boundRow(record.key, record.side, record.id);
        // J6: a retraction of the bound content makes the row a tombstone; before its insert it binds one.
        // Of other content it is a conflict (J2) and changes nothing.
        if (bound === undefined) this.bind(record, false);
        else if (bound.record.ts === record.ts && bound.record.start === record.start && bound.record.end === record.end)
          bound.live = false;
      }
      return record;
    }
    const id = this.text(row, 'id', pointer);
    const key = row[this.column('key')];
    const side = row[this.column('side')];
    const wantKey = key === undefined || key === null ? undefined : this.text(row, 'key', pointer);
    const wantSide = side === undefined || side === null ? undefined : this.side(row, pointer);
    const bound = (this.live.get(id) ?? []).filter(
      (k) => (wantKey === undefined || k.record.key === wantKey) && (wantSide === undefined || k.record.side === wantSide),
    );
    // The live row they name; else a tombstone they name (the retraction is then a duplicate, J7).
    const liveOnes = bound.filter((k) => k.live);
    const found = liveOnes.length > 0 ? liveOnes : bound;
    const named = `the row ${JSON.stringify([wantKey ?? '?', wantSide ?? '?', id])} (key, side, id)`;
    if (found.length === 0 && wantKey !== undefined && wantSide !== undefined) {
      const late = this.lateRetraction(wantKey, wantSide, id);
      if (late !== undefined) return late;
    }
    if (found.length === 0)
      throw problemAt(
        pointer,
        `holds only the row's key columns, and ${named} is no row the log bound before this line: its content is unknown`,
      );
    if (found.length > 1)
      throw problemAt(
        pointer,
        `holds only the row's key columns, and ${named} names ${found.length} ${liveOnes.length > 0 ? 'live rows' : 'tombstones'}`,
      );
    const known = found[0] as KnownRow;
    this.keyOnly++;
    const retraction: LogRecord = { ...known.record, kind: 'retract' };
    if (this.binds(retraction)) known.live = false;
    return retraction;
  }

  /** The join config, once known: rows past their horizon (J8) are then forgotten. */
  useConfig(config: JoinConfig): void {
    this.config = config;
  }

  /** A watermark read from the log (J4): the global watermark decides which remembered rows are past their horizon. */
  noteWatermark(side: string, wm: number): void {
    if (side !== 'L' && side !== 'R') return;
    const was = this.wm[side];
    if (wm >= TIME_MIN && wm <= TIME_MAX && (was === null || wm > was)) this.wm[side] = wm;
  }

  /**
   * Forgets the remembered rows past their horizon (J8: the global watermark
   * beyond end + L + D), now and then: once as many rows were inserted as
   * are remembered, so that the sweeps cost O(1) a row.
   */
  private sweep(): void {
    if (this.config === undefined || ++this.sinceSweep < Math.max(1024, this.live.size)) return;
    this.sinceSweep = 0;
    if (globalWatermark(this.wm) === null) return;
    const past = (k: KnownRow): boolean => this.pastHorizon(k);
    for (const [id, rows] of this.live) {
      if (!rows.some(past)) continue;
      const rest = rows.filter((k) => !past(k));
      if (rest.length === 0) this.live.delete(id);
      else this.live.set(id, rest);
      this.swept = true;
    }
  }

  /**
   * A key-only retraction of a row no longer remembered, once rows have been
   * forgotten past their horizon: the retraction of such a row is late
   * whatever its content (J6: gw > end + L + D), so it is read as a
   * retraction with an end that far back. Undefined when nothing was forgotten.
   */
  private lateRetraction(key: string, side: string, id: string): LogRecord | undefined {
    const gw = globalWatermark(this.wm);
    if (!this.swept || this.config === undefined || gw === null) return undefined;
    const end = gw - this.config.allowedLateness - this.config.maxIntervalLength - 1;
    this.lateKeyOnly++;
    return { kind: 'retract', key, side, id, ts: end, start: end, end };
  }

  /** The identity (key, side, id) a row names, for an update whose `before` is absent. */
  identityOnly(row: Record<string, unknown>): Record<string, unknown> {
    return {
      [this.column('key')]: row[this.column('key')],
      [this.column('side')]: row[this.column('side')],
      [this.column('id')]: row[this.column('id')],
    };
  }

  /** A match row: its match id (given, or of its key and row ids, J3); SJ102 when both are given and disagree. */
  match(row: Record<string, unknown>, pointer: string): string {
    const has = (f: ColumnField): boolean => {
      const v = row[this.column(f)];
      return v !== undefined && v !== null;
    };
    const given = has('match') ? this.text(row, 'match', pointer) : undefined;
    const parts =
      (has('key') && has('left') && has('right')) || given === undefined
        ? matchId(this.text(row, 'key', pointer), this.text(row, 'left', pointer), this.text(row, 'right', pointer))
        : undefined;
    if (given !== undefined && parts !== undefined && given !== parts)
      throw problemAt(
        `${pointer}/${escapePointer(this.column('match'))}`,
        `the match id "${given}" is not the id of the row's key and row ids ("${parts}"); which one the sink holds is unknown`,
      );
    return (given ?? parts) as string;
  }

  /** What the reader did that the user should know. */
  notes(): string[] {
    const out: string[] = [];
    const t = this.times.note();
    if (t !== undefined) out.push(t);
    if (this.lateKeyOnly > 0)
      out.push(
        `${this.lateKeyOnly} retraction(s) named only the key columns of a row past its horizon (J8), no longer held: each read as a late retraction (J6)`,
      );
    if (this.keyOnly > 0) out.push(`${this.keyOnly} retraction(s) named only the row's key columns; each retracted the live row they name`);
    return out;
  }
}
