// The line formats of a recorded history (docs/audit.md), one value per
// line. Three are written (`audit --example --format`) and have their JSON
// Schema in spec/schemas/:
//
// - `streamjoin` (history-streamjoin.schema.json): log lines are SPEC J1
//   records, after an optional header with the join config; sink lines are
//   `{op, match, key?, epoch?, seq?}`;
// - `flink` (history-flink.schema.json): a changelog with Flink's row kinds
//   `+I`, `-U`, `+U`, `-D` (or their names INSERT, UPDATE_BEFORE,
//   UPDATE_AFTER, DELETE) over rows (log) or match rows (sink), as Flink's
//   changelog-json writes it;
// - `debezium` (history-debezium.schema.json): envelopes with `op` `c`, `r`,
//   `u`, `d` and `before`/`after`, bare or wrapped in `payload`, as Kafka
//   Connect, Debezium Server and Flink's debezium-json write them.
//
// Three more are read as Flink and the CDC tools write them
// (changelogs.ts): `canal` (canal-json), `maxwell` (maxwell-json) and
// `flink-print` (the print connector's `+I[...]` lines).
//
// Rows are read under the user's column names and times as pipelines write
// them (columns.ts, times.ts). Every format takes watermark lines
// `{"watermark": {side, wm}}` in its log (the streamjoin format's are
// records) and an optional last sink line `{"end": {complete, why?}}`. A line
// that is not JSON is SJ101, with its column; one that is JSON but not the
// format is SJ102, at the field.
import { parseMatchId } from '../../spec/index.ts';
import type { JoinConfig, LogRecord } from '../../spec/index.ts';
import { changelogReaders, printedLine } from './changelogs.ts';
import { RowReader, type ReadingOptions } from './columns.ts';
import { LineProblem, parseLine, problemAt } from './jsonLine.ts';
import { HISTORY_LOG_FORMAT } from '../adapters/recorder.ts';
import {
  ROW_KINDS,
  isEnd,
  check,
  endItem,
  isObject,
  rowKind,
  sinkChange,
  watermarkItem,
  type LineReaders,
  type SinkChange,
} from './lineItems.ts';

export { HISTORY_LOG_FORMAT, LineProblem, isEnd, parseLine };
export type { ConfigItem, EndItem, LineReaders, LogItem, SinkChange, SinkItem } from './lineItems.ts';

/** The formats `audit --example` writes (each with its JSON Schema). */
export const HISTORY_FORMATS = ['streamjoin', 'flink', 'debezium'] as const;
/** One format `audit --example` writes. */
export type HistoryFormat = (typeof HISTORY_FORMATS)[number];

/** Every format `audit` reads. */
export const READ_FORMATS = [...HISTORY_FORMATS, 'canal', 'maxwell', 'flink-print'] as const;
/** One format `audit` reads. */
export type ReadFormat = (typeof READ_FORMATS)[number];

