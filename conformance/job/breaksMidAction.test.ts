// A system that breaks part-way fails, it does not go unknown (PROTOCOL.md:
// an error reply to a request the model carries out is a difference). The
// reply of a step is judged before the inspect after it, so a refused
// inspect never hides a wrong reply; minimizing and shrinking pass over
// candidates the system cannot be judged on; and every part that ran is in
// the report with its own verdict, `unknown` included.
import { describe, expect, inject, it } from 'vitest';
import { PROTOCOL_ERRORS } from '../../spec/index.ts';
import type { AnyTrace, Level } from '../../spec/index.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import type { InProcessSut, SystemUnderTest } from '../sut/sut.ts';
import { SutUnavailable } from '../sut/sut.ts';
import { coverAnyScenario, EXHAUSTIVE_SCENARIOS } from '../generate/exhaustive.ts';
import { runTrace } from '../lockstep/anyTrace.ts';
import { minimizeTrace } from '../lockstep/minimize.ts';
import { loadCheckedTrace } from '../lockstep/traceFiles.ts';
import { breaksAtFirstMatch, refusesInspectAtFirstMatch } from '../testdata/breaksMidAction.ts';
import { runConform } from './conform.ts';
import type { ConformReport, ExhaustivePart } from './conformTypes.ts';
import { specExamplePaths } from './traceFilesPart.ts';

const seed = inject('fcSeed');

/** Two scenarios, one per kind, each with a match early on. */
const scenarios = (): ExhaustivePart[] =>
  EXHAUSTIVE_SCENARIOS.filter((s) => s.name === 'operator-edges' || s.name === 'migration-under-traffic').map((scenario) => ({
    scenario,
    build: () => coverAnyScenario(scenario),
  }));

/** The first spec example at each kind (operator, cluster): the examples part runs and is listed. */
const examples = () => {
  const paths = specExamplePaths();
  const operator = paths.find((p) => !p.includes('/cluster/')) as string;
  const cluster = paths.find((p) => p.includes('/cluster/')) as string;
  return [operator, cluster].map((path) => ({ path, trace: loadCheckedTrace(path) }));
};

function conform(sut: InProcessSut, withExamples: boolean): Promise<ConformReport> {
  return runConform({
    system: inProcessSystem(sut, 'breaks-mid-action'),
    seed,
    runs: 30,
    examples: withExamples ? examples() : [],
    exhaustive: scenarios(),
  });
}

/** Insert left, insert right: the second writes the first match. */
const twoInserts = (extra: number): AnyTrace => {
  const key = 'k1';
  const insert = (side: 'L' | 'R', id: string, ts: number) => ({
    action: { type: 'record' as const, record: { kind: 'insert' as const, key, side, id, ts, start: ts, end: ts + 1 } },
  });
  const watermarks = Array.from({ length: extra }, (_, i) => ({
    action: { type: 'record' as const, record: { kind: 'watermark' as const, side: 'L' as const, wm: i } },
  }));
  return {
    kind: 'cluster',
    trace: {
      format: 'streamjoin/cluster-trace@1',
      name: 'two-inserts',
      config: { join: { allowedLateness: 100, maxIntervalLength: 10 }, workers: ['w1', 'w2'], keys: [{ key, owner: 'w1' }] },
      steps: [...watermarks, insert('L', 'a', 50), insert('R', 'b', 50), insert('R', 'c', 50)],
    },
  };
};

