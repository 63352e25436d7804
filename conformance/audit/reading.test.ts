// What audit refuses, and how it says where: the bytes as every command
// reads a document (a BOM dropped, UTF-8 checked with line and column, the
// 16 MiB line bound), a cut gzip named as such, errors with their column,
// the disagreements the docs promise to refuse, and the lines of real
// formats that are read explicitly rather than by accident (Debezium's
// truncate and message events, fields beside the payload, a key-only
// before with no row to name).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../spec/index.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';
import { auditHistory, type AuditOptions, type AuditResult } from './audit.ts';
import { loadColumnMapping } from './columns.ts';
import { parseLine } from './jsonLine.ts';
import { MAX_LINE_BYTES, openLines } from './lines.ts';
import { isoTime, LogTimes } from './times.ts';

const freshDirectory = useTemporaryDirectories('sj-audit-reading-');

const header = '{"format":"streamjoin/history-log@1","config":{"allowedLateness":1,"maxIntervalLength":2}}';
const logLines = [
  header,
  '{"kind":"insert","key":"k","side":"L","id":"a","ts":1,"start":1,"end":1}',
  '{"kind":"insert","key":"k","side":"R","id":"x","ts":1,"start":1,"end":1}',
];
const sinkLines = ['{"op":"insert","match":"k/a/x","key":"k","seq":1}'];

/** Writes the two files (strings or raw bytes) and audits them. */
async function audit(log: string | Buffer, sink: string | Buffer, options: Partial<AuditOptions> = {}): Promise<AuditResult> {
  const dir = freshDirectory();
  writeFileSync(join(dir, 'log.jsonl'), log);
  writeFileSync(join(dir, 'sink.jsonl'), sink);
  return auditHistory({ log: join(dir, 'log.jsonl'), sink: join(dir, 'sink.jsonl'), ...options });
}

async function refusal(p: Promise<unknown>): Promise<InputError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof InputError)) throw new Error(`expected an InputError, got ${String(e)}`);
  return e;
}

const lines = (xs: readonly string[]): string => `${xs.join('\n')}\n`;

