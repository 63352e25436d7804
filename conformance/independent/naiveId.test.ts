// J3 by construction, for any separator: a system that files its active
// matches under a naive id P + left + S + right (naiveId.ts) fails, with the
// examples off, through the random operator traces alone and through the
// exhaustive collision scenario alone, for each of 20 multi-character
// separators chosen as a naive encoding would spell them (side labels,
// arrows, doubled and quoted punctuation), none of them the spec's `/`.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { OperatorTrace } from '../../spec/index.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { runTrace } from '../lockstep/anyTrace.ts';
import { operatorTraceArbitrary } from '../generate/logs.ts';
import { OPERATOR_SCENARIOS, coverOperatorScenario } from '../generate/operatorExhaustive.ts';
import { naiveIdSut } from './naiveId.ts';

const SEPARATORS = [
  '|R:',
  ',R=',
  ';R:',
  '|L:',
  ':R:',
  '&R=',
  '/R/',
  '#R#',
  '+R+',
  '","',
  '||',
  '::',
  '->',
  '=>',
  ', ',
  '__',
  '--',
  '><',
  ')(',
  '|:',
];

// A fixed seed, so that the budget below is a statement about the generators, not about luck; every trace is numbered in the output.
const SEED = 1;
const RANDOM_BUDGET = 2000;

/** The number (from 1) of the first trace the system diverges on, or null. */
async function firstDivergence(separator: string, traces: readonly OperatorTrace[]): Promise<number | null> {
  const system = inProcessSystem(naiveIdSut({ prefix: 'L:', separator, suffix: '' }), `naive-id ${separator}`);
  for (const [i, trace] of traces.entries()) if (await runTrace(system, { kind: 'operator', trace }, 'operator')) return i + 1;
  return null;
}

describe('J3: a naive match id fails for every separator of the class, examples off', () => {
  it(`random operator traces alone (seed ${SEED}, at most ${RANDOM_BUDGET}) catch a naive id with each of ${SEPARATORS.length} multi-character separators`, async () => {
    const traces = fc.sample(operatorTraceArbitrary(), { seed: SEED, numRuns: RANDOM_BUDGET });
    const caughtAt: Record<string, number | null> = {};
    for (const s of SEPARATORS) caughtAt[s] = await firstDivergence(s, traces);
    console.log(`naive ids, random operator traces at seed ${SEED}, first divergence: ${JSON.stringify(caughtAt)}`);
    expect(Object.entries(caughtAt).filter(([, at]) => at === null)).toEqual([]);
    // The correct encoding's separator with the side labels of none: a control that the system is right where nothing collides.
    expect(await firstDivergence('\u0000', traces.slice(0, 300))).toBeNull();
  }, 600_000);

  it(`the exhaustive scenario operator-colliding-separators alone catches a naive id with each of the ${SEPARATORS.length} separators`, async () => {
    const scenario = OPERATOR_SCENARIOS.find((s) => s.name === 'operator-colliding-separators');
    if (scenario === undefined) throw new Error('no scenario operator-colliding-separators');
    const { traces } = coverOperatorScenario(scenario);
    const caughtAt: Record<string, number | null> = {};
    for (const s of SEPARATORS) caughtAt[s] = await firstDivergence(s, traces);
    console.log(`naive ids, operator-colliding-separators (${traces.length} traces), first divergence: ${JSON.stringify(caughtAt)}`);
    expect(Object.entries(caughtAt).filter(([, at]) => at === null)).toEqual([]);
    expect(await firstDivergence('\u0000', traces)).toBeNull();
  }, 600_000);
});
