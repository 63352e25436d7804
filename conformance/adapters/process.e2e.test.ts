import { describe, expect, inject, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCheckedTrace } from '../lockstep/traceFiles.ts';
import { runConform, type TraceSource } from '../conform.ts';
import { spawnSystem } from './process.ts';
import { SutUnavailable } from './sut.ts';
import { runOperatorLockstep } from '../lockstep/operatorLockstep.ts';
import { runClusterLockstep } from '../lockstep/clusterLockstep.ts';

const root = join(import.meta.dirname, '..', '..');
const seed = inject('fcSeed');
const serveModel = 'node bin/streamjoin.js serve --model';
const misbehave = (mode: string, after = 4) => `node --import tsx conformance/testdata/misbehave.ts ${mode} ${after}`;

/** Processes of a process group that are still alive (not gone, not zombies), from /proc (Linux). */
function livingInGroup(pgid: number): number[] {
  const alive: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // it ended while we looked
    }
    // pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') alive.push(Number(entry));
  }
  return alive;
}

const examples: TraceSource[] = [
  ...readdirSync(join(root, 'spec', 'examples'))
    .filter((f) => f.endsWith('.trace.json'))
    .map((f) => join(root, 'spec', 'examples', f)),
  ...readdirSync(join(root, 'spec', 'examples', 'cluster')).map((f) => join(root, 'spec', 'examples', 'cluster', f)),
].map((path) => ({ path, trace: loadCheckedTrace(path) }));

describe('the process adapter against `streamjoin serve --model` (PROTOCOL.md)', () => {
  it('the model served over the protocol conforms to the model: every example and random traces at every level', async () => {
    const system = spawnSystem(serveModel, { cwd: root });
    try {
      const report = await runConform({ system, seed, runs: 25, examples });
      expect(report.unknown).toBeUndefined();
      expect(report.verdict).toBe('pass');
      expect(report.implementation?.name).toBe('streamjoin-reference-model');
      expect(report.levels).toEqual(['operator', 'cluster', 'faults']);
      expect(report.examples).toHaveLength(examples.length);
      expect(report.random.map((r) => r.runs)).toEqual([25, 25, 25]);
    } finally {
      await system.close();
    }
    const pgid = system.pgid;
    expect(pgid).toBeDefined();
    expect(livingInGroup(pgid as number)).toEqual([]);
  });
});

describe('a dead, hung or babbling system yields unknown with the reason and its stderr, and leaves no process behind', () => {
  const cases: [mode: string, reason: RegExp][] = [
    ['hang', /^hung: no reply to request \d+ \(record\) within 800 ms$/],
    ['exit', /^dead: the process exited with code 3 with requests outstanding$/],
    ['text', /^babbling: a stdout line is not JSON: "this is not JSON"$/],
    ['huge', /^babbling: a stdout line of \d+\+ bytes is over the cap of 1048576 bytes$/],
    ['unsolicited', /^babbling: an unsolicited stdout line \(no in_reply_to\)/],
    ['wrong-id', /^babbling: a reply with in_reply_to \d+ answers no outstanding request/],
  ];
  const trace = examples.find((e) => e.path.endsWith('horizon-boundary.trace.json'))?.trace;

  for (const [mode, reason] of cases) {
    it.concurrent(mode, async () => {
      if (trace?.kind !== 'operator') throw new Error('example missing');
      const system = spawnSystem(misbehave(mode), { cwd: root, timeoutMs: 800 });
      let error: unknown;
      try {
        // The first init succeeds (the handshake); the trace's records run into the misbehaviour.
        await runOperatorLockstep(trace.trace, system);
      } catch (e) {
        error = e;
      } finally {
        await system.close();
      }
      expect(error).toBeInstanceOf(SutUnavailable);
      const e = error as SutUnavailable;
      expect(e.reason).toMatch(reason);
      expect(e.stderrTail.some((l) => l.startsWith('misbehave: request'))).toBe(true);
      if (mode === 'exit') expect(e.stderrTail.at(-1)).toBe('misbehave: simulated crash');
      // The hang case also started a grandchild (sleep 300): the whole group is gone.
      expect(livingInGroup(system.pgid as number)).toEqual([]);
      // A broken system stays broken: later calls reject at once, with the same reason.
      await expect(
        system.openCluster({ join: trace.trace.config, workers: ['w1'], keys: [{ key: 'k', owner: 'w1' }] }, 'cluster'),
      ).rejects.toThrow(reason);
    });
  }

  it("a command that does not exist is dead, with the shell's complaint in the stderr tail", async () => {
    const system = spawnSystem('streamjoin-no-such-command-xyz', { cwd: root });
    const error = await system.info().catch((e: unknown) => e);
    await system.close();
    expect(error).toBeInstanceOf(SutUnavailable);
    expect((error as SutUnavailable).reason).toMatch(/^dead: the process exited with code 127/);
    expect((error as SutUnavailable).stderrTail.join('\n')).toMatch(/not found/);
  });

  it('a wrong implementation with a well-formed protocol is a divergence, not unknown', async () => {
    const system = spawnSystem(misbehave('ablate:sink-fence'), { cwd: root });
    const zombie = examples.find((e) => e.path.endsWith('zombie-fenced.trace.json'))?.trace;
    if (zombie?.kind !== 'cluster') throw new Error('example missing');
    try {
      const r = await runClusterLockstep(zombie.trace, system, 'faults');
      expect(r.divergence).toMatchObject({ step: 4, field: 'events', refs: { rules: ['C9'] } });
    } finally {
      await system.close();
    }
  });
});
