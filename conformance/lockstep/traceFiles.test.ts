import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOperatorTrace } from '../../spec/index.ts';
import type { OperatorTrace } from '../../spec/index.ts';
import { createModelOperator } from '../sut/modelOperator.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';
import { runOperatorTrace, withExpectations } from './operatorTrace.ts';
import { runTraceFile } from './traceFiles.ts';

const examplesDir = join(import.meta.dirname, '..', '..', 'spec', 'examples');
const freshDirectory = useTemporaryDirectories('sj-tracefiles-');

function plain(trace: OperatorTrace): OperatorTrace {
  return { ...trace, steps: trace.steps.map(({ record, note }) => (note === undefined ? { record } : { record, note })) };
}

describe('§4 trace files run step by step', () => {
  it('agree with the trace run in memory on every example: counts, last retained counts, and no divergence', async () => {
    for (const f of readdirSync(examplesDir).filter((n) => n.endsWith('.trace.json'))) {
      const path = join(examplesDir, f);
      const trace = loadOperatorTrace(path);
      const inMemory = runOperatorTrace(trace, createModelOperator);
      const streamed = await runTraceFile(path, createModelOperator);
      expect(streamed).toMatchObject({ name: trace.name, steps: trace.steps.length, checkedSteps: trace.steps.length });
      expect(streamed.retained).toEqual(inMemory.observations.at(-1)?.retained);
      expect(streamed.changes).toBe(inMemory.observations.reduce((n, o) => n + o.changes.length, 0));
      expect(streamed.divergence).toBeUndefined();
    }
  });

  it('--write-expected writes exactly what JSON.stringify(trace with expectations, null, 2) gives, whatever the member order', async () => {
    const dir = freshDirectory();
    for (const f of readdirSync(examplesDir).filter((n) => n.endsWith('.trace.json'))) {
      const trace = plain(loadOperatorTrace(join(examplesDir, f)));
      const want = withExpectations(trace, runOperatorTrace(trace, createModelOperator).observations);
      const keys = Object.keys(trace);
      for (const order of [keys, [...keys].reverse()]) {
        const reordered = Object.fromEntries(order.map((k) => [k, (trace as unknown as Record<string, unknown>)[k]]));
        const expected = Object.fromEntries(order.map((k) => [k, (want as unknown as Record<string, unknown>)[k]]));
        writeFileSync(join(dir, 'in.json'), JSON.stringify(reordered));
        await runTraceFile(join(dir, 'in.json'), createModelOperator, { writeExpected: join(dir, 'out.json') });
        expect(readFileSync(join(dir, 'out.json'), 'utf8')).toBe(`${JSON.stringify(expected, null, 2)}\n`);
      }
    }
    // A trace without steps.
    const empty = { format: 'streamjoin/operator-trace@1', name: 'empty', config: { allowedLateness: 0, maxIntervalLength: 0 }, steps: [] };
    writeFileSync(join(dir, 'in.json'), JSON.stringify(empty));
    await runTraceFile(join(dir, 'in.json'), createModelOperator, { writeExpected: join(dir, 'out.json') });
    expect(readFileSync(join(dir, 'out.json'), 'utf8')).toBe(`${JSON.stringify(empty, null, 2)}\n`);
  });

  it('bad input found after steps were written leaves no file behind', async () => {
    const dir = freshDirectory();
    const trace = plain(loadOperatorTrace(join(examplesDir, 'horizon-boundary.trace.json')));
    const text = JSON.stringify(trace);
    writeFileSync(join(dir, 'in.json'), `${text.slice(0, -2)}`);
    await expect(runTraceFile(join(dir, 'in.json'), createModelOperator, { writeExpected: join(dir, 'out.json') })).rejects.toThrow(
      /the document ends inside an array/,
    );
    expect(existsSync(join(dir, 'out.json'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['in.json']);
  });
});
