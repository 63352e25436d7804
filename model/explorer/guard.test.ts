// guardModel (check --model): a user's model is checked against its contract
// as the explorer calls it, and a model that keeps it is explored exactly as
// without the guard, on its codec's byte successors where it has them.
import { describe, expect, it } from 'vitest';
import { presetNamed, resolveBounds } from '../presets.ts';
import { check } from './checker.ts';
import { guardModel, ModelFault } from './guard.ts';
import type { ByteSuccessors, Model } from './types.ts';

function smokeModel(): Model<unknown, unknown> {
  const smoke = presetNamed('smoke');
  if (!smoke?.parts) throw new Error('no preset smoke');
  const [part] = smoke.parts(resolveBounds(smoke, {}), undefined);
  if (!part) throw new Error('smoke has no part');
  return part.model.use((m) => m as Model<unknown, unknown>);
}

/** `model` with its codec's byte successors delegating to the model's own, `override` replacing some (the codec and successors may be class instances, which a spread would lose). */
function withSuccessors(model: Model<unknown, unknown>, override: Partial<ByteSuccessors>): Model<unknown, unknown> {
  const codec = model.codec as NonNullable<typeof model.codec>;
  const s = codec.successors as ByteSuccessors;
  const successors: ByteSuccessors = {
    load: (input) => s.load(input),
    standsFor: s.standsFor,
    write: (k, out, symmetric) => s.write(k, out, symmetric),
    isFault: (k) => s.isFault(k),
    judged: (k) => s.judged(k),
    quiescent: () => s.quiescent(),
    ...(s.kindNames && s.writeNumbered
      ? {
          kindNames: s.kindNames,
          writeNumbered: (k: number, out: never, symmetric: boolean) => s.writeNumbered?.(k, out, symmetric) as number,
        }
      : {}),
    ...(s.reaches ? { reaches: (goal: number) => s.reaches?.(goal) === true } : {}),
    ...override,
  };
  return {
    ...model,
    codec: {
      symmetric: codec.symmetric,
      write: (state, out, symmetric) => codec.write(state, out, symmetric),
      read: (input) => codec.read(input),
      successors,
    },
  };
}

describe('guardModel', () => {
  it('a model that keeps its contract is explored as without the guard: the same graph and verdicts, still on its byte successors', () => {
    const model = smokeModel();
    const successors = model.codec?.successors as ByteSuccessors;
    expect(successors).toBeDefined();
    // The same model, its byte successors counting their loads (standsFor still names the model's own functions).
    let loads = 0;
    const counted = withSuccessors(model, {
      load: (input) => {
        loads++;
        return successors.load(input);
      },
    });
    const plain = check(model);
    const guarded = check(guardModel(counted, 'smoke.mjs'));
    expect(loads).toBeGreaterThan(plain.distinct / 2);
    expect([guarded.distinct, guarded.generated, guarded.maxDepth, guarded.verdict]).toEqual([
      plain.distinct,
      plain.generated,
      plain.maxDepth,
      plain.verdict,
    ]);
    expect(guarded.invariants.map((p) => [p.name, p.verdict])).toEqual(plain.invariants.map((p) => [p.name, p.verdict]));
    expect(guarded.goals.map((p) => [p.name, p.verdict])).toEqual(plain.goals.map((p) => [p.name, p.verdict]));
  });

  it('a throw in any function the explorer calls, byte successors included, is a ModelFault (SJ102 at the model file) naming the function', () => {
    const model = smokeModel();
    const fails = (): never => {
      throw new RangeError('no such action');
    };
    const broken = withSuccessors(model, { write: fails, writeNumbered: fails });
    const run = (): unknown => check(guardModel(broken, 'smoke.mjs'));
    expect(run).toThrow(ModelFault);
    expect(run).toThrow(/threw in codec\.successors\.write(Numbered)?: RangeError: no such action \(at /);
    const error = ((): unknown => {
      try {
        run();
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ModelFault);
    expect((error as ModelFault).format()).toMatch(/^smoke\.mjs: SJ102 the model ".*" threw in codec\.successors\.write(Numbered)?: /);
    // The error the model threw stays with the fault.
    expect((error as ModelFault).cause).toBeInstanceOf(RangeError);
    // A codec that never marks where its identifying bytes end (StateCodec: write calls out.endKey()).
    const codec = model.codec as NonNullable<typeof model.codec>;
    const unkeyed: Model<unknown, unknown> = {
      ...model,
      codec: {
        symmetric: codec.symmetric,
        write: (state, out, symmetric) => {
          codec.write(state, out, symmetric);
          out.keyEnd = -1;
        },
        read: (input) => codec.read(input),
      },
    };
    expect(() => check(guardModel(unkeyed, 'smoke.mjs'))).toThrow(
      /broke its contract: codec\.write never called out\.endKey\(\) after the identifying bytes/,
    );
    const goalAsNumber: Model<unknown, unknown> = {
      ...model,
      goals: (model.goals ?? []).map((g) => ({ name: g.name, reached: () => 1 as unknown as boolean })),
    };
    expect(() => check(guardModel(goalAsNumber, 'smoke.mjs'))).toThrow(
      /broke its contract: goal ".*" returned 1 \(number\); it must return a boolean/,
    );
  });
});
