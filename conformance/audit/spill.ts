// Bounded memory whatever the order of the sink (docs/audit.md, "At
// scale"). The one-pass check holds what the sink has not caught up with;
// a sink in log order keeps that small, but a sink grouped by key (part
// files concatenated) makes the log run to its end before the next group
// starts, and everything in between waits. The properties are per key
// (SPEC §6), so the history is split on disk into partitions by key hash
// (keyShard.ts) — each partition's records and sink changes, with their
// line numbers, in its own file — and each partition is checked alone:
// it holds at most its own share of what waits. Watermarks are every key's
// (J4): those that raise a side's watermark are written once, as numbers
// (watermarkSpill.ts), and merged into every partition's log by line
// number, each run of them between two of the partition's records as the
// last of each side (the state the run leaves: a side's watermark only
// rises, and the records around it see only where it ends). So a partition
// costs its own records and about as many watermarks, never the whole log's,
// and memory does not grow with the history: what the partitions share is
// on disk, and each partition's check is let go of once judged (audit.ts).
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError, pace } from '../../spec/index.ts';
import type { JoinConfig, RejectReason } from '../../spec/index.ts';
import { AuditOracle } from './auditOracle.ts';
import type { LogItem, SinkChange, SinkItem } from './formats.ts';
import { SinkEnd } from './lineItems.ts';
import type { HistoryFile, ItemBatch } from './historyFiles.ts';
import { keyOfMatch } from './historyState.ts';
import { shardOfKey } from './keyShard.ts';
import { WatermarkReader, WatermarkWriter } from './watermarkSpill.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

/** Where batches of items come from: a history file, or a partition of one. */
export interface ItemSource<Item> {
  next(): Promise<ItemBatch<Item> | undefined>;
  cut(): boolean;
  /** How it is cut short, in words (a file knows; a partition does not). */
  cutHow?(): string;
}

const FLUSH_BYTES = 1 << 16;
const BATCH = 4096;

