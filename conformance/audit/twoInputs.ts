// Two inputs recorded apart (docs/audit.md, "A log in two files"): the left
// and the right records, each file in the order the engine consumed its own
// side, with no record of how the engine interleaved the two.
//
// What the interleaving can change is only lateness (J5, J6): the global
// watermark `gw = min(wm[L], wm[R])` (J4) at the moment a record is consumed
// depends on how many of the *other* side's watermarks came before it. Over
// every interleaving that keeps each file's order, gw at a record of side s
// ranges over
//
//   lowest:  −∞ (the engine may have consumed the whole of side s before the
//            other side's first watermark: J4 says gw is −∞ until both sides
//            have reported, and then nothing is late);
//   highest: min(wm[s] before the record, the other side's final watermark).
//
// So no record is late under every interleaving, and a record is on time
// under every interleaving iff it is on time at the highest gw (J5: `ts >=
// gw − L`; J6: `gw <= end + L + D`). A record that is late at the highest gw
// **depends on the processing order**: the engine was right to join it and
// right to drop it. Its identity (J2) is then order-dependent, and every
// match it is in is judged neither way (the oracle's and the sink's changes
// to it are both passed over). An insert that comes after its identity was
// certainly bound changes nothing however it is judged (duplicate, conflict
// or late: J7), so it does not make the identity order-dependent.
//
// Whether a record re-uses an identity whose row is past its horizon (J9,
// which a log in contract never does) depends on the order too: the row is
// forgotten once gw passes its end + L + D, and under the interleaving that
// takes the record's whole side first gw is −∞ throughout, so nothing is ever
// forgotten. A record that re-uses an identity whose row is past its horizon
// at the highest gw is out of contract under one interleaving and in
// contract under another, so it makes its identity order-dependent (in the
// canonical order below it may be either) rather than the recording corrupt
// (SJ104), or judged as the merge happens to read it.
//
// Everything else is decided exactly: the records are merged into one log in
// a canonical order (the side whose watermark is behind goes first, as a
// watermark-aligned engine would), which is one of the interleavings, so the
// oracle's outcome of every record whose lateness is certain is the engine's
// whatever its order. The merged log is written to a temporary file so that
// the audit's passes read it like any log; its line numbers are mapped back
// to the two files in the result.
import { mkdtempSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError, parseMatchId, throwIfInterrupted } from '../../spec/index.ts';
import type { JoinConfig, LogRecord } from '../../spec/index.ts';
import { validityOf } from '../../model/index.ts';
import type { ReadingOptions } from './columns.ts';
import { HISTORY_LOG_FORMAT, type LogItem, type ReadFormat } from './formats.ts';
import { HistoryFile } from './historyFiles.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

/** A record whose lateness depends on the processing order, as the report cites it. */
export interface OrderDependentRecord {
  /** The file (the left or the right log) and its line. */
  readonly path: string;
  /** Its line number in that file (1-based). */
  readonly line: number;
  /** The row's join key. */
  readonly key: string;
  /** The side the row is on. */
  readonly side: 'L' | 'R';
  /** The row's id within its key and side. */
  readonly id: string;
  /** Why: the watermarks that would make it late, and those that would not. */
  readonly why: string;
}

/** What the report says of a log given as two files. */
export interface TwoInputsSummary {
  /** The left side's log file. */
  readonly left: string;
  /** The right side's log file. */
  readonly right: string;
  /** Row identities (key, side, id) with a record whose lateness depends on the order the engine consumed the two files. */
  readonly orderDependentRows: number;
  /** The records themselves (an identity may have several). */
  readonly orderDependentRecords: number;
  /** The first few, cited. */
  readonly examples: readonly OrderDependentRecord[];
}

