// The items a history line turns into (log records, the config header,
// sink changes, the end line), the readers' interface, and what every
// format's readers share: watermark and end lines, the writer's key, epoch
// and seq beside a sink row, Flink's row kinds.
import { InputError, describeSchemaError, schemaValidator } from '../../spec/index.ts';
import type { JoinConfig, LogRecord } from '../../spec/index.ts';
import type { RowReader } from './columns.ts';
import { LineProblem, problemAt } from './jsonLine.ts';

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

/** A sink's end line as its readers meet it: at most one, and the last (SJ102 for any item after it). */
export class SinkEnd {
  /** What the end line said, once met. */
  end: { complete: boolean; why?: string } | undefined;
  private line = 0;
  private readonly sink: string;
  constructor(sink: string) {
    this.sink = sink;
  }
  /** Whether `item` (at `line`) is the end line, which it keeps; throws if the end line came before it. */
  take(item: SinkItem, line: number): item is EndItem {
    if (this.end !== undefined) throw new InputError('SJ102', `${this.sink}:${line}`, `the end line (line ${this.line}) must be the last`);
    if (!isEnd(item)) return false;
    this.end = item.why === undefined ? { complete: item.complete } : { complete: item.complete, why: item.why };
    this.line = line;
    return true;
  }
  /** The end line's line number (0 when there is none). */
  get endLine(): number {
    return this.line;
  }
}

/** The readers of one file in one format: each turns one parsed line into items (an update is two). */
export interface LineReaders {
  /** One line's text as a value (JSON, or a printed row). */
  parse(text: string): unknown;
  log(value: unknown, emit: (item: LogItem) => void, line: number): void;
  sink(value: unknown, emit: (item: SinkItem) => void, line: number): void;
  /** What the reader skipped or resolved that the user should know. */
  notes(): string[];
  /** The join config, once known (the reader may then forget rows past their horizon). */
  useConfig(config: JoinConfig): void;
}

/** Validates against a schema (or one of its `$defs`); SJ102 naming the field. */
export function check(schema: string, value: unknown): void {
  const validate = schemaValidator(schema);
  if (validate(value)) return;
  const first = validate.errors?.[0];
  throw new LineProblem('SJ102', first ? describeSchemaError(first) : '(line) is not of this format', undefined, first?.instancePath);
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function endItem(value: Record<string, unknown>): SinkItem {
  check('history-streamjoin#/$defs/HistoryEnd', value);
  const end = value['end'] as { complete: boolean; why?: string };
  return end.why === undefined ? { kind: 'end', complete: end.complete } : { kind: 'end', complete: end.complete, why: end.why };
}

/** A watermark line of a log of another format, its side through the side table and `wm` read as a time. */
export function watermarkItem(value: Record<string, unknown>, rows: RowReader, pointer = ''): LogRecord {
  const w = value['watermark'];
  const extra = Object.keys(value).find((k) => k !== 'watermark');
  if (extra !== undefined) throw problemAt(pointer, `a watermark line holds only "watermark", not "${extra}"`);
  if (!isObject(w) || typeof w['side'] !== 'string')
    throw problemAt(`${pointer}/watermark`, 'a watermark is {"side": "L" or "R", "wm": time}');
  const side = rows.sideName(w['side']);
  const wm = rows.times.read(w['wm'], `${pointer}/watermark/wm`);
  rows.noteWatermark(side, wm);
  return { kind: 'watermark', side, wm };
}

/** The writer's key, epoch and write sequence number beside a sink line's row (each optional). */
export function sinkChange(op: 'insert' | 'retract', match: string, meta: Record<string, unknown>, pointer = ''): SinkChange {
  const change: { -readonly [K in keyof SinkChange]: SinkChange[K] } = { op, match };
  const key = meta['key'];
  if (typeof key === 'string') change.key = key;
  else if (typeof key === 'number' && Number.isSafeInteger(key)) change.key = String(key);
  else if (key !== undefined && key !== null) throw problemAt(`${pointer}/key`, "the writer's key must be a string or an integer");
  const diff = meta['diff'];
  if (typeof diff === 'number') change.diff = diff;
  else if (diff !== undefined && diff !== null) throw problemAt(`${pointer}/diff`, 'diff must be a number (+1, -1: --sink-model diff)');
  for (const field of ['epoch', 'seq'] as const) {
    const v = meta[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || (field === 'seq' && v < 0))
      throw problemAt(`${pointer}/${field}`, `${field} must be ${field === 'seq' ? 'a non-negative' : 'an'} integer`);
    change[field] = v;
  }
  return change;
}

/** Flink's row kinds, short and long: what each does to its row. */
export const ROW_KINDS: Readonly<Record<string, 'insert' | 'retract'>> = {
  '+I': 'insert',
  '+U': 'insert',
  '-U': 'retract',
  '-D': 'retract',
  INSERT: 'insert',
  UPDATE_AFTER: 'insert',
  UPDATE_BEFORE: 'retract',
  DELETE: 'retract',
};

export function rowKind(op: unknown, pointer: string): 'insert' | 'retract' {
  const kind = typeof op === 'string' ? ROW_KINDS[op] : undefined;
  if (kind === undefined)
    throw problemAt(pointer, `a row kind is one of ${Object.keys(ROW_KINDS).join(', ')}, got ${JSON.stringify(op) ?? 'nothing'}`);
  return kind;
}