/** A file of `line<TAB>json` lines, written through a buffer. */
class SpillWriter {
  private readonly fd: number;
  private buffer: string[] = [];
  private bytes = 0;
  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }
  write(line: number, item: unknown): void {
    const text = `${line}\t${JSON.stringify(item)}\n`;
    this.buffer.push(text);
    this.bytes += text.length;
    if (this.bytes >= FLUSH_BYTES) this.flush();
  }
  flush(): void {
    if (this.buffer.length > 0) writeSync(this.fd, this.buffer.join(''));
    this.buffer = [];
    this.bytes = 0;
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** Reads a spill file back, batch by batch. */
class SpillReader<Item> {
  private readonly fd: number;
  private readonly chunk = Buffer.alloc(1 << 20);
  private rest = '';
  private done = false;
  constructor(path: string) {
    this.fd = openSync(path, 'r');
  }
  next(): ItemBatch<Item> | undefined {
    while (!this.done) {
      const got = readSync(this.fd, this.chunk, 0, this.chunk.length, null);
      if (got === 0) {
        this.done = true;
        closeSync(this.fd);
        break;
      }
      const text = this.rest + this.chunk.toString('utf8', 0, got);
      const cut = text.lastIndexOf('\n');
      if (cut === -1) {
        this.rest = text;
        continue;
      }
      this.rest = text.slice(cut + 1);
      const items: Item[] = [];
      const lines: number[] = [];
      let at = 0;
      while (at < cut) {
        const tab = text.indexOf('\t', at);
        const end = text.indexOf('\n', tab);
        lines.push(Number(text.slice(at, tab)));
        items.push(JSON.parse(text.slice(tab + 1, end)) as Item);
        at = end + 1;
      }
      return { items, lines };
    }
    return undefined;
  }
  close(): void {
    if (!this.done) closeSync(this.fd);
    this.done = true;
  }
}

/** The log's watermarks as one pass counts them. */
export interface WatermarkCounts {
  readonly lines: number;
  readonly valid: number;
  readonly rejected: Partial<Record<RejectReason, number>>;
}

/** A history split by key hash into partitions on disk. */
export interface Partitions {
  readonly count: number;
  /** The sink's end line, if it has one, and its line. */
  readonly end: { readonly complete: boolean; readonly why?: string } | undefined;
  readonly endLine: number;
  readonly logCut: boolean;
  readonly sinkCut: boolean;
  /**
   * The log's watermarks, counted here once (the partitions' checks do not
   * count them): lines, those valid (J1), and those rejected, by reason.
   */
  readonly watermarks: WatermarkCounts;
  /** Partition `p` (1-based): its log (its records with the watermarks, in line order) and its sink. */
  log(p: number): ItemSource<LogItem>;
  sink(p: number): ItemSource<SinkItem>;
  /** Removes the files. */
  remove(): void;
}

/**
 * Splits the history into `count` partitions by key hash, in one pass over
 * both files (the log's config header, if any, is skipped: the caller has
 * read it). `keep` says which keys are judged at all (a shard's).
 */
export async function partitionHistory(
  log: HistoryFile<LogItem>,
  sink: HistoryFile<SinkItem>,
  config: JoinConfig,
  count: number,
  names: { log: string; sink: string },
  keep: (key: string) => boolean,
  signal: AbortSignalLike | undefined,
): Promise<Partitions> {
  const dir = mkdtempSync(join(tmpdir(), 'streamjoin-audit-spill-'));
  try {
    const marks = new WatermarkWriter(join(dir, 'watermarks'));
    // The oracle's own outcome for each watermark (J1, then J4): the rising ones are all the partitions need.
    const sides = new AuditOracle(config);
    const counted = { lines: 0, valid: 0, rejected: {} as Partial<Record<RejectReason, number>> };
    const logs = Array.from({ length: count }, (_, i) => new SpillWriter(join(dir, `log-${i + 1}`)));
    const sinks = Array.from({ length: count }, (_, i) => new SpillWriter(join(dir, `sink-${i + 1}`)));
    let first = true;
    for (let batch = await log.next(); batch !== undefined; batch = await log.next()) {
      for (let i = 0; i < batch.items.length; i++) {
        const item = batch.items[i] as LogItem;
        const line = batch.lines[i] as number;
        if (item.kind === 'config') {
          if (!first) throw new InputError('SJ102', `${names.log}:${line}`, 'a header line may only be the first line');
        } else if (item.kind === 'watermark') {
          counted.lines++;
          const outcome = sides.apply(item);
          if (outcome === 'rejected') {
            const reason = sides.reason as RejectReason;
            counted.rejected[reason] = (counted.rejected[reason] ?? 0) + 1;
            // Rare: each partition's check meets it where it stands (SJ112, unless the system rejected it: --allow-invalid).
            for (const w of logs) w.write(line, item);
          } else {
            counted.valid++;
            if (outcome === 'accepted') marks.add(line, item.side === 'L' ? 'L' : 'R', item.wm);
          }
        } else if (keep(item.key)) (logs[shardOfKey(item.key, count) - 1] as SpillWriter).write(line, item);
        first = false;
      }
      await pace(signal);
    }
    const sinkEnd = new SinkEnd(names.sink);
    for (let batch = await sink.next(); batch !== undefined; batch = await sink.next()) {
      for (let i = 0; i < batch.items.length; i++) {
        const item = batch.items[i] as SinkItem;
        const line = batch.lines[i] as number;
        if (sinkEnd.take(item, line)) continue;
        const key = item.key ?? keyOfMatch(item.match);
        if (keep(key)) (sinks[shardOfKey(key, count) - 1] as SpillWriter).write(line, item);
      }
      await pace(signal);
    }
    for (const w of [...logs, ...sinks]) w.close();
    marks.close();
    const logCut = log.cut();
    const sinkCut = sink.cut();
    return {
      count,
      end: sinkEnd.end,
      endLine: sinkEnd.endLine,
      logCut,
      sinkCut,
      watermarks: counted,
      log: (p) => mergedLog(new SpillReader<LogItem>(join(dir, `log-${p}`)), new WatermarkReader(join(dir, 'watermarks')), logCut),
      sink: (p) => {
        const r = new SpillReader<SinkChange>(join(dir, `sink-${p}`));
        return { next: async () => r.next(), cut: () => sinkCut };
      },
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/**
 * A partition's records and the watermarks, merged by line number: of each
 * run of watermarks between two of its records, the last of each side, in
 * line order (the earlier ones of the run are passed over at once by the
 * later: the same watermarks, rows evicted and matches settled when the next
 * record comes).
 */
function mergedLog(records: SpillReader<LogItem>, marks: WatermarkReader, cut: boolean): ItemSource<LogItem> {
  let batch = records.next();
  let at = 0;
  return {
    cut: () => cut,
    next: async () => {
      const items: LogItem[] = [];
      const lines: number[] = [];
      while (items.length < BATCH) {
        if (batch !== undefined && at >= batch.items.length) {
          batch = records.next();
          at = 0;
        }
        const recordLine = batch === undefined ? Number.POSITIVE_INFINITY : (batch.lines[at] as number);
        if (marks.line < recordLine) {
          let left = 0;
          let leftWm = 0;
          let right = 0;
          let rightWm = 0;
          for (let line = marks.line; line < recordLine; line = marks.line) {
            if (marks.side === 'L') {
              left = line;
              leftWm = marks.wm;
            } else {
              right = line;
              rightWm = marks.wm;
            }
            marks.advance();
          }
          const last: [number, LogItem][] = [];
          if (left > 0) last.push([left, { kind: 'watermark', side: 'L', wm: leftWm }]);
          if (right > 0) last.push([right, { kind: 'watermark', side: 'R', wm: rightWm }]);
          last.sort((a, b) => a[0] - b[0]);
          for (const [line, item] of last) {
            items.push(item);
            lines.push(line);
          }
          continue;
        }
        if (batch === undefined) break;
        items.push(batch.items[at] as LogItem);
        lines.push(recordLine);
        at++;
      }
      if (items.length === 0) {
        marks.close();
        return undefined;
      }
      return { items, lines };
    },
  };
}
