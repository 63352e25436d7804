import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { check } from './checker.ts';
import { collisionProbability, FieldHasher, fingerprintHex } from './fingerprint.ts';
import { evaluateProperty, jsonDiff, replayPath } from './replay.ts';
import type { CheckReport, Model } from './types.ts';
import { counterModel, lostUpdateModel, recordWorkload, wheelModel } from './examples/toys.ts';

const binomial = (n: number, k: number): number => {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return Math.round(r);
};

describe('explorer: exact state counts on models with closed-form answers', () => {
  it.each([
    [1, 5],
    [2, 3],
    [3, 4],
    [4, 2],
  ])('counters(%i x %i): (max+1)^n states, n·max·(max+1)^(n-1) transitions, depth n·max', (n, max) => {
    const report = check(counterModel({ counters: n, max }));
    expect(report.distinct).toBe((max + 1) ** n);
    // generated counts the initial state too
    expect(report.generated).toBe(1 + n * max * (max + 1) ** (n - 1));
    expect(report.maxDepth).toBe(n * max);
    expect(report.exhausted).toBe(true);
    expect(report.passed).toBe(true);
    expect(report.unreachedActionKinds).toEqual([]);
    expect(report.actionKindCounts['inc0']).toBe(max * (max + 1) ** (n - 1));
  });

  it('fingerprint and exact visited sets give identical counts and verdicts', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), fc.boolean(), (n, max, symmetric) => {
        const model = counterModel({ counters: n, max, symmetric });
        const a = check(model, { visited: 'fingerprint' });
        const b = check(model, { visited: 'exact' });
        expect([a.distinct, a.generated, a.maxDepth, a.passed]).toEqual([b.distinct, b.generated, b.maxDepth, b.passed]);
      }),
      { numRuns: 30 },
    );
  });

  it("a model's own fingerprint (Model.fingerprint) replaces hashing the encoding, with the same counts", () => {
    const hooked = recordWorkload(6, 3, { fieldFingerprint: true });
    let calls = 0;
    const counted = {
      ...hooked,
      fingerprint: (s: readonly number[], out: Int32Array): void => {
        calls++;
        hooked.fingerprint?.(s, out);
      },
    };
    const fast = check(counted);
    const exact = check(recordWorkload(6, 3), { visited: 'exact' });
    expect(fast.distinct).toBe(4 ** 6);
    expect([fast.distinct, fast.generated, fast.maxDepth]).toEqual([exact.distinct, exact.generated, exact.maxDepth]);
    expect(calls).toBeGreaterThanOrEqual(fast.generated);
    // exact mode does not use it
    calls = 0;
    check(counted, { visited: 'exact' });
    expect(calls).toBe(0);
  });

  it('FieldHasher keeps field sequences apart and is deterministic', () => {
    const h = new FieldHasher();
    const print = (feed: (x: FieldHasher) => void): string => {
      const out = new Int32Array(2);
      feed(h.reset());
      h.finish(out);
      return `${out[0]}:${out[1]}`;
    };
    const prints = [
      print((x) => x.int(0)),
      print((x) => x.int(1)),
      print((x) => x.int(2 ** 32)),
      print((x) => x.int(0).int(1)),
      print((x) => x.int(1).int(0)),
      print((x) => x.str('ab')),
      print((x) => x.str('a').str('b')),
      print((x) => x.str('')),
      print((x) => x.bool(true)),
      print(() => undefined),
    ];
    expect(new Set(prints).size).toBe(prints.length);
    expect(print((x) => x.int(0).int(1))).toBe(prints[3]);
  });

  it('keeps the fingerprint table within 32 bytes per state, parent links included', () => {
    const report = check(recordWorkload(10, 2));
    expect(report.distinct).toBe(3 ** 10);
    expect(report.bytesPerState).toBeLessThanOrEqual(32);
    expect(report.collisionProbability).toBeCloseTo((3 ** 10) ** 2 / 2 ** 65, 20);
  });
});

