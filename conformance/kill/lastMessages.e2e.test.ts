// Kill mode and the last install and release messages (C11; PROTOCOL.md,
// "Kill mode": they are durable). The observation does not show them, so
// after every kill's restarts the kill traces deliver each one again
// (killTraces.ts withKills): a system that lost a message its step sent, or
// kept one for a step that never happened, diverges at that duplicate. And
// where two model states differ in a message alone (an install retried after
// the store moved on), the run follows both until a duplicate tells them
// apart (killRun.ts), so that a correct system is never called wrong for the
// one the harness did not guess. The end-to-end tier: it kills processes.
import { describe, expect, it } from 'vitest';
import type { ClusterTrace } from '../../spec/index.ts';
import { INSTALL_STEP, RELEASE_STEP, RETRY_STEP, installRetryTrace, migrationTrace } from './killFixtures.ts';
import { killAtEveryWritePoint } from './everyWritePoint.ts';

const SERVE = 'node bin/streamjoin.js serve --data {data}';
const EXAMPLE = 'python3 examples/python/join.py --data {data}';
/** The example with its durable state saved in two writes: the phase first, or the message first (testdata/splitMessages.py). */
const split = (order: 'phase-first' | 'message-first'): string => `python3 conformance/testdata/splitMessages.py ${order} --data {data}`;

/**
 * Every write point of step `at` of `trace`, on `command`: the runs that diverged, and at which action. The
 * messages after the kill are the subject: no kill after the last step (a restart per run spared).
 */
async function everyWritePoint(command: string, trace: ClusterTrace, at: number) {
  const { runs, complete } = await killAtEveryWritePoint(trace, at, { command }, { finalKill: false });
  const diverged = runs.flatMap((r) => (r.divergence ? [{ write: r.write, action: r.divergence.action.type }] : []));
  return { runs, complete, diverged, resolved: runs.map((r) => r.resolved) };
}

describe('kill mode, the last messages (C11) across a kill', () => {
  // serve --data's install was the one that saved its message and its phase apart (its release is one write):
  // it runs at every write point of the install; the Python example (one document a request) at both.
  for (const [name, at, commands] of [
    ['install', INSTALL_STEP, [SERVE, EXAMPLE]],
    ['release', RELEASE_STEP, [EXAMPLE]],
  ] as const) {
    it(`C2, C6, C7, C11: ${name === 'install' ? 'an' : 'a'} ${name} killed at each of its write points of ${commands.length === 2 ? 'serve --data and ' : ''}the Python example keeps its message exactly when it keeps its step`, async () => {
      expect(migrationTrace.steps[at]?.action.type).toBe(name);
      for (const command of commands) {
        const r = await everyWritePoint(command, migrationTrace, at);
        expect(r.diverged, command).toEqual([]);
        expect(r.complete, command).toBe(true);
        expect(r.resolved[0], command).toBe('lost');
        expect(r.resolved.at(-1), command).toBe('applied');
        // The duplicates after the restarts are in the trace as run.
        const after = r.runs[0]?.result.trace.steps.map((s) => s.action.type) ?? [];
        expect(after, command).toContain(name === 'install' ? 'duplicateInstall' : 'duplicateRelease');
      }
    });

    for (const order of ['phase-first', 'message-first'] as const) {
      it(`C11: a system that saves ${name === 'install' ? 'an' : 'a'} ${name}'s message and the rest of its step in two writes (${order}) diverges at the duplicate after a kill between them`, async () => {
        const r = await everyWritePoint(split(order), migrationTrace, at);
        expect(r.diverged).toHaveLength(1);
        expect(r.diverged[0]?.action).toBe(name === 'install' ? 'duplicateInstall' : 'duplicateRelease');
      });
    }
  }

  it('C6, C11: an install retried after a zombie checkpoint, killed at each write point, conforms on serve --data and the Python example: the run follows both states the observation shows until the duplicate tells them apart', async () => {
    expect(installRetryTrace.steps[RETRY_STEP]?.action.type).toBe('install');
    for (const command of [SERVE, EXAMPLE]) {
      const r = await everyWritePoint(command, installRetryTrace, RETRY_STEP);
      expect(r.diverged, command).toEqual([]);
      expect(r.complete, command).toBe(true);
      // Before the write that keeps the new message, the old one stays (lost); from it on, the new one (applied).
      expect(r.resolved[0], command).toBe('lost');
      expect(r.resolved.at(-1), command).toBe('applied');
    }
  });
});
