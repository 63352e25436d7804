import { existsSync, readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterExplorerModel } from '../cluster/explorerModel.ts';
import { clusterPreset, withAblation } from '../cluster/presets.ts';
import type { ClusterModelConfig } from '../cluster/boundedHistories.ts';
import { presetSource, resolveBounds, presetNamed } from '../presets.ts';
import { check } from './checker.ts';
import { counterModel } from './examples/toys.ts';
import { CheckSession } from './session.ts';
import type { CheckReport, Model, PropertyResult } from './types.ts';
import { useTemporaryDirectories } from '../../conformance/testFixtures.ts';

const tmp = useTemporaryDirectories('sj-session-');
const smoke = presetNamed('smoke');
if (!smoke) throw new Error('no preset smoke');
const smokeConfig = clusterPreset('smoke')?.config as ClusterModelConfig;

/** What must not depend on the number of threads: the graph, the verdicts, and the depth of every counterexample. */
function outcome<S, A>(r: CheckReport<S, A>): unknown {
  const property = (p: PropertyResult<S, A> | undefined): unknown => p && [p.name, p.verdict, p.path?.actions.length];
  return {
    distinct: r.distinct,
    generated: r.generated,
    maxDepth: r.maxDepth,
    exhausted: r.exhausted,
    invariants: r.invariants.map(property),
    goals: r.goals.map(property),
    progress: property(r.progress),
    unreached: r.unreachedActionKinds,
    kinds: r.actionKindCounts,
  };
}

/** The smoke preset's model with `bounds` and `ablate`, and the source a thread builds it from. */
function smokeModel(
  bounds: Readonly<Record<string, number>>,
  ablate: string | undefined,
): { model: Model<unknown, unknown>; source: ReturnType<typeof presetSource> } {
  const resolved = resolveBounds(smoke as NonNullable<typeof smoke>, bounds);
  const [part] = (smoke as NonNullable<typeof smoke>).parts?.(resolved, ablate) ?? [];
  if (!part) throw new Error('smoke has no part');
  return { model: part.model.use((m) => m as Model<unknown, unknown>), source: presetSource('smoke', resolved, ablate, part.label) };
}