describe('explorer: shortest counterexamples', () => {
  it.each([2, 3, 4])('lost update with %i processes: the counterexample has exactly 2n actions and replays', (n) => {
    const model = lostUpdateModel({ processes: n });
    const report = check(model);
    const inv = report.invariants[0];
    expect(inv?.verdict).toBe('violated');
    expect(inv?.path?.actions.length).toBe(2 * n);
    const replay = replayPath(model, inv?.path?.initialIndex ?? -1, inv?.path?.actions ?? []);
    expect(replay.ok).toBe(true);
    if (replay.ok) expect(model.invariants[0]?.check(replay.final)).toMatch(/done but x = /);
    expect(report.passed).toBe(false);
  });

  it('the atomic variant holds, and its AllDone goal has an n-step witness', () => {
    const report = check(lostUpdateModel({ processes: 3, atomic: true }));
    expect(report.invariants[0]?.verdict).toBe('holds');
    expect(report.goals[0]?.verdict).toBe('holds');
    expect(report.goals[0]?.path?.actions.length).toBe(3);
    expect(report.passed).toBe(true);
  });

  it('stopAtFirstViolation stops early and still returns the shortest path', () => {
    const report = check(lostUpdateModel({ processes: 3 }), { stopAtFirstViolation: true });
    expect(report.stoppedBy).toBe('violation');
    expect(report.exhausted).toBe(false);
    expect(report.invariants[0]?.path?.actions.length).toBe(6);
  });
});

describe('explorer: symmetry reduction', () => {
  it.each([
    [2, 3],
    [3, 3],
    [4, 2],
  ])('interchangeable counters(%i x %i): C(n+max, n) representatives instead of (max+1)^n', (n, max) => {
    const on = check(counterModel({ counters: n, max, symmetric: true }));
    const off = check(counterModel({ counters: n, max, symmetric: true }), { symmetry: false });
    expect(on.distinct).toBe(binomial(n + max, n));
    expect(off.distinct).toBe((max + 1) ** n);
    expect(on.options.symmetry).toBe(true);
    expect(off.options.symmetry).toBe(false);
  });

  it('a counterexample found on representatives is re-derived as a concrete path that replays', () => {
    const model = lostUpdateModel({ processes: 3, symmetric: true });
    const on = check(model);
    const off = check(model, { symmetry: false });
    expect(on.distinct).toBeLessThan(off.distinct);
    const inv = on.invariants[0];
    expect(inv?.verdict).toBe('violated');
    expect(inv?.path?.actions.length).toBe(6);
    const replay = replayPath(model, inv?.path?.initialIndex ?? -1, inv?.path?.actions ?? []);
    expect(replay.ok).toBe(true);
    if (replay.ok) {
      // the concrete path really uses every process, not only the representative's first
      expect(new Set(replay.steps.map((s) => s.action.process)).size).toBe(3);
      expect(model.invariants[0]?.check(replay.final)).toBeDefined();
    }
  });
});

