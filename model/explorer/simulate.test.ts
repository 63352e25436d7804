import { describe, expect, it } from 'vitest';
import { counterModel, lostUpdateModel, wheelModel } from './examples/toys.ts';
import { CheckSession } from './session.ts';
import { createRunControl } from './engine.ts';
import { minimize, reproduce, Walker } from './simulate.ts';
import { createSimulationCounters, runWalks, shutOutLateThreads, simulationCounters } from './walkers.ts';

describe('simulation: seeded random walks', () => {
  it('a walk is a function of (seed, walk): the same seed and walk give the same steps, another seed others', () => {
    const model = counterModel({ counters: 4, max: 6 });
    const walker = new Walker(model, 100);
    const a = walker.run(42, 3, true);
    const b = new Walker(model, 100).run(42, 3, true);
    expect(a.path).toEqual(b.path);
    expect(a.steps).toBe(24);
    const others = [0, 1, 2, 4].map((k) => JSON.stringify(walker.run(42, k, true).path));
    expect(new Set([JSON.stringify(a.path), ...others]).size).toBe(5);
  });

  it('finds an invariant violation and minimizes it by deleting steps (every process must read and write: 2n steps)', async () => {
    const model = lostUpdateModel({ processes: 3 });
    const session = new CheckSession({ workers: 1 });
    const report = await session.simulate(model, undefined, { seed: 7, walks: 200, depth: 100, minimizeSeconds: 10 });
    await session.close();
    const violated = report.invariants.find((r) => r.name === 'NoLostUpdate');
    expect(violated?.verdict).toBe('violated');
    expect(violated?.path?.actions).toHaveLength(6);
    expect(report.violation?.minimal).toBe(true);
    expect(report.stoppedBy).toBe('violation');
    // The same seed finds the same walk first.
    const again = await new CheckSession({ workers: 1 }).simulate(model, undefined, { seed: 7, walks: 200, depth: 100 });
    expect(again.violation?.walk).toBe(report.violation?.walk);
  });

  it('finds Progress broken where only faults are left, with the fault-free continuation into the dead end', () => {
    const model = wheelModel('deadlock');
    const walker = new Walker(model, 20);
    let found: ReturnType<Walker<unknown, unknown>['run']> | undefined;
    for (let k = 0; k < 50 && !found?.violation; k++) found = walker.run(1, k) as typeof found;
    expect(found?.violation).toMatchObject({ kind: 'progress', property: 'Progress' });
    // The budget (seconds) only bounds a runaway: minimizing ends on its own once no step can go, and a loaded machine must not cut it short.
    const min = minimize(model, 'progress', 'Progress', found?.violation?.actions ?? [], 600);
    // Deleting any one step no longer reproduces it (the break must fall at 0); whole turns of the wheel are gone.
    expect(min?.minimal).toBe(true);
    const kinds = min?.reproduction.path.actions.map((a) => a.kind) ?? [];
    expect(kinds[kinds.length - 1]).toBe('break');
    expect(kinds.length % 3).toBe(1);
    expect(kinds.length).toBeLessThan((found?.violation?.actions.length ?? 0) + 1);
    expect(min?.reproduction.trap).toMatchObject({ kind: 'deadlock', actions: [{ kind: 'tick' }] });
  });

  it('a pool thread that enters before the walks end walks; one shut out first (still building its model) claims no walk', () => {
    const model = wheelModel('none');
    const limits = { control: createRunControl(), deadline: Date.now() + 600_000 };
    const shared = createSimulationCounters(2);
    const walked = runWalks(model, { seed: 3, walks: 5, depth: 30 }, limits, shared, 0);
    expect(walked.walks).toBe(5);
    // This thread's walks are over: slot 0 entered and is waited for, slot 1 had not and is shut out.
    expect(shutOutLateThreads(shared, 2)).toEqual([true, false]);
    const late = runWalks(model, { seed: 3, walks: 10, depth: 30 }, limits, shared, 1);
    expect(late.walks).toBe(0);
    expect(simulationCounters(shared).walks).toBe(5);
  });

  it('without a violation a simulation has no verdict: every property unknown', async () => {
    const session = new CheckSession({ workers: 1 });
    const report = await session.simulate(wheelModel('none'), undefined, { seed: 3, walks: 20, depth: 30 });
    await session.close();
    expect(report.walks).toBe(20);
    expect(report.steps).toBe(600);
    expect(report.stoppedBy).toBe('walks');
    expect(report.progress?.verdict).toBe('unknown');
    expect(reproduce(wheelModel('none'), 'progress', 'Progress', [])).toBeUndefined();
  });
});
