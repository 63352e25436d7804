import { describe, expect, it } from 'vitest';
import { OPERATOR_SCENARIOS } from './operatorExhaustive.ts';
import { EXHAUSTIVE_SCENARIOS, coverAnyScenario, coverageTable, isCrashPoint, missingCoverage, requiredCoverage } from './exhaustive.ts';
import { exhaustiveScenario, type ExhaustiveScenario } from './clusterScenarios.ts';
import { COVER_CHECKS, checkCover } from '../testdata/coverChecks.ts';

const scenario = (name: string): ExhaustiveScenario => exhaustiveScenario(name) as ExhaustiveScenario;

describe('bounded-exhaustive scenarios: the bigger covers (SPEC §7)', () => {
  // The migration scenario with one crash instead of two: the same shape, a fifth of the size.
  const oneCrash: ExhaustiveScenario = {
    ...scenario('migration-under-traffic'),
    bounds: { ...scenario('migration-under-traffic').bounds, crashes: 1 },
  };
  for (const s of [scenario('failover-replay-from-older-checkpoint'), oneCrash, scenario('rich-state-across-a-handoff')]) {
    it(`${s.name}${s === oneCrash ? ' (one crash)' : ''}: ${COVER_CHECKS}`, () => {
      checkCover(s);
    });
  }

  it('every scenario has a fault-free way to settle from every state (P7 Progress), carries probes (§7), and together they take every required crash point and step kind', () => {
    const covers = EXHAUSTIVE_SCENARIOS.map((x) => coverAnyScenario(x));
    expect(missingCoverage(covers)).toEqual([]);
    // §7: every scenario, at either level, carries refusal or rejection probes.
    for (const c of covers) expect(c.probes, c.scenario.name).toBeGreaterThan(0);
    const crashPoints = requiredCoverage().filter(isCrashPoint);
    expect(crashPoints).toEqual(
      expect.arrayContaining([
        'crash:src@migrate@frozen',
        'crash:dst@migrate@installed',
        'crash:coordinator@migrate@committed',
        'commit+crash-after-fence',
        'failover+crash-after-fence',
        'crash:coordinator@failover@fenced',
        'crash:idle@steady',
      ]),
    );
    // Each scenario is about what its name says.
    const table = new Map(coverageTable(covers).map((r) => [r.label, r.scenarios]));
    expect(table.get('process:fenced')).toContain('zombie-after-failover');
    expect(table.get('checkpoint')).toContain('failover-replay-from-older-checkpoint');
    expect(table.get('checkpoint')).toContain('zombie-checkpoint-recovered');
    expect(table.get('duplicateInstall:refused')).toContain('duplicates-and-retractions-across-a-handoff');
    expect(table.get('duplicateInstall:refused')).toContain('failover-with-duplicates-and-failback');
    expect(table.get('retract:match-with-evicted-endpoint')).toContain('operator-edges');
    // A subset of the scenarios misses crash points, and says which.
    expect(
      missingCoverage(covers.slice(OPERATOR_SCENARIOS.length, OPERATOR_SCENARIOS.length + 2)).filter(isCrashPoint).length,
    ).toBeGreaterThan(0);
  });
});
