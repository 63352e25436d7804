// Small models with answers known in closed form. They test the engine
// (model/explorer/checker.test.ts), serve as examples of the Model interface,
// and give bench/explorer.ts a workload whose cost is the engine's own.
import { FieldHasher } from '../fingerprint.ts';
import type { Model } from '../types.ts';

/** `n` counters, each 0..max, each incremented by its own action. */
export interface CounterAction {
  readonly counter: number;
}

/**
 * Counters: (max+1)^n states, n·max·(max+1)^(n−1) transitions, depth n·max.
 * With `symmetric`, counters are interchangeable and the representative
 * sorts them: C(n+max, n) states (multisets of size n over max+1 values).
 * With `independent`, counter `i` is component `i` (partial-order
 * reduction); counters listed in `visibleCounters` are visible, and the
 * invariant, when given, reads only those.
 */
export function counterModel(options: {
  readonly counters: number;
  readonly max: number;
  readonly symmetric?: boolean;
  readonly independent?: boolean;
  readonly visibleCounters?: readonly number[];
  /** A state is bad when every visible counter equals its entry here. */
  readonly badValues?: readonly number[];
}): Model<readonly number[], CounterAction> {
  const { counters, max } = options;
  const visible = new Set(options.visibleCounters ?? []);
  const bad = options.badValues;
  const isBad = (s: readonly number[]): boolean => bad !== undefined && [...visible].every((c, i) => s[c] === bad[i]);
  return {
    name: `counters(${counters}x${max})`,
    initialStates: () => [new Array<number>(counters).fill(0)],
    actions: (s) => s.flatMap((v, counter) => (v < max ? [{ counter }] : [])),
    next: (s, a) => s.map((v, i) => (i === a.counter ? v + 1 : v)),
    encode: (s) => s.join(','),
    actionKind: (a) => `inc${a.counter}`,
    describeAction: (a) => `increment counter ${a.counter}`,
    expectedActionKinds: Array.from({ length: counters }, (_, i) => `inc${i}`),
    invariants:
      bad === undefined ? [] : [{ name: 'NotBad', check: (s) => (isBad(s) ? `visible counters reached ${bad.join(',')}` : undefined) }],
    ...(options.symmetric ? { representative: (s: readonly number[]) => [...s].sort((a, b) => a - b) } : {}),
    ...(options.independent
      ? { partialOrder: { component: (a: CounterAction) => String(a.counter), visible: (a: CounterAction) => visible.has(a.counter) } }
      : {}),
    actionToJson: (a) => a.counter,
    actionFromJson: (j) => {
      if (typeof j !== 'number' || !Number.isInteger(j) || j < 0 || j >= counters) throw new Error(`not a counter: ${JSON.stringify(j)}`);
      return { counter: j };
    },
    stateToJson: (s) => ({ counters: [...s] }),
  };
}

/** One process's program counter in the lost-update protocol. */
export type ProcessPc = 'idle' | 'read' | 'done';
export interface LostUpdateState {
  readonly x: number;
  readonly pcs: readonly ProcessPc[];
  readonly tmps: readonly number[];
}
export interface LostUpdateAction {
  readonly step: 'read' | 'write' | 'increment';
  readonly process: number;
}

/**
 * `n` processes each add 1 to a shared `x`. With `atomic` false each does it
 * in two steps (read x into tmp; write tmp + 1), and the invariant "when all
 * are done, x = n" fails; the shortest counterexample needs every process to
 * read and write, 2n actions (two reads before the writes lose an update).
 * Processes are interchangeable: with `symmetric`, the representative sorts
 * the (pc, tmp) pairs.
 */
