// streamjoin audit on hand-made histories: the formats and their schemas,
// each property's edge (the prefix property on its own, a sink ahead of its
// log, matches judged after they were forgotten, ids that are no match),
// what makes a history incomplete, and a corrupt log refused as bad input.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { InputError, matchId, rowRecord, schemaError } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, RowRecord } from '../../spec/index.ts';
import { JoinOperator } from '../../impl/index.ts';
import { slidingLog, slidingLogConfig } from '../generate/slidingLogs.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';
import { auditHistory, type AuditOptions, type AuditResult } from './audit.ts';
import { writeExampleHistory } from './example.ts';
import { HISTORY_FORMATS } from './formats.ts';

const freshDirectory = useTemporaryDirectories('sj-audit-');
const examples = join(import.meta.dirname, '..', '..', 'spec', 'examples', 'histories');

interface SinkLine {
  op: 'insert' | 'retract';
  match: string;
  key?: string;
  epoch?: number;
  seq?: number;
}

/** The sink a correct system applies: the oracle's changes, one write per record, epoch 1, sequence per key. */
function idealSink(config: JoinConfig, log: Iterable<LogRecord>): SinkLine[] {
  const op = new JoinOperator(config);
  const seq = new Map<string, number>();
  const out: SinkLine[] = [];
  for (const r of log) {
    const { changes } = op.apply(r);
    if (changes.length === 0 || r.kind === 'watermark') continue;
    const s = (seq.get(r.key) ?? 0) + 1;
    seq.set(r.key, s);
    for (const c of changes) out.push({ op: c.op, match: c.match, key: r.key, epoch: 1, seq: s });
  }
  return out;
}

const jsonl = (xs: readonly unknown[]): string => xs.map((x) => `${JSON.stringify(x)}\n`).join('');

/** Writes a history (the log with a header) and audits it. */
async function audit(
  config: JoinConfig,
  log: readonly LogRecord[],
  sink: readonly unknown[],
  options: Partial<AuditOptions> = {},
): Promise<AuditResult> {
  const dir = freshDirectory();
  writeFileSync(join(dir, 'log.jsonl'), jsonl([{ format: 'streamjoin/history-log@1', config }, ...log]));
  writeFileSync(join(dir, 'sink.jsonl'), jsonl(sink));
  return auditHistory({ log: join(dir, 'log.jsonl'), sink: join(dir, 'sink.jsonl'), ...options });
}

async function inputError(p: Promise<unknown>): Promise<InputError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof InputError)) throw new Error(`expected an InputError, got ${String(e)}`);
  return e;
}

const config: JoinConfig = { allowedLateness: 1, maxIntervalLength: 2 };
const row = (kind: 'insert' | 'retract', key: string, side: 'L' | 'R', id: string, start: number, end = start): RowRecord =>
  rowRecord(kind, key, side, id, start, end);
const wm = (side: 'L' | 'R', w: number): LogRecord => ({ kind: 'watermark', side, wm: w });
/** Two rows of key k that match, then another pair, then a retraction of the first row. */
const twoMatches: LogRecord[] = [
  row('insert', 'k', 'L', 'a', 1),
  row('insert', 'k', 'R', 'x', 1),
  row('insert', 'k', 'L', 'b', 3),
  row('insert', 'k', 'R', 'y', 3),
  row('retract', 'k', 'L', 'a', 1),
];