describe('explorer: Progress', () => {
  it('finds the trap behind a fault that leads into a cycle: path of 1 action, then the cycle', () => {
    const report = check(wheelModel('cycle'));
    expect(report.progress?.verdict).toBe('violated');
    expect(report.progress?.path?.actions.map((a) => a.kind)).toEqual(['break']);
    expect(report.progress?.trap?.kind).toBe('cycle');
    expect(report.progress?.explanation).toMatch(/3 state\(s\) are reachable fault-free and none is quiescent/);
    expect(report.passed).toBe(false);
  });

  it('finds the trap behind a fault that leads into a deadlock', () => {
    const report = check(wheelModel('deadlock'));
    expect(report.progress?.verdict).toBe('violated');
    expect(report.progress?.path?.actions.map((a) => a.kind)).toEqual(['break']);
    expect(report.progress?.trap?.kind).toBe('deadlock');
    expect(report.progress?.trap?.actions.map((a) => a.kind)).toEqual(['tick']);
  });

  it('evaluateProperty re-checks Progress at the end of a replayed path by a fault-free search', () => {
    const model = wheelModel('cycle');
    const stuck = replayPath(model, 0, [{ kind: 'break' }]);
    const fine = replayPath(model, 0, [{ kind: 'tick' }]);
    if (!stuck.ok || !fine.ok) throw new Error('replay failed');
    expect(evaluateProperty(model, 'progress', 'Progress', stuck.final)).toMatchObject({ found: true, verdict: 'violated' });
    expect(evaluateProperty(model, 'progress', 'Progress', fine.final)).toMatchObject({ found: true, verdict: 'holds' });
    expect(evaluateProperty(model, 'progress', 'Liveness', fine.final)).toEqual({ found: false });
    expect(evaluateProperty(model, 'invariant', 'NoSuchInvariant', fine.final)).toEqual({ found: false });
  });

  it('holds when every state can return to quiescence without faults', () => {
    const report = check(wheelModel('none'));
    expect(report.progress?.verdict).toBe('holds');
    expect(report.edgeBytesPerState).toBeGreaterThan(0);
    expect(report.passed).toBe(true);
  });
});

describe('explorer: budgets and coverage never pass vacuously', () => {
  it('a state budget leaves the bound not exhausted and every verdict unknown', () => {
    const report = check(lostUpdateModel({ processes: 4, atomic: true }), { maxStates: 5 });
    expect(report.exhausted).toBe(false);
    expect(report.stoppedBy).toBe('max-states');
    expect(report.invariants[0]?.verdict).toBe('unknown');
    expect(report.passed).toBe(false);
  });

  it('a state budget equal to the state count still exhausts the bound; one less does not', () => {
    expect(check(counterModel({ counters: 2, max: 2 }), { maxStates: 9 })).toMatchObject({ exhausted: true, distinct: 9, passed: true });
    expect(check(counterModel({ counters: 2, max: 2 }), { maxStates: 8 })).toMatchObject({
      exhausted: false,
      stoppedBy: 'max-states',
      distinct: 8,
    });
  });

  it('a time budget of zero seconds stops at the first clock check', () => {
    const report = check(recordWorkload(10, 3), { maxSeconds: 0 });
    expect(report.stoppedBy).toBe('max-seconds');
    expect(report.exhausted).toBe(false);
    expect(report.passed).toBe(false);
  });

  it('Progress is unknown when the bound is not exhausted', () => {
    const report = check(wheelModel('none'), { maxStates: 1 });
    expect(report.progress?.verdict).toBe('unknown');
  });

  it('reports expected action kinds never taken, and unreached goals, as failures', () => {
    const base = counterModel({ counters: 2, max: 0 });
    const model: Model<readonly number[], { counter: number }> = {
      ...base,
      goals: [{ name: 'SomeCounterIsOne', reached: (s) => s.some((v) => v === 1) }],
    };
    const report = check(model);
    expect(report.exhausted).toBe(true);
    expect(report.unreachedActionKinds).toEqual(['inc0', 'inc1']);
    expect(report.goals[0]?.verdict).toBe('violated');
    expect(report.passed).toBe(false);
  });

  it('states outside the boundary are counted and checked but not expanded', () => {
    const base = counterModel({ counters: 2, max: 5 });
    const report = check({ ...base, withinBoundary: (s) => (s[0] as number) + (s[1] as number) < 2 });
    // inside: sum 0 or 1 (3 states); outside but reached: sum 2 (3 states)
    expect(report.distinct).toBe(6);
    expect(report.outsideBoundary).toBe(3);
    expect(report.exhausted).toBe(true);
  });

  it('calls the progress callback with live figures', () => {
    const samples: number[] = [];
    check(counterModel({ counters: 3, max: 3 }), { onProgress: (p) => samples.push(p.distinct), progressIntervalMs: 0 });
    expect(samples.length).toBeGreaterThan(0);
    expect(samples.at(-1)).toBe(64);
  });
});

