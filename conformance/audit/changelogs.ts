// Changelog formats read as Flink and the CDC tools write them (no schema
// of their own here; docs/audit.md shows each):
//
// - `canal` (canal-json): `{"data": [rows], "old": [changed columns], "type":
//   "INSERT" | "UPDATE" | "DELETE", "isDdl": false, ...}`; an UPDATE's old
//   row is its new row with the `old` columns put back. Canal writes every
//   value as a string: numbers arrive as decimal text, which the row reader
//   takes. DDL lines name no row and are skipped.
// - `maxwell` (maxwell-json): `{"type": "insert" | "update" | "delete" |
//   "bootstrap-insert", "data": row, "old": changed columns, "database",
//   "table", ...}`; other types (bootstrap-start, DDL) are skipped.
// - `flink-print`: the print connector's lines, `+I[u1, L, a, 1, 0, 2]`, with
//   an optional `identifier> ` or `task> ` prefix; the fields are positional,
//   in the mapping's `order` or, by default, key, side, id, ts, start, end
//   (log) and key, left, right (sink; match alone with one field).
//
// Watermark and end lines are JSON lines, as in every format.
import type { ReadFormat } from './formats.ts';
import { type LogItem, type LineReaders, type SinkItem, endItem, isObject, rowKind, sinkChange, watermarkItem } from './lineItems.ts';
import { LineProblem, parseLine, problemAt } from './jsonLine.ts';
import type { ColumnField, RowReader } from './columns.ts';

/** A line of the print connector, as parsed: its row kind and its fields' texts. */
interface PrintedRow {
  readonly printed: string;
  readonly fields: readonly (string | null)[];
}

