// C9 and J3 by construction, for any separator, at the cluster levels: a
// cluster whose sink files each key's matches under a naive id
// P + left + S + right (naiveId.ts `naiveSinkSut`, as relay's `naive-sink-id`
// does with `L:a|R:b`) fails, with the examples off, through random cluster
// traces alone and through the exhaustive scenario
// colliding-separators-across-a-handoff alone, for several multi-character
// separators, none of them the spec's `/`.
//
// To stay affordable, lockstep runs only on the traces where the naive sink
// can differ from the reference at all: those in which two distinct matches
// of one key, written to the sink (not fenced), share a naive id. On every
// other trace the naive sink files each match under an id of its own and so
// keeps exactly the reference's entries and counters. The test asserts that
// the harness catches the bug at the first such trace.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { ClusterTrace } from '../../spec/index.ts';
import { applyExternal, initialClusterState, whyNotEnabled, type ClusterSetup } from '../../model/index.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { runTrace } from '../lockstep/anyTrace.ts';
import { clusterTraceArbitrary } from '../generate/clusterTraces.ts';
import { coverScenario } from '../generate/exhaustive.ts';
import { exhaustiveScenario, type ExhaustiveScenario } from '../generate/clusterScenarios.ts';
import { naiveId, naiveSinkSut, type NaiveEncoding } from './naiveId.ts';

const SEPARATORS = ['|R:', ',R=', '#R#', '::', '->', ', '];
const SEED = 1;
const RANDOM_BUDGET = 1000;

/** The matches a trace writes to the sink (not fenced), per key: what a naive sink files. */
function sinkWrites(trace: ClusterTrace): { key: string; left: string; right: string; match: string }[] {
  const setup: ClusterSetup = { ...trace.config, checkProperties: false };
  let state = initialClusterState(setup);
  const out: { key: string; left: string; right: string; match: string }[] = [];
  for (const { action } of trace.steps) {
    if (action.type === 'process' || whyNotEnabled(setup, state, action) !== undefined) continue;
    const t = applyExternal(setup, state, action);
    state = t.state;
    for (const e of t.events) if (e.type === 'processed' && !e.fenced) out.push(...e.changes);
  }
  return out;
}

/** Whether two distinct matches of one key written to the sink share a naive id: where a naive sink can differ at all. */
function collides(writes: ReturnType<typeof sinkWrites>, encoding: NaiveEncoding): boolean {
  const filed = new Map<string, string>();
  for (const w of writes) {
    const id = JSON.stringify([w.key, naiveId(encoding, w.left, w.right)]);
    const match = filed.get(id);
    if (match !== undefined && match !== w.match) return true;
    filed.set(id, w.match);
  }
  return false;
}

/** The control: a naive sink whose separator no id holds agrees with the reference on every trace given (lockstep). */
async function controlDiverges(traces: readonly ClusterTrace[]): Promise<boolean> {
  const system = inProcessSystem(naiveSinkSut({ prefix: 'L:', separator: '\u0000', suffix: '' }), 'naive-sink control');
  for (const trace of traces) if ((await runTrace(system, { kind: 'cluster', trace }, 'cluster')) !== undefined) return true;
  return false;
}

/**
 * Per separator, the number (from 1) of the first trace where a naive sink
 * can differ, and whether the harness caught it there (lockstep, level cluster).
 */
async function firstCatches(traces: readonly ClusterTrace[]): Promise<Record<string, { trace: number; caught: boolean } | null>> {
  const out: Record<string, { trace: number; caught: boolean } | null> = {};
  const pending = new Set(SEPARATORS);
  for (const s of pending) out[s] = null;
  for (const [i, trace] of traces.entries()) {
    if (pending.size === 0) break;
    const writes = sinkWrites(trace);
    for (const s of [...pending]) {
      const encoding = { prefix: 'L:', separator: s, suffix: '' };
      if (!collides(writes, encoding)) continue;
      pending.delete(s);
      const system = inProcessSystem(naiveSinkSut(encoding), `naive-sink ${s}`);
      out[s] = { trace: i + 1, caught: (await runTrace(system, { kind: 'cluster', trace }, 'cluster')) !== undefined };
    }
  }
  return out;
}

describe('C9, J3: a sink that files matches under a naive id fails for separators of the class, examples off', () => {
  it(`random cluster traces alone (seed ${SEED}, at most ${RANDOM_BUDGET}) catch a naive sink id with each of ${SEPARATORS.length} multi-character separators`, async () => {
    const traces = fc.sample(clusterTraceArbitrary('cluster'), { seed: SEED, numRuns: RANDOM_BUDGET });
    const at = await firstCatches(traces);
    console.log(`naive sink ids, random cluster traces at seed ${SEED}, first trace where one differs: ${JSON.stringify(at)}`);
    for (const s of SEPARATORS) expect(at[s], s).toMatchObject({ caught: true });
    // The control: where nothing collides, the naive sink is the reference's (what skipping those traces relies on).
    expect(await controlDiverges(traces.slice(0, 40))).toBe(false);
  }, 600_000);

  it(`the exhaustive scenario colliding-separators-across-a-handoff alone catches a naive sink id with each of the ${SEPARATORS.length} separators`, async () => {
    const { traces } = coverScenario(exhaustiveScenario('colliding-separators-across-a-handoff') as ExhaustiveScenario);
    const at = await firstCatches(traces);
    console.log(
      `naive sink ids, colliding-separators-across-a-handoff (${traces.length} traces), first trace where one differs: ${JSON.stringify(at)}`,
    );
    for (const s of SEPARATORS) expect(at[s], s).toMatchObject({ caught: true });
    expect(await controlDiverges(traces.slice(0, 3))).toBe(false);
  }, 600_000);
});
