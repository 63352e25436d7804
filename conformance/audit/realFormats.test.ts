// streamjoin audit on changelogs shaped as real pipelines write them
// (docs/audit.md "Formats"): one small history, written by hand in each
// format with the quirks that format has in the wild (Kafka Connect's schema
// envelope, tombstones, a delete whose before holds only the key columns,
// microsecond and nanosecond epochs and ISO-8601 times, keys and ids that
// are numbers beyond 2^53, canal's strings, the print connector's positional
// rows), with the sink a correct system writes. Each must audit valid
// (JoinCorrect, ExactlyOnce), and the same sink with one change lost must
// not: a reader that misread a row, a time or an id would fail one or the
// other.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JoinOperator } from '../../impl/index.ts';
import { rowRecord } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, RowRecord } from '../../spec/index.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';
import { auditHistory, type AuditOptions, type AuditResult } from './audit.ts';
import { loadColumnMapping } from './columns.ts';
import type { ReadFormat } from './formats.ts';

const freshDirectory = useTemporaryDirectories('sj-real-formats-');

/** One second, in the unit of the scenario's times. */
const S = 1_000_000;
/** Times are relative to the first row's; each format writes them from its own origin. */
const config: JoinConfig = { allowedLateness: S, maxIntervalLength: 3 * S };

/** An id beyond 2^53: read as a double it would be ...992, another row. */
const BIG_ID = '9007199254740993';

const row = (kind: 'insert' | 'retract', key: string, side: 'L' | 'R', id: string, start: number, end = start): RowRecord =>
  rowRecord(kind, key, side, id, start, end);

/** A step of the scenario: a record, or an update (the retraction of a row and the insertion of its new version, one change in CDC formats). */
type Step = { readonly record: LogRecord } | { readonly update: readonly [RowRecord, RowRecord] };

/**
 * Key 7 (a number in the formats that allow it): L BIG_ID and R x match, L b
 * and R z match; key 8: L c and R y match. Then the watermarks pass 3 s, L
 * BIG_ID is deleted (its match retracted), and L c is updated to L c2
 * (another id: its match is retracted, c2 matches y again).
 */
const scenario: readonly Step[] = [
  { record: row('insert', '7', 'L', BIG_ID, 0, 2 * S) },
  { record: row('insert', '7', 'R', 'x', S) },
  { record: row('insert', '7', 'L', 'b', 4 * S, 5 * S) },
  { record: row('insert', '8', 'R', 'y', 6 * S, 7 * S) },
  { record: row('insert', '7', 'R', 'z', 4 * S) },
  { record: { kind: 'watermark', side: 'L', wm: 3 * S } },
  { record: { kind: 'watermark', side: 'R', wm: 3 * S } },
  { record: row('insert', '8', 'L', 'c', 6 * S) },
  { record: row('retract', '7', 'L', BIG_ID, 0, 2 * S) },
  { update: [row('retract', '8', 'L', 'c', 6 * S), row('insert', '8', 'L', 'c2', 7 * S)] },
];

const records = (steps: readonly Step[]): LogRecord[] => steps.flatMap((s) => ('record' in s ? [s.record] : [...s.update]));

interface Change {
  readonly op: 'insert' | 'retract';
  readonly key: string;
  readonly left: string;
  readonly right: string;
  readonly match: string;
  readonly seq: number;
}

/** The sink a correct system applies: the oracle's changes, one write per record, numbered per key. */
function idealSink(log: readonly LogRecord[]): Change[] {
  const op = new JoinOperator(config);
  const seq = new Map<string, number>();
  const out: Change[] = [];
  for (const r of log) {
    const { changes } = op.apply(r);
    if (changes.length === 0 || r.kind === 'watermark') continue;
    const s = (seq.get(r.key) ?? 0) + 1;
    seq.set(r.key, s);
    for (const c of changes) {
      const [key, left, right] = c.match.split('/') as [string, string, string];
      out.push({ op: c.op, key, left, right, match: c.match, seq: s });
    }
  }
  return out;
}