const PRINTED = /^(?:[^[{]*?> )?([+-][IUD])\[(.*)\]$/;

/** Whether a line's text is a printed row (`+I[...]`, perhaps after a `name> ` prefix). */
export function printedLine(text: string): boolean {
  return PRINTED.test(text);
}

const isPrinted = (v: unknown): v is PrintedRow => isObject(v) && typeof v['printed'] === 'string';

/** A printed line's row kind and fields; JSON lines (watermarks, the end line) as JSON. */
function parsePrinted(text: string): unknown {
  const m = PRINTED.exec(text);
  if (m === null) {
    if (text.trimStart().startsWith('{')) return parseLine(text);
    throw new LineProblem('SJ101', "not a line of Flink's print connector (+I[field, ...]) nor a JSON watermark or end line", 1);
  }
  const inner = m[2] as string;
  const fields = inner === '' ? [] : inner.split(', ').map((f) => (f === 'null' ? null : f));
  return { printed: m[1] as string, fields } satisfies PrintedRow;
}

/** A printed row as an object of the user's columns. */
function printedObject(row: PrintedRow, order: readonly string[]): Record<string, unknown> {
  if (row.fields.length !== order.length)
    throw problemAt(
      '',
      `the row has ${row.fields.length} field(s), the order names ${order.length} (${order.join(', ')}): give the order with --columns order=...`,
    );
  const out: Record<string, unknown> = {};
  for (const [i, column] of order.entries()) out[column] = row.fields[i];
  return out;
}

function printReaders(rows: RowReader): LineReaders {
  const columns = (fields: readonly ColumnField[]): string[] => fields.map((f) => rows.column(f));
  return {
    parse: parsePrinted,
    log(value, emit: (item: LogItem) => void) {
      if (!isPrinted(value)) {
        if (isObject(value) && 'watermark' in value) return emit(watermarkItem(value, rows));
        throw problemAt('', 'a JSON line of a printed log is a watermark line');
      }
      const row = printedObject(value, rows.order ?? columns(['key', 'side', 'id', 'ts', 'start', 'end']));
      emit(rowKind(value.printed, '') === 'insert' ? rows.insert(row, '') : rows.retract(row, ''));
    },
    sink(value, emit: (item: SinkItem) => void) {
      if (!isPrinted(value)) {
        if (isObject(value) && 'end' in value) return emit(endItem(value));
        throw problemAt('', 'a JSON line of a printed sink is the end line');
      }
      const order = rows.order ?? (value.fields.length === 1 ? columns(['match']) : columns(['key', 'left', 'right']));
      emit(sinkChange(rowKind(value.printed, ''), rows.match(printedObject(value, order), ''), {}));
    },
    notes: () => rows.notes(),
    useConfig: (config) => rows.useConfig(config),
  };
}

/** The rows of a canal or maxwell line and what each does: [insert or retract, row, pointer]. */
type RowChange = readonly ['insert' | 'retract', Record<string, unknown>, string];

const rowAt = (v: unknown, pointer: string): Record<string, unknown> => {
  if (!isObject(v)) throw problemAt(pointer, 'a row must be an object');
  return v;
};

/** A canal-json line's changes, or undefined for a line that names no row change (DDL). */
function canalChanges(line: Record<string, unknown>): RowChange[] | undefined {
  const type = line['type'];
  if (line['isDdl'] === true || (type !== 'INSERT' && type !== 'UPDATE' && type !== 'DELETE')) return undefined;
  const data = line['data'];
  if (!Array.isArray(data)) throw problemAt('/data', 'a canal-json line has its rows in "data", a list');
  const old = line['old'];
  const out: RowChange[] = [];
  for (const [i, d] of data.entries()) {
    const row = rowAt(d, `/data/${i}`);
    if (type === 'INSERT') out.push(['insert', row, `/data/${i}`]);
    else if (type === 'DELETE') out.push(['retract', row, `/data/${i}`]);
    else {
      // The old row: the new one with the columns that changed put back.
      const changed = Array.isArray(old) ? old[i] : undefined;
      const before = changed === undefined || changed === null ? row : { ...row, ...rowAt(changed, `/old/${i}`) };
      out.push(['retract', before, `/old/${i}`], ['insert', row, `/data/${i}`]);
    }
  }
  return out;
}

/** A maxwell-json line's changes, or undefined for a line that names no row change (bootstrap markers, DDL). */
function maxwellChanges(line: Record<string, unknown>): RowChange[] | undefined {
  const type = line['type'];
  if (type !== 'insert' && type !== 'update' && type !== 'delete' && type !== 'bootstrap-insert') return undefined;
  const row = rowAt(line['data'], '/data');
  if (type === 'insert' || type === 'bootstrap-insert') return [['insert', row, '/data']];
  if (type === 'delete') return [['retract', row, '/data']];
  const old = line['old'];
  const before = old === undefined || old === null ? row : { ...row, ...rowAt(old, '/old') };
  return [
    ['retract', before, '/old'],
    ['insert', row, '/data'],
  ];
}

function cdcReaders(format: 'canal' | 'maxwell', rows: RowReader): LineReaders {
  let skipped = 0;
  const changesOf = format === 'canal' ? canalChanges : maxwellChanges;
  const lineOf = (value: unknown): Record<string, unknown> => {
    if (!isObject(value)) throw problemAt('', `a ${format}-json line is an object`);
    return value;
  };
  return {
    parse: parseLine,
    log(value, emit: (item: LogItem) => void) {
      const line = lineOf(value);
      if ('watermark' in line) return emit(watermarkItem(line, rows));
      const changes = changesOf(line);
      if (changes === undefined) {
        skipped++;
        return;
      }
      for (const [kind, row, pointer] of changes) emit(kind === 'insert' ? rows.insert(row, pointer) : rows.retract(row, pointer));
    },
    sink(value, emit: (item: SinkItem) => void) {
      const line = lineOf(value);
      if ('end' in line) return emit(endItem(line));
      const changes = changesOf(line);
      if (changes === undefined) {
        skipped++;
        return;
      }
      const matches = changes.map(([kind, row, pointer]) => [kind, rows.match(row, pointer)] as const);
      for (let i = 0; i < matches.length; i++) {
        const [kind, match] = matches[i] as (typeof matches)[number];
        const next = matches[i + 1];
        // An update that keeps its match (other columns changed) changes no relation.
        if (kind === 'retract' && next !== undefined && next[0] === 'insert' && next[1] === match) {
          i++;
          continue;
        }
        emit(sinkChange(kind, match, line));
      }
    },
    useConfig: (config) => rows.useConfig(config),
    notes() {
      const out = rows.notes();
      if (skipped > 0) out.push(`${skipped} line(s) that name no row change (DDL, bootstrap markers) skipped`);
      return out;
    },
  };
}

/** The readers of the formats of this file. */
export function changelogReaders(format: Exclude<ReadFormat, 'streamjoin' | 'flink' | 'debezium'>, rows: RowReader): LineReaders {
  return format === 'flink-print' ? printReaders(rows) : cdcReaders(format, rows);
}
