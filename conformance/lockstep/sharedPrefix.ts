// The model's expected steps for a run of traces that share prefixes (the
// exhaustive traces come sorted, so each shares most of its steps with the
// one before), at either level (clusterLockstep.ts, operatorLockstep.ts):
// the model's states along the last trace are kept, and the next trace's
// expectations are computed only from where it departs. Steps that change
// nothing — actions the model refuses, records it rejects: the probes — are
// answered from the state at hand and do not count as a departure, so a
// trace that carries probes shares its prefix with one that does not. Model
// states are immutable, so a kept state is exactly the state after that
// prefix.

/** An input's JSON, once per input object: the exhaustive traces share their action and record objects. */
const inputJson = new WeakMap<object, string>();
function jsonOf(input: object): string {
  let json = inputJson.get(input);
  if (json === undefined) inputJson.set(input, (json = JSON.stringify(input)));
  return json;
}

/** One input's step: what it must produce, and the state after it when it changed the state. */
export interface PrefixStep<S, E> {
  readonly expected: E;
  readonly next?: S;
}

export class SharedPrefix<S extends object, E> {
  /** The steps of the last trace that changed the state: its input (as JSON), the state after it, what it had to produce. */
  private inputs: string[] = [];
  private states: S[] = [];
  private expected: E[] = [];

  /** Forgets the last trace (the next one starts from another initial state). */
  clear(): void {
    this.inputs = [];
    this.states = [];
    this.expected = [];
  }

  /**
   * The expected steps of `inputs` from `initial`: the kept ones while they
   * repeat the last trace's, then `step(state, input, last)` for each, where
   * `last` is what the last input that changed the state had to produce
   * (undefined: none has yet).
   */
  stepsOf<I extends object>(inputs: readonly I[], initial: S, step: (state: S, input: I, last: E | undefined) => PrefixStep<S, E>): E[] {
    let state = initial;
    let last: E | undefined;
    const out: E[] = [];
    const kept = { inputs: [] as string[], states: [] as S[], expected: [] as E[] };
    let shared = 0;
    let departed = false;
    for (const input of inputs) {
      const json = jsonOf(input);
      if (!departed && shared < this.inputs.length && json === this.inputs[shared]) {
        last = this.expected[shared] as E;
        state = this.states[shared] as S;
        kept.inputs.push(json);
        kept.states.push(state);
        kept.expected.push(last);
        out.push(last);
        shared++;
        continue;
      }
      const s = step(state, input, last);
      out.push(s.expected);
      if (s.next === undefined) continue;
      departed = true;
      state = s.next;
      last = s.expected;
      kept.inputs.push(json);
      kept.states.push(state);
      kept.expected.push(last);
    }
    this.inputs = kept.inputs;
    this.states = kept.states;
    this.expected = kept.expected;
    return out;
  }
}