/** How a format writes a row's times: JSON number literals from an origin (exact, however long), or ISO-8601 text. */
type TimeText = (relative: number) => string;
/** Epochs from `origin`, a scenario microsecond being `num / den` of the format's unit. */
const epochFrom =
  (origin: bigint, num: bigint, den: bigint): TimeText =>
  (t) =>
    (origin + (BigInt(t) * num) / den).toString();
/** ISO-8601 date-times to the nanosecond from an origin in nanoseconds. */
const isoFrom =
  (originNanos: bigint): TimeText =>
  (t) => {
    const nanos = originNanos + BigInt(t) * 1000n;
    const fraction = (nanos % 1_000_000_000n).toString().padStart(9, '0');
    return `"${new Date(Number(nanos / 1_000_000n)).toISOString().slice(0, 19)}.${fraction}Z"`;
  };

/** A JSON value as text, the key as a number literal when it is digits (as a numeric column is written). */
const keyText = (key: string): string => (/^\d+$/.test(key) ? key : JSON.stringify(key));

interface Writer {
  /** The log, as lines of text. */
  log(steps: readonly Step[]): string[];
  /** The sink of these changes, as lines of text. */
  sink(changes: readonly Change[]): string[];
}

const µs = epochFrom(1_733_443_200_123_456n, 1n, 1n);
const ns = epochFrom(1_733_443_200_123_456_789n, 1000n, 1n);
const ms = epochFrom(1_733_443_200_123n, 1n, 1000n);

/** The standard row fields with numbers as literals (Debezium, Flink JSON, maxwell). */
function rowJson(
  r: RowRecord,
  time: TimeText,
  names = { key: 'key', side: 'side', id: 'id', ts: 'ts', start: 'start', end: 'end' },
): string {
  const id = r.id === BIG_ID ? BIG_ID : JSON.stringify(r.id);
  return `{"${names.key}":${keyText(r.key)},"${names.side}":"${r.side}","${names.id}":${id},"${names.ts}":${time(r.ts)},"${names.start}":${time(r.start)},"${names.end}":${time(r.end)}}`;
}
const watermarkJson = (r: LogRecord, time: TimeText): string =>
  r.kind === 'watermark' ? `{"watermark":{"side":"${r.side}","wm":${time(r.wm)}}}` : '';

/** Debezium as Kafka Connect writes it, every other line with schemas on; a delete's before holds only the key columns and a tombstone follows it; a logical message in between. */
const debezium: Writer = {
  log(steps) {
    const out: string[] = [];
    const wrap = (envelope: string): string =>
      out.length % 2 === 0 ? `{"schema":{"type":"struct","name":"shop.rows.Envelope","optional":false},"payload":${envelope}}` : envelope;
    for (const step of steps) {
      if ('update' in step) {
        const [before, after] = step.update;
        out.push(
          wrap(`{"op":"u","before":${rowJson(before, µs)},"after":${rowJson(after, µs)},"source":{"connector":"postgresql"},"ts_ms":1}`),
        );
        continue;
      }
      const r = step.record;
      if (r.kind === 'watermark') out.push(watermarkJson(r, µs));
      else if (r.kind === 'insert')
        out.push(wrap(`{"op":"c","before":null,"after":${rowJson(r, µs)},"source":{"connector":"postgresql"},"ts_ms":1}`));
      else {
        // Postgres's default replica identity: the before of a delete holds the primary key, the other columns null.
        const id = r.id === BIG_ID ? BIG_ID : JSON.stringify(r.id);
        out.push(
          wrap(
            `{"op":"d","before":{"key":${keyText(r.key)},"side":"${r.side}","id":${id},"ts":null,"start":null,"end":null},"after":null}`,
          ),
        );
        out.push('null');
        out.push('{"op":"m","ts_ms":2,"message":{"prefix":"audit","content":"aGk="}}');
      }
    }
    return out;
  },
  sink(changes) {
    const out: string[] = [];
    for (const c of changes) {
      const m = `{"key":${keyText(c.key)},"left":${c.left === BIG_ID ? BIG_ID : JSON.stringify(c.left)},"right":"${c.right}"}`;
      out.push(
        c.op === 'insert'
          ? `{"op":"c","before":null,"after":${m},"key":"${c.key}","seq":${c.seq}}`
          : `{"op":"d","before":${m},"after":null,"key":"${c.key}","seq":${c.seq}}`,
      );
      if (c.op === 'retract') out.push('{"schema":null,"payload":null}');
    }
    return out;
  },
};

