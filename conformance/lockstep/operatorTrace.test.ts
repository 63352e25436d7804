import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadOperatorTrace } from '../../spec/index.ts';
import { runOperatorTrace } from './operatorTrace.ts';
import { createModelOperator } from '../sut/modelOperator.ts';

const examplesDir = join(import.meta.dirname, '..', '..', 'spec', 'examples');
const examples = readdirSync(examplesDir).filter((f) => f.endsWith('.trace.json'));

describe('the reference model passes every hand-worked example (J1–J8)', () => {
  for (const f of examples) {
    it(f, () => {
      const result = runOperatorTrace(loadOperatorTrace(join(examplesDir, f)), createModelOperator);
      expect(result.divergence).toBeUndefined();
    });
  }
});

describe('runOperatorTrace reports the first divergence', () => {
  const trace = loadOperatorTrace(join(examplesDir, 'match-outlives-endpoint.trace.json'));

  it('names the step and field when an expectation is wrong', () => {
    const edited = structuredClone(trace);
    const step = edited.steps[4];
    if (!step?.expect) throw new Error('example changed');
    step.expect.changes = [];
    const result = runOperatorTrace(edited, createModelOperator);
    expect(result.divergence).toMatchObject({ step: 4, field: 'changes', expected: [] });
  });

  it('compares changes as a set, not as a sequence', () => {
    const edited = structuredClone(loadOperatorTrace(join(examplesDir, 'multi-match-retraction.trace.json')));
    const step = edited.steps[4];
    if (!step?.expect) throw new Error('example changed');
    step.expect.changes.reverse();
    expect(runOperatorTrace(edited, createModelOperator).divergence).toBeUndefined();
  });

  it('checks retained counts when the trace has them', () => {
    const edited = structuredClone(trace);
    const step = edited.steps[3];
    if (!step?.expect?.retained) throw new Error('example changed');
    step.expect.retained.matches = 0;
    expect(runOperatorTrace(edited, createModelOperator).divergence).toMatchObject({ step: 3, field: 'retained' });
  });
});