describe('history formats (spec/schemas/history-*.schema.json)', () => {
  it('the documented examples in every format are valid histories, and every line is of its schema', async () => {
    for (const format of HISTORY_FORMATS) {
      const dir = join(examples, format);
      const r = await auditHistory({
        log: join(dir, 'log.jsonl'),
        sink: join(dir, 'sink.jsonl'),
        ...(format === 'streamjoin' ? {} : { config: join(dir, 'config.json') }),
      });
      expect(r.verdict, format).toBe('valid');
      expect(r.log.format).toBe(format);
      expect(r.sink.format).toBe(format);
      expect(r.sink).toMatchObject({ changes: 4, writes: 4, sequence: true, epochs: true });
      for (const file of ['log.jsonl', 'sink.jsonl']) {
        for (const line of readFileSync(join(dir, file), 'utf8')
          .split('\n')
          .filter((l) => l !== '')) {
          expect(schemaError(`history-${format}`, JSON.parse(line)), `${format}/${file}: ${line}`).toBeUndefined();
        }
      }
    }
  });

  it('an example history written in each format, plain and gzip, audits the same; damaged, the same violation', async () => {
    const verdicts: string[] = [];
    for (const format of HISTORY_FORMATS) {
      for (const gzip of [false, true]) {
        for (const damage of [undefined, 'duplicate-write'] as const) {
          const dir = freshDirectory();
          const h = writeExampleHistory({ dir, seed: 41, records: 300, format, gzip, ...(damage ? { damage } : {}) });
          expect(h.log.endsWith('.gz')).toBe(gzip);
          const r = await auditHistory({ log: h.log, sink: h.sink, config: h.config });
          expect(r.log.gzip).toBe(gzip);
          verdicts.push(`${damage ?? 'clean'} ${r.verdict} ${r.properties.map((p) => `${p.property}:${p.violations}`).join(',')}`);
        }
      }
    }
    expect(new Set(verdicts.filter((v) => v.startsWith('clean')))).toEqual(new Set(['clean valid JoinCorrect:0,ExactlyOnce:0,Fenced:0']));
    expect(new Set(verdicts.filter((v) => v.startsWith('duplicate-write'))).size).toBe(1);
    expect(verdicts.find((v) => v.startsWith('duplicate-write'))).toMatch(/ violation .*ExactlyOnce:[1-9]/);
  });

  it('a line that is not JSON, or not of the format, is bad input naming file, line and field', async () => {
    const good = idealSink(config, twoMatches);
    const notJson = await inputError(audit(config, twoMatches, [good[0], 'x']));
    expect(notJson.code).toBe('SJ102');
    const e = await inputError(audit(config, twoMatches, [good[0], { op: 'upsert', match: 'k/a/x' }]));
    expect(e.code).toBe('SJ102');
    // The column of the value at fault: `{"op":"upsert"...` has it at column 7.
    expect(e.where).toMatch(/sink\.jsonl:2:7$/);
    expect(e.message).toMatch(/op must be one of "insert", "retract"/);
  });
});

describe('ExactlyOnce', () => {
  it('with sequence numbers, two writes swapped (each applied once, the final relation right) break only the prefix property (P4)', async () => {
    const sink = idealSink(config, twoMatches);
    // Writes 1 and 2 of key k insert k/a/x and k/b/y: the sink applies the second's change first.
    const swapped = [{ ...sink[1], seq: 1 }, { ...sink[0], seq: 2 }, ...sink.slice(2)];
    const r = await audit(config, twoMatches, swapped);
    expect(r.violations.map((v) => [v.property, v.kind])).toEqual([['ExactlyOnce', 'prefix']]);
    // Write 1 (k/b/y) is the oracle's state once k/a/x is retracted (log line 6): write 2 can then be at no later prefix.
    expect(r.violations[0]?.match).toBe('k/a/x');
    expect(r.violations[0]?.witness.filter((w) => w.file === 'sink').map((w) => w.line)).toEqual([2]);
    // Without sequence numbers nothing can tell.
    const plain = swapped.map(({ op, match }) => ({ op, match }));
    expect((await audit(config, twoMatches, plain)).verdict).toBe('valid');
  });

  it('a sink that folds an insert and its retraction into one write is a prefix the log passes through', async () => {
    const log = [
      row('insert', 'k', 'L', 'a', 1),
      row('insert', 'k', 'R', 'x', 1),
      row('retract', 'k', 'L', 'a', 1),
      row('insert', 'k', 'R', 'y', 1),
    ];
    // The oracle inserts k/a/x, retracts it, and makes nothing more; the sink saw only the end state.
    expect((await audit(config, log, [])).verdict).toBe('valid');
    const late = [row('insert', 'k', 'L', 'b', 4), row('insert', 'k', 'R', 'z', 4)];
    const r = await audit(config, [...log, ...late], [{ op: 'insert', match: 'k/b/z', key: 'k', epoch: 1, seq: 1 }]);
    expect(r.verdict).toBe('valid');
  });

  it('a write sequence number that goes back is a write applied twice or out of order', async () => {
    const sink = idealSink(config, twoMatches);
    // Write 2 (k/b/y, never retracted) comes again at the end.
    const r = await audit(config, twoMatches, [...sink, { ...sink[1] }]);
    expect(r.violations.map((v) => v.kind).sort()).toEqual(['applied-twice', 'sequence']);
  });
});