/** Flink's changelog-json with long row-kind names, the user's own column names, sides by table name, ISO-8601 times to the nanosecond. */
const flinkColumns = { key: 'user_id', side: 'src', id: 'row_id', ts: 'event_time', start: 'valid_from', end: 'valid_to' };
const iso = isoFrom(1_733_443_200_123_456_789n);
function flinkRow(r: RowRecord): string {
  return rowJson({ ...r, side: r.side === 'L' ? 'orders' : 'payments' } as unknown as RowRecord, iso, flinkColumns);
}
const flink: Writer = {
  log(steps) {
    return steps.flatMap((step) => {
      if ('update' in step)
        return [`{"op":"UPDATE_BEFORE","data":${flinkRow(step.update[0])}}`, `{"op":"UPDATE_AFTER","data":${flinkRow(step.update[1])}}`];
      const r = step.record;
      if (r.kind === 'watermark') return [watermarkJson({ ...r, side: r.side === 'L' ? 'orders' : 'payments' }, iso)];
      return [`{"op":"${r.kind === 'insert' ? 'INSERT' : 'DELETE'}","data":${flinkRow(r)}}`];
    });
  },
  sink(changes) {
    return changes.map(
      (c) => `{"op":"${c.op === 'insert' ? 'INSERT' : 'DELETE'}","data":{"m":${JSON.stringify(c.match)}},"seq":${c.seq},"key":"${c.key}"}`,
    );
  },
};

/** canal-json as canal writes it: every value a string, rows in a list, an UPDATE with the changed columns' old values in old; a DDL line. */
function canalRow(r: RowRecord): string {
  return `{"key":"${r.key}","side":"${r.side}","id":"${r.id}","ts":"${ms(r.ts)}","start":"${ms(r.start)}","end":"${ms(r.end)}"}`;
}
const canalMeta = '"database":"shop","table":"rows","pkNames":["id"],"isDdl":false,"es":1,"ts":2';
const canal: Writer = {
  log(steps) {
    const out = [
      '{"data":null,"database":"shop","table":"rows","isDdl":true,"type":"CREATE","sql":"create table rows (...)","es":1,"ts":2}',
    ];
    for (const step of steps) {
      if ('update' in step) {
        const [before, after] = step.update;
        out.push(
          `{"data":[${canalRow(after)}],"old":[{"id":"${before.id}","ts":"${ms(before.ts)}","start":"${ms(before.start)}","end":"${ms(before.end)}"}],"type":"UPDATE",${canalMeta}}`,
        );
        continue;
      }
      const r = step.record;
      if (r.kind === 'watermark') out.push(watermarkJson(r, (t) => ms(t)));
      else out.push(`{"data":[${canalRow(r)}],"old":null,"type":"${r.kind === 'insert' ? 'INSERT' : 'DELETE'}",${canalMeta}}`);
    }
    return out;
  },
  sink(changes) {
    return changes.map(
      (c) =>
        `{"data":[{"key":"${c.key}","left":"${c.left}","right":"${c.right}"}],"old":null,"type":"${c.op === 'insert' ? 'INSERT' : 'DELETE'}","database":"shop","table":"matches","isDdl":false,"seq":${c.seq},"key":"${c.key}"}`,
    );
  },
};

