import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter } from '../explorer/index.ts';
import type { ClusterModelConfig, ExploredState } from './boundedHistories.ts';
import { PROTOCOL_ELEMENTS } from './clusterState.ts';
import { clusterExplorerModel } from './explorerModel.ts';
import { clusterPreset, withAblation } from './presets.ts';

const preset = (name: string): ClusterModelConfig => {
  const p = clusterPreset(name);
  if (!p) throw new Error(`no preset ${name}`);
  return p.config;
};

const hex = (b: Uint8Array, end: number): string => Buffer.from(b.subarray(0, end)).toString('hex');

/**
 * ByteSuccessorsAgree: for every state reached breadth-first from the initial
 * state (up to `limit` states), the successors computed on its bytes
 * (byteSuccessors.ts) are, action by action and in the same order, the bytes
 * of the state machine's successors (`encode(next(decode(bytes), a))` for each
 * `a` of `actions(decode(bytes))`), with the same coverage labels and fault
 * flags; and where they judge a successor's properties on its bytes, every
 * invariant holds on the state it encodes, and its quiescence and the goals it
 * reaches are the model's.
 * Returns the states checked, the successors computed on bytes and those
 * judged on bytes; the first disagreement fails.
 */
function agree(
  config: ClusterModelConfig,
  limit: number,
): { states: number; onBytes: number; judged: number; objectPath: number; reachedOnBytes: number[] } {
  const model = clusterExplorerModel(config);
  const codec = model.codec;
  const successors = codec?.successors;
  if (!codec || !successors) throw new Error('the cluster model has no successors on bytes');
  const progress = model.progress;
  if (!progress) throw new Error('the cluster model has no progress property');
  const fast = new ByteWriter();
  const slow = new ByteWriter();
  const first = new ByteWriter();
  codec.write(model.initialStates()[0] as ExploredState, first, true);
  const queue: Uint8Array[] = [first.bytes.slice(0, first.length)];
  const seen = new Set<string>([hex(first.bytes, first.keyEnd)]);
  let states = 0;
  let onBytes = 0;
  let judged = 0;
  let objectPath = 0;
  const goals = model.goals ?? [];
  /** Per goal, the successors judged on bytes that reach it. */
  const reachedOnBytes = goals.map(() => 0);
  /** What the byte successors said of the successor last judged: not judged, or judged with its quiescence and goals. */
  const answerOf = (onBytesJudged: boolean): string =>
    onBytesJudged
      ? `${successors.quiescent() ? 'quiescent' : 'judged'} ${goals.map((_, g) => successors.reaches?.(g)).join()}`
      : 'read back';
  for (let q = 0; q < queue.length && states < limit; q++) {
    const bytes = queue[q] as Uint8Array;
    const state = codec.read(new ByteReader(bytes));
    const actions = model.actions(state);
    states++;
    const count = successors.load(new ByteReader(bytes));
    if (count < 0) {
      // Only a state that carries a violation is left to the object path.
      expect(state.cluster.ghost.violation).not.toBeNull();
      objectPath++;
    } else if (count !== actions.length) {
      expect({ state: JSON.stringify(model.stateToJson?.(state)), actions: actions.map((a) => a.kind), count }).toBe('the same actions');
    }
    /** Per successor, what `judged(k)` and `quiescent()` said right after it was written. */
    const answers: string[] = [];
    for (let k = 0; k < actions.length; k++) {
      const action = actions[k] as (typeof actions)[number];
      const next = model.next(state, action);
      codec.write(next, slow.reset(), true);
      if (count >= 0) {
        onBytes++;
        // `write` names the kind as `kindNames` numbers it (`writeNumbered`, what the engine calls).
        const kind = successors.write(k, fast.reset(), true);
        const where = () => `${model.describeAction(action)} from ${JSON.stringify(model.stateToJson?.(state))}`;
        if (hex(fast.bytes, fast.length) !== hex(slow.bytes, slow.length) || fast.keyEnd !== slow.keyEnd)
          expect(`${hex(fast.bytes, fast.length)} (key ${fast.keyEnd})`, where()).toBe(
            `${hex(slow.bytes, slow.length)} (key ${slow.keyEnd})`,
          );
        if (kind !== model.actionKind(action)) expect(kind, where()).toBe(model.actionKind(action));
        if (successors.isFault(k) !== progress.isFault(action)) expect(successors.isFault(k), where()).toBe(progress.isFault(action));
        const onBytesJudged = successors.judged(k);
        answers[k] = answerOf(onBytesJudged);
        if (onBytesJudged) {
          judged++;
          const broken = model.invariants.map((i) => i.check(next)).filter((v) => v !== undefined);
          if (broken.length > 0) expect(broken, where()).toEqual([]);
          if (successors.quiescent() !== progress.quiescent(next)) expect(successors.quiescent(), where()).toBe(progress.quiescent(next));
          goals.forEach((goal, g) => {
            const reached = goal.reached(next);
            if (successors.reaches?.(g) !== reached) expect(successors.reaches?.(g), `${goal.name}: ${where()}`).toBe(reached);
            if (reached) reachedOnBytes[g] = (reachedOnBytes[g] ?? 0) + 1;
          });
        }
      }
      const key = hex(slow.bytes, slow.keyEnd);
      if (!seen.has(key)) {
        seen.add(key);
        queue.push(slow.bytes.slice(0, slow.length));
      }
    }
    // The engine judges a successor after writing the rest of its batch: asked again, last first,
    // each successor is judged as it was right after it was written.
    for (let k = answers.length - 1; k >= 0 && count >= 0; k--) {
      const again = answerOf(successors.judged(k));
      if (again !== answers[k]) expect(again, `successor ${k} judged again`).toBe(answers[k]);
    }
  }
  return { states, onBytes, judged, objectPath, reachedOnBytes };
}

