// Kill mode's exhaustive scenario of a request (everyWritePoint.ts): a
// migration's commit (C7) killed in flight at every durable write point of
// `serve --data` in turn, until it answers. Each kill leaves a state SPEC
// has: the commit lost (its handoff record half written), its fence part
// done and the ownership part not (the crashAfterFence state: recovery
// completes a fence part split between the handoff record and the sink's
// fence), or the whole commit; and the release after it conforms. The
// end-to-end tier: it kills processes.
import { describe, expect, it } from 'vitest';
import { COMMIT_STEP, PERSIST_STEP, matchTrace, migrationTrace } from './killFixtures.ts';
import { initWritePoints, killAtEveryWritePoint, killInitAtEveryWritePoint } from './everyWritePoint.ts';

describe('kill mode, exhaustive over the write points of a request', () => {
  it('C7: a commit killed at each of its durable write points of serve --data recovers to a state SPEC has (lost, fence part only, or whole), and the run goes on conforming', async () => {
    // How the commit's write points resolve is the subject: no kill after the last step (a restart per run spared).
    const { runs, complete } = await killAtEveryWritePoint(
      migrationTrace,
      COMMIT_STEP,
      { command: 'node bin/streamjoin.js serve --data {data}' },
      { finalKill: false },
    );
    expect(runs.filter((r) => r.divergence).map((r) => r.write)).toEqual([]);
    expect(complete).toBe(true);
    const resolved = runs.map((r) => r.resolved);
    expect(resolved[0]).toBe('lost');
    expect(resolved.at(-1)).toBe('applied');
    expect(resolved).toContain('partly');
    // Resolutions only move forward as the kill moves later in the request's writes.
    const order = { lost: 0, partly: 1, applied: 2 } as const;
    const ranks = resolved.map((r) => order[r ?? 'applied']);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it('C5: a persist killed at each of its durable write points (the record naming the checkpoint, the store, the phase) recovers to the step lost or whole, never the checkpoint stored with the handoff still frozen', async () => {
    expect(migrationTrace.steps[PERSIST_STEP]?.action.type).toBe('persist');
    const { runs, complete } = await killAtEveryWritePoint(
      migrationTrace,
      PERSIST_STEP,
      { command: 'node bin/streamjoin.js serve --data {data}' },
      { finalKill: false },
    );
    expect(runs.filter((r) => r.divergence).map((r) => r.write)).toEqual([]);
    expect(complete).toBe(true);
    // Three documents written in turn, each with more than one write point: lost before the record names
    // the checkpoint, applied (recovery finishes the step) from then on.
    expect(runs.length).toBeGreaterThan(6);
    const resolved = runs.map((r) => r.resolved);
    expect(resolved[0]).toBe('lost');
    expect(resolved.at(-1)).toBe('applied');
    expect(resolved).not.toContain('partly');
    const firstApplied = resolved.indexOf('applied');
    expect(resolved.slice(firstApplied).every((r) => r === 'applied')).toBe(true);
  });

  it('C10: the first init of serve --data killed at each of its durable write points (it makes some) re-attaches with every node down and empty durable parts, and the rows after the restarts match', async () => {
    const { runs, complete } = await killInitAtEveryWritePoint(matchTrace, { command: 'node bin/streamjoin.js serve --data {data}' });
    expect(runs.filter((r) => r.divergence).map((r) => r.write)).toEqual([]);
    expect(complete).toBe(true);
    // Killed inside init at write points 1..N, then at N+1 it answered init (and was killed after): N > 0, or nothing was tested.
    const n = initWritePoints(runs);
    expect(n).toBeGreaterThan(0);
    expect(runs.map((r) => r.answered)).toEqual([...Array<boolean>(n).fill(false), true]);
    for (const r of runs) {
      expect(r.result.kills.inInit).toBe(1);
      expect(r.result.trace.initKill?.note).toMatch(/^killed here, inside init/);
      // Two kills and restarts: the re-attach right after init, and the kill after the trace's last step (withKills finalKill).
      expect(r.result.restartMs).toHaveLength(2);
      expect(r.result.kills.afterReply).toBe(1);
      expect(r.result.trace.steps.some((s) => s.note?.startsWith("killed here, at the trace's end"))).toBe(true);
    }
  });
});
