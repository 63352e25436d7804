// The line formats of a recorded history (docs/audit.md), one JSON value per
// line, each with its JSON Schema in spec/schemas/:
//
// - `streamjoin` (history-streamjoin.schema.json): log lines are SPEC J1
//   records, after an optional header with the join config; sink lines are
//   `{op, match, key?, epoch?, seq?}`;
// - `flink` (history-flink.schema.json): a changelog with Flink's row kinds
//   `+I`, `-U`, `+U`, `-D` over rows (log) or match rows (sink);
// - `debezium` (history-debezium.schema.json): envelopes with `op` `c`, `r`,
//   `u`, `d` and `before`/`after`, bare or wrapped in `payload`.
//
// Every format takes watermark lines `{"watermark": {side, wm}}` in its log
// (the streamjoin format's are records) and an optional last sink line
// `{"end": {complete, why?}}`. A line that is not JSON is SJ101, with its
// column; one that is JSON but not the format is SJ102, with the JSON
// pointer of the field.
import { describeSchemaError, matchId, parseMatchId, schemaValidator } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, RowRecord } from '../../spec/index.ts';

export const HISTORY_FORMATS = ['streamjoin', 'flink', 'debezium'] as const;
export type HistoryFormat = (typeof HISTORY_FORMATS)[number];

/** `format` of the optional first line of a streamjoin log. */
export const HISTORY_LOG_FORMAT = 'streamjoin/history-log@1';

/** A line that is not JSON (SJ101) or not of its format (SJ102). */
export class LineProblem extends Error {
  readonly code: 'SJ101' | 'SJ102';
  readonly column: number | undefined;
  constructor(code: 'SJ101' | 'SJ102', message: string, column?: number) {
    super(message);
    this.name = 'LineProblem';
    this.code = code;
    this.column = column;
  }
}

/** One change the sink applied. */
export interface SinkChange {
  readonly op: 'insert' | 'retract';
  readonly match: string;
  /** The writer's key, when recorded. */
  readonly key?: string;
  readonly epoch?: number;
  readonly seq?: number;
  /** The line's signed multiplicity change (`--sink-model diff`); absent: +1 for an insert, −1 for a retraction. */
  readonly diff?: number;
  /** Set when the line names a match inconsistently (a match id and key/left/right that disagree). */
  readonly idProblem?: string;
}

/** A line of a log: a record, or the config header. (Records are handed on as parsed, with no wrapper: there are millions.) */
export type LogItem = LogRecord | ConfigItem;
export interface ConfigItem {
  readonly kind: 'config';
  readonly config: JoinConfig;
}

/** A line of a sink: a change (as parsed, for the streamjoin format), or its end line. */
export type SinkItem = SinkChange | EndItem;
export interface EndItem {
  readonly kind: 'end';
  readonly complete: boolean;
  readonly why?: string;
}

export const isEnd = (item: SinkItem): item is EndItem => 'kind' in item && item.kind === 'end';

/** The readers of one format: each turns one parsed line into items (a Debezium update is two). */
export interface LineReaders {
  log(value: unknown, emit: (item: LogItem) => void): void;
  sink(value: unknown, emit: (item: SinkItem) => void): void;
}

/** JSON.parse of one line; SJ101 with the column where it fails. */
export function parseLine(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const pos = /position (\d+)/.exec(message)?.[1];
    const detail = message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
    throw new LineProblem('SJ101', detail, pos === undefined ? undefined : Number(pos) + 1);
  }
}

