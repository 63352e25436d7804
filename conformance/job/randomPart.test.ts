// Shrinking a random trace runs each candidate only as far as the trace being
// shrunk diverged: a shrink must diverge there or earlier, and fast-check's
// array shrinker drops steps from the front first, so a long trace that
// diverges early was run in full, tail and all, for every candidate.
import { describe, expect, it } from 'vitest';
import { PROTOCOL_ERRORS, type AnyTrace } from '../../spec/index.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import type { SystemUnderTest } from '../sut/sut.ts';
import { breaksAtFirstMatch } from '../testdata/breaksMidAction.ts';
import { DEAD, dyingSystem } from '../testdata/dying.ts';
import { runTrace } from '../lockstep/anyTrace.ts';
import { runConform } from './conform.ts';

describe('random part: shrinking', () => {
  it('no candidate (shrinking, then minimizing) is sent more steps than the failing trace was up to its divergence, at seeds 1-8; the failing traces went on past it', async () => {
    const longer: number[] = [];
    for (let seed = 1; seed <= 8; seed++) {
      const inner = inProcessSystem(breaksAtFirstMatch());
      // Steps sent in each session, in order (a session is sent its whole trace at once), and the first that broke.
      const sent: number[] = [];
      let firstBroken: number | undefined;
      let lastTrace: AnyTrace | undefined;
      const system: SystemUnderTest = {
        ...inner,
        openCluster: async (config, level) => {
          const session = await inner.openCluster(config, level);
          const index = sent.push(0) - 1;
          return {
            ...session,
            steps: async (actions, observed) => {
              sent[index] = (sent[index] ?? 0) + actions.length;
              const replies = await session.steps(actions, observed).catch((e: unknown) => {
                firstBroken ??= index;
                throw e;
              });
              // Its break is an internal_error reply (a refused probe of a trace that conforms is not one).
              if (replies.some((r) => 'error' in r.reply && r.reply.error.code === PROTOCOL_ERRORS.internal_error)) firstBroken ??= index;
              return replies;
            },
          };
        },
      };
      const report = await runConform({
        system,
        seed,
        runs: 30,
        levels: ['cluster'],
        examples: [],
        onTrace: (run) => {
          lastTrace = run.trace;
        },
      });
      expect(
        report.random.map((r) => r.verdict),
        `seed ${seed}`,
      ).toEqual(['fail']);
      if (firstBroken === undefined || lastTrace === undefined) throw new Error(`seed ${seed}: no session broke`);
      // Where the failing trace diverged (judged again on its own): no later candidate is sent more steps than that.
      const found = await runTrace(inProcessSystem(breaksAtFirstMatch()), lastTrace, 'cluster');
      if (found === undefined) throw new Error(`seed ${seed}: the failing trace does not diverge again`);
      expect(Math.max(...sent.slice(firstBroken + 1)), `seed ${seed}`).toBeLessThanOrEqual(found.step + 1);
      if (lastTrace.trace.steps.length > found.step + 1) longer.push(seed);
    }
    // Enough seeds' failing traces go on past the divergence for this to be a test.
    expect(longer.length).toBeGreaterThanOrEqual(2);
  });

  it('a system that dies on every retraction (a death that comes back, lockstep/deaths.ts) fails, shrunk over candidates that die to a short counterexample that ends at a retraction, at every level', async () => {
    for (const level of ['operator', 'cluster', 'faults'] as const) {
      const report = await runConform({ system: dyingSystem(['at-retract']), seed: 1, runs: 50, levels: [level], examples: [] });
      expect(
        report.random.map((r) => r.verdict),
        level,
      ).toEqual(['fail']);
      const [failure] = report.failures;
      const steps = failure?.trace.trace.steps ?? [];
      expect(steps.length, level).toBeLessThanOrEqual(3);
      expect(failure?.divergence.step).toBe(steps.length - 1);
      expect(failure?.divergence.actual).toEqual({ died: DEAD });
      expect(failure?.divergence.summary).toMatch(/^record retract .*: the system died handling it/);
    }
  });
});
