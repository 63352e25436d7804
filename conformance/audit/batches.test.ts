// The audit of a batched sink (docs/audit.md, "Batches and diff sinks"):
// the lines of one key that share one seq are one consistent point, however
// the keys interleave inside a batch; `--sink-model diff` reads signed
// multiplicities netted per batch (transient negatives and double counts
// inside one are fine); `--no-lateness` checks an engine without watermark
// lateness, and the report names the profile. Property: ExactlyOnce (SPEC §6
// P4) judged at consistent points, JoinCorrect (P1) at the end.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, RowRecord } from '../../spec/index.ts';
import { JoinOperator } from '../../impl/index.ts';
import { seededRandom } from '../generate/seededRandom.ts';
import { slidingLog, slidingLogConfig, type SlidingLogOptions } from '../generate/slidingLogs.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';
import { auditHistory, type AuditOptions, type AuditResult } from './audit.ts';

const freshDirectory = useTemporaryDirectories('sj-batches-');
const jsonl = (xs: readonly unknown[]): string => xs.map((x) => `${JSON.stringify(x)}\n`).join('');

interface Line {
  op: 'insert' | 'retract';
  match: string;
  key: string;
  seq: number;
  diff?: number;
}

async function audit(config: JoinConfig, log: readonly LogRecord[], sink: readonly unknown[], options: Partial<AuditOptions> = {}) {
  const dir = freshDirectory();
  writeFileSync(join(dir, 'log.jsonl'), jsonl([{ format: 'streamjoin/history-log@1', config }, ...log]));
  writeFileSync(join(dir, 'sink.jsonl'), jsonl(sink));
  return auditHistory({ log: join(dir, 'log.jsonl'), sink: join(dir, 'sink.jsonl'), ...options });
}

function shuffle<T>(xs: T[], next: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [xs[i], xs[j]] = [xs[j] as T, xs[i] as T];
  }
  return xs;
}

/**
 * The sink of an engine that runs `batch` records at a time and writes each
 * batch with seq = the batch's number, its lines of every key shuffled
 * together. `net`: one line per match whose state the batch changes (a set
 * sink); else every change as it came (a diff sink), so a retraction may
 * come before its insert.
 */
function batchedSink(config: JoinConfig, log: readonly LogRecord[], batch: number, net: boolean, seed: number): Line[] {
  const op = new JoinOperator(config);
  const next = seededRandom(seed);
  const out: Line[] = [];
  for (let b = 0; b * batch < log.length; b++) {
    const lines: Line[] = [];
    for (const r of log.slice(b * batch, (b + 1) * batch)) {
      if (r.kind === 'watermark') {
        op.apply(r);
        continue;
      }
      for (const c of op.apply(r).changes) lines.push({ op: c.op, match: c.match, key: r.key, seq: b + 1 });
    }
    if (net) {
      const state = new Map<string, Line[]>();
      for (const l of lines) state.set(l.match, [...(state.get(l.match) ?? []), l]);
      // An insert and its retraction in one batch cancel: the batch's net change of that match is nothing.
      out.push(
        ...shuffle(
          [...state.values()].filter((ls) => ls.length === 1).map((ls) => ls[0] as Line),
          next,
        ),
      );
    } else out.push(...shuffle(lines, next));
  }
  return out;
}

const sliding: SlidingLogOptions = { records: 3000, keys: 6, window: 12, seed: 7 };
const slidingConfig = slidingLogConfig(sliding);
const slidingRecords = [...slidingLog(sliding)];

const kinds = (r: AuditResult): string[] => r.violations.map((v) => `${v.property}:${v.kind}`);

