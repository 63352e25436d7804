import fc from 'fast-check';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError, lineColumn, parseOperatorTrace, pointerOffset } from '../../spec/index.ts';
import type { OperatorStep } from '../../spec/index.ts';
import { firstContractViolation } from '../../model/index.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';
import { readOperatorTrace, readOperatorTraceFrom } from './operatorTraceStream.ts';

const examplesDir = join(import.meta.dirname, '..', '..', 'spec', 'examples');
const examples = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.trace.json'))
  .sort()
  .map((f) => ({ name: f, text: readFileSync(join(examplesDir, f), 'utf8') }));
const freshDirectory = useTemporaryDirectories('sj-stream-');

/** The whole-file reading of SPEC §4: parse, format, schema, then the contract; the error's one line, or the steps. */
function wholeFile(text: string, where: string): string | OperatorStep[] {
  try {
    const trace = parseOperatorTrace(text, where);
    const v = firstContractViolation(
      trace.config,
      trace.steps.map((s) => s.record),
    );
    if (v) {
      // As loadCheckedTrace places it: at the step, line and column.
      const { line, column } = lineColumn(text, pointerOffset(text, `/steps/${v.index}`));
      return new InputError('SJ104', `${where}:${line}:${column}`, `step ${v.index}: ${v.message}`).format();
    }
    return trace.steps;
  } catch (e) {
    if (e instanceof InputError) return e.format();
    throw e;
  }
}

/** The streaming reading, from chunks of `size` characters. */
function streamed(text: string, where: string, size: number): string | OperatorStep[] {
  let at = 0;
  const steps: OperatorStep[] = [];
  try {
    readOperatorTraceFrom(
      () => {
        if (at >= text.length) return undefined;
        const chunk = text.slice(at, at + size);
        at += size;
        return chunk;
      },
      where,
      () => ({ step: (i, s) => void (steps[i] = s) }),
    );
    return steps;
  } catch (e) {
    if (e instanceof InputError) return e.format();
    throw e;
  }
}

describe('§4 a trace read step by step answers as the whole file does', () => {
  it('every example: the same steps, whatever the chunk size', () => {
    for (const { name, text } of examples) {
      const whole = wholeFile(text, name);
      for (const size of [1, 7, 4096]) expect(streamed(text, name, size)).toEqual(whole);
    }
  });

  it('the same error line (SJ101 with line and column, SJ102 step and pointer, SJ103, SJ104 step) for damaged examples', () => {
    const dir = freshDirectory();
    /** The streamed reading of a file: what run and replay read. */
    const streamedFile = (text: string, name: string): string | number => {
      const path = join(dir, name);
      writeFileSync(path, text);
      try {
        return readOperatorTrace(path, () => ({ step: () => undefined })).steps;
      } catch (e) {
        if (e instanceof InputError) return e.format();
        throw e;
      }
    };
    const damaged = fc.record({
      example: fc.nat({ max: examples.length - 1 }),
      at: fc.nat(),
      edit: fc.constantFrom(
        { cut: 1, put: '' },
        { cut: 0, put: ',' },
        { cut: 0, put: '}' },
        { cut: 0, put: '"' },
        { cut: 1, put: 'x' },
        { cut: 2, put: '' },
        { cut: 0, put: '\n' },
        { cut: 0, put: '-' },
      ),
      size: fc.constantFrom(1, 3, 64, 1 << 16),
    });
    fc.assert(
      fc.property(damaged, ({ example, at, edit, size }) => {
        const { name, text } = examples[example] as { name: string; text: string };
        const i = at % (text.length + 1);
        const bad = text.slice(0, i) + edit.put + text.slice(i + edit.cut);
        const whole = wholeFile(bad, name);
        const stream = streamed(bad, name, size);
        if (typeof whole === 'string' && whole.includes(': SJ101 ')) {
          // A syntax error: from a file, word for word the whole-file reader's (the stream defers to it);
          // from chunks of text alone, SJ101 with a line and column of its own.
          expect(streamedFile(bad, name)).toEqual(wholeFile(bad, join(dir, name)));
          expect(stream).toMatch(/^[^:]+:\d+(:\d+)?: SJ101 /);
        } else {
          expect(stream).toEqual(whole);
        }
      }),
    );
  });

  it('schema, format and contract problems: the one SPEC §4 puts first wins, wherever it is in the file', () => {
    const base = JSON.parse(examples.find((e) => e.name === 'horizon-boundary.trace.json')?.text ?? '') as {
      steps: { record: Record<string, unknown> }[];
    } & Record<string, unknown>;
    const cases: ((d: typeof base) => void)[] = [
      (d) => ((d.steps[2] as { record: Record<string, unknown> }).record['side'] = 5),
      (d) => (d['extra'] = 1),
      (d) => (d['format'] = 'streamjoin/operator-trace@2'),
      (d) => {
        (d.steps[1] as { record: Record<string, unknown> }).record['ts'] = 'x';
        d['name'] = '';
      },
      (d) => ((d['config'] as Record<string, unknown>)['maxIntervalLength'] = -2),
    ];
    for (const edit of cases) {
      const d = structuredClone(base);
      edit(d);
      // Members in every order: steps first, config last, format last.
      const orders = [Object.keys(d), [...Object.keys(d)].reverse(), ['steps', ...Object.keys(d).filter((k) => k !== 'steps')]];
      for (const order of orders) {
        const text = JSON.stringify(Object.fromEntries(order.map((k) => [k, d[k]])), null, 1);
        expect(streamed(text, 't.json', 5)).toEqual(wholeFile(text, 't.json'));
      }
    }
  });

  it('reads a file from disk; SJ100 for one that is missing', () => {
    const dir = freshDirectory();
    const path = join(dir, 't.json');
    writeFileSync(path, examples[0]?.text ?? '');
    let n = 0;
    const read = readOperatorTrace(path, () => ({ step: () => void n++ }));
    expect(n).toBe(read.steps);
    expect(read.memberOrder).toContain('steps');
    expect(() => readOperatorTrace(join(dir, 'missing.json'), () => ({ step: () => undefined }))).toThrow(/no such file/);
  });
});
