// A history file read as items (log records, sink changes), batch by batch:
// the lines of lines.ts through the readers of its format (formats.ts),
// told from its first telling line when not given. A bad line is bad input
// (`file:line[:column]: SJ101|SJ102 ...`), except the last line of a file
// that ends without a newline and does not parse: that file is cut short
// (a recording that stopped mid-line), which the audit judges as an
// incomplete history, not as bad input.
import { InputError, lineColumn, pointerOffset } from '../../spec/index.ts';
import type { JoinConfig } from '../../spec/index.ts';
import type { ReadingOptions } from './columns.ts';
import { formatOfLine, LineProblem, readersOf, type LineReaders, type ReadFormat } from './formats.ts';
import { openLines, type LineBatch, type LineFile } from './lines.ts';

/** Items of one batch, with the line of each. */
export interface ItemBatch<Item> {
  readonly items: Item[];
  readonly lines: number[];
}

/** The column of a line's problem: given, or where the value its JSON pointer names starts. */
function columnOf(e: LineProblem, text: string): number {
  if (e.column !== undefined) return e.column;
  if (e.pointer === undefined || !text.trimStart().startsWith('{')) return 1;
  return lineColumn(text, pointerOffset(text, e.pointer)).column;
}

export class HistoryFile<Item> {
  private readonly file: LineFile;
  private readers: LineReaders | undefined;
  private resolved: ReadFormat | undefined;
  private waiting: LineBatch | undefined;
  private cutLine = false;
  private lastLine = 0;
  private itemsRead = 0;

  constructor(
    readonly path: string,
    private readonly which: 'log' | 'sink',
    format: ReadFormat | 'auto',
    private readonly reading: ReadingOptions = {},
  ) {
    this.file = openLines(path);
    if (format !== 'auto') {
      this.resolved = format;
      this.readers = readersOf(format, reading);
    }
  }

  get gzip(): boolean {
    return this.file.gzip;
  }
  get bytes(): number {
    return this.file.bytes;
  }
  bytesRead(): number {
    return this.file.bytesRead();
  }
  /** Lines read so far. */
  lines(): number {
    return this.lastLine;
  }
  /** Items read so far (a log's records and watermarks, a sink's changes), its header not counted: every key's. */
  items(): number {
    return this.itemsRead;
  }

  /** The format, told from the first lines if it was not given (reads ahead one batch). */
  async format(): Promise<ReadFormat> {
    if (this.resolved !== undefined) return this.resolved;
    this.waiting = await this.file.next();
    let found: ReadFormat | undefined;
    for (const text of this.waiting?.lines ?? []) {
      if (text.trim() === '') continue;
      found = formatOfLine(text);
      if (found !== undefined) break;
    }
    this.resolved = found ?? 'streamjoin';
    this.readers = readersOf(this.resolved, this.reading);
    return this.resolved;
  }

  /** The next batch of items, or undefined at the end. */
  async next(): Promise<ItemBatch<Item> | undefined> {
    await this.format();
    for (;;) {
      const batch = this.waiting ?? (await this.file.next());
      this.waiting = undefined;
      if (batch === undefined) return undefined;
      const items: Item[] = [];
      const lines: number[] = [];
      const read = this.readers as LineReaders;
      let line = 0;
      // One function for the batch (not one per line): the readers call it once per item.
      const emit = (item: unknown): void => {
        items.push(item as Item);
        lines.push(line);
        if ((item as { kind?: unknown }).kind !== 'config') this.itemsRead++;
      };
      for (let i = 0; i < batch.lines.length; i++) {
        const text = batch.lines[i] as string;
        line = batch.first + i;
        this.lastLine = line;
        if (text.length === 0 || (text.charCodeAt(0) <= 32 && text.trim() === '')) continue;
        try {
          const value = read.parse(text);
          if (this.which === 'log') read.log(value, emit, line);
          else read.sink(value, emit, line);
        } catch (e) {
          if (!(e instanceof LineProblem)) throw e;
          if (batch.unterminated === true && i === batch.lines.length - 1 && e.code === 'SJ101') {
            // The last line, with no newline after it, stops mid-value: the file is cut short.
            this.cutLine = true;
            break;
          }
          throw new InputError(e.code, `${this.path}:${line}:${columnOf(e, text)}`, e.message);
        }
      }
      if (items.length > 0) return { items, lines };
    }
  }

  /** The join config, once known: the readers may then forget rows past their horizon (J8). */
  async useConfig(config: JoinConfig): Promise<void> {
    await this.format();
    this.readers?.useConfig(config);
  }

  /** What the readers skipped or resolved that the user should know (after the end: all of it). */
  notes(): string[] {
    return this.readers?.notes() ?? [];
  }

  /** After the end: whether the file is cut short (a last line cut mid-value, or a gzip stream that stops early). */
  cut(): boolean {
    return this.cutLine || this.file.ending().cutGzip;
  }

  /** How the file is cut short, in words (after the end). */
  cutHow(): string {
    return this.file.ending().cutGzip ? 'its gzip stream ends before its end marker' : 'its last line is incomplete';
  }

  close(): void {
    this.file.close();
  }
}