describe('batches: the lines of a key sharing one seq are one consistent point (ExactlyOnce, SPEC §6 P4)', () => {
  it('a correct engine whose seq is its batch number, keys interleaved inside each batch, is valid at batch 10 and 100', async () => {
    for (const batch of [10, 100]) {
      const seed = 11 + batch;
      const sink = batchedSink(slidingConfig, slidingRecords, batch, true, seed);
      const r = await audit(slidingConfig, slidingRecords, sink);
      expect(kinds(r), `batch ${batch}, seed ${seed}`).toEqual([]);
      expect(r.verdict).toBe('valid');
      expect(r.sink.sequence).toBe(true);
      expect(r.properties.find((p) => p.property === 'ExactlyOnce')?.verdict).toBe('holds');
    }
  });

  it('a line of a batch applied again in a later batch, or a batch of a key applied after a later one, is still a violation', async () => {
    const sink = batchedSink(slidingConfig, slidingRecords, 10, true, 5);
    const at = sink.findIndex((l, i) => i > 100 && l.op === 'insert');
    const later = sink.findIndex((l, i) => i > at && l.seq > (sink[at] as Line).seq + 2);
    const again = [...sink.slice(0, later), { ...(sink[at] as Line), seq: (sink[later] as Line).seq }, ...sink.slice(later)];
    expect(kinds(await audit(slidingConfig, slidingRecords, again))).toContain('ExactlyOnce:applied-twice');
    // The key's batch seq goes back: its writes applied out of order.
    const key = (sink[later] as Line).key;
    const back = [...sink, { ...(sink.find((l) => l.key === key && l.op === 'insert') as Line), seq: 1 }];
    expect(kinds(await audit(slidingConfig, slidingRecords, back))).toContain('ExactlyOnce:sequence');
  });

  it("a batch whose key's changes are split across two batches in the wrong order breaks the prefix property", async () => {
    const config: JoinConfig = { allowedLateness: 1, maxIntervalLength: 2 };
    const row = (kind: 'insert' | 'retract', key: string, side: 'L' | 'R', id: string, t: number): RowRecord => ({
      kind,
      key,
      side,
      id,
      ts: t,
      start: t,
      end: t,
    });
    const log = [
      row('insert', 'k', 'L', 'a', 1),
      row('insert', 'k', 'R', 'x', 1),
      row('insert', 'j', 'L', 'a', 1),
      row('insert', 'j', 'R', 'x', 1),
      row('insert', 'k', 'L', 'b', 1),
      row('retract', 'k', 'L', 'a', 1),
    ];
    const j = { op: 'insert', match: 'j/a/x', key: 'j', seq: 2 };
    const insA = { op: 'insert', match: 'k/a/x', key: 'k', seq: 1 };
    const insB = { op: 'insert', match: 'k/b/x', key: 'k', seq: 2 };
    const retA = { op: 'retract', match: 'k/a/x', key: 'k', seq: 3 };
    expect(kinds(await audit(config, log, [insA, j, insB, retA]))).toEqual([]);
    // k/a/x retracted (log line 7) in batch 2, before k/b/x (log line 6) is inserted in batch 3: no prefix of the log is the sink after batch 2.
    const r = await audit(config, log, [insA, { ...retA, seq: 2 }, j, { ...insB, seq: 3 }]);
    expect(kinds(r)).toEqual(['ExactlyOnce:prefix']);
  });
});