describe('what retention allows: matches judged after they are forgotten', () => {
  const options = { records: 3000, keys: 2, window: 10, seed: 9 };
  const long = [...slidingLog(options)];
  const cfg = slidingLogConfig(options);
  const sink = idealSink(cfg, long);
  const early = sink.find((c) => c.op === 'insert' && !sink.some((d) => d.op === 'retract' && d.match === c.match)) as SinkLine;
  const retracted = sink.find((c) => c.op === 'retract') as SinkLine;
  const tail = { key: early.key as string, epoch: 1, seq: 100_000 };

  it('follows only what retention holds, and finds the same violations whether or not it remembers the forgotten matches', async () => {
    const clean = await audit(cfg, long, sink, { forgottenCache: 1 });
    expect(clean.verdict).toBe('valid');
    expect(clean.stats.forgotten).toBeGreaterThan(clean.stats.oracleInserts / 2);
    expect(clean.stats.peakFollowed).toBeLessThan(clean.stats.oracleInserts / 4);
    const damaged = [
      ...sink,
      { op: 'insert', match: early.match, ...tail },
      { op: 'insert', match: retracted.match, key: retracted.key, epoch: 1, seq: 100_001 },
      { op: 'retract', match: early.match, ...tail, seq: 100_002 },
    ];
    const found = async (cache: number): Promise<string[]> =>
      (await audit(cfg, long, damaged, { forgottenCache: cache })).violations
        .filter((v) => v.kind !== 'prefix' && v.kind !== 'sequence')
        .map((v) => `${v.property} ${v.kind} ${v.match}`)
        .sort();
    const remembered = await found(1 << 16);
    expect(await found(1)).toEqual(remembered);
    expect(remembered).toEqual(
      [
        `ExactlyOnce applied-twice ${early.match}`,
        `ExactlyOnce resurrected ${retracted.match}`,
        `JoinCorrect extra ${retracted.match}`,
        `JoinCorrect missing ${early.match}`,
      ].sort(),
    );
  });

  it('a sink that runs ahead of its log, or applies the keys in another interleaving, is valid', async () => {
    // The sink's changes grouped by key: key k1's all come after key k0's.
    const byKey = [...sink].sort((a, b) => (a.key as string).localeCompare(b.key as string));
    for (const lookahead of [100, 100_000]) {
      const r = await audit(cfg, long, byKey, { lookahead });
      expect(r.verdict, `lookahead ${lookahead}`).toBe('valid');
    }
    // Per key, a write may need the log further ahead than the lookahead allows: the prefix check cannot finish, and says so.
    const short = await audit(cfg, long, byKey, { lookahead: 1 });
    expect(short.verdict).toBe('unknown');
    expect(short.properties.find((p) => p.property === 'ExactlyOnce')?.scope).toMatch(/within 1 records/);
    // Without sequence numbers, every lookahead will do: a change the log has not made yet waits until it does.
    const plain = byKey.map(({ op, match }) => ({ op, match }));
    for (const lookahead of [1, 100_000]) expect((await audit(cfg, long, plain, { lookahead })).verdict).toBe('valid');
  });
});

describe('JoinCorrect', () => {
  it('missing, extra, and ids that are no match of the log (not a match id, another key, no such rows)', async () => {
    const sink = idealSink(config, twoMatches);
    const r = await audit(config, twoMatches, [
      ...sink.slice(0, 1),
      { op: 'insert', match: 'k/a', key: 'k', epoch: 1, seq: 7 },
      { op: 'insert', match: matchId('j', 'a', 'x'), key: 'k', epoch: 1, seq: 8 },
      { op: 'insert', match: 'k/zz/x', key: 'k', epoch: 1, seq: 9 },
    ]);
    const found = r.violations
      .filter((v) => v.property === 'JoinCorrect')
      .map((v) => `${v.kind} ${v.match}`)
      .sort();
    expect(found).toEqual(['extra k/a/x', 'missing k/b/y', 'wrong-id j/a/x', 'wrong-id k/a', 'wrong-id k/zz/x'].sort());
    expect(r.violations.find((v) => v.match === 'j/a/x')?.message).toMatch(/match of key j, written by key k/);
  });
});