export interface MergedLog {
  /** The merged log file (a streamjoin log with a header). */
  readonly path: string;
  /** What the readers of the two files noted (fields they passed over...), each prefixed with its file. */
  readonly notes: readonly string[];
  /** The two files' format (the left's, told from its first lines when not given). */
  readonly format: ReadFormat;
  /** Whether either file is gzip, and the lines of both. */
  readonly gzip: boolean;
  readonly lines: number;
  readonly summary: TwoInputsSummary;
  /** Whether a match is in an order-dependent row (then neither the oracle's nor the sink's changes to it are judged). */
  readonly orderDependent: ((match: string) => boolean) | undefined;
  /** Whether an identity is order-dependent (its re-use after its horizon, J9, is not held against the recording). */
  dependentIdentity(key: string, side: string, id: string): boolean;
  /** The merged file's line `line` in the two files. */
  origin(line: number): { path: string; line: number } | undefined;
  /** Removes the temporary file. */
  remove(): void;
}

const EXAMPLES = 20;
const identity = (key: string, side: string, id: string): string => `${side}\u0000${id}\u0000${key}`;

/** One file's items, one at a time. */
class Cursor {
  private batch: { items: LogItem[]; lines: number[] } | undefined;
  private at = 0;
  ended = false;
  constructor(readonly file: HistoryFile<LogItem>) {}
  async peek(): Promise<{ item: LogItem; line: number } | undefined> {
    while (!this.ended && (this.batch === undefined || this.at >= this.batch.items.length)) {
      this.batch = await this.file.next();
      this.at = 0;
      if (this.batch === undefined) this.ended = true;
    }
    if (this.batch === undefined) return undefined;
    return { item: this.batch.items[this.at] as LogItem, line: this.batch.lines[this.at] as number };
  }
  take(): void {
    this.at++;
  }
}

/** The config headers of both files (they must agree) and each side's final watermark. */
async function firstRead(
  paths: { left: string; right: string },
  format: ReadFormat | 'auto',
  reading: ReadingOptions | undefined,
  signal: AbortSignalLike | undefined,
): Promise<{ config: JoinConfig | undefined; final: { L: number | null; R: number | null } }> {
  let config: JoinConfig | undefined;
  let configFrom = '';
  const final: { L: number | null; R: number | null } = { L: null, R: null };
  for (const side of ['L', 'R'] as const) {
    const path = side === 'L' ? paths.left : paths.right;
    const file = new HistoryFile<LogItem>(path, 'log', format, reading);
    try {
      for (let b = await file.next(); b !== undefined; b = await file.next()) {
        throwIfInterrupted(signal);
        b.items.forEach((item, i) => {
          const line = b.lines[i] as number;
          if (item.kind === 'config') {
            if (config !== undefined && JSON.stringify(config) !== JSON.stringify(item.config))
              throw new InputError(
                'SJ102',
                `${path}:${line}`,
                `this join config differs from the one in ${configFrom}: the two inputs are of one join`,
              );
            config ??= item.config;
            configFrom = `${path}:${line}`;
            return;
          }
          const want = side === 'L' ? 'left' : 'right';
          if ((item.side === 'L' || item.side === 'R') && item.side !== side)
            throw new InputError(
              'SJ102',
              `${path}:${line}`,
              `a record of side ${item.side} in the ${want} log (--log holds the left side's records and watermarks, --log-right the right side's)`,
            );
          if (item.kind === 'watermark' && item.side === side && Number.isFinite(item.wm) && Math.abs(item.wm) <= 2 ** 50) {
            const was = final[side];
            if (was === null || item.wm > was) final[side] = item.wm;
          }
        });
      }
    } finally {
      file.close();
    }
  }
  return { config, final };
}

/**
 * Merges a log given as two files (left, right) into one temporary log in a
 * canonical order, and finds the records whose lateness depends on the order
 * the engine consumed the two (see the top of this file). `config` is the
 * join config if given apart (`--config`); else the files' header.
 */