/** maxwell-json, bootstrap markers included, with microsecond epochs as numbers. */
const maxwellMeta = '"database":"shop","table":"rows","xid":1,"commit":true';
const maxwell: Writer = {
  log(steps) {
    const out = [`{"database":"shop","table":"rows","type":"bootstrap-start","ts":1,"data":{}}`];
    for (const step of steps) {
      if ('update' in step) {
        const [before, after] = step.update;
        out.push(
          `{${maxwellMeta},"type":"update","ts":2,"data":${rowJson(after, µs)},"old":{"id":"${before.id}","ts":${µs(before.ts)},"start":${µs(before.start)},"end":${µs(before.end)}}}`,
        );
        continue;
      }
      const r = step.record;
      if (r.kind === 'watermark') out.push(watermarkJson(r, µs));
      else out.push(`{${maxwellMeta},"type":"${r.kind === 'insert' ? 'bootstrap-insert' : 'delete'}","ts":2,"data":${rowJson(r, µs)}}`);
    }
    return out;
  },
  sink(changes) {
    return changes.map(
      (c) =>
        `{"database":"shop","table":"matches","type":"${c.op === 'insert' ? 'insert' : 'delete'}","ts":2,"data":{"match":"${c.match}"},"seq":${c.seq},"key":"${c.key}"}`,
    );
  },
};

/** The print connector's lines, `N> +I[...]`, nanosecond epochs (beyond 2^53) as digits; watermarks as JSON lines. */
const print: Writer = {
  log(steps) {
    const line = (kind: string, r: RowRecord): string =>
      `2> ${kind}[${r.key}, ${r.side}, ${r.id}, ${ns(r.ts)}, ${ns(r.start)}, ${ns(r.end)}]`;
    return steps.flatMap((step) => {
      if ('update' in step) return [line('-U', step.update[0]), line('+U', step.update[1])];
      const r = step.record;
      if (r.kind === 'watermark') return [watermarkJson(r, ns)];
      return [line(r.kind === 'insert' ? '+I' : '-D', r)];
    });
  },
  sink(changes) {
    return changes.map((c) => `matches> ${c.op === 'insert' ? '+I' : '-D'}[${c.key}, ${c.left}, ${c.right}]`);
  },
};

/** Each format's writer, the options it is audited with, and its unit as a multiple of the scenario's microsecond (L and D scale with it). */
const writers: Record<Exclude<ReadFormat, 'streamjoin'>, { writer: Writer; options: Partial<AuditOptions>; unit: number }> = {
  debezium: { writer: debezium, options: {}, unit: 1 },
  flink: {
    writer: flink,
    options: { reading: { timeUnit: 'ns', columns: { columns: { ...flinkColumns, match: 'm' }, sides: { orders: 'L', payments: 'R' } } } },
    unit: 1000,
  },
  canal: { writer: canal, options: {}, unit: 1 / 1000 },
  maxwell: { writer: maxwell, options: {}, unit: 1 },
  'flink-print': { writer: print, options: {}, unit: 1000 },
};

/** Writes the log and sink lines and the config (L and D times `unit`) and audits them, the formats told from the lines. */
async function auditLines(log: readonly string[], sink: readonly string[], options: Partial<AuditOptions>, unit = 1): Promise<AuditResult> {
  const dir = freshDirectory();
  writeFileSync(join(dir, 'log.jsonl'), `${log.join('\n')}\n`);
  writeFileSync(join(dir, 'sink.jsonl'), `${sink.join('\n')}\n`);
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({ allowedLateness: config.allowedLateness * unit, maxIntervalLength: config.maxIntervalLength * unit }),
  );
  return auditHistory({ log: join(dir, 'log.jsonl'), sink: join(dir, 'sink.jsonl'), config: join(dir, 'config.json'), ...options });
}

const verdicts = (r: AuditResult): string => r.properties.map((p) => `${p.property}:${p.verdict}`).join(' ');

