// Which steps kill mode's exhaustive scenario kills in flight
// (everyWritePoint.ts): the enabled ones that change no node's liveness, so
// that the nodes to restart after the kill do not depend on its outcome;
// and the exhaustive part reaches every kind of step there is.
import { describe, expect, it } from 'vitest';
import { basename } from 'node:path';
import { CLUSTER_TRACE_FORMAT, REQUEST_TYPES } from '../../spec/index.ts';
import type { ClusterTrace, ExternalAction } from '../../spec/index.ts';
import { insertRow } from '../testFixtures.ts';
import { specExamplePaths } from '../job/traceFilesPart.ts';
import { loadCheckedTrace } from '../lockstep/traceFiles.ts';
import { KILL_EXHAUSTIVE_EXAMPLE, exhaustiveKills, killableSteps, messageKills } from './everyWritePoint.ts';

describe('killableSteps', () => {
  it('every enabled step but crashes, restarts, pauses and resumes (C10); a refused step (§7) is not killed', () => {
    const actions: ExternalAction[] = [
      { type: 'record', record: insertRow('k1', 'L', 'a', 1, 2) },
      { type: 'checkpoint', worker: 'w1', key: 'k1' },
      { type: 'persist', key: 'k1' },
      { type: 'crash', node: 'w2' },
      { type: 'restart', node: 'w2' },
      { type: 'pause', worker: 'w2' },
      { type: 'resume', worker: 'w2' },
      { type: 'freeze', key: 'k1', to: 'w2' },
    ];
    const trace: ClusterTrace = {
      format: CLUSTER_TRACE_FORMAT,
      name: 't',
      config: { join: { allowedLateness: 1, maxIntervalLength: 2 }, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
      steps: actions.map((action) => ({ action })),
    };
    // persist (2) is refused: no migration in flight.
    expect(killableSteps(trace)).toEqual([0, 1, 7]);
  });
});

describe('exhaustiveKills', () => {
  it('C2, C5-C11: --exhaustive kills every kind of request an in-flight kill can go to (every protocol request but init, inspect and the liveness changes), each at one step of the examples at least', () => {
    const examples = specExamplePaths().flatMap((path) => {
      const t = loadCheckedTrace(path);
      return t.kind === 'cluster' ? [{ path, trace: t.trace }] : [];
    });
    const main = examples.find((e) => basename(e.path) === KILL_EXHAUSTIVE_EXAMPLE);
    if (main === undefined) throw new Error(`the example ${KILL_EXHAUSTIVE_EXAMPLE} is missing`);
    const kills = exhaustiveKills(examples);
    // The migration's init and each of its killable steps come first, as before.
    expect(kills.slice(0, 1 + killableSteps(main.trace).length).every((k) => k.path === main.path)).toBe(true);
    expect(kills[0]?.at).toBe('init');
    const killed = new Set(kills.flatMap((k) => (k.at === 'init' ? [] : [k.trace.steps[k.at]?.action.type])));
    const killable = REQUEST_TYPES.filter((t) => !['init', 'inspect', 'crash', 'restart', 'pause', 'resume'].includes(t));
    expect([...killed].sort()).toEqual([...killable].sort());
    // Past the migration, one step of each kind: no kind twice.
    const rest = kills
      .slice(1 + killableSteps(main.trace).length)
      .map((k) => (k.at === 'init' ? 'init' : k.trace.steps[k.at]?.action.type));
    expect(new Set(rest).size).toBe(rest.length);
  });
});

describe('messageKills', () => {
  it("C11: every kill run with the examples kills the planned migration's install and release, the steps whose message a duplicate delivers again, and nothing else", () => {
    const examples = specExamplePaths().flatMap((path) => {
      const t = loadCheckedTrace(path);
      return t.kind === 'cluster' ? [{ path, trace: t.trace }] : [];
    });
    const kills = messageKills(examples);
    expect(kills.map((k) => basename(k.path))).toEqual([KILL_EXHAUSTIVE_EXAMPLE, KILL_EXHAUSTIVE_EXAMPLE]);
    expect(kills.map((k) => (k.at === 'init' ? 'init' : k.trace.steps[k.at]?.action.type))).toEqual(['install', 'release']);
    // Each one of --exhaustive's kills, and killable (enabled, no liveness change).
    const all = exhaustiveKills(examples);
    for (const k of kills) {
      expect(all).toContainEqual(k);
      expect(killableSteps(k.trace)).toContain(k.at);
    }
    expect(messageKills(examples.filter((e) => !e.path.endsWith(KILL_EXHAUSTIVE_EXAMPLE)))).toEqual([]);
  });
});
