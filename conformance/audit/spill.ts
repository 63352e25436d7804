// Bounded memory whatever the order of the sink (docs/audit.md, "At
// scale"). The one-pass check holds what the sink has not caught up with;
// a sink in log order keeps that small, but a sink grouped by key (part
// files concatenated) makes the log run to its end before the next group
// starts, and everything in between waits. The properties are per key
// (SPEC §6), so the history is split on disk into partitions by key hash
// (keyShard.ts) — each partition's records and sink changes, with their
// line numbers, in its own file — and each partition is checked alone:
// it holds at most its own share of what waits. Watermarks are every key's
// (J4): they are kept once, in memory, as numbers, and merged into every
// partition's log by line number.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError, pace } from '../../spec/index.ts';
import type { LogRecord } from '../../spec/index.ts';
import type { LogItem, SinkChange, SinkItem } from './formats.ts';
import { SinkEnd } from './lineItems.ts';
import type { HistoryFile, ItemBatch } from './historyFiles.ts';
import { keyOfMatch } from './historyState.ts';
import { shardOfKey } from './keyShard.ts';
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

/** The watermarks of the log, once, as numbers (line, side, wm); any other side kept as its record. */
class Watermarks {
  private lines = new Float64Array(1024);
  private wms = new Float64Array(1024);
  private sides = new Uint8Array(1024);
  private readonly odd = new Map<number, LogRecord>();
  size = 0;
  add(line: number, record: LogRecord & { kind: 'watermark' }): void {
    if (this.size === this.lines.length) {
      const grow = <T extends Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      this.lines = grow(this.lines, (n) => new Float64Array(n));
      this.wms = grow(this.wms, (n) => new Float64Array(n));
      this.sides = grow(this.sides, (n) => new Uint8Array(n));
    }
    const i = this.size++;
    this.lines[i] = line;
    this.wms[i] = record.wm;
    this.sides[i] = record.side === 'L' ? 0 : record.side === 'R' ? 1 : 2;
    if (this.sides[i] === 2) this.odd.set(i, record);
  }
  line(i: number): number {
    return this.lines[i] as number;
  }
  record(i: number): LogRecord {
    const side = this.sides[i] as number;
    if (side === 2) return this.odd.get(i) as LogRecord;
    return { kind: 'watermark', side: side === 0 ? 'L' : 'R', wm: this.wms[i] as number };
  }
}

/** A history split by key hash into partitions on disk. */
export interface Partitions {
  readonly count: number;
  /** The sink's end line, if it has one, and its line. */
  readonly end: { readonly complete: boolean; readonly why?: string } | undefined;
  readonly endLine: number;
  readonly logCut: boolean;
  readonly sinkCut: boolean;
  /** Partition `p` (1-based): its log (its records with every watermark, in line order) and its sink. */
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
  count: number,
  names: { log: string; sink: string },
  keep: (key: string) => boolean,
  signal: AbortSignalLike | undefined,
): Promise<Partitions> {
  const dir = mkdtempSync(join(tmpdir(), 'streamjoin-audit-spill-'));
  const marks = new Watermarks();
  try {
    const logs = Array.from({ length: count }, (_, i) => new SpillWriter(join(dir, `log-${i + 1}`)));
    const sinks = Array.from({ length: count }, (_, i) => new SpillWriter(join(dir, `sink-${i + 1}`)));
    let first = true;
    for (let batch = await log.next(); batch !== undefined; batch = await log.next()) {
      for (let i = 0; i < batch.items.length; i++) {
        const item = batch.items[i] as LogItem;
        const line = batch.lines[i] as number;
        if (item.kind === 'config') {
          if (!first) throw new InputError('SJ102', `${names.log}:${line}`, 'a header line may only be the first line');
        } else if (item.kind === 'watermark') marks.add(line, item);
        else if (keep(item.key)) (logs[shardOfKey(item.key, count) - 1] as SpillWriter).write(line, item);
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
    const logCut = log.cut();
    const sinkCut = sink.cut();
    return {
      count,
      end: sinkEnd.end,
      endLine: sinkEnd.endLine,
      logCut,
      sinkCut,
      log: (p) => mergedLog(new SpillReader<LogItem>(join(dir, `log-${p}`)), marks, logCut),
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

/** A partition's records and every watermark, merged by line number. */
function mergedLog(records: SpillReader<LogItem>, marks: Watermarks, cut: boolean): ItemSource<LogItem> {
  let batch = records.next();
  let at = 0;
  let w = 0;
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
        const markLine = w < marks.size ? marks.line(w) : Number.POSITIVE_INFINITY;
        if (recordLine === Number.POSITIVE_INFINITY && markLine === Number.POSITIVE_INFINITY) break;
        if (markLine < recordLine) {
          items.push(marks.record(w));
          lines.push(markLine);
          w++;
        } else {
          items.push((batch as ItemBatch<LogItem>).items[at] as LogItem);
          lines.push(recordLine);
          at++;
        }
      }
      return items.length === 0 ? undefined : { items, lines };
    },
  };
}
