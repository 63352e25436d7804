import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LineSplitter, type LineEvent } from './lines.ts';

const lines = (events: LineEvent[]): string[] => events.map((e) => ('line' in e ? e.line : `<overflow ${e.overflow}>`));

describe('LineSplitter (PROTOCOL.md, Transport)', () => {
  it('yields the same lines however the stream is cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', maxLength: 20 }).filter((s) => !s.includes('\n')),
          { maxLength: 10 },
        ),
        fc.array(fc.nat(), { maxLength: 10 }),
        (texts, cuts) => {
          const bytes = Buffer.from(texts.map((t) => `${t}\n`).join(''), 'utf8');
          const splitter = new LineSplitter(1000);
          const out: LineEvent[] = [];
          let at = 0;
          for (const c of cuts) {
            const end = Math.min(bytes.length, at + (c % 7));
            out.push(...splitter.push(bytes.subarray(at, end)));
            at = end;
          }
          out.push(...splitter.push(bytes.subarray(at)), ...splitter.finish());
          // Empty lines are left out (PROTOCOL.md: blank lines are ignored).
          expect(lines(out)).toEqual(texts.map((t) => (t.endsWith('\r') ? t.slice(0, -1) : t)).filter((t) => t !== ''));
        },
      ),
    );
  });

  it('reports a line over the cap once, skips it, and reads the next line normally', () => {
    const splitter = new LineSplitter(10);
    const out = [
      ...splitter.push(Buffer.from('ok\n0123456')),
      ...splitter.push(Buffer.from('789abcdef')),
      ...splitter.push(Buffer.from('ghij\nnext\r\n')),
    ];
    expect(lines(out)).toEqual(['ok', '<overflow 16>', 'next']);
    expect(splitter.buffered).toBe(0);
  });

  it('counts the cap in bytes, not characters', () => {
    const splitter = new LineSplitter(4);
    expect(lines(splitter.push(Buffer.from('éé\néééé\n', 'utf8')))).toEqual(['éé', '<overflow 8>']);
  });

  it('leaves out empty lines: a flood of newlines yields nothing', () => {
    const splitter = new LineSplitter(10);
    expect(lines(splitter.push(Buffer.from(`${'\n'.repeat(100_000)}a\n\r\n\nb\n`)))).toEqual(['a', 'b']);
  });

  it('hands back an unterminated last line at the end of the stream', () => {
    const splitter = new LineSplitter();
    expect(lines(splitter.push(Buffer.from('a\nb')))).toEqual(['a']);
    expect(lines(splitter.finish())).toEqual(['b']);
  });
});
