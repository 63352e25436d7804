import { describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from './main.ts';
import { schemaError } from '../spec/index.ts';
import { runCli } from './testSupport.ts';
import { checkCommand } from './check.ts';
import { presetModel, type ModelPreset } from '../model/presets.ts';
import { wheelModel } from '../model/explorer/examples/toys.ts';

const capture = runCli;

const tmp = useTemporaryDirectories('sj-check-');

/** A fast failing run: without J6's tombstone, a retract then an insert of the same row diverge in 2 records. */
function ablatedRun(dir: string, extra: string[] = []): ReturnType<typeof capture> {
  return capture([
    'check',
    '--preset',
    'join-small',
    '--bound',
    'records=2',
    '--ablate',
    'retract-tombstone',
    '--workers',
    '1',
    '--out',
    dir,
    ...extra,
  ]);
}

describe('streamjoin check', () => {
  it('exits 0 on join-small: every property holds over the exhausted bound, every goal reached', async () => {
    const dir = tmp();
    const r = await capture(['check', '--preset', 'join-small', '--workers', '1', '--out', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/exhausted: every state within the bound was explored/);
    expect(r.stdout).toMatch(/JoinCorrect +holds/);
    expect(r.stdout).toMatch(/BoundedState +holds/);
    expect(r.stdout).toMatch(/goal MatchOutlivesEndpoint +holds \(reached in 4 steps\)/);
    expect(r.stdout).toMatch(/^PASS/m);
    // Not a terminal: nothing on stderr but, on a slow machine, heartbeat lines.
    expect(r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('streamjoin check: still running: '))).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('exits 1 on a violation, writes each counterexample atomically and prints the command that replays it', async () => {
    const dir = tmp();
    const r = await ablatedRun(dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/JoinCorrect +VIOLATED/);
    expect(r.stdout).toMatch(/counterexample, 2 step\(s\) from initial state 0:\n +1\. retract .*\n +2\. insert /);
    const file = join(dir, 'join-small-retract-tombstone-JoinCorrect.json');
    expect(r.stdout).toContain(`replay: npx streamjoin check --replay ${file}`);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as {
      format: string;
      property: unknown;
      actions: unknown[];
      bounds: Record<string, number>;
      ablate: string;
    };
    expect(doc.format).toBe('streamjoin/counterexample@1');
    expect(doc.property).toEqual({ kind: 'invariant', name: 'JoinCorrect' });
    expect(doc.actions).toHaveLength(2);
    expect(doc.bounds['records']).toBe(2);
    expect(doc.ablate).toBe('retract-tombstone');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('--replay replays the file step by step, shows each change, and exits 1 when the violation reproduces', async () => {
    const dir = tmp();
    await ablatedRun(dir);
    const file = join(dir, 'join-small-retract-tombstone-JoinCorrect.json');
    const r = await capture(['check', '--replay', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^step 1: retract /m);
    expect(r.stdout).toMatch(/^step 2: insert /m);
    expect(r.stdout).toMatch(/rows: \+ "k1\/L\/a/);
    expect(r.stdout).toMatch(/JoinCorrect VIOLATED at the end: record 1 /);
    const json = await capture(['check', '--replay', file, '--json']);
    const parsed = JSON.parse(json.stdout) as { verdict: string; steps: { changes: string[] }[]; exitCode: number };
    expect(parsed.verdict).toBe('violated');
    expect(parsed.steps).toHaveLength(2);
    expect(parsed.exitCode).toBe(1);
  });

  it('--replay exits 0 when the property holds at the end (the counterexample no longer reproduces)', async () => {
    const dir = tmp();
    await ablatedRun(dir);
    const file = join(dir, 'join-small-retract-tombstone-JoinCorrect.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    delete doc['ablate'];
    writeFileSync(file, JSON.stringify(doc));
    const r = await capture(['check', '--replay', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/JoinCorrect holds at the end: the counterexample no longer reproduces/);
  });

  it('--replay refuses, with exit 254 and the step, an action that is not enabled, and malformed files', async () => {
    const dir = tmp();
    await ablatedRun(dir);
    const file = join(dir, 'join-small-retract-tombstone-JoinCorrect.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { actions: unknown[] };
    // a third record, past the bound of 2 records: nothing is enabled any more
    doc.actions.push(doc.actions[0]);
    const tooLong = join(dir, 'too-long.json');
    writeFileSync(tooLong, JSON.stringify(doc));
    const r = await capture(['check', '--replay', tooLong]);
    expect(r.code).toBe(254);
    expect(r.stderr).toMatch(
      new RegExp(`^${tooLong.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: SJ108 step 3: action retract .* is not enabled`),
    );
    expect(r.stdout).toBe('');

    const notJson = join(dir, 'broken.json');
    writeFileSync(notJson, '{"format": ');
    expect((await capture(['check', '--replay', notJson])).stderr).toMatch(/SJ101/);
    const otherFormat = join(dir, 'other.json');
    writeFileSync(otherFormat, JSON.stringify({ format: 'streamjoin/operator-trace@1' }));
    expect((await capture(['check', '--replay', otherFormat])).stderr).toMatch(
      /SJ103 format "streamjoin\/operator-trace@1" is not "streamjoin\/counterexample@1"/,
    );
    const badShape = join(dir, 'shape.json');
    writeFileSync(badShape, JSON.stringify({ ...doc, initialState: -1 }));
    expect((await capture(['check', '--replay', badShape])).stderr).toMatch(/shape\.json:1:\d+: SJ102 \/initialState must be >= 0/);
    const badAction = join(dir, 'action.json');
    writeFileSync(badAction, JSON.stringify({ ...doc, actions: [{ kind: 'insert' }] }));
    expect((await capture(['check', '--replay', badAction])).stderr).toMatch(/SJ102 \/actions\/0: not a log record/);
    expect((await capture(['check', '--replay', join(dir, 'missing.json')])).stderr).toMatch(/SJ100 no such file/);
    expect((await capture(['check', '--replay', file, '--preset', 'join-small'])).stderr).toMatch(/SJ105 --replay takes only --json/);
  });

  it('exits 2 (unknown), never 0, when a state budget runs out before the bound is exhausted', async () => {
    const r = await capture(['check', '--preset', 'join-small', '--max-states', '50', '--workers', '1', '--out', tmp()]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/NOT exhausted: out of budget \(max-states\)/);
    expect(r.stdout).toMatch(/JoinCorrect +unknown/);
    expect(r.stdout).not.toMatch(/PASS/);
  });

  it('exits 254 on unknown presets, bounds out of range and unknown ablation elements, listing the valid ones', async () => {
    expect((await capture(['check', '--preset', 'nope'])).stderr).toMatch(
      /^usage: SJ105 unknown preset "nope" \(presets: ci, deep, smoke, sim-large, sim-soak, join-small, /,
    );
    expect((await capture(['check', '--preset', 'join-small', '--bound', 'records=99'])).stderr).toMatch(
      /SJ105 bound records of preset join-small must be an integer in \[0, 12\], got 99/,
    );
    expect((await capture(['check', '--preset', 'join-small', '--bound', 'records'])).stderr).toMatch(/SJ105 --bound wants NAME=INTEGER/);
    expect((await capture(['check', '--preset', 'join-small', '--bound', 'records=9007199254740993'])).stderr).toMatch(
      /SJ105 --bound records: 9007199254740993 is far beyond any bound/,
    );
    const r = await capture(['check', '--preset', 'join-small', '--ablate', 'sink-fence']);
    expect(r.code).toBe(254);
    expect(r.stderr).toMatch(
      /unknown element "sink-fence" for --ablate \(preset join-small can ablate: strict-eviction, match-retention, retract-tombstone\)/,
    );
    expect((await capture(['check', '--preset', 'join-small', '--visited', 'bloom'])).code).toBe(254);
    expect((await capture(['check', '--preset', 'join-small', '--max-seconds', '-1'])).code).toBe(254);
    expect((await capture(['check'])).stderr).toMatch(/check needs --preset NAME or --config FILE/);
  });

  it('--json prints one document (streamjoin/check-report@1, valid against its schema) with the exit code', async () => {
    const dir = tmp();
    const r = await ablatedRun(dir, ['--json', '--visited', 'exact', '--no-symmetry']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as {
      format: string;
      mode: string;
      parts: {
        part: string | null;
        status: string;
        distinct: number;
        options: { visited: string; symmetry: boolean };
        invariants: { name: string; verdict: string; file?: string; path?: { actions: unknown[] } }[];
        exitCode: number;
      }[];
      exitCode: number;
    };
    expect(schemaError('reports/check-report', report)).toBeUndefined();
    expect(report).toMatchObject({ format: 'streamjoin/check-report@1', mode: 'exhaustive', exitCode: 1 });
    expect(report.parts).toHaveLength(1);
    const [part] = report.parts;
    expect(part?.part).toBeNull();
    expect(part?.status).toBe('exhausted');
    expect(part?.options).toMatchObject({ visited: 'exact', symmetry: false });
    expect(part?.invariants.find((p) => p.name === 'JoinCorrect')).toMatchObject({
      verdict: 'violated',
      file: join(dir, 'join-small-retract-tombstone-JoinCorrect.json'),
    });
  });

  it('--config runs a saved configuration; a bad one is refused naming the file and field', async () => {
    const dir = tmp();
    const config = join(dir, 'run.json');
    writeFileSync(
      config,
      JSON.stringify({ format: 'streamjoin/check-config@1', preset: 'join-small', bounds: { records: 2 }, ablate: 'retract-tombstone' }),
    );
    const r = await capture(['check', '--config', config, '--workers', '1', '--out', dir]);
    expect(r.code).toBe(1);
    expect(existsSync(join(dir, 'join-small-retract-tombstone-JoinCorrect.json'))).toBe(true);
    writeFileSync(config, JSON.stringify({ format: 'streamjoin/check-config@1', preset: 'join-small', bounds: { rekords: 2 } }));
    const bad = await capture(['check', '--config', config]);
    expect(bad.code).toBe(254);
    expect(bad.stderr).toBe(
      `${config}: SJ102 /bounds: preset join-small has no bound "rekords" (its bounds: records, keys, ids, maxTime, lateness, length, invalid)\n`,
    );
    expect((await capture(['check', '--config', config, '--preset', 'join-small'])).stderr).toMatch(/give --preset or --config, not both/);
  });

  it('draws a live progress line on stderr only when stderr is a terminal', async () => {
    let stderr = '';
    const code = await main(
      ['check', '--preset', 'join-small', '--bound', 'records=3', '--bound', 'invalid=0', '--workers', '1', '--out', tmp()],
      {
        stdout: () => undefined,
        stderr: (t) => (stderr += t),
        interactive: true,
      },
    );
    expect(code).toBe(1); // 3 records cannot reach MatchOutlivesEndpoint: the goal is reported, not passed
    expect(stderr).toMatch(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's erase-line sequence is what is checked
      /\r\x1b\[Kpreset join-small: \d+ states, \d+ distinct, depth join-small \d+, queue \d+, \d+ states\/s \(\d+ s\)/,
    );
    // Not a terminal: no live line (a heartbeat line instead, every few seconds, when the run is long).
    expect(
      (await capture(['check', '--preset', 'join-small', '--bound', 'records=3', '--workers', '1', '--out', tmp()])).stderr,
    ).not.toContain('\x1b[K');
  });

  it('--list names every preset with its bounds and ablatable elements; help documents the unknown exit code', async () => {
    const r = await capture(['check', '--list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^join-small: /m);
    expect(r.stdout).toMatch(/--bound records=4 +N: logs of at most N records \[0\.\.12\]/);
    expect(r.stdout).toMatch(/--ablate strict-eviction +J8/);
    const help = await capture(['help', 'check']);
    expect(help.stdout).toMatch(/2 unknown: a time or\s+state budget ran out/);
    expect((await capture(['help'])).stdout).toMatch(/check +model-check a preset/);
  });
});

describe('streamjoin check with Progress (a toy preset)', () => {
  const wheel: ModelPreset = {
    name: 'wheel',
    description: 'a wheel that a fault can break into a cycle',
    bounds: [],
    ablations: [],
    build: () =>
      presetModel({
        ...wheelModel('cycle'),
        actionFromJson: (j: unknown) => ({ kind: j === 'break' ? ('break' as const) : ('tick' as const) }),
      }),
  };
  const run = async (argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    let stdout = '';
    let stderr = '';
    const code = await checkCommand(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), interactive: false }, [wheel]);
    return { code, stdout, stderr };
  };

  it('reports a Progress violation with its trap, writes it, and --replay confirms the state is stuck', async () => {
    const dir = tmp();
    const r = await run(['--preset', 'wheel', '--out', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/Progress +VIOLATED/);
    expect(r.stdout).toMatch(
      /counterexample, 1 step\(s\) from initial state 0:\n +1\. break\n +then, without faults, round a cycle:\n +\+1\. tick/,
    );
    const file = join(dir, 'wheel-Progress.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { property: unknown; trap: { kind: string; actions: unknown[] } };
    expect(doc.property).toEqual({ kind: 'progress', name: 'Progress' });
    expect(doc.trap.kind).toBe('cycle');
    const replay = await run(['--replay', file]);
    expect(replay.code).toBe(1);
    expect(replay.stdout).toMatch(/Progress VIOLATED at the end: none of the 3 state\(s\) reachable from here without faults is quiescent/);
  });
});

describe('streamjoin check on the cluster presets (SPEC §6)', () => {
  it('checks a decomposed preset key by key, writes a counterexample per part, and --replay rebuilds that part', async () => {
    const dir = tmp();
    const bounds = ['--bound', 'migrations=0', '--bound', 'pauses=0', '--bound', 'duplicates=0', '--bound', 'checkpoints=0'];
    const r = await capture(['check', '--preset', 'smoke', '--ablate', 'sink-dedup', ...bounds, '--out', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/preset smoke in 1 part \(key independence, SPEC §6\): k1/);
    expect(r.stdout).toMatch(/ExactlyOnce +VIOLATED/);
    const file = join(dir, 'smoke-sink-dedup-k1-ExactlyOnce.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ preset: 'smoke', part: 'k1', ablate: 'sink-dedup' });
    const replay = await capture(['check', '--replay', file]);
    expect(replay.code).toBe(1);
    expect(replay.stdout).toMatch(/ExactlyOnce VIOLATED at the end: ExactlyOnce: insert of k1\/a\/b applied twice/);
  });

  it('--joint checks all keys in one model', async () => {
    const r = await capture([
      'check',
      '--preset',
      'ci',
      '--joint',
      '--bound',
      'records=2',
      '--bound',
      'pauses=0',
      '--bound',
      'duplicates=0',
      '--bound',
      'checkpoints=0',
      '--bound',
      'migrations=0',
    ]);
    expect(r.stdout).toMatch(/^streamjoin check: preset ci \(model cluster k1\+k2 on 3 workers\)/);
    expect(r.code).toBe(0);
  });
});

describe('streamjoin check: budgets, threads and simulation', () => {
  it('gives the same report with two threads as with one (states, verdicts, counterexample lengths)', async () => {
    // Five records: levels long enough that a thread done with one part's level joins the other's under way.
    const run = async (workers: string): Promise<unknown> => {
      const r = await capture([
        'check',
        '--preset',
        'ci',
        '--bound',
        'records=5',
        '--bound',
        'pauses=0',
        '--ablate',
        'sink-dedup',
        '--workers',
        workers,
        '--json',
        '--out',
        tmp(),
      ]);
      expect(r.code).toBe(1);
      const report = JSON.parse(r.stdout) as {
        parts: {
          part: string;
          distinct: number;
          generated: number;
          maxDepth: number;
          invariants: { verdict: string; path?: { actions: unknown[] } }[];
        }[];
      };
      return report.parts.map((p) => ({
        part: p.part,
        distinct: p.distinct,
        generated: p.generated,
        maxDepth: p.maxDepth,
        verdicts: p.invariants.map((i) => [i.verdict, i.path?.actions.length]),
      }));
    };
    expect(await run('2')).toEqual(await run('1'));
  });

  it('a state budget bounds the whole command: the parts share it (exit 2, out of budget)', async () => {
    const r = await capture(['check', '--preset', 'ci', '--max-states', '1000', '--workers', '1', '--json', '--out', tmp()]);
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as { parts: { status: string; distinct: number; stoppedBy?: string }[]; budget: unknown };
    expect(report.budget).toMatchObject({ maxStates: 1000 });
    expect(report.parts.map((p) => p.status)).toEqual(['budget', 'budget']);
    const total = report.parts.reduce((n, p) => n + p.distinct, 0);
    expect(total).toBeGreaterThanOrEqual(1000);
    expect(total).toBeLessThanOrEqual(1001);
  });

  it('--simulate finds a violation, minimizes it, writes it with its seed and walk, and --replay reproduces it', async () => {
    const dir = tmp();
    const args = ['check', '--simulate', '--preset', 'smoke', '--ablate', 'sink-fence', '--seed', '1', '--walks', '200'];
    const r = await capture([...args, '--workers', '1', '--out', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^streamjoin check --simulate: preset smoke, seed 1$/m);
    expect(r.stdout).toMatch(/Fenced +VIOLATED/);
    expect(r.stdout).toMatch(/walk \d+ broke a property after \d+ step\(s\); minimized/);
    const file = join(dir, 'smoke-sink-fence-Fenced.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { simulation: { seed: number; walk: number } };
    expect(doc.simulation.seed).toBe(1);
    const replay = await capture(['check', '--replay', file]);
    expect(replay.code).toBe(1);
    expect(replay.stdout).toMatch(/Fenced VIOLATED at the end/);
    // The JSON report says how it was checked, and the same walk is found again.
    const json = await capture([...args, '--workers', '1', '--json', '--out', tmp()]);
    const report = JSON.parse(json.stdout) as { mode: string; seed: number; parts: { status: string; violation: { walk: number } }[] };
    expect(schemaError('reports/check-report', report)).toBeUndefined();
    expect(report).toMatchObject({ mode: 'simulation', seed: 1 });
    expect(report.parts[0]?.status).toBe('simulated');
    expect(report.parts[0]?.violation.walk).toBe(doc.simulation.walk);
  });

  it('--simulate without a violation within its budget exits 0 and says it is not exhaustive; the flags go together', async () => {
    const dir = tmp();
    const args = ['check', '--simulate', '--preset', 'smoke', '--seed', '5', '--walks', '3', '--workers', '1', '--out', dir];
    const r = await capture(args);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/3 walk\(s\) of at most 10000 steps/);
    expect(r.stdout).toMatch(/simulated, NOT exhaustive \(stopped by walks\)/);
    expect(r.stdout).toMatch(
      /^PASS \(not exhaustive\): no violation in 3 walk\(s\); random walks sample the state space and prove nothing$/m,
    );
    expect(readdirSync(dir)).toEqual([]);
    // The JSON report: a pass whose properties stay unknown (nothing is proven); JUnit has no failure and no error.
    const junit = join(tmp(), 'check.xml');
    const json = await capture([...args, '--json', '--reporter', `junit=${junit}`]);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as {
      verdict: string;
      parts: { verdict: string; exitCode: number; invariants: { verdict: string }[] }[];
    };
    expect(schemaError('reports/check-report', report)).toBeUndefined();
    expect(report.verdict).toBe('pass');
    expect(report.parts[0]).toMatchObject({ verdict: 'pass', exitCode: 0, exhaustive: false });
    expect(report.parts[0]?.invariants.every((i) => i.verdict === 'unknown')).toBe(true);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).not.toMatch(/<failure|<error/);
    expect(xml).toMatch(/<testcase name="random walks" classname="check.smoke"/);
    expect((await capture(['check', '--preset', 'smoke', '--walks', '3'])).stderr).toMatch(/SJ105 --walks go with --simulate/);
    expect((await capture(['check', '--preset', 'sim-large'])).stderr).toMatch(/SJ105 preset sim-large .* check it with --simulate/);
    expect((await capture(['check', '--simulate', '--preset', 'smoke', '--max-states', '5'])).code).toBe(254);
  });
});

describe('streamjoin check --stop-at-first', () => {
  const small = ['--bound', 'records=3', '--bound', 'pauses=0', '--bound', 'duplicates=0', '--bound', 'checkpoints=0'];
  type Part = {
    part: string;
    status: string;
    stoppedBy: string | null;
    invariants: { name: string; verdict: string; path?: { actions: unknown[] } }[];
  };
  const violatedOf = (p: Part | undefined): [string, number | undefined][] =>
    (p?.invariants ?? []).filter((i) => i.verdict === 'violated').map((i) => [i.name, i.path?.actions.length]);

  it('ends the whole command (every part) at the first violation, with the same shortest counterexample as the full search', async () => {
    const run = async (extra: string[]): Promise<{ code: number; parts: Part[] }> => {
      const r = await capture([
        'check',
        '--preset',
        'ci',
        ...small,
        '--ablate',
        'sink-dedup',
        '--workers',
        '1',
        '--json',
        '--out',
        tmp(),
        ...extra,
      ]);
      const report = JSON.parse(r.stdout) as { parts: Part[] };
      expect(schemaError('reports/check-report', report)).toBeUndefined();
      return { code: r.code, parts: report.parts };
    };
    const full = await run([]);
    const first = await run(['--stop-at-first']);
    expect(full.code).toBe(1);
    expect(first.code).toBe(1);
    const k1 = first.parts.find((p) => p.part === 'k1');
    const k2 = first.parts.find((p) => p.part === 'k2');
    expect(k1).toMatchObject({ status: 'budget', stoppedBy: 'violation' });
    // One property broken, and its counterexample is as short as the exhaustive search's.
    const found = violatedOf(k1);
    expect(found).toHaveLength(1);
    const [name, steps] = found[0] as [string, number | undefined];
    expect(violatedOf(full.parts.find((p) => p.part === 'k1'))).toContainEqual([name, steps]);
    // The other part stops too, with no verdict of its own.
    expect(k2).toMatchObject({ status: 'budget', stoppedBy: 'violation' });
    expect(k2?.invariants.every((i) => i.verdict === 'unknown')).toBe(true);
  });

  it('is a field of a saved run (stopAtFirst), and a run without a violation still exhausts its bound and passes', async () => {
    const dir = tmp();
    const config = join(dir, 'run.json');
    writeFileSync(
      config,
      JSON.stringify({
        format: 'streamjoin/check-config@1',
        preset: 'join-small',
        bounds: { records: 2 },
        ablate: 'retract-tombstone',
        stopAtFirst: true,
      }),
    );
    const r = await capture(['check', '--config', config, '--workers', '1', '--out', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/NOT exhausted: stopped at the first violation \(--stop-at-first\)/);
    // The first violation found is the shallowest (breadth-first): BoundedState after one retraction.
    expect(r.stdout).toMatch(/BoundedState +VIOLATED/);
    expect(r.stdout).toMatch(/counterexample, 1 step\(s\) from initial state 0:\n +1\. retract /);
    expect(r.stdout.match(/VIOLATED/g)).toHaveLength(1);
    const clean = await capture(['check', '--preset', 'join-small', '--stop-at-first', '--workers', '1', '--out', dir]);
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/exhausted: every state within the bound was explored/);
  });
});