export function lostUpdateModel(options: {
  readonly processes: number;
  readonly atomic?: boolean;
  readonly symmetric?: boolean;
}): Model<LostUpdateState, LostUpdateAction> {
  const n = options.processes;
  return {
    name: `lost-update(${n}${options.atomic ? ', atomic' : ''})`,
    initialStates: () => [{ x: 0, pcs: new Array<ProcessPc>(n).fill('idle'), tmps: new Array<number>(n).fill(0) }],
    actions: (s) =>
      s.pcs.flatMap((pc, process): LostUpdateAction[] => {
        if (pc === 'idle') return [{ step: options.atomic ? 'increment' : 'read', process }];
        if (pc === 'read') return [{ step: 'write', process }];
        return [];
      }),
    next: (s, a) => {
      const pcs = [...s.pcs];
      const tmps = [...s.tmps];
      let x = s.x;
      if (a.step === 'read') {
        pcs[a.process] = 'read';
        tmps[a.process] = x;
      } else if (a.step === 'write') {
        pcs[a.process] = 'done';
        x = (tmps[a.process] as number) + 1;
        tmps[a.process] = 0;
      } else {
        pcs[a.process] = 'done';
        x += 1;
      }
      return { x, pcs, tmps };
    },
    encode: (s) => `${s.x}|${s.pcs.map((pc, i) => `${pc}:${s.tmps[i]}`).join(',')}`,
    actionKind: (a) => a.step,
    describeAction: (a) => `process ${a.process} ${a.step}s`,
    invariants: [
      {
        name: 'NoLostUpdate',
        check: (s) => (s.pcs.every((pc) => pc === 'done') && s.x !== n ? `all ${n} processes are done but x = ${s.x}` : undefined),
      },
    ],
    goals: [{ name: 'AllDone', reached: (s) => s.pcs.every((pc) => pc === 'done') }],
    ...(options.symmetric
      ? {
          representative: (s: LostUpdateState): LostUpdateState => {
            const order = s.pcs
              .map((pc, i) => ({ pc, tmp: s.tmps[i] as number }))
              .sort((a, b) => (a.pc < b.pc ? -1 : a.pc > b.pc ? 1 : a.tmp - b.tmp));
            return { x: s.x, pcs: order.map((o) => o.pc), tmps: order.map((o) => o.tmp) };
          },
        }
      : {}),
    actionToJson: (a) => ({ step: a.step, process: a.process }),
    stateToJson: (s) => ({ x: s.x, pcs: [...s.pcs], tmps: [...s.tmps] }),
  };
}

export interface WheelState {
  readonly pos: number;
  readonly broken: boolean;
}
export interface WheelAction {
  readonly kind: 'tick' | 'break';
}

/**
 * A wheel turning 0 → 1 → 2 → 0; quiescent at 0 unless broken. The fault
 * `break` (only at 0) leaves it broken: with `trap: 'cycle'` it then turns
 * 1 → 2 → 1 forever; with `trap: 'deadlock'` it stops at 1. Either way
 * Progress fails, and the shallowest stuck state is one step deep (after
 * `break`). With `trap: 'none'` there is no fault and Progress holds.
 */
export function wheelModel(trap: 'cycle' | 'deadlock' | 'none'): Model<WheelState, WheelAction> {
  return {
    name: `wheel(${trap})`,
    initialStates: () => [{ pos: 0, broken: false }],
    actions: (s) => {
      const acts: WheelAction[] = [];
      if (!(s.broken && trap === 'deadlock' && s.pos === 1)) acts.push({ kind: 'tick' });
      if (trap !== 'none' && !s.broken && s.pos === 0) acts.push({ kind: 'break' });
      return acts;
    },
    next: (s, a) => {
      if (a.kind === 'break') return { pos: s.pos, broken: true };
      if (s.broken) return { pos: s.pos === 1 ? 2 : 1, broken: true };
      return { pos: (s.pos + 1) % 3, broken: false };
    },
    encode: (s) => `${s.pos}${s.broken ? '!' : ''}`,
    actionKind: (a) => a.kind,
    describeAction: (a) => a.kind,
    invariants: [],
    progress: { name: 'Progress', quiescent: (s) => s.pos === 0 && !s.broken, isFault: (a) => a.kind === 'break' },
    actionToJson: (a) => a.kind,
  };
}

/**
 * A synthetic workload shaped like the cluster model's states (a record of
 * `fields` small integers, encoded to a few hundred bytes), each field an
 * independent counter 0..max. The model's own work is tiny, so checking it
 * measures the engine's overhead per state.
 */
export function recordWorkload(
  fields: number,
  max: number,
  options: { readonly fieldFingerprint?: boolean } = {},
): Model<readonly number[], number> {
  const hasher = new FieldHasher();
  return {
    // With `fieldFingerprint`, the fingerprint visited set hashes the fields
    // directly instead of the encoding string (Model.fingerprint).
    ...(options.fieldFingerprint
      ? {
          fingerprint: (s: readonly number[], out: Int32Array): void => {
            hasher.reset();
            for (let i = 0; i < s.length; i++) hasher.int(s[i] as number);
            hasher.finish(out);
          },
        }
      : {}),
    name: `record-workload(${fields}x${max})`,
    initialStates: () => [new Array<number>(fields).fill(0)],
    actions: (s) => {
      const enabled: number[] = [];
      for (let i = 0; i < s.length; i++) if ((s[i] as number) < max) enabled.push(i);
      return enabled;
    },
    next: (s, i) => {
      const t = s.slice();
      t[i] = (t[i] as number) + 1;
      return t;
    },
    encode: (s) => {
      let text = '';
      for (let i = 0; i < s.length; i++) text += `field${i}=${s[i]};`;
      return text;
    },
    actionKind: () => 'inc',
    describeAction: (i) => `increment field ${i}`,
    invariants: [{ name: 'InRange', check: (s) => (s.every((v) => v <= max) ? undefined : 'a field is out of range') }],
  };
}