/** A random model of independent components, each a small automaton (see `randomComponentModel`). */
interface ComponentSpec {
  readonly transitions: readonly { readonly from: number; readonly to: number; readonly fault: boolean }[];
  readonly visible: boolean;
  readonly bad: number;
  readonly goal: number;
}

/**
 * Components with disjoint local states: actions of different components are
 * independent by construction, and an action is visible iff its component is.
 * The invariant, goal and quiescence read only visible components.
 */
function randomComponentModel(specs: readonly ComponentSpec[]): Model<readonly number[], { c: number; t: number }> {
  const visible = specs.map((s, c) => (s.visible ? c : -1)).filter((c) => c >= 0);
  return {
    name: 'random-components',
    initialStates: () => [specs.map(() => 0)],
    actions: (s) => specs.flatMap((spec, c) => spec.transitions.flatMap((tr, t) => (tr.from === s[c] ? [{ c, t }] : []))),
    next: (s, a) => s.map((v, c) => (c === a.c ? (specs[c]?.transitions[a.t]?.to ?? v) : v)),
    encode: (s) => s.join(','),
    actionKind: (a) => `c${a.c}`,
    describeAction: (a) => `component ${a.c} takes transition ${a.t}`,
    invariants: [
      {
        name: 'NotAllBad',
        check: (s) =>
          visible.length > 0 && visible.every((c) => s[c] === specs[c]?.bad) ? 'every visible component is in its bad state' : undefined,
      },
    ],
    goals: [{ name: 'AllAtGoal', reached: (s) => visible.every((c) => s[c] === specs[c]?.goal) }],
    progress: {
      name: 'Progress',
      quiescent: (s) => visible.every((c) => s[c] === 0),
      isFault: (a) => specs[a.c]?.transitions[a.t]?.fault ?? false,
    },
    partialOrder: { component: (a) => String(a.c), visible: (a) => specs[a.c]?.visible ?? true },
    actionToJson: (a) => [a.c, a.t],
  };
}

const componentArbitrary: fc.Arbitrary<ComponentSpec> = fc.integer({ min: 2, max: 3 }).chain((states) =>
  fc.record({
    transitions: fc.array(
      fc.record({ from: fc.integer({ min: 0, max: states - 1 }), to: fc.integer({ min: 0, max: states - 1 }), fault: fc.boolean() }),
      { maxLength: 4 },
    ),
    visible: fc.boolean(),
    bad: fc.integer({ min: 0, max: states - 1 }),
    goal: fc.integer({ min: 0, max: states - 1 }),
  }),
);

const verdicts = <S, A>(r: CheckReport<S, A>): string[] => [
  ...r.invariants.map((p) => `${p.name}:${p.verdict}`),
  ...r.goals.map((p) => `${p.name}:${p.verdict}`),
  `${r.progress?.name}:${r.progress?.verdict}`,
];

