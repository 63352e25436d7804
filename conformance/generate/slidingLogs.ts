// Long logs with a sliding window, for benchmarks and scale tests: time
// moves on by one tick per record, rows are fresh (so the log is in
// contract, J9, by construction), watermarks trail the clock by a fixed lag,
// so each key holds about `window` live rows at any time, and a share of the
// rows are retracted while they are still held. Seeded and lazy: a log of
// ten million records costs no memory to describe.
import { closeSync, openSync, writeSync } from 'node:fs';
import { OPERATOR_TRACE_FORMAT } from '../../spec/index.ts';
import type { Change, JoinConfig, LogRecord, Outcome, RetainedCounts, Side } from '../../spec/index.ts';
import { seededRandom } from './seededRandom.ts';

export interface SlidingLogOptions {
  readonly records: number;
  readonly keys: number;
  /** About how many live rows each key holds at a time (J8 retention). */
  readonly window: number;
  readonly seed: number;
  /** Longest interval (D); default 16. */
  readonly maxIntervalLength?: number;
  /** Allowed lateness (L); default 8. */
  readonly allowedLateness?: number;
  /**
   * A side whose watermark never advances: it reports no watermark, so the
   * global watermark stays −∞ (J4) and every row is held to the end (J8):
   * the case where an operator's state grows with the log.
   */
  readonly stalled?: Side;
}

/** Shares of the records, out of 100: the rest are inserts. */
const RETRACTS = 15;
const WATERMARKS = 5;
const RESENDS = 2;

/** The join config of a sliding log. */
export function slidingLogConfig(options: SlidingLogOptions): JoinConfig {
  return { allowedLateness: options.allowedLateness ?? 8, maxIntervalLength: options.maxIntervalLength ?? 16 };
}

/**
 * The records of a sliding log. Inserts are spread over the keys; a
 * retraction names one of the last rows inserted, once (held: the lag keeps
 * the watermark far behind it); a resend repeats a recent insert (a
 * duplicate); watermarks alternate sides at `clock - lag` (only the side
 * that is not `stalled`, if one is).
 */
export function* slidingLog(options: SlidingLogOptions): Generator<LogRecord> {
  const { allowedLateness: L, maxIntervalLength: D } = slidingLogConfig(options);
  const next = seededRandom(options.seed);
  const insertShare = (100 - RETRACTS - WATERMARKS - RESENDS) / 100;
  // Live rows per key ≈ inserts per tick per key × ticks a row is held; a row is held from its insert until gw passes end + L + D.
  const held = Math.max(1, Math.round((options.window * options.keys) / insertShare));
  const lag = Math.max(1, held - L - D - D);
  // The last rows inserted, newest last: what retractions and resends name.
  const recent: { row: LogRecord & { kind: 'insert' }; retracted: boolean }[] = [];
  const RECENT = 64;
  let fresh = 0;
  let side: Side = 'L';
  for (let clock = 0; clock < options.records; clock++) {
    const roll = next() * 100;
    if (roll < WATERMARKS) {
      side = side === 'L' ? 'R' : 'L';
      if (side === options.stalled) side = side === 'L' ? 'R' : 'L';
      yield { kind: 'watermark', side, wm: clock - lag };
      continue;
    }
    const pick = recent[Math.floor(next() * recent.length)];
    if (roll < WATERMARKS + RETRACTS && pick !== undefined && !pick.retracted) {
      pick.retracted = true;
      yield { ...pick.row, kind: 'retract' };
    } else if (roll < WATERMARKS + RETRACTS + RESENDS && pick !== undefined) {
      yield { ...pick.row };
    } else {
      const length = Math.floor(next() * (D + 1));
      const start = clock + Math.floor(next() * 8);
      const row = {
        kind: 'insert' as const,
        key: `k${Math.floor(next() * options.keys)}`,
        side: next() < 0.5 ? ('L' as const) : ('R' as const),
        id: `r${fresh++}`,
        ts: start + Math.floor(next() * (length + 1)),
        start,
        end: start + length,
      };
      recent.push({ row, retracted: false });
      if (recent.length > RECENT) recent.shift();
      yield row;
    }
  }
}