describe('the bytes, as every command reads a document', () => {
  it('a UTF-8 byte-order mark is dropped, gzip or not', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const r = await audit(Buffer.concat([bom, Buffer.from(lines(logLines))]), Buffer.concat([bom, Buffer.from(lines(sinkLines))]));
    expect(r.verdict).toBe('valid');
    const gz = await audit(gzipSync(Buffer.concat([bom, Buffer.from(lines(logLines))])), lines(sinkLines));
    expect(gz.verdict).toBe('valid');
  });

  it('lines of files shorter than a byte-order mark, CRLF, and a last line without a newline', async () => {
    const read = async (bytes: string): Promise<{ lines: string[]; unterminated: boolean }> => {
      const path = join(freshDirectory(), 'f');
      writeFileSync(path, bytes);
      const f = openLines(path);
      const lines: string[] = [];
      for (let b = await f.next(); b !== undefined; b = await f.next()) lines.push(...b.lines);
      f.close();
      return { lines, unterminated: f.ending().unterminated };
    };
    expect(await read('\n')).toEqual({ lines: [''], unterminated: false });
    expect(await read('a\n')).toEqual({ lines: ['a'], unterminated: false });
    expect(await read('ab')).toEqual({ lines: ['ab'], unterminated: true });
    expect(await read('\ufeff')).toEqual({ lines: [], unterminated: false });
    expect(await read('\ufeff{}\r\n[]')).toEqual({ lines: ['{}', '[]'], unterminated: true });
  });

  it('a byte that is not UTF-8 is SJ101 at its line and column (never replaced, never a violation)', async () => {
    // Line 3, inside the id string: "x" becomes the byte 0xff.
    const bytes = Buffer.from(lines(logLines));
    const at = bytes.indexOf('"x"') + 1;
    bytes[at] = 0xff;
    const e = await refusal(audit(bytes, lines(sinkLines)));
    expect(e.code).toBe('SJ101');
    expect(e.where).toMatch(/log\.jsonl:3:45$/);
    expect(e.message).toMatch(/byte 0xff is not UTF-8/);
    // In the last line, cut with the file mid-character, it is a cut file, not bad bytes.
    const cut = Buffer.concat([Buffer.from(lines(sinkLines)), Buffer.from('{"op":"insert","match":"k/'), Buffer.from([0xc3])]);
    const r = await audit(lines(logLines), cut);
    expect(r.sink.cut).toBe(true);
    expect(r.verdict).toBe('unknown');
  });

  it(`a line longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB is SJ110`, async () => {
    const long = `{"op":"insert","match":"${'m'.repeat(MAX_LINE_BYTES)}"}`;
    const e = await refusal(audit(lines(logLines), lines([...sinkLines, long])));
    expect(e.code).toBe('SJ110');
    expect(e.where).toMatch(/sink\.jsonl:2:\d+$/);
    // Exactly at the bound it is read (and judged).
    const fits = `{"op":"insert","match":"k/a/${'y'.repeat(MAX_LINE_BYTES - 48)}","key":"k","seq":2}`;
    expect(Buffer.byteLength(fits)).toBeLessThanOrEqual(MAX_LINE_BYTES);
    const r = await audit(lines(logLines), lines([...sinkLines, fits]));
    expect(r.violations.map((v) => v.kind)).toContain('wrong-id');
  }, 60_000);

  it('a gzip stream cut before its end says so: before the header, and after it', async () => {
    const gz = gzipSync(Buffer.from(lines(logLines)));
    const early = await refusal(audit(gz.subarray(0, 12), lines(sinkLines)));
    expect(early.code).toBe('SJ105');
    expect(early.message).toMatch(/cut short \(its gzip stream ends before its end marker\) before its first whole line/);
    // The stream without its trailer (checksum and length): every line is there, the end marker is not.
    const gzAll = gzipSync(Buffer.from(lines([...logLines, '{"kind":"watermark","side":"L","wm":2}'])));
    const r = await audit(gzAll.subarray(0, gzAll.length - 8), lines(sinkLines));
    expect(r.log.cut).toBe(true);
    expect(r.incomplete).toBe('the log file is cut short (its gzip stream ends before its end marker)');
    expect(r.verdict).toBe('unknown');
  });
});

