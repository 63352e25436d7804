// Minimizing a divergent trace (minimize.ts): the counterexample a user
// attaches to a bug report keeps the steps its divergence needs, even where
// the trace that found it is hundreds of steps long.
import fc from 'fast-check';
import { describe, expect, inject, it } from 'vitest';
import { OPERATOR_TRACE_FORMAT, type AnyTrace, type JoinConfig, type RowRecord } from '../../spec/index.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { sandwich } from '../generate/separators.ts';
import { naiveMatchIdSystem } from '../testdata/wrongSystems.ts';
import { runTrace } from './anyTrace.ts';
import { minimizeTrace } from './minimize.ts';

const seed = inject('fcSeed');
const config: JoinConfig = { allowedLateness: 10, maxIntervalLength: 2 };
const row = (key: string, side: 'L' | 'R', id: string, start: number, length: number): RowRecord => ({
  kind: 'insert',
  key,
  side,
  id,
  ts: start,
  start,
  end: start + length,
});

describe('minimizeTrace', () => {
  it('J3: a naive match id hidden among 350 to 450 rows of other keys minimizes to the four rows of its collision, within the default budget', async () => {
    const system = inProcessSystem(naiveMatchIdSystem('|'), 'naive');
    const collision = sandwich('|');
    const filler = fc.record({
      key: fc.integer({ min: 1, max: 3 }),
      side: fc.constantFrom('L' as const, 'R' as const),
      start: fc.nat({ max: 5 }),
      length: fc.nat({ max: 2 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(filler, { minLength: 350, maxLength: 450 }),
        fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
        fc.nat({ max: 5 }),
        async (rows, places, t) => {
          // The filler: rows of keys k1..k3 with ids of their own (no two alike, none with a separator in it).
          const steps = rows.map((r, i) => ({ record: row(`k${r.key}`, r.side, `${r.side.toLowerCase()}${i}`, r.start, r.length) }));
          // The collision's rows at an instant, in its order (both left ids, then both right ids): the first three at places among
          // them, the last at the end, where it binds the second colliding match (so the whole trace comes before the divergence).
          const ids: [side: 'L' | 'R', id: string][] = [
            ['L', collision.left[0]],
            ['L', collision.left[1]],
            ['R', collision.right[0]],
            ['R', collision.right[1]],
          ];
          const at = [...places.map((p) => p % (steps.length + 1)).sort((a, b) => a - b), steps.length];
          for (let i = 3; i >= 0; i--) {
            const [side, id] = ids[i] as [side: 'L' | 'R', id: string];
            steps.splice(at[i] as number, 0, { record: row('k', side, id, t, 0) });
          }
          const trace: AnyTrace = { kind: 'operator', trace: { format: OPERATOR_TRACE_FORMAT, name: 'hidden', config, steps } };
          const found = await runTrace(system, trace, 'operator');
          expect(found).toBeDefined();
          const minimal = await minimizeTrace(system, 'operator', trace, found as NonNullable<typeof found>);
          const kept = minimal.trace.kind === 'operator' ? minimal.trace.trace.steps.map((s) => s.record) : [];
          expect(kept.map((r) => (r.kind === 'watermark' ? r.kind : `${r.key} ${r.side} ${r.id}`))).toEqual(
            ids.map(([side, id]) => `k ${side} ${id}`),
          );
          expect(minimal.divergence.step).toBe(3);
        },
      ),
      { seed, numRuns: 3, endOnFailure: true },
    );
  });
});