/** Validates against a schema (or one of its `$defs`); SJ102 naming the field. */
function check(schema: string, value: unknown): void {
  const validate = schemaValidator(schema);
  if (validate(value)) return;
  const first = validate.errors?.[0];
  throw new LineProblem('SJ102', first ? describeSchemaError(first) : '(line) is not of this format');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function endItem(value: Record<string, unknown>): SinkItem {
  check('history-streamjoin#/$defs/HistoryEnd', value);
  const end = value['end'] as { complete: boolean; why?: string };
  return end.why === undefined ? { kind: 'end', complete: end.complete } : { kind: 'end', complete: end.complete, why: end.why };
}

function watermarkItem(value: Record<string, unknown>): LogRecord {
  check('history-streamjoin#/$defs/HistoryWatermark', value);
  const w = value['watermark'] as { side: string; wm: number };
  return { kind: 'watermark', side: w.side, wm: w.wm };
}

function rowRecord(kind: 'insert' | 'retract', row: Record<string, unknown>): LogRecord {
  const { key, side, id, ts, start, end } = row as unknown as RowRecord;
  return { kind, key, side, id, ts, start, end };
}

/** The match a match row names: its id, or the id of its key and row ids (SPEC J3); both must agree. */
function matchOf(row: Record<string, unknown>, meta: Record<string, unknown>, op: 'insert' | 'retract'): SinkChange {
  const given = typeof row['match'] === 'string' ? row['match'] : undefined;
  const parts =
    typeof row['key'] === 'string' && typeof row['left'] === 'string' && typeof row['right'] === 'string'
      ? matchId(row['key'], row['left'], row['right'])
      : undefined;
  const match = given ?? (parts as string);
  const change: { -readonly [K in keyof SinkChange]: SinkChange[K] } = { op, match };
  if (given !== undefined && parts !== undefined && given !== parts)
    change.idProblem = `the row's match id "${given}" is not the id of its key and row ids ("${parts}")`;
  if (typeof meta['key'] === 'string') change.key = meta['key'];
  if (typeof meta['epoch'] === 'number') change.epoch = meta['epoch'];
  if (typeof meta['seq'] === 'number') change.seq = meta['seq'];
  if (typeof meta['diff'] === 'number') change.diff = meta['diff'];
  return change;
}

const streamjoinReaders: LineReaders = {
  log(value, emit) {
    if (isObject(value) && 'watermark' in value) return emit(watermarkItem(value));
    if (isObject(value) && 'format' in value) {
      check('history-streamjoin#/$defs/HistoryLogHeader', value);
      emit({ kind: 'config', config: value['config'] as JoinConfig });
      return;
    }
    check('record', value);
    emit(value as LogRecord);
  },
  sink(value, emit) {
    if (isObject(value) && 'end' in value) return emit(endItem(value));
    check('history-streamjoin#/$defs/HistorySinkChange', value);
    emit(value as unknown as SinkChange);
  },
};

const flinkReaders: LineReaders = {
  log(value, emit) {
    if (isObject(value) && 'watermark' in value) return emit(watermarkItem(value));
    check('history-flink#/$defs/FlinkLogLine', value);
    const line = value as { op: string; data: Record<string, unknown> };
    emit(rowRecord(line.op === '+I' || line.op === '+U' ? 'insert' : 'retract', line.data));
  },
  sink(value, emit) {
    if (isObject(value) && 'end' in value) return emit(endItem(value));
    check('history-flink#/$defs/FlinkSinkLine', value);
    const line = value as { op: string; data: Record<string, unknown> };
    emit(matchOf(line.data, line, line.op === '+I' || line.op === '+U' ? 'insert' : 'retract'));
  },
};

/** A Debezium envelope, bare or wrapped as `{schema, payload}`. */
function envelope(value: unknown): unknown {
  return isObject(value) && 'payload' in value && !('op' in value) ? value['payload'] : value;
}

/** The row an envelope's side holds, or SJ102 if the op needs it and it is absent. */
function side(line: Record<string, unknown>, name: 'before' | 'after'): Record<string, unknown> {
  const row = line[name];
  if (!isObject(row)) throw new LineProblem('SJ102', `/${name} must be an object for op "${String(line['op'])}"`);
  return row;
}

const debeziumReaders: LineReaders = {
  log(value, emit) {
    const line = envelope(value);
    if (isObject(line) && 'watermark' in line) return emit(watermarkItem(line));
    check('history-debezium#/$defs/DebeziumLogLine', line);
    const e = line as Record<string, unknown>;
    const op = e['op'];
    if (op === 'd' || op === 'u') emit(rowRecord('retract', side(e, 'before')));
    if (op === 'c' || op === 'r' || op === 'u') emit(rowRecord('insert', side(e, 'after')));
  },
  sink(value, emit) {
    const line = envelope(value);
    if (isObject(line) && 'end' in line) return emit(endItem(line));
    check('history-debezium#/$defs/DebeziumSinkLine', line);
    const e = line as Record<string, unknown>;
    const op = e['op'];
    if (op === 'd' || op === 'u') emit(matchOf(side(e, 'before'), e, 'retract'));
    if (op === 'c' || op === 'r' || op === 'u') emit(matchOf(side(e, 'after'), e, 'insert'));
  },
};

export function readersOf(format: HistoryFormat): LineReaders {
  return format === 'streamjoin' ? streamjoinReaders : format === 'flink' ? flinkReaders : debeziumReaders;
}

/**
 * The format a parsed line shows, if it shows one: streamjoin records and
 * changes, Flink row kinds, Debezium envelopes. Watermark and end lines are
 * in every format and tell nothing.
 */
export function formatOfLine(value: unknown): HistoryFormat | undefined {
  const line = envelope(value);
  if (!isObject(line)) return undefined;
  if ('kind' in line || line['format'] === HISTORY_LOG_FORMAT) return 'streamjoin';
  const op = line['op'];
  if (op === 'insert' || op === 'retract') return 'streamjoin';
  if (op === '+I' || op === '-U' || op === '+U' || op === '-D') return 'flink';
  if (op === 'c' || op === 'r' || op === 'u' || op === 'd') return 'debezium';
  return undefined;
}

/** A log record as one line of `format` (what `audit --example --format` writes). */
export function logLineAs(format: HistoryFormat, record: LogRecord): string {
  if (format === 'streamjoin') return JSON.stringify(record);
  if (record.kind === 'watermark') return JSON.stringify({ watermark: { side: record.side, wm: record.wm } });
  const { key, side, id, ts, start, end } = record;
  const row = { key, side, id, ts, start, end };
  if (format === 'flink') return JSON.stringify({ op: record.kind === 'insert' ? '+I' : '-D', data: row });
  return JSON.stringify(
    record.kind === 'insert' ? { op: 'c', before: null, after: row, ts_ms: ts } : { op: 'd', before: row, after: null, ts_ms: ts },
  );
}

/** A sink change as one line of `format`. */
export function sinkLineAs(format: HistoryFormat, change: SinkChange): string {
  if (format === 'streamjoin') return JSON.stringify(change);
  const parts = parseMatchId(change.match);
  const row = parts === undefined ? { match: change.match } : { match: change.match, ...parts };
  const meta = {
    ...(change.key === undefined ? {} : { key: change.key }),
    ...(change.epoch === undefined ? {} : { epoch: change.epoch }),
    ...(change.seq === undefined ? {} : { seq: change.seq }),
  };
  if (format === 'flink') return JSON.stringify({ op: change.op === 'insert' ? '+I' : '-D', data: row, ...meta });
  return JSON.stringify(
    change.op === 'insert' ? { op: 'c', before: null, after: row, ...meta } : { op: 'd', before: row, after: null, ...meta },
  );
}
