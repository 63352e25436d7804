import { describe, expect, inject, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadCheckedTrace } from '../lockstep/traceFiles.ts';
import { runConform } from '../job/conform.ts';
import type { TraceSource } from '../job/conformTypes.ts';
import { BUFFERING_HINT, spawnSystem } from './process.ts';
import { livingInGroup, livingWithEnvironment, SUT_MARKER_VARIABLE } from './processGroup.ts';
import { SutUnavailable } from '../sut/sut.ts';
import { runClusterLockstep, runOperatorLockstep } from '../views/explainedRuns.ts';

const root = join(import.meta.dirname, '..', '..');
const seed = inject('fcSeed');
const serveModel = 'node bin/streamjoin.js serve --model';
const misbehave = (mode: string, after = 4) => `node --import tsx conformance/testdata/misbehave.ts ${mode} ${after}`;

/** Resolves once `condition` holds (checked every 10 ms): waiting on an event that has no callback. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
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
    expect(livingWithEnvironment(SUT_MARKER_VARIABLE, system.marker as string)).toEqual([]);
  });
});

describe('an init refused for a valid config fails, at the first step of its trace (J0, C1; PROTOCOL.md, "What the harness checks")', () => {
  it("the handshake's smallest config refused: an ordinary one tells the levels, and the refused one fails as a trace of its own", async () => {
    const system = spawnSystem(misbehave('refuse-d', 0), { cwd: root });
    try {
      const info = await system.info();
      expect(info.levels).toEqual(['operator', 'cluster', 'faults']);
      expect(info.refusedConfig).toEqual({
        level: 'operator',
        config: { allowedLateness: 0, maxIntervalLength: 0 },
        code: 1003,
        text: 'division by zero',
      });
      const report = await runConform({ system, seed, runs: 0, examples: [] });
      expect(report.unknown).toBeUndefined();
      expect(report.verdict).toBe('fail');
      expect(report.examples.map((e) => [e.name, e.level, e.verdict])).toEqual([['handshake-config', 'operator', 'fail']]);
      const failure = report.failures[0];
      expect(failure?.divergence.step).toBe(0);
      expect(failure?.divergence.refs.rules).toEqual(['J0']);
      expect(failure?.divergence.summary).toMatch(
        /never sent, because the session's init at level operator refused with internal_error: division by zero \(a valid config, J0 and C1: \{"allowedLateness":0,"maxIntervalLength":0\}\)/,
      );
    } finally {
      await system.close();
    }
  });

  it('in a session: the trace fails at its first step, the reason quoting the config, and the replies after the refused init are not judged', async () => {
    const system = spawnSystem(misbehave('refuse-d', 2), { cwd: root });
    try {
      expect((await system.info()).refusedConfig).toBeUndefined();
      const session = await system.openOperator({ allowedLateness: 2, maxIntervalLength: 2 });
      const e = await session.records([{ kind: 'watermark', side: 'L', wm: 0 }]).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(SutUnavailable);
      expect((e as SutUnavailable).reason).toBe(
        'init at level operator refused with internal_error: division by zero (a valid config, J0 and C1: {"allowedLateness":2,"maxIntervalLength":2})',
      );
      expect((e as SutUnavailable).initRefused).toEqual({ code: 1003, text: 'division by zero' });
      // The examples: those with D = 2 (every cluster example, some operator ones) fail at their first step; the system
      // keeps its earlier session after a refused init (an error changes nothing), and answers the records sent after it
      // there, unjudged: no unknown.
      const report = await runConform({ system, seed, runs: 0, examples });
      expect(report.unknown).toBeUndefined();
      expect(report.verdict).toBe('fail');
      const dOf = (path: string): number | undefined => {
        const t = examples.find((x) => x.path === path)?.trace;
        return t === undefined
          ? undefined
          : t.kind === 'operator'
            ? t.trace.config.maxIntervalLength
            : t.trace.config.join.maxIntervalLength;
      };
      // Exactly the examples whose D is 2 fail, at every level, each citing J0 (and C1 at the cluster levels).
      for (const x of report.examples) expect([x.name, x.verdict]).toEqual([x.name, dOf(x.path) === 2 ? 'fail' : 'pass']);
      expect(new Set(report.failures.map((f) => f.level))).toEqual(new Set(['operator', 'cluster', 'faults']));
      for (const f of report.failures) {
        expect(f.divergence.step).toBe(0);
        expect(f.divergence.summary).toMatch(
          /never sent, because the session's init at level \w+ refused with internal_error: division by zero/,
        );
        expect(f.divergence.refs.rules).toEqual(f.level === 'operator' ? ['J0'] : ['J0', 'C1']);
      }
    } finally {
      await system.close();
    }
  });
});

describe('a process that dies at an init of a valid config, every time, fails at the first step of its trace (J0, C1; PROTOCOL.md)', () => {
  it("at the handshake's smallest config: an ordinary one, in a fresh process, tells the levels, and the config fails as a trace of its own", async () => {
    const system = spawnSystem(misbehave('die-on-d', 0), { cwd: root });
    try {
      const info = await system.info();
      expect(info.levels).toEqual(['operator', 'cluster', 'faults']);
      expect(info.refusedConfig?.config).toEqual({ allowedLateness: 0, maxIntervalLength: 0 });
      expect(info.refusedConfig?.code).toBeUndefined();
      expect(info.refusedConfig?.text).toMatch(/^dead: the process exited with code 3.*, before the session's init was answered$/);
      const report = await runConform({ system, seed, runs: 0, examples: [] });
      expect(report.unknown).toBeUndefined();
      expect(report.verdict).toBe('fail');
      expect(report.examples.map((e) => [e.name, e.verdict])).toEqual([['handshake-config', 'fail']]);
      const d = report.failures[0]?.divergence;
      expect(d?.step).toBe(0);
      expect(d?.summary).toMatch(
        /the system died handling it \(dead: the process exited with code 3.*, before the session's init was answered \(a valid config, J0 and C1: \{"allowedLateness":0,"maxIntervalLength":0\}\)\), and again when the trace was run once more up to it/,
      );
      expect(d?.refs.rules[0]).toBe('J0');
    } finally {
      await system.close();
    }
  });

  it('in a session: exactly the examples whose D it dies on fail, at their first step, each rerun in a fresh process; no unknown', async () => {
    const system = spawnSystem(misbehave('die-on-d', 2), { cwd: root });
    const dOf = (t: TraceSource['trace']): number =>
      t.kind === 'operator' ? t.trace.config.maxIntervalLength : t.trace.config.join.maxIntervalLength;
    // Two examples of each kind with D = 2 and two without (each death is run again, and minimized: a few suffice).
    const some = [
      ...examples.filter((x) => x.trace.kind === 'operator' && dOf(x.trace) === 2).slice(0, 2),
      ...examples.filter((x) => x.trace.kind === 'cluster' && dOf(x.trace) === 2).slice(0, 2),
      ...examples.filter((x) => dOf(x.trace) !== 2).slice(0, 2),
    ];
    expect(some).toHaveLength(6);
    try {
      const report = await runConform({ system, seed, runs: 0, examples: some });
      expect(report.unknown).toBeUndefined();
      for (const x of report.examples) {
        const t = some.find((y) => y.path === x.path)?.trace as TraceSource['trace'];
        expect([x.name, x.verdict]).toEqual([x.name, dOf(t) === 2 ? 'fail' : 'pass']);
      }
      for (const f of report.failures) {
        expect(f.divergence.step).toBe(0);
        expect(f.divergence.summary).toMatch(/before the session's init was answered/);
        expect(f.divergence.refs.rules.slice(0, f.level === 'operator' ? 1 : 2)).toEqual(f.level === 'operator' ? ['J0'] : ['J0', 'C1']);
      }
    } finally {
      await system.close();
    }
  });
});

describe('the handshake asks for the levels the run checks, and error codes are compared at each (PROTOCOL.md, "Sessions and levels")', () => {
  // Every request is copied to stderr, where the system's stderr tail shows it (a shell loop: its stdio are sockets, no /dev/stderr to open).
  const logged = `sh -c 'while IFS= read -r line; do printf "%s\\n" "$line" >&2; printf "%s\\n" "$line"; done | ${serveModel}'`;
  const requests = (system: { stderrTail(): string[] }): { type: string; level?: string }[] =>
    system
      .stderrTail()
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { type: string; level?: string });

  it('with levels [cluster] (--level cluster), init goes out at level cluster only', async () => {
    const system = spawnSystem(logged, { cwd: root, levels: ['cluster'] });
    try {
      const info = await system.info();
      expect(info.levels).toEqual(['operator', 'cluster', 'faults']);
      await system.close();
      expect(
        requests(system)
          .filter((r) => r.type === 'init')
          .map((r) => r.level),
      ).toEqual(['cluster']);
    } finally {
      await system.close();
    }
  });

  it('the first session at level operator, and at level cluster, sends one request above it, which must be refused with not_supported (10)', async () => {
    const system = spawnSystem(logged, { cwd: root, stderrLines: 10_000 });
    try {
      const operator = (examples.find((e) => e.trace.kind === 'operator') as TraceSource).trace;
      const cluster = (examples.find((e) => e.trace.kind === 'cluster') as TraceSource).trace;
      if (operator.kind !== 'operator' || cluster.kind !== 'cluster') throw new Error('unreachable');
      for (let i = 0; i < 2; i++) expect((await runOperatorLockstep(operator.trace, system)).divergence).toBeUndefined();
      for (let i = 0; i < 2; i++) expect((await runClusterLockstep(cluster.trace, system, 'cluster')).divergence).toBeUndefined();
      await system.close();
      const sent = requests(system).map((r) => r.type);
      // Once per level, right after the first init at it, and never again (the cluster trace itself has no inspect before its first step).
      const inits = sent.flatMap((t, i) => (t === 'init' ? [i] : []));
      expect(inits).toHaveLength(4);
      expect(sent[(inits[0] as number) + 1]).toBe('inspect');
      expect(sent[(inits[2] as number) + 1]).toBe('pause');
      expect(sent.filter((t) => t === 'pause')).toHaveLength(1);
      expect(sent.slice(0, inits[2]).filter((t) => t === 'inspect')).toHaveLength(1);
    } finally {
      await system.close();
    }
  });
});

describe('a dead, hung or babbling system yields unknown with the reason and its stderr, and leaves no process behind', () => {
  // Only the hung system waits for its timeout; every other one is judged on
  // what it does, so its timeouts are generous: a loaded machine must not
  // turn "dead" into "hung". (The whole set, through the CLI: conformance/hostile.e2e.test.ts.)
  const cases: [mode: string, timeoutMs: number, reason: RegExp][] = [
    ['hang', 1000, /^hung: no reply to request \d+ \(record\) within 1000 ms; a system whose stdout is block-buffered/],
    // Its replies lost with it (none came, not even the init's): run once more to the first step in a fresh process,
    // which answers it (the misbehaviour comes after four lines), so the death did not come back (lockstep/deaths.ts).
    [
      'exit',
      60_000,
      /^dead: the process exited with code 3 with requests outstanding, before the session's init was answered \(a valid config, J0 and C1: .*\); run again up to step 1 in a fresh process, it answered every step: the death did not come back at that step$/,
    ],
    ['text', 60_000, /^babbling: a stdout line is not JSON: this is not JSON$/],
    ['huge', 60_000, /^babbling: a stdout line of \d+\+ bytes is over the cap of 1048576 bytes$/],
    ['unsolicited', 60_000, /^babbling: an unsolicited stdout line \(no in_reply_to\)/],
    ['wrong-id', 60_000, /^babbling: a reply with in_reply_to \d+ answers no outstanding request/],
  ];
  const trace = examples.find((e) => e.path.endsWith('horizon-boundary.trace.json'))?.trace;

  for (const [mode, timeoutMs, reason] of cases) {
    it.concurrent(mode, async () => {
      if (trace?.kind !== 'operator') throw new Error('example missing');
      const system = spawnSystem(misbehave(mode), { cwd: root, timeoutMs, startupTimeoutMs: 60_000 });
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
      expect(livingWithEnvironment(SUT_MARKER_VARIABLE, system.marker as string)).toEqual([]);
      // A broken system stays broken: later calls reject at once, with the same reason. (A dead one was started afresh to
      // run the trace once more, and the run stops at its unknown.)
      if (mode !== 'exit')
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

  it('--timeout bounds the start-up too: a system that never answers its first request is hung, and the reason says why that is often buffering', async () => {
    const system = spawnSystem('sleep 300', { timeoutMs: 500, startupTimeoutMs: 500 });
    const error = await system.info().catch((e: unknown) => e);
    await system.close();
    expect((error as SutUnavailable).reason).toBe(`hung: no reply to request 1 (init) within 500 ms of starting; ${BUFFERING_HINT}`);
  });

  it('a system that exits while a grandchild in its group holds stdout is dead, not hung; the grandchild is killed', async () => {
    const system = spawnSystem(misbehave('grandchild-exit', 1), { cwd: root, timeoutMs: 600_000, startupTimeoutMs: 600_000 });
    const pgids: number[] = [];
    const onDeath = setInterval(() => system.pgid !== undefined && !pgids.includes(system.pgid) && pgids.push(system.pgid), 5);
    const result = await runOperatorLockstep(
      (trace as { kind: 'operator'; trace: Parameters<typeof runOperatorLockstep>[0] }).trace,
      system,
    );
    clearInterval(onDeath);
    await system.close();
    // It dies at its second line, its replies lost with it, in every process: the session's init, each time (in the
    // fresh process too, where the trace runs once more): the trace fails at its first step, dead, not hung.
    expect(result.divergence?.step).toBe(0);
    expect(result.divergence?.summary).toMatch(
      /the system died handling it \(dead: the process exited with code 3 with requests outstanding, before the session's init was answered/,
    );
    // Every process group seen (the first, and the fresh one of the rerun), the grandchild of each included, is gone.
    if (system.pgid !== undefined && !pgids.includes(system.pgid)) pgids.push(system.pgid);
    expect(pgids.length).toBeGreaterThan(0);
    for (const pgid of pgids) expect(livingInGroup(pgid)).toEqual([]);
  });

  it('a grandchild that left the group (setsid) but holds stdout is found by its environment and killed', async () => {
    const system = spawnSystem(misbehave('setsid-hang', 1), { cwd: root, timeoutMs: 1000, startupTimeoutMs: 60_000 });
    const error = await runOperatorLockstep(
      (trace as { kind: 'operator'; trace: Parameters<typeof runOperatorLockstep>[0] }).trace,
      system,
    ).catch((e: unknown) => e);
    await system.close();
    expect((error as SutUnavailable).reason).toMatch(/^hung: /);
    expect(livingWithEnvironment(SUT_MARKER_VARIABLE, system.marker as string)).toEqual([]);
  });

  it('an abort (the harness interrupted) rejects what is pending with "interrupted" and stops the system', async () => {
    const controller = new AbortController();
    const system = spawnSystem(misbehave('hang', 1), {
      cwd: root,
      timeoutMs: 600_000,
      startupTimeoutMs: 600_000,
      signal: controller.signal,
    });
    await system.info();
    const running = runOperatorLockstep(
      (trace as { kind: 'operator'; trace: Parameters<typeof runOperatorLockstep>[0] }).trace,
      system,
    ).catch((e: unknown) => e);
    controller.abort(new Error('SIGINT'));
    const error = await running;
    await system.close();
    expect((error as SutUnavailable).reason).toBe('interrupted: SIGINT');
    expect(livingWithEnvironment(SUT_MARKER_VARIABLE, system.marker as string)).toEqual([]);
  });

  it('keeps stderr per session: each trace sees the lines written while it ran', async () => {
    const system = spawnSystem(misbehave('reverse'), { cwd: root, startupTimeoutMs: 60_000 });
    try {
      const config = { allowedLateness: 0, maxIntervalLength: 0 };
      const first = await system.openOperator(config);
      await first.records([{ kind: 'watermark', side: 'L', wm: 1 }]);
      // stderr is another pipe: its lines may trail the replies. Wait for them before the next session.
      await until(() => system.stderrTail().includes('misbehave: request 3'));
      const second = await system.openOperator(config);
      await second.records([
        { kind: 'watermark', side: 'L', wm: 1 },
        { kind: 'watermark', side: 'R', wm: 1 },
      ]);
      await until(() => system.stderrTail().includes('misbehave: request 6'));
      // misbehave logs each request it reads: each session has its init and records, the first at level operator
      // also the one request above the level that must be refused (process.ts, `aboveLevel`).
      expect(first.stderr?.().lines).toEqual(['misbehave: request 1', 'misbehave: request 2', 'misbehave: request 3']);
      expect(second.stderr?.().lines).toEqual(['misbehave: request 4', 'misbehave: request 5', 'misbehave: request 6']);
    } finally {
      await system.close();
    }
  });

  it('a wrong implementation with a well-formed protocol is a divergence, not unknown', async () => {
    const system = spawnSystem(misbehave('ablate:sink-fence'), { cwd: root, startupTimeoutMs: 60_000 });
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
