// Over the protocol, a system that answers a valid action with error 1003
// and then refuses every inspect of the session fails at that step, with a
// minimized counterexample (issue 21, item 4): the process adapter hands
// on the replies in before the refused inspect, and a refused inspect ends
// the trace, not the process, so minimizing goes on.
import { describe, expect, inject, it } from 'vitest';
import { join } from 'node:path';
import { runConform } from '../job/conform.ts';
import { spawnSystem } from './process.ts';

const root = join(import.meta.dirname, '..', '..');
const seed = inject('fcSeed');

describe('a process that breaks mid-action (misbehave breaks-at-first-match)', () => {
  it('fails at the action answered with internal_error, each counterexample minimized, never unknown', async () => {
    const system = spawnSystem('node --import tsx conformance/testdata/misbehave.ts breaks-at-first-match', { cwd: root });
    try {
      const report = await runConform({ system, seed, runs: 20, levels: ['cluster', 'faults'], examples: [] });
      expect(report.unknown).toBeUndefined();
      expect(report.verdict).toBe('fail');
      expect(report.random.map((r) => [r.level, r.verdict])).toEqual([
        ['cluster', 'fail'],
        ['faults', 'fail'],
      ]);
      for (const f of report.failures) {
        expect(f.divergence.field).toBe('reply');
        expect(f.divergence.summary).toMatch(/refused with internal_error .*but it is enabled/);
        // Two inserts make the first match; a random config may need one more step to reach them.
        expect(f.trace.trace.steps.length, f.divergence.summary).toBeLessThanOrEqual(3);
      }
    } finally {
      await system.close();
    }
  });
});