/**
 * Writes a sliding log as an operator trace file (SPEC §4), one step per
 * line, streamed; with `expectations`, each step carries the outcome,
 * changes and retained counts of `observe` (the implementation's operator,
 * which the harness shows agrees with the model, computes them fast).
 */
export function writeSlidingTrace(
  path: string,
  options: SlidingLogOptions,
  observe?: (record: LogRecord) => { outcome: Outcome; changes: readonly Change[]; retained: RetainedCounts },
): number {
  const fd = openSync(path, 'w');
  let bytes = 0;
  const parts: string[] = [];
  const flush = (): void => {
    const text = parts.join('');
    parts.length = 0;
    bytes += writeSync(fd, text);
  };
  try {
    const name = `sliding-${options.records}${options.stalled ? `-stalled-${options.stalled}` : ''}`;
    const head = { format: OPERATOR_TRACE_FORMAT, name, config: slidingLogConfig(options) };
    parts.push(`${JSON.stringify(head).slice(0, -1)},"steps":[`);
    let first = true;
    for (const record of slidingLog(options)) {
      const step = observe === undefined ? { record } : { record, expect: observe(record) };
      parts.push(`${first ? '\n' : ',\n'}${JSON.stringify(step)}`);
      first = false;
      if (parts.length >= 4096) flush();
    }
    parts.push('\n]}\n');
    flush();
  } finally {
    closeSync(fd);
  }
  return bytes;
}

/**
 * Writes a sliding log and the sink a correct system would apply for it (a
 * recorded history, docs/audit.md): `log.jsonl` with its config header, and
 * `sink.jsonl` with the oracle's changes (the implementation's operator),
 * one write per record, under epoch 1 and a sequence number per key. Lines
 * are streamed to disk. Returns how many sink changes it wrote.
 */
export function writeSlidingHistory(
  logPath: string,
  sinkPath: string,
  options: SlidingLogOptions,
  operator: { apply(r: LogRecord): { changes: readonly Change[] } },
): number {
  const logFd = openSync(logPath, 'w');
  const sinkFd = openSync(sinkPath, 'w');
  let changes = 0;
  try {
    const log: string[] = [JSON.stringify({ format: 'streamjoin/history-log@1', config: slidingLogConfig(options) })];
    const sink: string[] = [];
    const seq = new Map<string, number>();
    const flush = (): void => {
      if (log.length > 0) writeSync(logFd, `${log.join('\n')}\n`);
      if (sink.length > 0) writeSync(sinkFd, `${sink.join('\n')}\n`);
      log.length = 0;
      sink.length = 0;
    };
    for (const record of slidingLog(options)) {
      log.push(JSON.stringify(record));
      const applied = operator.apply(record).changes;
      if (applied.length > 0 && record.kind !== 'watermark') {
        const s = (seq.get(record.key) ?? 0) + 1;
        seq.set(record.key, s);
        for (const c of applied) sink.push(JSON.stringify({ op: c.op, match: c.match, key: record.key, epoch: 1, seq: s }));
        changes += applied.length;
      }
      if (log.length >= 8192) flush();
    }
    flush();
  } finally {
    closeSync(logFd);
    closeSync(sinkFd);
  }
  return changes;
}

/** One line of a recorded sink as the oracle writes it (docs/audit.md): a change, its key, the writer's epoch and seq. */
export interface OracleSinkLine {
  op: 'insert' | 'retract';
  match: string;
  key: string;
  epoch: number;
  seq: number;
}

/**
 * The sink a correct system applies for `records` (the oracle's changes, through `operator`), in
 * memory for tests that damage it: one write per record that changes the sink, under `epoch`, with
 * a sequence number per key.
 */
export function oracleSinkLines(
  records: Iterable<LogRecord>,
  operator: { apply(r: LogRecord): { changes: readonly Change[] } },
  epoch: number,
): OracleSinkLine[] {
  const seq = new Map<string, number>();
  const sink: OracleSinkLine[] = [];
  for (const r of records) {
    const { changes } = operator.apply(r);
    if (r.kind === 'watermark' || changes.length === 0) continue;
    const s = (seq.get(r.key) ?? 0) + 1;
    seq.set(r.key, s);
    for (const c of changes) sink.push({ op: c.op, match: c.match, key: r.key, epoch, seq: s });
  }
  return sink;
}