describe('explorer: partial-order reduction', () => {
  it('gives the same verdicts with and without reduction on random component models (invariants, goals, Progress)', () => {
    fc.assert(
      fc.property(fc.array(componentArbitrary, { minLength: 1, maxLength: 4 }), (specs) => {
        const model = randomComponentModel(specs);
        const reduced = check(model);
        const full = check(model, { partialOrder: false });
        expect(reduced.options.partialOrder).toBe(true);
        expect(verdicts(reduced)).toEqual(verdicts(full));
        expect(reduced.distinct).toBeLessThanOrEqual(full.distinct);
        // every counterexample and witness the reduced search returns replays in the model
        for (const p of [...reduced.invariants, ...reduced.goals, ...(reduced.progress ? [reduced.progress] : [])]) {
          if (p.path) expect(replayPath(model, p.path.initialIndex, p.path.actions).ok).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('reduces independent invisible counters, and still finds the violation among the visible one', () => {
    const model = counterModel({ counters: 4, max: 3, independent: true, visibleCounters: [0], badValues: [3] });
    const reduced = check(model);
    const full = check(model, { partialOrder: false });
    expect(full.distinct).toBe(256);
    expect(reduced.distinct).toBeLessThan(full.distinct / 4);
    expect(reduced.invariants[0]?.verdict).toBe('violated');
    expect(full.invariants[0]?.verdict).toBe('violated');
    // shortest in the full graph: three increments of counter 0
    expect(full.invariants[0]?.path?.actions.length).toBe(3);
    // every action kind is still taken under reduction (no action is ignored forever, C3)
    expect(reduced.unreachedActionKinds).toEqual([]);
  });

  it('C2: never reduces to visible actions (the bad state needs counter 1 to move before counter 0)', () => {
    // Expanding only counter 0 first (it is independent of counter 1) would
    // skip (0,1), the one bad state; both counters are visible, so no reduction.
    const model = counterModel({ counters: 2, max: 1, independent: true, visibleCounters: [0, 1], badValues: [0, 1] });
    const report = check(model);
    expect(report.invariants[0]?.verdict).toBe('violated');
    expect(report.invariants[0]?.path?.actions).toEqual([{ counter: 1 }]);
  });

  it('C4: with Progress checked, never reduces to fault actions', () => {
    // Component 0 (invisible) can only take a fault; component 1 (visible)
    // goes 0 → 1 → 0, and quiescence is "component 1 at 1". Reducing the
    // initial state to component 0's fault would leave it no fault-free edge,
    // and Progress would wrongly fail there.
    const specs: ComponentSpec[] = [
      { transitions: [{ from: 0, to: 1, fault: true }], visible: false, bad: 9, goal: 0 },
      {
        transitions: [
          { from: 0, to: 1, fault: false },
          { from: 1, to: 0, fault: false },
        ],
        visible: true,
        bad: 9,
        goal: 1,
      },
    ];
    const base = randomComponentModel(specs);
    const model = {
      ...base,
      progress: { ...(base.progress as NonNullable<typeof base.progress>), quiescent: (s: readonly number[]) => s[1] === 1 },
    };
    const reduced = check(model);
    expect(reduced.progress?.verdict).toBe('holds');
    expect(check(model, { partialOrder: false }).progress?.verdict).toBe('holds');
  });

  it('is switched off, with a note, for models with a boundary', () => {
    const base = counterModel({ counters: 2, max: 2, independent: true });
    const report = check({ ...base, withinBoundary: () => true });
    expect(report.options.partialOrder).toBe(false);
    expect(report.options.notes.join(' ')).toMatch(/boundary/);
  });
});

describe('explorer: helpers', () => {
  it('fingerprints distinguish near-identical encodings and are stable', () => {
    const texts = ['', 'a', 'b', 'ab', 'ba', 'abc', 'abcd', 'abcde', 'é', 'e\u0301', '0,0,0', '0,0,1', '\u0000', '\u0000\u0000'];
    const prints = texts.map(fingerprintHex);
    expect(new Set(prints).size).toBe(texts.length);
    expect(fingerprintHex('abc')).toBe(prints[5]);
    expect(collisionProbability(2 ** 20)).toBeCloseTo(2 ** 40 / 2 ** 65, 30);
  });

  it('replay refuses an action that is not enabled, naming the step', () => {
    const model = lostUpdateModel({ processes: 2 });
    const r = replayPath(model, 0, [
      { step: 'read', process: 0 },
      { step: 'read', process: 0 },
    ]);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.failedStep).toBe(1);
      expect(r.reason).toMatch(/process 0 reads is not enabled/);
    }
  });

  it('jsonDiff lists changed fields and array elements added and removed', () => {
    expect(jsonDiff({ x: 1, rows: ['a', 'b'], wm: { L: null } }, { x: 2, rows: ['b', 'c'], wm: { L: 3 } })).toEqual([
      'x: 1 → 2',
      'rows: - "a"',
      'rows: + "c"',
      'wm.L: null → 3',
    ]);
  });
});