describe('a history that is incomplete is unknown, not a violation', () => {
  it("the sink's end line, --incomplete, and a gzip file cut short", async () => {
    const sink = idealSink(config, twoMatches).slice(0, 1);
    const says = await audit(config, twoMatches, [...sink, { end: { complete: false, why: 'the job was still running' } }]);
    expect(says.verdict).toBe('unknown');
    expect(says.incomplete).toMatch(/the job was still running/);
    expect((await audit(config, twoMatches, sink, { incomplete: true })).verdict).toBe('unknown');
    expect((await audit(config, twoMatches, sink)).verdict).toBe('violation');
    // A gzip stream that stops early.
    const dir = freshDirectory();
    const full = jsonl(idealSink(config, twoMatches));
    const gz = gzipSync(full);
    writeFileSync(join(dir, 'log.jsonl'), jsonl([{ format: 'streamjoin/history-log@1', config }, ...twoMatches]));
    writeFileSync(join(dir, 'sink.jsonl.gz'), gz.subarray(0, gz.length - 12));
    const cut = await auditHistory({ log: join(dir, 'log.jsonl'), sink: join(dir, 'sink.jsonl.gz') });
    expect(cut.sink).toMatchObject({ gzip: true, cut: true });
    expect(cut.verdict).toBe('unknown');
  });
});

describe('a corrupt recording is bad input, not a violation of the system', () => {
  it('J9: an identity re-used after its row passed its horizon, with the line that bound it', async () => {
    const log = [
      row('insert', 'k', 'L', 'a', 1),
      wm('L', 10),
      wm('R', 10),
      row('insert', 'k', 'L', 'a', 12),
      row('insert', 'k', 'R', 'x', 12),
    ];
    const e = await inputError(audit(config, log, idealSink(config, log)));
    expect(e.code).toBe('SJ104');
    expect(e.where).toMatch(/log\.jsonl:5$/);
    expect(e.message).toMatch(/identity \(k, L, a\) is reused .* bound at line 2/);
  });

  it('J1: an invalid record (SJ112), unless the system consumed and rejected it (--allow-invalid)', async () => {
    const log = [...twoMatches.slice(0, 2), { ...row('insert', 'k', 'L', 'q', 5), ts: 9 }];
    const e = await inputError(audit(config, log, idealSink(config, log)));
    expect(e.code).toBe('SJ112');
    expect(e.where).toMatch(/log\.jsonl:4$/);
    const allowed = await audit(config, log, idealSink(config, log), { allowInvalid: true });
    expect(allowed.verdict).toBe('valid');
    expect(allowed.log.rejected).toEqual({ ts_after_end: 1 });
  });

  it('no config anywhere is a usage error; a cluster config or a join config in --config will do', async () => {
    const dir = freshDirectory();
    writeFileSync(join(dir, 'log.jsonl'), jsonl(twoMatches));
    writeFileSync(join(dir, 'sink.jsonl'), jsonl(idealSink(config, twoMatches)));
    const e = await inputError(auditHistory({ log: join(dir, 'log.jsonl'), sink: join(dir, 'sink.jsonl') }));
    expect(e.code).toBe('SJ105');
    writeFileSync(join(dir, 'join.json'), JSON.stringify(config));
    writeFileSync(join(dir, 'cluster.json'), JSON.stringify({ join: config, workers: ['w1'], keys: [{ key: 'k', owner: 'w1' }] }));
    for (const c of ['join.json', 'cluster.json']) {
      expect((await auditHistory({ log: join(dir, 'log.jsonl'), sink: join(dir, 'sink.jsonl'), config: join(dir, c) })).verdict).toBe(
        'valid',
      );
    }
  });
});