describe('formats as real pipelines write them (JoinCorrect, ExactlyOnce on each)', () => {
  const log = records(scenario);
  const sink = idealSink(log);

  it('the scenario makes and retracts matches (the fixture tests something)', () => {
    expect(sink.filter((c) => c.op === 'insert').map((c) => c.match)).toEqual([`7/${BIG_ID}/x`, '7/b/z', '8/c/y', '8/c2/y']);
    expect(sink.filter((c) => c.op === 'retract').map((c) => c.match)).toEqual([`7/${BIG_ID}/x`, '8/c/y']);
  });

  for (const [format, { writer, options, unit }] of Object.entries(writers)) {
    it(`${format}: the correct sink is valid; with a change lost, it is not`, async () => {
      const valid = await auditLines(writer.log(scenario), writer.sink(sink), options, unit);
      expect(valid.log.format).toBe(format);
      expect(valid.sink.format).toBe(format);
      expect(valid.log.records).toBe(log.length);
      expect(verdicts(valid)).toBe('JoinCorrect:holds ExactlyOnce:holds Fenced:not-checked');
      expect(valid.verdict).toBe('valid');
      // The retraction of 8/c/y lost: the sink ends holding it.
      const lost = sink.filter((c) => !(c.op === 'retract' && c.match === '8/c/y'));
      const broken = await auditLines(writer.log(scenario), writer.sink(lost), options, unit);
      expect(broken.verdict).toBe('violation');
      expect(broken.violations.map((v) => v.match)).toContain('8/c/y');
    });
  }

  it('debezium: tombstones, a message event, a key-only before and microsecond epochs are read, and the report says so', async () => {
    const r = await auditLines(debezium.log(scenario), debezium.sink(sink), {});
    expect(r.verdict).toBe('valid');
    expect(r.log.notes).toEqual([
      "times are read relative to the log's first time, 1733443200123456 (beyond SPEC's 2^50), exactly; L and D are in the same unit",
      "1 retraction(s) named only the row's key columns; each retracted the live row they name",
      '1 tombstone line(s) (null, after a delete) skipped: they name no change',
      '1 message event(s) (op "m") skipped: they name no row',
    ]);
    expect(r.sink.notes).toEqual(['2 tombstone line(s) (null, after a delete) skipped: they name no change']);
  });

  it('one microsecond decides: a row that ends 1 µs before its partner starts makes no match', async () => {
    const apart: Step[] = [{ record: row('insert', 'k', 'L', 'a', 0, 5) }, { record: row('insert', 'k', 'R', 'x', 6) }];
    const touching: Step[] = [{ record: row('insert', 'k', 'L', 'a', 0, 6) }, { record: row('insert', 'k', 'R', 'x', 6) }];
    const claim = debezium.sink(idealSink(records(touching)));
    expect(claim).toHaveLength(1);
    expect((await auditLines(debezium.log(touching), claim, {})).verdict).toBe('valid');
    // Read as doubles in SPEC's range these times would have to be rounded (1.7e15 is beyond 2^50): they are not.
    const r = await auditLines(debezium.log(apart), claim, {});
    expect(r.verdict).toBe('violation');
    expect(r.violations[0]?.kind).toBe('wrong-id');
  });
});

describe('the mapped examples of docs/audit.md (spec/examples/histories/)', () => {
  const examples = join(import.meta.dirname, '..', '..', 'spec', 'examples', 'histories');
  it('Debezium from Postgres (default replica identity, microsecond timestamps, tombstones) and a Flink job printing its sink audit valid', async () => {
    for (const [dir, sink] of [
      ['debezium-postgres', 'sink.jsonl'],
      ['flink-print', 'sink.txt'],
    ] as const) {
      const r = await auditHistory({
        log: join(examples, dir, 'log.jsonl'),
        sink: join(examples, dir, sink),
        config: join(examples, dir, 'config.json'),
        reading: { columns: loadColumnMapping(join(examples, dir, 'columns.json')) },
      });
      expect(verdicts(r), dir).toBe('JoinCorrect:holds ExactlyOnce:holds Fenced:not-checked');
      expect([r.stats.oracleInserts, r.stats.oracleRetracts], dir).toEqual([1, 1]);
    }
  });
});