describe('diff sinks (--sink-model diff): multiplicities 0 or 1 at every consistent point (ExactlyOnce, JoinCorrect)', () => {
  it("a correct engine's raw batched changes, a retraction before its insert inside a batch, are valid read as diffs, not as sets", async () => {
    for (const batch of [10, 100]) {
      const seed = 23 + batch;
      const sink = batchedSink(slidingConfig, slidingRecords, batch, false, seed);
      const diff = await audit(slidingConfig, slidingRecords, sink, { sinkModel: 'diff' });
      expect(kinds(diff), `batch ${batch}, seed ${seed}`).toEqual([]);
      expect(diff.profile).toEqual({ lateness: 'bounded', sinkModel: 'diff' });
      expect(diff.sink.changes).toBe(sink.length);
    }
    // Read as set changes, the same sink has a retraction ahead of its insert somewhere.
    const set = await audit(slidingConfig, slidingRecords, batchedSink(slidingConfig, slidingRecords, 100, false, 123));
    expect(set.verdict).toBe('violation');
  });

  it('a transient count of 2 brought back to 1 inside a batch is fine; left at 2, or at -1, at the end of a batch it is not', async () => {
    const config: JoinConfig = { allowedLateness: 1, maxIntervalLength: 2 };
    const log: LogRecord[] = [
      { kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 1, start: 1, end: 1 },
      { kind: 'insert', key: 'k', side: 'R', id: 'x', ts: 1, start: 1, end: 1 },
    ];
    const ins = { op: 'insert', match: 'k/a/x', key: 'k', seq: 1 };
    const ret = { op: 'retract', match: 'k/a/x', key: 'k', seq: 1 };
    expect((await audit(config, log, [ins, ins, ret], { sinkModel: 'diff' })).verdict).toBe('valid');
    expect((await audit(config, log, [ret, ins, ins], { sinkModel: 'diff' })).verdict).toBe('valid');
    expect(
      (
        await audit(
          config,
          log,
          [
            { ...ins, diff: 3 },
            { ...ret, diff: -2 },
          ],
          { sinkModel: 'diff' },
        )
      ).verdict,
    ).toBe('valid');
    const twice = await audit(config, log, [{ ...ins, diff: 2 }], { sinkModel: 'diff' });
    expect(kinds(twice)).toEqual(['ExactlyOnce:applied-twice']);
    expect(twice.violations[0]?.message).toMatch(/multiplicity 2/);
    // A duplicated insert (multiplicity 2) then one retraction: the violation is at the first batch's end.
    const dup = await audit(config, log, [ins, ins, { ...ret, seq: 2 }], { sinkModel: 'diff' });
    expect(kinds(dup)).toEqual(['ExactlyOnce:applied-twice']);
    const negative = await audit(config, log, [ret, { ...ins, seq: 2 }], { sinkModel: 'diff' });
    // Multiplicity -1 after batch 1, and 0 after batch 2: the match the oracle holds is missing at the end.
    expect(kinds(negative)).toEqual(['JoinCorrect:missing', 'ExactlyOnce:retract-without-insert']);
    expect(negative.violations[1]?.message).toMatch(/multiplicity -1/);
  });

  it('without sequence numbers every line is its own consistent point', async () => {
    const config: JoinConfig = { allowedLateness: 1, maxIntervalLength: 2 };
    const log: LogRecord[] = [
      { kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 1, start: 1, end: 1 },
      { kind: 'insert', key: 'k', side: 'R', id: 'x', ts: 1, start: 1, end: 1 },
    ];
    const r = await audit(
      config,
      log,
      [
        { op: 'retract', match: 'k/a/x' },
        { op: 'insert', match: 'k/a/x' },
      ],
      { sinkModel: 'diff' },
    );
    expect(kinds(r)).toContain('ExactlyOnce:retract-without-insert');
  });

  it('a diff that contradicts its op is bad input; a multiplicity in a set sink names --sink-model diff', async () => {
    const config: JoinConfig = { allowedLateness: 1, maxIntervalLength: 2 };
    const log: LogRecord[] = [
      { kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 1, start: 1, end: 1 },
      { kind: 'insert', key: 'k', side: 'R', id: 'x', ts: 1, start: 1, end: 1 },
    ];
    const bad = await audit(config, log, [{ op: 'insert', match: 'k/a/x', diff: -1 }], { sinkModel: 'diff' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(InputError);
    expect((bad as InputError).where).toMatch(/sink\.jsonl:1$/);
    const set = await audit(config, log, [{ op: 'insert', match: 'k/a/x', diff: 2 }]).catch((e: unknown) => e);
    expect(set).toBeInstanceOf(InputError);
    expect((set as InputError).message).toMatch(/--sink-model diff/);
  });
});

describe('profiles: --no-lateness (L unbounded), named in the report', () => {
  const config: JoinConfig = { allowedLateness: 1, maxIntervalLength: 2 };
  // x arrives after the watermark passed it by far more than L = 1: late under L = 1 (J5), joined by an engine without lateness.
  const log: LogRecord[] = [
    { kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 1, start: 1, end: 1 },
    { kind: 'watermark', side: 'L', wm: 50 },
    { kind: 'watermark', side: 'R', wm: 50 },
    { kind: 'insert', key: 'k', side: 'R', id: 'x', ts: 1, start: 1, end: 1 },
  ];
  const sink = [{ op: 'insert', match: 'k/a/x', key: 'k', seq: 1 }];

  it('a late row joined is a violation under bounded lateness and valid under --no-lateness; the report says which', async () => {
    const bounded = await audit(config, log, sink);
    expect(bounded.verdict).toBe('violation');
    expect(bounded.profile.lateness).toBe('bounded');
    const none = await audit(config, log, sink, { noLateness: true });
    expect(kinds(none)).toEqual([]);
    expect(none.verdict).toBe('valid');
    expect(none.profile).toEqual({ lateness: 'none', sinkModel: 'set' });
    expect(none.config.allowedLateness).toBe(2 ** 50);
    // The engine without lateness that drops the row anyway misses the match.
    expect(kinds(await audit(config, log, [], { noLateness: true }))).toEqual(['JoinCorrect:missing']);
  });

  it('times more than 2^50 apart cannot be judged without lateness: unknown, never a pass', async () => {
    const far: LogRecord[] = [
      { kind: 'watermark', side: 'L', wm: 2 ** 50 },
      { kind: 'watermark', side: 'R', wm: 2 ** 50 },
      { kind: 'insert', key: 'k', side: 'R', id: 'x', ts: -(2 ** 50), start: -(2 ** 50), end: -(2 ** 50) },
    ];
    const r = await audit(config, far, [], { noLateness: true });
    expect(r.verdict).toBe('unknown');
    expect(r.properties.find((p) => p.property === 'JoinCorrect')?.scope).toMatch(/2\^50/);
  });
});
