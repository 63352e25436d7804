// The harness measured against systems nobody tuned it for: two systems under
// test written from SPEC.md and PROTOCOL.md alone (ledger, Python; relay,
// Node), each with injected bugs behind SJ_BUG (systems.ts). The correct
// systems conform at every level; for each bug, the random traces alone and
// the exhaustive scenarios alone (examples off) catch exactly what
// expectations.ts says they catch today. A part that stops catching a bug is a
// regression of the harness's power; a part that starts catching one means the
// table (and docs/independent-systems.md) is out of date. Seeds are fixed
// (RANDOM_SEED) and printed in every title. The bounds and their cost are in
// expectations.ts; the full measurement is measure.ts.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './testSupport.ts';
import { type BugExpectation, bugExpectations, type Expected, RANDOM_SEED } from '../conformance/independent/expectations.ts';
import {
  conformArguments,
  describeCatch,
  type LevelName,
  type PartRequest,
  type PartResult,
  readReport,
  summarise,
} from '../conformance/independent/measurement.ts';
import { type IndependentSystem, independentSystems, repositoryRoot } from '../conformance/independent/systems.ts';

const scratch = mkdtempSync(join(tmpdir(), 'sj-independent-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Two conform runs at a time: each is the harness in this process and the system in another, so two keep both cores busy.
// The long runs go first (a random part, 200 traces per level and the shrinking of what fails, or a correct
// system's run: several times a bug's exhaustive part), so that the last to start are short and neither slot idles
// long while the other finishes.
let running = 0;
const waiting: { readonly long: boolean; readonly start: () => void }[] = [];
async function limited<T>(long: boolean, task: () => Promise<T>): Promise<T> {
  if (running < 2) running += 1;
  else await new Promise<void>((start) => waiting.push({ long, start }));
  try {
    return await task();
  } finally {
    // The slot passes straight to the next run (the first long one waiting, else the first waiting), or is freed.
    const index = waiting.findIndex((w) => w.long);
    const [next] = waiting.splice(Math.max(index, 0), 1);
    if (next === undefined) running -= 1;
    else next.start();
  }
}

let runNumber = 0;
/** One part of conform against the system (with the bug on, if any); a generous --timeout, so load cannot make it "hung". */
async function conform(system: IndependentSystem, bug: string | null, request: PartRequest): Promise<PartResult> {
  const out = join(scratch, `run-${++runNumber}`);
  const argv = [...conformArguments(system, bug, request, out), '--timeout', '60000'];
  const r = await limited(request.part !== 'exhaustive', () => runCli(argv));
  const result = summarise(request.part, readReport(r.stdout));
  expect(result.unknown, `${bug ?? 'correct'} ${request.part}: ${r.stderr.slice(-2000)}`).toBeNull();
  expect(r.code).toBe(result.exitCode);
  return result;
}

const systemNamed = (name: string): IndependentSystem => {
  const found = independentSystems.find((s) => s.name === name);
  if (found === undefined) throw new Error(`no independent system named ${name}`);
  return found;
};

const LEVELS: readonly LevelName[] = ['operator', 'cluster', 'faults'];
/** Scenarios the correct systems run: one per level family, cheap, with a handoff, a crash, a pause and colliding ids between them. */
const CORRECT_SCENARIOS = ['operator-colliding-ids', 'operator-extreme-bounds', 'colliding-ids', 'zombie-after-failover'];

describe('independent systems: the catalogue is theirs', () => {
  for (const system of independentSystems) {
    it(`${system.name}: refuses an unknown SJ_BUG at start (exit 3) and lists exactly the bugs systems.ts catalogues`, () => {
      const r = spawnSync('/bin/sh', ['-c', `SJ_BUG=no-such-bug ${system.command}`], {
        cwd: repositoryRoot,
        input: '',
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(3);
      const known = /known: (.*)$/m.exec(r.stderr)?.[1]?.split(', ');
      expect(known).toEqual(system.bugs.map((b) => b.name).sort());
    });
  }
  it('every catalogued bug has one expectation, and every expectation a catalogued bug', () => {
    const catalogued = independentSystems.flatMap((s) => s.bugs.map((b) => `${s.name}/${b.name}`)).sort();
    expect(bugExpectations.map((e) => `${e.system}/${e.bug}`).sort()).toEqual(catalogued);
  });
});

describe.concurrent(`independent systems, correct: conform at every level (seed ${RANDOM_SEED})`, () => {
  for (const system of independentSystems) {
    it(`${system.name} (${system.language}): every example, 100 random traces per level, the scenarios ${CORRECT_SCENARIOS.join(', ')}: conforms`, async () => {
      const out = join(scratch, `correct-${system.name}`);
      const argv = [
        ...conformArguments(system, null, { part: 'exhaustive', seed: RANDOM_SEED, scenarios: CORRECT_SCENARIOS }, out),
        '--examples',
        'all',
        '--runs',
        '100',
        '--timeout',
        '60000',
      ];
      const r = await limited(true, () => runCli(argv));
      const report = readReport(r.stdout);
      expect(report.unknown, r.stderr.slice(-2000)).toBeNull();
      expect([report.verdict, r.code]).toEqual(['pass', 0]);
      expect(report.failures).toEqual([]);
      expect(report.examples.length).toBeGreaterThan(0);
      for (const e of report.examples) expect([e.name, e.verdict]).toEqual([e.name, 'pass']);
      expect(report.random.map((x) => [x.level, x.requested, x.runs, x.verdict])).toEqual(LEVELS.map((l) => [l, 100, 100, 'pass']));
      expect(report.exhaustive.map((x) => x.scenario).sort()).toEqual([...CORRECT_SCENARIOS].sort());
      for (const x of report.exhaustive) expect([x.scenario, x.verdict, x.run]).toEqual([x.scenario, 'pass', x.traces]);
    });
  }
});

const cellsOf = (expected: Readonly<Record<string, Expected>>): string =>
  Object.entries(expected)
    .map(([where, e]) => `${where} ${e}`)
    .join(', ');

/** Caught or missed, per level or scenario, as the part's report says. */
function observed(result: PartResult, wheres: readonly string[]): Record<string, Expected | 'did not run'> {
  const caught = new Set(result.catches.map((c) => c.where));
  const passed = new Set(result.passed);
  return Object.fromEntries(wheres.map((w) => [w, caught.has(w) ? 'caught' : passed.has(w) ? 'missed' : 'did not run']));
}

function title(e: BugExpectation): string {
  const rule = systemNamed(e.system).bugs.find((b) => b.name === e.bug)?.rule ?? '?';
  return `${e.system} SJ_BUG=${e.bug} (${rule}): random, ${e.random.runs} per level at seed ${RANDOM_SEED}: ${cellsOf(e.random.levels)}; exhaustive: ${cellsOf(e.exhaustive)}`;
}

describe.concurrent('independent systems, injected bugs: what each part catches alone, examples off', () => {
  for (const e of bugExpectations) {
    it(title(e), async () => {
      const system = systemNamed(e.system);
      const scenarios = Object.keys(e.exhaustive);
      const [random, exhaustive] = await Promise.all([
        conform(system, e.bug, { part: 'random', seed: RANDOM_SEED, runs: e.random.runs }),
        conform(system, e.bug, { part: 'exhaustive', seed: RANDOM_SEED, scenarios }),
      ]);
      for (const c of [...random.catches, ...exhaustive.catches]) console.log(`${e.system}/${e.bug}: ${describeCatch(c)}`);
      expect(observed(random, LEVELS)).toEqual(e.random.levels);
      expect(observed(exhaustive, scenarios)).toEqual(e.exhaustive);
      // Whatever catches it writes a counterexample that diverges at its last step.
      for (const c of [...random.catches, ...exhaustive.catches]) expect(c.step).toBe(c.steps - 1);
      // Twenty minutes: every bug's parts run at once on two cores, and the random cluster traces carry bursts of the
      // separator class (some 130 steps each); a loaded machine must not turn a verdict into a time-out.
    }, 1_200_000);
  }
});