function streamjoinReaders(rows: RowReader): LineReaders {
  return {
    parse: parseLine,
    log(value, emit) {
      if (isObject(value) && 'watermark' in value) return emit(watermarkItem(value, rows));
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
    notes: () => rows.notes(),
    useConfig: (config) => rows.useConfig(config),
  };
}

function flinkReaders(rows: RowReader): LineReaders {
  /** The row kind and the row of a changelog line. */
  const lineOf = (value: unknown): { kind: 'insert' | 'retract'; data: Record<string, unknown>; line: Record<string, unknown> } => {
    if (!isObject(value) || !isObject(value['data'])) throw problemAt('', 'a Flink changelog line is {"op": row kind, "data": row}');
    return { kind: rowKind(value['op'], '/op'), data: value['data'], line: value };
  };
  return {
    parse: parseLine,
    log(value, emit) {
      if (isObject(value) && 'watermark' in value) return emit(watermarkItem(value, rows));
      const { kind, data } = lineOf(value);
      emit(kind === 'insert' ? rows.insert(data, '/data') : rows.retract(data, '/data'));
    },
    sink(value, emit) {
      if (isObject(value) && 'end' in value) return emit(endItem(value));
      const { kind, data, line } = lineOf(value);
      emit(sinkChange(kind, rows.match(data, '/data'), line));
    },
    notes: () => rows.notes(),
    useConfig: (config) => rows.useConfig(config),
  };
}

/** What a Debezium line holds: an envelope (and where), or a tombstone. */
type Unwrapped = { tombstone: true } | { tombstone: false; line: unknown; pointer: string; outside: string[] };

/**
 * A Debezium line: bare, or as Kafka Connect's JSON converter writes it with
 * schemas on (`{schema, payload}`). A tombstone (`null`, or a null payload:
 * what Kafka keeps after a delete for log compaction) names no change.
 */
function unwrap(value: unknown): Unwrapped {
  if (value === null) return { tombstone: true };
  if (!isObject(value) || !('payload' in value) || 'op' in value) return { tombstone: false, line: value, pointer: '', outside: [] };
  if (value['payload'] === null) return { tombstone: true };
  return {
    tombstone: false,
    line: value['payload'],
    pointer: '/payload',
    outside: Object.keys(value).filter((k) => k !== 'schema' && k !== 'payload'),
  };
}

const DEBEZIUM_OPS = ['c', 'r', 'u', 'd', 't', 'm'];

function debeziumReaders(rows: RowReader): LineReaders {
  let tombstones = 0;
  let messages = 0;
  let sameMatchUpdates = 0;
  const outside = { lines: 0, first: 0, fields: new Set<string>() };
  /** The envelope of a line that names a change, or undefined (a tombstone, a message). */
  const envelopeOf = (value: unknown, line: number): { e: Record<string, unknown>; at: string } | 'watermark' | 'end' | undefined => {
    const u = unwrap(value);
    if (u.tombstone) {
      tombstones++;
      return undefined;
    }
    if (u.outside.length > 0) {
      if (outside.lines++ === 0) outside.first = line;
      for (const f of u.outside) outside.fields.add(f);
    }
    const e = u.line;
    if (isObject(e) && 'watermark' in e) return 'watermark';
    if (isObject(e) && 'end' in e) return 'end';
    if (!isObject(e) || typeof e['op'] !== 'string' || !DEBEZIUM_OPS.includes(e['op']))
      throw problemAt(`${u.pointer}/op`, `a Debezium envelope has "op" ${DEBEZIUM_OPS.map((o) => `"${o}"`).join(', ')}`);
    if (e['op'] === 'm') {
      // A logical decoding message (pg_logical_emit_message): it names no row.
      messages++;
      return undefined;
    }
    if (e['op'] === 't') {
      throw problemAt(
        `${u.pointer}/op`,
        'a truncate event (op "t") empties the table without naming its rows, so which rows or matches it removed is unknown: record deletes instead, or audit the history up to it',
      );
    }
    return { e, at: u.pointer };
  };
  const rowAt = (e: Record<string, unknown>, at: string, side: 'before' | 'after'): Record<string, unknown> => {
    const row = e[side];
    if (!isObject(row)) throw problemAt(`${at}/${side}`, `${side} must be an object for op "${String(e['op'])}"`);
    return row;
  };
  return {
    parse: parseLine,
    log(value, emit, line) {
      const env = envelopeOf(value, line);
      if (env === undefined) return;
      const u = unwrap(value) as { line: Record<string, unknown>; pointer: string };
      if (env === 'watermark') return emit(watermarkItem(u.line, rows, u.pointer));
      if (env === 'end') throw problemAt(u.pointer, 'an end line belongs in the sink');
      const { e, at } = env;
      const op = e['op'];
      if (op === 'd') emit(rows.retract(rowAt(e, at, 'before'), `${at}/before`));
      if (op === 'u') {
        const after = rowAt(e, at, 'after');
        // No before (Postgres's default replica identity on an update): the row the after's key columns name.
        if (isObject(e['before'])) emit(rows.retract(e['before'], `${at}/before`));
        else emit(rows.retract(rows.identityOnly(after), `${at}/after`));
      }
      if (op === 'c' || op === 'r' || op === 'u') emit(rows.insert(rowAt(e, at, 'after'), `${at}/after`));
    },
    sink(value, emit, line) {
      const env = envelopeOf(value, line);
      if (env === undefined) return;
      const u = unwrap(value) as { line: Record<string, unknown>; pointer: string };
      if (env === 'end') return emit(endItem(u.line));
      if (env === 'watermark') throw problemAt(u.pointer, 'a watermark belongs in the log');
      const { e, at } = env;
      const op = e['op'];
      if (op === 'u') {
        const after = rows.match(rowAt(e, at, 'after'), `${at}/after`);
        const before = isObject(e['before']) ? rows.match(e['before'], `${at}/before`) : after;
        // An update of a match row that keeps its match (other columns changed) changes no relation.
        if (before === after) {
          sameMatchUpdates++;
          return;
        }
        emit(sinkChange('retract', before, e, at));
        emit(sinkChange('insert', after, e, at));
        return;
      }
      if (op === 'd') emit(sinkChange('retract', rows.match(rowAt(e, at, 'before'), `${at}/before`), e, at));
      if (op === 'c' || op === 'r') emit(sinkChange('insert', rows.match(rowAt(e, at, 'after'), `${at}/after`), e, at));
    },
    useConfig: (config) => rows.useConfig(config),
    notes() {
      const out = rows.notes();
      if (tombstones > 0) out.push(`${tombstones} tombstone line(s) (null, after a delete) skipped: they name no change`);
      if (messages > 0) out.push(`${messages} message event(s) (op "m") skipped: they name no row`);
      if (sameMatchUpdates > 0) out.push(`${sameMatchUpdates} update(s) (op "u") that keep their match skipped: they change no relation`);
      if (outside.lines > 0)
        out.push(
          `${outside.lines} line(s) (the first: line ${outside.first}) hold ${[...outside.fields].map((f) => `"${f}"`).join(', ')} beside "payload", which are not read: put key, epoch and seq in the payload, beside "op"`,
        );
      return out;
    },
  };
}

/** The readers of one file in `format`, reading rows under `reading` (each file gets its own: they keep state). */
export function readersOf(format: ReadFormat, reading: ReadingOptions = {}): LineReaders {
  const rows = new RowReader(reading, format === 'debezium');
  if (format === 'streamjoin') return streamjoinReaders(rows);
  if (format === 'flink') return flinkReaders(rows);
  if (format === 'debezium') return debeziumReaders(rows);
  return changelogReaders(format, rows);
}

/**
 * The format a line shows, if it shows one: streamjoin records and changes,
 * Flink row kinds, Debezium envelopes, canal and maxwell lines, printed
 * rows. Watermark, end and tombstone lines are in every format (or several)
 * and tell nothing.
 */
export function formatOfLine(text: string): ReadFormat | undefined {
  if (printedLine(text)) return 'flink-print';
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
  const u = unwrap(value);
  if (u.tombstone) return undefined;
  const line = u.line;
  if (!isObject(line)) return undefined;
  if ('kind' in line || line['format'] === HISTORY_LOG_FORMAT) return 'streamjoin';
  const op = line['op'];
  if (op === 'insert' || op === 'retract') return 'streamjoin';
  if (typeof op === 'string' && op in ROW_KINDS) return 'flink';
  if (typeof op === 'string' && DEBEZIUM_OPS.includes(op)) return 'debezium';
  const type = line['type'];
  if (Array.isArray(line['data']) || 'isDdl' in line || 'pkNames' in line) return 'canal';
  if (typeof type === 'string' && ('database' in line || 'table' in line) && (isObject(line['data']) || !('data' in line)))
    return 'maxwell';
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