export async function mergeTwoInputs(options: {
  readonly left: string;
  readonly right: string;
  readonly format: ReadFormat | 'auto';
  /** How the two files are read (a column mapping, the time unit). */
  readonly reading: ReadingOptions | undefined;
  readonly config: JoinConfig | undefined;
  readonly noLateness: boolean;
  readonly signal: AbortSignalLike | undefined;
}): Promise<MergedLog> {
  const paths = { left: options.left, right: options.right };
  const first = await firstRead(paths, options.format, options.reading, options.signal);
  const config = options.config ?? first.config;
  if (config === undefined)
    throw new InputError(
      'SJ105',
      'usage',
      `no join config: pass --config FILE or start ${options.left} or ${options.right} with a header line {"format":"${HISTORY_LOG_FORMAT}","config":{...}}`,
    );
  const L = options.noLateness ? 2 ** 50 : config.allowedLateness;
  const D = config.maxIntervalLength;
  const dir = mkdtempSync(join(tmpdir(), 'streamjoin-two-inputs-'));
  const path = join(dir, 'log.jsonl');
  const fd = openSync(path, 'w');
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  // The merged line of each record: > 0 a left line, < 0 minus a right line (line 1 is the header).
  let origins = new Int32Array(1 << 12);
  let lines = 1;
  let text = `${JSON.stringify({ format: HISTORY_LOG_FORMAT, config })}\n`;
  const dependent = new Set<string>();
  /** Each identity bound in the canonical order, with the end of its first content (its horizon is end + L + D, J8). */
  const bound = new Map<string, number>();
  const examples: OrderDependentRecord[] = [];
  let dependentRecords = 0;
  const files = {
    L: new HistoryFile<LogItem>(paths.left, 'log', options.format, options.reading),
    R: new HistoryFile<LogItem>(paths.right, 'log', options.format, options.reading),
  };
  const cursors = { L: new Cursor(files.L), R: new Cursor(files.R) };
  const wm: { L: number | null; R: number | null } = { L: null, R: null };
  try {
    // The readers bind rows as the join does (J1 needs D) to resolve a delete that names only a row's key (columns.ts).
    for (const file of [files.L, files.R]) await file.useConfig({ allowedLateness: L, maxIntervalLength: D });
    for (;;) {
      throwIfInterrupted(options.signal);
      const l = await cursors.L.peek();
      const r = await cursors.R.peek();
      if (l === undefined && r === undefined) break;
      // The side whose watermark is behind goes first (left on a tie): one interleaving, close to a watermark-aligned engine's.
      const side: 'L' | 'R' = r === undefined ? 'L' : l === undefined ? 'R' : (wm.L ?? -Infinity) <= (wm.R ?? -Infinity) ? 'L' : 'R';
      const at = (side === 'L' ? l : r) as { item: LogItem; line: number };
      cursors[side].take();
      const item = at.item;
      if (item.kind === 'config') continue;
      const record: LogRecord = item;
      const path_ = side === 'L' ? paths.left : paths.right;
      if (validityOf(record, config) === undefined) {
        if (record.kind === 'watermark') {
          const was = wm[side];
          if (was === null || record.wm > was) wm[side] = record.wm;
        } else {
          const other = side === 'L' ? first.final.R : first.final.L;
          const own = wm[side];
          // The highest gw the engine can have seen at this record (J4), and what makes it late there (J5, J6).
          const highest = own === null || other === null ? null : Math.min(own, other);
          const lateAtHighest = highest !== null && (record.kind === 'insert' ? record.ts < highest - L : highest > record.end + L + D);
          const id = identity(record.key, record.side, record.id);
          // Whether the identity's row is past its horizon at the highest gw (J8): a re-use of it out of contract under some interleaving (J9).
          const boundEnd = bound.get(id);
          const forgottenHere = !lateAtHighest && boundEnd !== undefined && highest !== null && highest > boundEnd + L + D;
          if ((lateAtHighest && !(record.kind === 'insert' && boundEnd !== undefined)) || forgottenHere) {
            dependentRecords++;
            dependent.add(id);
            if (examples.length < EXAMPLES)
              examples.push({
                path: path_,
                line: at.line,
                key: record.key,
                side: record.side as 'L' | 'R',
                id: record.id,
                why: forgottenHere
                  ? `${record.kind} of an identity bound with end ${boundEnd}: its row is forgotten if the engine had consumed the other side's watermarks up to ${other} before it (gw ${highest} > end + L + D = ${(boundEnd as number) + L + D}), and this re-use of it out of contract (J9); held if it consumed it before them`
                  : record.kind === 'insert'
                    ? `insert with ts ${record.ts}: late if the engine had consumed the other side's watermarks up to ${other} before it (gw ${highest}, ts < gw − L = ${(highest as number) - L}), on time if it consumed it before them`
                    : `retraction with end ${record.end}: late if the engine had consumed the other side's watermarks up to ${other} before it (gw ${highest} > end + L + D = ${record.end + L + D}), on time if it consumed it before them`,
              });
          } else if (!lateAtHighest && boundEnd === undefined) bound.set(id, record.end);
        }
      }
      text += `${JSON.stringify(record)}\n`;
      lines++;
      if (lines >= origins.length) {
        const grown = new Int32Array(origins.length * 2);
        grown.set(origins);
        origins = grown;
      }
      origins[lines] = side === 'L' ? at.line : -at.line;
      if (text.length > 1 << 20) {
        writeSync(fd, text);
        text = '';
      }
    }
    // A file cut short leaves the merged log cut short: the audit judges an incomplete history.
    if (files.L.cut() || files.R.cut()) text += '{"kind":';
    writeSync(fd, text);
  } catch (e) {
    closeSync(fd);
    remove();
    throw e;
  } finally {
    files.L.close();
    files.R.close();
  }
  closeSync(fd);
  const format = await files.L.format();
  const notes = [...files.L.notes().map((n) => `${paths.left}: ${n}`), ...files.R.notes().map((n) => `${paths.right}: ${n}`)];
  const summary: TwoInputsSummary = {
    left: paths.left,
    right: paths.right,
    orderDependentRows: dependent.size,
    orderDependentRecords: dependentRecords,
    examples,
  };
  const orderDependent =
    dependent.size === 0
      ? undefined
      : (match: string): boolean => {
          const m = parseMatchId(match);
          return m !== undefined && (dependent.has(identity(m.key, 'L', m.left)) || dependent.has(identity(m.key, 'R', m.right)));
        };
  return {
    path,
    notes,
    format,
    gzip: files.L.gzip || files.R.gzip,
    lines: files.L.lines() + files.R.lines(),
    summary,
    orderDependent,
    dependentIdentity: (key, side, id) => dependent.has(identity(key, side, id)),
    origin(line) {
      const o = line >= 2 && line <= lines ? (origins[line] as number) : 0;
      if (o === 0) return undefined;
      return o > 0 ? { path: paths.left, line: o } : { path: paths.right, line: -o };
    },
    remove,
  };
}

/** A message that names lines of the merged log (`log line 5`, `bound at line 3`), said of the files and lines they came from. */
export function originalLines(message: string, merged: MergedLog): string {
  return message.replace(/\b(log line|at line) (\d+)/g, (text, _words: string, digits: string) => {
    const o = merged.origin(Number(digits));
    return o === undefined ? text : `${text.startsWith('log') ? '' : 'at '}${o.path}:${o.line}`;
  });
}

/** An error about the merged log, said of the file and line it came from. */
export function originalError(e: unknown, merged: MergedLog): unknown {
  if (!(e instanceof InputError) || !e.where.startsWith(merged.path)) return e;
  const line = Number(/^.*:(\d+)(?::\d+)?$/.exec(e.where)?.[1]);
  const o = Number.isFinite(line) ? merged.origin(line) : undefined;
  const message = originalLines(e.message.split(merged.path).join('the merged log'), merged);
  return new InputError(e.code, o === undefined ? `${merged.summary.left} + ${merged.summary.right}` : `${o.path}:${o.line}`, message);
}