describe('a system that answers a valid action with an error, then refuses inspect (issue 21, item 4)', () => {
  it('diverges at that step in the reply, at every cluster level, with 1003 or any other code; the refused inspect after it hides nothing', async () => {
    for (const code of [PROTOCOL_ERRORS.internal_error, PROTOCOL_ERRORS.not_enabled, PROTOCOL_ERRORS.malformed_request]) {
      for (const level of ['cluster', 'faults'] as Level[]) {
        const d = await runTrace(inProcessSystem(breaksAtFirstMatch(code)), twoInserts(3), level);
        expect(d?.field, `code ${code} at ${level}`).toBe('reply');
        expect(d?.step).toBe(4);
        expect(d?.actual).toEqual({ error: { code, text: expect.any(String) } });
      }
    }
  });

  it('minimizing passes over candidates the system cannot be judged on, down to the two inserts', async () => {
    const trace = twoInserts(12);
    // After the first session, any trace holding the watermark 5 cannot be judged (the system dies on it): such a
    // candidate is not this candidate, and minimizing goes on (before, the first of them ended it, unminimized).
    const inner = inProcessSystem(breaksAtFirstMatch());
    let sessions = 0;
    let unknownCandidates = 0;
    const system: SystemUnderTest = {
      ...inner,
      openCluster: async (config, level) => {
        const session = await inner.openCluster(config, level);
        const first = sessions++ === 0;
        return {
          ...session,
          steps: (actions, observed) => {
            if (!first && actions.some((a) => a.type === 'record' && a.record.kind === 'watermark' && a.record.wm === 5)) {
              unknownCandidates++;
              return Promise.reject(new SutUnavailable('dead: the process exited with code 3'));
            }
            return session.steps(actions, observed);
          },
        };
      },
    };
    const found = await runTrace(system, trace, 'cluster');
    expect(found?.step).toBe(13);
    const minimal = await minimizeTrace(system, 'cluster', trace, found as NonNullable<typeof found>);
    expect(unknownCandidates).toBeGreaterThan(0);
    expect(minimal.trace.trace.steps.length).toBe(2);
    expect(minimal.divergence.field).toBe('reply');
  });

  it('shrinking and minimizing pass over candidates the system cannot be judged on: the counterexample stays short (seeds 1-8 where one is met)', {
    timeout: 180_000,
  }, async () => {
    const met: number[] = [];
    for (let fixedSeed = 1; fixedSeed <= 8; fixedSeed++) {
      // Once it has broken (its first divergence), the system dies on every third session: those candidates cannot be
      // judged, and shrinking and minimizing must go on past them. (Which candidates, by count and not by content:
      // candidates are run only up to the step where the trace being shrunk diverged, the first match here, so a rule
      // on what they hold, say a control action, would meet none in most seeds.)
      const inner = inProcessSystem(breaksAtFirstMatch());
      let broke = false;
      let sessionsSince = 0;
      let unknownCandidates = 0;
      const system: SystemUnderTest = {
        ...inner,
        openCluster: async (config, level) => {
          const session = await inner.openCluster(config, level);
          const dies = broke && sessionsSince++ % 3 === 1;
          return {
            ...session,
            steps: async (actions, observed) => {
              if (dies) {
                unknownCandidates++;
                throw new SutUnavailable('dead: the process exited with code 3');
              }
              return session.steps(actions, observed).catch((e: unknown) => {
                broke = true;
                throw e;
              });
            },
          };
        },
      };
      const report = await runConform({ system, seed: fixedSeed, runs: 30, levels: ['cluster'], examples: [] });
      expect(
        report.random.map((r) => r.verdict),
        `seed ${fixedSeed}`,
      ).toEqual(['fail']);
      // A seed whose failure needs no shrinking or minimizing never meets an unknown candidate: it tells nothing here.
      if (unknownCandidates === 0) continue;
      met.push(fixedSeed);
      // The second session after the break is the first that dies: a second shrink fast-check accepted came after it.
      expect(report.random[0]?.shrinks, `seed ${fixedSeed}`).toBeGreaterThan(1);
      const steps = report.failures[0]?.trace.trace.steps.length;
      expect(steps, `seed ${fixedSeed}: ${report.failures[0]?.divergence.summary}`).toBeLessThanOrEqual(3);
    }
    // Enough seeds meet one for this to be a test (if the generators change so that none does, it says so).
    expect(met.length).toBeGreaterThanOrEqual(2);
  });

  it('whose replies conform but whose inspect is refused cannot be judged: unknown, with the refusal as the reason', async () => {
    const run = runTrace(inProcessSystem(refusesInspectAtFirstMatch()), twoInserts(2), 'cluster');
    await expect(run).rejects.toThrow(SutUnavailable);
    await expect(run).rejects.toThrow(/inspect refused/);
  });

  it('the job fails with short counterexamples, and every part that ran is in the report with its verdict', {
    timeout: 120_000,
  }, async () => {
    const report = await conform(breaksAtFirstMatch(), true);
    expect(report.verdict).toBe('fail');
    expect(report.unknown).toBeUndefined();
    // Each example with its verdict (the operator one has no match: it passes).
    expect(report.examples.map((e) => e.verdict)).toEqual(['pass', 'fail']);
    expect(report.exhaustive.map((x) => [x.scenario, x.verdict])).toEqual([
      ['operator-edges', 'fail'],
      ['migration-under-traffic', 'fail'],
    ]);
    expect(report.random.map((r) => [r.level, r.verdict])).toEqual([
      ['operator', 'fail'],
      ['cluster', 'fail'],
      ['faults', 'fail'],
    ]);
    for (const f of report.failures) {
      // The shortest trace with a match has two inserts (a config's keys may need a record of their own kind first).
      expect(f.trace.trace.steps.length, `${f.origin} ${f.level}: ${f.divergence.summary}`).toBeLessThanOrEqual(3);
      expect(f.divergence.field === 'reply' || f.divergence.summary.includes('internal_error')).toBe(true);
      expect(f.divergence.summary).toMatch(/internal_error/);
    }
  });

  it('a job that goes unknown still lists the scenario it went unknown in', { timeout: 120_000 }, async () => {
    const report = await conform(refusesInspectAtFirstMatch(), false);
    expect(report.verdict).toBe('unknown');
    expect(report.unknown?.reason).toMatch(/inspect refused/);
    // The operator scenario conforms (no inspect at level operator); the cluster one goes unknown where the inspect is refused.
    expect(report.exhaustive.map((x) => [x.scenario, x.verdict])).toEqual([
      ['operator-edges', 'pass'],
      ['migration-under-traffic', 'unknown'],
    ]);
    // With what it had covered when the system broke: its traces, none of them judged through.
    expect(report.exhaustive[1]?.traces).toBeGreaterThan(0);
    expect(report.unknown?.during).toBe('exhaustive scenario migration-under-traffic');
  });

  it('an example the system cannot be judged on is listed unknown', async () => {
    const cluster = examples().filter((e) => e.trace.kind === 'cluster');
    const report = await runConform({
      system: inProcessSystem(refusesInspectAtFirstMatch(), 'refuses-inspect'),
      seed,
      runs: 0,
      levels: ['cluster'],
      examples: cluster,
    });
    expect(report.verdict).toBe('unknown');
    expect(report.examples.map((e) => e.verdict)).toEqual(['unknown']);
  });
});