describe('a check session on worker threads (parallel breadth-first search over a shared store)', () => {
  const sessions: CheckSession[] = [];
  afterAll(async () => {
    for (const s of sessions) await s.close();
  });
  const session = (options: ConstructorParameters<typeof CheckSession>[0]): CheckSession => {
    const s = new CheckSession(options);
    sessions.push(s);
    return s;
  };

  it('two threads store the same states, reach the same verdicts and find counterexamples of the same length as one (smoke, and each kind of violation)', async () => {
    const two = session({ workers: 2 });
    const cases: [Readonly<Record<string, number>>, string | undefined][] = [
      [{}, undefined],
      // ExactlyOnce (an invariant) and Progress broken, as in the necessity table.
      [{ migrations: 0, pauses: 0, duplicates: 0, checkpoints: 0 }, 'sink-dedup'],
      [{ failovers: 0, crashes: 0, pauses: 0, checkpoints: 0 }, 'install-epoch-check'],
    ];
    // The pool's thread builds the models first, so that it is free to join the levels of the first.
    await two.prepare(cases.map(([bounds, ablate]) => smokeModel(bounds, ablate).source));
    for (const [i, [bounds, ablate]] of cases.entries()) {
      const { model, source } = smokeModel(bounds, ablate);
      const parallel = await two.check(model, source);
      // This thread and the pool's took part in the levels (the ablated models' levels may be too small to share).
      if (i === 0) expect(parallel.workers).toBe(2);
      expect(parallel.options.notes).toEqual([]);
      expect({ ablate, ...(outcome(parallel) as object) }).toEqual({ ablate, ...(outcome(check(model)) as object) });
    }
  });

  it('searches one after another on this thread, each in the emptied buffers of the one before, find what a fresh search finds', async () => {
    const one = session({ workers: 1 });
    // The largest first, so that later searches run in buffers holding more states than they store.
    const cases: [Readonly<Record<string, number>>, string | undefined][] = [
      [{}, undefined],
      [{ migrations: 0, pauses: 0, duplicates: 0, checkpoints: 0 }, 'sink-dedup'],
      [{ failovers: 0, crashes: 0, pauses: 0, checkpoints: 0 }, 'install-epoch-check'],
      [{ migrations: 0, pauses: 0, duplicates: 0, checkpoints: 0 }, undefined],
    ];
    const fresh = cases.map(([bounds, ablate]) => outcome(check(smokeModel(bounds, ablate).model)));
    for (const [i, [bounds, ablate]] of cases.entries()) {
      const { model, source } = smokeModel(bounds, ablate);
      expect({ ablate, ...(outcome(await one.check(model, source)) as object) }).toEqual({ ablate, ...(fresh[i] as object) });
    }
  });

  it('spills the frontier to disk past its memory bound, finds the same, and removes the files', async () => {
    const dir = tmp();
    const spilling = session({ workers: 2, frontierMemory: 64 * 1024, spillDirectory: dir });
    const { model, source } = smokeModel({}, undefined);
    const report = await spilling.check(model, source);
    expect(report.frontier.spilledSegments).toBeGreaterThan(0);
    expect(report.frontier.spilledBytes).toBeGreaterThan(0);
    expect(outcome(report)).toEqual(outcome(check(model)));
    await spilling.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('one thread spills the same way', async () => {
    const dir = tmp();
    const { model } = smokeModel({}, undefined);
    const report = check(model, { frontierMemory: 64 * 1024, spillDirectory: dir });
    expect(report.frontier.spilledSegments).toBeGreaterThan(0);
    expect(outcome(report)).toEqual(outcome(check(model)));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('the state budget bounds the whole session, not each exploration', async () => {
    const budget = session({ workers: 2, maxStates: 1000 });
    const a = smokeModel({}, undefined);
    const b = smokeModel({}, 'sink-dedup');
    const [first, second] = await Promise.all([budget.check(a.model, a.source), budget.check(b.model, b.source)]);
    expect(first?.exhausted || second?.exhausted).toBe(false);
    // Each thread may overshoot by the states it stores between two looks at the count.
    expect((first?.distinct ?? 0) + (second?.distinct ?? 0)).toBeLessThanOrEqual(1000 + 2 * 64);
    expect(budget.statesSoFar).toBeGreaterThanOrEqual(1000);
  });

  it('the time budget bounds the whole session: an exploration started after it ran out stops at once', async () => {
    const timed = session({ workers: 1, maxSeconds: 0.2 });
    const endless = counterModel({ counters: 8, max: 40 });
    const first = await timed.check(endless, undefined);
    expect(first.stoppedBy).toBe('max-seconds');
    const second = await timed.check(endless, undefined);
    expect(second.stoppedBy).toBe('max-seconds');
    expect(second.distinct).toBeLessThan(first.distinct);
    expect(second.distinct).toBeLessThanOrEqual(64 * 8 + 1);
  });

  it('an interrupt stops every exploration with the states so far and every property unknown', async () => {
    const interrupted = session({ workers: 2 });
    const { model, source } = smokeModel({}, 'sink-dedup');
    let asked = false;
    const report = await interrupted.check(model, source, {
      progressIntervalMs: 0,
      onProgress: (p) => {
        if (!asked && p.distinct > 0) {
          asked = true;
          interrupted.interrupt();
        }
      },
    });
    expect(report.stoppedBy).toBe('interrupted');
    expect(report.exhausted).toBe(false);
    expect(report.distinct).toBeGreaterThan(0);
    expect([...report.invariants, ...report.goals, report.progress].map((r) => r?.verdict)).toEqual(
      [...report.invariants, ...report.goals, report.progress].map(() => 'unknown'),
    );
    expect(report.passed).toBe(false);
  });

  it('a simulation on this thread and a pool thread runs the same walks as on one thread (walk K of seed S is the same walk wherever it runs)', async () => {
    const resolved = resolveBounds(smoke as NonNullable<typeof smoke>, {});
    const model = (smoke as NonNullable<typeof smoke>).build(resolved, undefined).use((m) => m as Model<unknown, unknown>);
    const source = presetSource('smoke', resolved, undefined, undefined);
    const walks = { seed: 11, walks: 40, depth: 60 };
    const alone = await session({ workers: 1 }).simulate(model, undefined, walks);
    const two = session({ workers: 2 });
    await two.prepare([source]);
    const shared = await two.simulate(model, source, walks);
    expect(shared.workers).toBe(2);
    const same = (r: typeof alone): unknown => ({
      walks: r.walks,
      steps: r.steps,
      longestWalk: r.longestWalk,
      deadEnds: r.deadEnds,
      kinds: r.actionKindCounts,
      stoppedBy: r.stoppedBy,
    });
    expect(same(shared)).toEqual(same(alone));
    expect(shared.stoppedBy).toBe('walks');
    expect(alone.walks).toBe(40);
  });

  it('a model no thread can build (no source) is explored on this thread, and says so', async () => {
    const two = session({ workers: 2 });
    const model = clusterExplorerModel(withAblation(smokeConfig, ['sink-dedup']));
    const report = await two.check(model, undefined, { stopAtFirstViolation: true });
    expect(report.workers).toBe(1);
    expect(report.options.notes.join(' ')).toMatch(/explored on one thread/);
    expect(report.invariants.find((r) => r.name === 'ExactlyOnce')?.verdict).toBe('violated');
    expect(existsSync(two.limits.spill.directory ?? '/nonexistent')).toBe(false);
  });
});
