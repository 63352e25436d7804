import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DurableStateError } from '../errors.ts';
import { clearLeftover, JournalFile, journalLine, parseJournal, readDocument, writeDocument } from './durableFiles.ts';

const directories: string[] = [];
function freshDirectory(): string {
  const d = mkdtempSync(join(tmpdir(), 'streamjoin-files-'));
  directories.push(d);
  return d;
}
afterEach(() => {
  for (const d of directories.splice(0)) rmSync(d, { recursive: true, force: true });
});

const values = [{ kind: 'watermark', side: 'L', wm: 5 }, { text: 'ключ \u{1F600} "quoted" \n newline' }, [1, 2, 3], 'plain', null];

function written(path: string, entries: readonly unknown[]): void {
  const { journal } = JournalFile.open(path);
  for (const v of entries) journal.append(v);
  journal.close();
}

describe('journal files (append-only, one framed entry a line)', () => {
  it('give back every entry appended, with line numbers, across reopening', () => {
    const path = join(freshDirectory(), 'j.jsonl');
    written(path, values.slice(0, 2));
    const { journal, entries, problems } = JournalFile.open(path);
    expect(problems).toEqual([]);
    expect(entries).toEqual(values.slice(0, 2).map((value, i) => ({ line: i + 1, value })));
    for (const v of values.slice(2)) journal.append(v);
    expect(journal.length).toBe(values.length);
    journal.close();
    expect(JournalFile.open(path).entries.map((e) => e.value)).toEqual(values);
  });

  it('each line is JSON holding the entry, its byte length and CRC-32', () => {
    const line = Buffer.from(journalLine({ id: 'é' })).toString('utf8');
    expect(line.endsWith('\n')).toBe(true);
    expect(JSON.parse(line)).toEqual({
      len: Buffer.byteLength('{"id":"é"}'),
      crc: expect.stringMatching(/^[0-9a-f]{8}$/),
      rec: { id: 'é' },
    });
  });

  it('a last line cut anywhere (a write that never completed) is dropped, reported and cut off; appends then go on cleanly', () => {
    const dir = freshDirectory();
    const good = Buffer.concat(values.slice(0, 3).map((v) => journalLine(v)));
    const last = journalLine(values[3]);
    for (let cut = 1; cut <= last.length; cut++) {
      const path = join(dir, `cut${cut}.jsonl`);
      writeFileSync(path, Buffer.concat([good, last.subarray(0, cut)]));
      const torn = cut < last.length;
      const { journal, entries, problems } = JournalFile.open(path);
      expect(entries.map((e) => e.value)).toEqual(values.slice(0, torn ? 3 : 4));
      expect(problems).toEqual(torn ? [{ path, detail: expect.stringMatching(/^torn tail at line 4 /) }] : []);
      journal.append('next');
      journal.close();
      expect(JournalFile.open(path).entries.map((e) => e.value)).toEqual([...values.slice(0, torn ? 3 : 4), 'next']);
    }
  });

  it('a complete but wrong last line (say, zero-filled by a crash) is a torn tail too', () => {
    const path = join(freshDirectory(), 'j.jsonl');
    writeFileSync(path, Buffer.concat([journalLine('a'), Buffer.alloc(12), Buffer.from('\n')]));
    const { entries, problems } = JournalFile.open(path);
    expect(entries.map((e) => e.value)).toEqual(['a']);
    expect(problems[0]?.detail).toMatch(/torn tail at line 2/);
  });

  it('a changed byte before the last line is corruption: the file is refused with its path and line', () => {
    const bytes = Buffer.concat(values.map((v) => journalLine(v)));
    const lineOf = (offset: number): number => bytes.subarray(0, offset).filter((b) => b === 0x0a).length + 1;
    const lastLineStart = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
    fc.assert(
      fc.property(fc.nat({ max: lastLineStart - 1 }), fc.integer({ min: 1, max: 255 }), (at, mask) => {
        const damaged = Buffer.from(bytes);
        damaged[at] = (damaged[at] as number) ^ mask;
        let error: unknown;
        try {
          parseJournal('j.jsonl', damaged);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(DurableStateError);
        // A damaged newline joins two lines; the error names the first line it touches.
        const line = lineOf(at);
        expect([`j.jsonl:${line}`, `j.jsonl:${line - 1}`]).toContain((error as DurableStateError).path);
      }),
      { numRuns: 100 },
    );
  });

  it('a failed append makes the journal refuse further appends', () => {
    const path = join(freshDirectory(), 'j.jsonl');
    let fail = true;
    const { journal } = JournalFile.open(path, (point) => {
      if (point === 'journal-partial' && fail) throw new Error('EIO (simulated)');
    });
    expect(() => journal.append('a')).toThrow(DurableStateError);
    fail = false;
    expect(() => journal.append('b')).toThrow(/an earlier append failed/);
    journal.close();
    const reopened = JournalFile.open(path);
    expect(reopened.entries).toEqual([]);
    expect(reopened.problems).toHaveLength(1);
  });
});

describe('document files (replaced atomically, checksummed)', () => {
  it('give back the last value written, and undefined when there is none', () => {
    const path = join(freshDirectory(), 'd.json');
    expect(readDocument(path, 'f@1')).toBeUndefined();
    writeDocument(path, 'f@1', { a: 1 });
    writeDocument(path, 'f@1', { a: 2, s: 'ü' });
    expect(readDocument(path, 'f@1')).toEqual({ a: 2, s: 'ü' });
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });

  it('refuse any changed byte, another format, and a non-canonical header, naming the path', () => {
    const path = join(freshDirectory(), 'd.json');
    writeDocument(path, 'f@1', { owner: 'w1', epoch: 3 });
    const good = readFileSync(path);
    expect(() => readDocument(path, 'f@2')).toThrow(/format/);
    writeFileSync(path, good.toString('utf8').replace('"format":', '"format": '));
    expect(() => readDocument(path, 'f@1')).toThrow(/canonical/);
    fc.assert(
      fc.property(fc.nat({ max: good.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, mask) => {
        const damaged = Buffer.from(good);
        damaged[at] = (damaged[at] as number) ^ mask;
        writeFileSync(path, damaged);
        let error: unknown;
        try {
          readDocument(path, 'f@1');
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(DurableStateError);
        expect((error as DurableStateError).path).toBe(path);
      }),
      { numRuns: 100 },
    );
  });

  it('a temporary file left by a crash is reported and removed; the previous version stays', () => {
    const path = join(freshDirectory(), 'd.json');
    writeDocument(path, 'f@1', 'old');
    expect(() =>
      writeDocument(path, 'f@1', 'new', (point) => {
        if (point === 'document-tmp-synced') throw new Error('crash (simulated)');
      }),
    ).toThrow(DurableStateError);
    writeFileSync(`${path}.tmp`, 'half a docu');
    expect(clearLeftover(path)).toEqual({ path: `${path}.tmp`, detail: expect.stringMatching(/never completed/) });
    expect(existsSync(`${path}.tmp`)).toBe(false);
    expect(readDocument(path, 'f@1')).toBe('old');
    expect(clearLeftover(path)).toBeUndefined();
  });
});