describe('ByteSuccessorsAgree: successors on the codec bytes equal the state machine (stateMachine.ts, SPEC §5)', () => {
  it('smoke: every state of the exhausted bound', () => {
    const r = agree(preset('smoke'), Number.POSITIVE_INFINITY);
    expect(r.states).toBeGreaterThan(1000);
    expect(r.objectPath).toBe(0);
    expect(r.judged).toBeGreaterThan(0);
    // Every goal of the bound is reached by some successor judged on bytes, so each goal's answer was compared both ways.
    expect(r.reachedOnBytes.length).toBeGreaterThanOrEqual(3);
    for (const n of r.reachedOnBytes) expect(n).toBeGreaterThan(0);
  });

  it('numbers each kind once: kindNames has no name twice, and names every kind the model expects', () => {
    const model = clusterExplorerModel(preset('ci'));
    const names = model.codec?.successors?.kindNames ?? [];
    expect(new Set(names).size).toBe(names.length);
    expect((model.expectedActionKinds ?? []).filter((k) => !names.includes(k))).toEqual([]);
    expect(model.expectedActionKinds?.length).toBeGreaterThan(20);
  });

  it('ci: the first 30,000 states breadth-first, every kind of step among them', () => {
    const r = agree(preset('ci'), 30_000);
    expect(r.states).toBe(30_000);
    expect(r.onBytes).toBeGreaterThan(100_000);
  });

  // With an element off, the sink's ghost records violations: those steps, and the states after them, take the object path.
  for (const element of PROTOCOL_ELEMENTS) {
    it(`smoke without ${element}: the first 25,000 states`, () => {
      const r = agree(withAblation(preset('smoke'), [element]), 25_000);
      expect(r.onBytes).toBeGreaterThan(0);
      if (element === 'sink-dedup' || element === 'terminal-retract' || element === 'sink-fence') expect(r.objectPath).toBeGreaterThan(0);
    });
  }
});
