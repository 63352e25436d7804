// One bug, one counterexample to attach: a run's divergences grouped by
// cause (the first field that differs, the rules broken, the kind of step),
// and in each group the shortest, a minimized generated trace before an
// example's.
import { describe, expect, inject, it } from 'vitest';
import { join } from 'node:path';
import { runConform } from '../job/conform.ts';
import { loadCheckedTrace } from '../lockstep/traceFiles.ts';
import { noRetractionsSystem } from '../views/counterexampleFixtures.ts';
import { causeOf, groupByCause } from './causes.ts';

const seed = inject('fcSeed');
const examples = ['multi-match-retraction', 'many-to-many-retractions', 'duplicate-after-retract'].map((name) => {
  const path = join(import.meta.dirname, '..', '..', 'spec', 'examples', `${name}.trace.json`);
  return { path, trace: loadCheckedTrace(path) };
});

describe('groupByCause', () => {
  it('one group per cause in the order found; the shortest is attached, a random or exhaustive trace before an example at equal length', () => {
    const groups = groupByCause([
      { cause: 'a', steps: 3, origin: 'example' },
      { cause: 'b', steps: 2, origin: 'example' },
      { cause: 'a', steps: 3, origin: 'random' },
      { cause: 'a', steps: 4, origin: 'exhaustive' },
      { cause: 'a', steps: 2, origin: 'example' },
    ]);
    expect(groups).toEqual([
      { cause: 'a', members: [0, 2, 3, 4], attach: 4 },
      { cause: 'b', members: [1], attach: 1 },
    ]);
    expect(
      groupByCause([
        { cause: 'a', steps: 3, origin: 'example' },
        { cause: 'a', steps: 3, origin: 'exhaustive' },
      ])[0]?.attach,
    ).toBe(1);
    expect(groupByCause([])).toEqual([]);
  });
});

describe('a run groups its divergences by cause', () => {
  it('J6: an operator that drops match retractions diverges in several examples and random traces: one cause, one to attach', async () => {
    const report = await runConform({ system: noRetractionsSystem(), seed, runs: 100, examples, levels: ['operator'] });
    expect(report.verdict).toBe('fail');
    expect(report.failures.length).toBeGreaterThan(1);
    expect(report.causes).toHaveLength(1);
    const [group] = report.causes;
    if (!group) throw new Error('no cause');
    expect(group.members).toEqual(report.failures.map((_, i) => i));
    const attached = report.failures[group.attach];
    if (!attached) throw new Error('no failure attached');
    expect(group.cause).toBe(causeOf('operator', attached.divergence));
    expect(group.cause).toMatch(/^level operator: changes at record retract, breaks J6/);
    const shortest = Math.min(...report.failures.map((f) => f.trace.trace.steps.length));
    expect(attached.trace.trace.steps.length).toBe(shortest);
    if (report.failures.some((f) => f.origin !== 'example' && f.trace.trace.steps.length === shortest))
      expect(attached.origin).not.toBe('example');
  });
});