describe('errors say where, by column', () => {
  it('a line that is not JSON: SJ101 at the column of the fault', async () => {
    const e = await refusal(audit(lines([...logLines, '{"kind":"insert","key":"k",}']), lines(sinkLines)));
    expect(e.code).toBe('SJ101');
    expect(e.where).toMatch(/log\.jsonl:4:28$/);
  });

  it('a field of the wrong kind: SJ102 at the column of its value', async () => {
    const log = ['{"op":"c","after":{"key":"k","side":"L","id":"a","ts":1.5,"start":1,"end":1}}'];
    const e = await refusal(audit(lines(log), lines(['{"op":"c","after":{"match":"k/a/x"}}']), { config: await configFile() }));
    expect(e.code).toBe('SJ102');
    expect(e.where).toMatch(/log\.jsonl:1:55$/);
    expect(e.message).toMatch(/a time must be an integer or an ISO-8601 date-time, got 1\.5/);
  });

  it('a match id that disagrees with the key and row ids beside it is refused (which one the sink holds is unknown)', async () => {
    const sink = ['{"op":"+I","data":{"match":"k/a/x","key":"k","left":"a","right":"y"}}'];
    const log = ['{"op":"+I","data":{"key":"k","side":"L","id":"a","ts":1,"start":1,"end":1}}'];
    const e = await refusal(audit(lines(log), lines(sink), { config: await configFile() }));
    expect(e.code).toBe('SJ102');
    expect(e.where).toMatch(/sink\.jsonl:1:28$/);
    expect(e.message).toMatch(/"k\/a\/x" is not the id of the row's key and row ids \("k\/a\/y"\)/);
  });
});

describe("the writer's key against the match's key (J3)", () => {
  it('a write under another key is a wrong id, with sequence numbers or without, the match followed or not', async () => {
    const log = [...logLines, '{"kind":"insert","key":"k","side":"L","id":"b","ts":1,"start":1,"end":1}'];
    // The first write makes the audit read the whole log: k/a/x is followed when the second write names it.
    for (const [first, second] of [
      ['{"op":"insert","match":"k/b/x","key":"k"}', '{"op":"insert","match":"k/a/x","key":"j"}'],
      ['{"op":"insert","match":"k/b/x","key":"k","seq":1}', '{"op":"insert","match":"k/a/x","key":"j","seq":1}'],
      ['{"op":"insert","match":"k/a/x","key":"j"}', '{"op":"insert","match":"k/b/x","key":"k"}'],
    ]) {
      const r = await audit(lines(log), lines([first as string, second as string]));
      expect(r.verdict, `${first} ${second}`).toBe('violation');
      const wrong = r.violations.filter((v) => v.kind === 'wrong-id');
      expect(wrong.map((v) => v.match)).toEqual(['k/a/x']);
      expect(wrong[0]?.message).toMatch(/it is a match of key k, written by key j/);
    }
  });
});

async function configFile(): Promise<string> {
  const path = join(freshDirectory(), 'config.json');
  writeFileSync(path, '{"allowedLateness":1,"maxIntervalLength":2}');
  return path;
}

describe('Debezium lines read explicitly', () => {
  const log = [
    '{"op":"c","before":null,"after":{"key":"k","side":"L","id":"a","ts":1,"start":1,"end":1}}',
    '{"op":"c","before":null,"after":{"key":"k","side":"R","id":"x","ts":1,"start":1,"end":1}}',
  ];
  it('a truncate event is refused with why (it names no rows), never a crash', async () => {
    const e = await refusal(
      audit(lines([...log, '{"op":"t","before":null,"after":null}']), lines(['{"op":"c","after":{"match":"k/a/x"}}']), {
        config: await configFile(),
      }),
    );
    expect(e.code).toBe('SJ102');
    expect(e.where).toMatch(/log\.jsonl:3:7$/);
    expect(e.message).toMatch(/truncate event \(op "t"\) empties the table without naming its rows/);
  });

  it('fields beside the payload are noted, not dropped silently', async () => {
    const sink = ['{"schema":{},"payload":{"op":"c","before":null,"after":{"match":"k/a/x"}},"seq":1,"key":"k"}'];
    const r = await audit(lines(log), lines(sink), { config: await configFile() });
    expect(r.verdict).toBe('valid');
    expect(r.sink.sequence).toBe(false);
    expect(r.sink.notes).toEqual([
      '1 line(s) (the first: line 1) hold "seq", "key" beside "payload", which are not read: put key, epoch and seq in the payload, beside "op"',
    ]);
  });

  it('a before with only the key columns and no live row to name is refused at it', async () => {
    const del = '{"op":"d","before":{"key":"k","side":"L","id":"b","ts":null,"start":null,"end":null},"after":null}';
    const e = await refusal(audit(lines([...log, del]), lines(['{"op":"c","after":{"match":"k/a/x"}}']), { config: await configFile() }));
    expect(e.code).toBe('SJ102');
    expect(e.where).toMatch(/log\.jsonl:3:20$/);
    expect(e.message).toMatch(/holds only the row's key columns, and the row \["k","L","b"\] \(key, side, id\) is no row the log bound/);
  });

  it('a key-only before names the content the join holds for the row (J2: the first content wins; J6: a tombstone), whatever conflicting lines came before', async () => {
    const keyOnlyA = '{"op":"d","before":{"key":"k","side":"L","id":"a","ts":null,"start":null,"end":null},"after":null}';
    const other = '{"key":"k","side":"L","id":"a","ts":2,"start":2,"end":2}';
    const sink = ['{"op":"c","after":{"match":"k/a/x"}}', '{"op":"d","before":{"match":"k/a/x"}}'];
    for (const [name, before] of [
      ['a conflicting insert (J2: rejected, the row keeps its first content)', [`{"op":"c","before":null,"after":${other}}`]],
      ['a conflicting delete (J2: rejected, the row stays live)', [`{"op":"d","before":${other},"after":null}`]],
      [
        'a conflicting update (its before a conflict, its after a duplicate-identity insert)',
        [`{"op":"u","before":${other},"after":${other}}`],
      ],
      ['the same key-only delete once before (the second names the tombstone: a duplicate, J7)', [keyOnlyA]],
    ] as const) {
      const r = await audit(lines([...log, ...before, keyOnlyA]), lines(sink), { config: await configFile() });
      expect(r.verdict, name).toBe('valid');
      expect(r.log.notes.join(' '), name).toMatch(/retraction\(s\) named only the row's key columns/);
    }
  });

  it('rows past their horizon are forgotten (memory that retention bounds); a key-only delete of one is read as the late retraction it is (J6)', async () => {
    const rows: string[] = [];
    for (let i = 0; i < 1200; i++) {
      rows.push(`{"op":"c","before":null,"after":{"key":"k","side":"L","id":"r${i}","ts":${i},"start":${i},"end":${i}}}`);
      rows.push(`{"watermark":{"side":"L","wm":${i}}}`, `{"watermark":{"side":"R","wm":${i}}}`);
    }
    const keyOnly = (id: string): string =>
      `{"op":"d","before":{"key":"k","side":"L","id":"${id}","ts":null,"start":null,"end":null},"after":null}`;
    rows.push(
      '{"op":"c","before":null,"after":{"key":"k","side":"R","id":"x","ts":1199,"start":1199,"end":1199}}',
      keyOnly('r0'),
      keyOnly('r1199'),
    );
    const sink = ['{"op":"c","after":{"match":"k/r1199/x"}}', '{"op":"d","before":{"match":"k/r1199/x"}}'];
    const r = await audit(lines(rows), lines(sink), { config: await configFile() });
    expect(r.verdict).toBe('valid');
    expect([r.stats.oracleInserts, r.stats.oracleRetracts]).toEqual([1, 1]);
    expect(r.log.notes).toEqual([
      '1 retraction(s) named only the key columns of a row past its horizon (J8), no longer held: each read as a late retraction (J6)',
      "1 retraction(s) named only the row's key columns; each retracted the live row they name",
    ]);
  });

  it('an update with no before (default replica identity) retracts the row its after names', async () => {
    const update = '{"op":"u","before":null,"after":{"key":"k","side":"R","id":"x","ts":5,"start":5,"end":5}}';
    // x moves to 5: k/a/x is retracted, and x (now at 5) matches nothing.
    const sink = ['{"op":"c","after":{"match":"k/a/x"}}', '{"op":"d","before":{"match":"k/a/x"}}'];
    const r = await audit(lines([...log, update]), lines(sink), { config: await configFile() });
    expect(r.log.records).toBe(4);
    expect(r.log.notes).toEqual(["1 retraction(s) named only the row's key columns; each retracted the live row they name"]);
    // Read as a fresh insert of x instead, the retraction of k/a/x would be extra (J9 aside), and the match would stand.
    expect(r.properties.find((p) => p.property === 'JoinCorrect')?.verdict).not.toBe('violated');
  });
});

describe('values as pipelines write them', () => {
  it('integers beyond 2^53 are read as their decimal text, anywhere outside strings', () => {
    expect(parseLine('{"id":9007199254740993,"s":"12345678901234567890","n":-12345678901234567890,"f":1.5,"e":1e300}')).toEqual({
      id: '9007199254740993',
      s: '12345678901234567890',
      n: '-12345678901234567890',
      f: 1.5,
      e: 1e300,
    });
    expect(parseLine('{"a":"\\"9007199254740993","b":9007199254740991}')).toEqual({ a: '"9007199254740993', b: 9007199254740991 });
  });

  it('property (J1 times, J3 ids, read exactly): every integer literal is its exact value, beyond 2^53 its decimal text; strings and other numbers as JSON.parse reads them', () => {
    type Tree = bigint | string | number | boolean | null | Tree[] | { [k: string]: Tree };
    const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small' },
        fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
        fc.string({ unit: fc.constantFrom('9', '0', '"', '\\', '-', 'e', '.', 'x', ' ') }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('tree'), { maxLength: 4 }),
        fc.dictionary(fc.string({ maxLength: 3 }), tie('tree'), { maxKeys: 4 }),
      ),
    }));
    const text = (t: Tree): string =>
      typeof t === 'bigint'
        ? t.toString()
        : Array.isArray(t)
          ? `[${t.map(text).join(',')}]`
          : t !== null && typeof t === 'object'
            ? `{${Object.entries(t)
                .map(([k, v]) => `${JSON.stringify(k)}:${text(v)}`)
                .join(',')}}`
            : JSON.stringify(t);
    // A double written as an integer literal beyond 2^53 (9007199254740992) is such a literal too: its text.
    const literal = (l: string): unknown => (/^-?\d+$/.test(l) && !Number.isSafeInteger(Number(l)) ? l : (JSON.parse(l) as unknown));
    const expected = (t: Tree): unknown =>
      typeof t === 'bigint'
        ? Number.isSafeInteger(Number(t))
          ? Number(t)
          : t.toString()
        : Array.isArray(t)
          ? t.map(expected)
          : t !== null && typeof t === 'object'
            ? Object.fromEntries(Object.entries(t).map(([k, v]) => [k, expected(v)]))
            : literal(JSON.stringify(t));
    fc.assert(
      fc.property(tree, (t) => {
        expect(parseLine(text(t))).toEqual(expected(t));
      }),
    );
  });

  it('ISO-8601 date-times are exact in their unit, offsets applied; finer than the unit, or without an offset, refused', () => {
    expect(isoTime('2024-12-06T00:00:00.123456Z', 'us')).toBe(1_733_443_200_123_456n);
    expect(isoTime('2024-12-06T02:00:00.123456789+02:00', 'ns')).toBe(1_733_443_200_123_456_789n);
    expect(isoTime('2024-12-06T00:00:00.1234567Z', 'us')).toMatch(/finer than the time unit/);
    expect(isoTime('2024-12-06T00:00:00', 'ms')).toMatch(/not an ISO-8601 date-time with its offset/);
    expect(isoTime('2024-02-30T00:00:00Z', 'ms')).toMatch(/not a date-time of the calendar/);
  });

  it('times beyond 2^50 are taken from the first one, exactly; times in range are as written', () => {
    const t = new LogTimes('ns');
    expect(t.read('1733443200123456789', '/ts')).toBe(0);
    expect(t.read('1733443200123456790', '/ts')).toBe(1);
    expect(t.read('2024-12-06T00:00:00.123456788Z', '/ts')).toBe(-1);
    const plain = new LogTimes();
    expect(plain.read(5, '/ts')).toBe(5);
    expect(plain.note()).toBeUndefined();
  });

  it('a column mapping inline or as a file; an unknown field is refused', () => {
    expect(loadColumnMapping('key=user_id,ts=event_time,side.orders=L,side.payments=R')).toEqual({
      columns: { key: 'user_id', ts: 'event_time' },
      sides: { orders: 'L', payments: 'R' },
    });
    const path = join(freshDirectory(), 'columns.json');
    writeFileSync(path, '{"columns":{"id":"order_id"},"order":["order_id","user_id"]}');
    expect(loadColumnMapping(path)).toEqual({ columns: { id: 'order_id' }, sides: {}, order: ['order_id', 'user_id'] });
    expect(() => loadColumnMapping('colour=blue')).toThrow(/"colour" is not a field/);
  });
});
