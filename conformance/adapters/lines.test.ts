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

  it('PROTOCOL.md: a line of exactly the cap ended by CRLF is a line (the CR is part of the newline), however the stream is cut; one byte more is over the cap', () => {
    const text = 'abcd';
    for (const ending of ['\n', '\r\n']) {
      const bytes = Buffer.from(`${text}${ending}next${ending}`);
      // Every cut into two chunks, the CR and the LF apart among them.
      for (let cut = 0; cut <= bytes.length; cut++) {
        const splitter = new LineSplitter(4);
        const out = [...splitter.push(bytes.subarray(0, cut)), ...splitter.push(bytes.subarray(cut)), ...splitter.finish()];
        expect(lines(out), `${JSON.stringify(ending)} cut at ${cut}`).toEqual(['abcd', 'next']);
      }
    }
    expect(lines(new LineSplitter(4).push(Buffer.from('abcde\r\nok\n')))).toEqual(['<overflow 5>', 'ok']);
    expect(lines(new LineSplitter(4).push(Buffer.from('abcde\nok\n')))).toEqual(['<overflow 5>', 'ok']);
    // A CR that is not the line's last byte counts like any byte.
    const split = new LineSplitter(4);
    expect(lines([...split.push(Buffer.from('abcd\r')), ...split.push(Buffer.from('x\nok\n'))])).toEqual(['<overflow 6>', 'ok']);
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
