// A real process that dies on a step: the Python example with one fatal bug
// (conformance/testdata/crashesOnRetract.py: retracting a matched row exits the
// process). `conform` calls it a failure with a short counterexample whose
// step is the retraction, never "cannot be judged" (random traces and their
// shrinking over such deaths, in-process: conformance/job/randomPart.test.ts); `replay` of that
// counterexample fails the same way at every level (the operator file is
// read again from its start for the rerun), and the correct example passes
// it. The same system made to die only once (SJ_CRASH_ONCE) stays unknown,
// its reason saying the death did not come back (PROTOCOL.md, "What the
// harness checks"; conformance/lockstep/deaths.ts). The end-to-end tier: it starts
// processes that die.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { runCli } from './testSupport.ts';

const tmp = useTemporaryDirectories('sj-deaths-', 'all');
/** The interpreter `python3` names, run directly (a version manager's shim slows every start). */
const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8', timeout: 60_000 }).trim();
const CRASHES = `${PYTHON} conformance/testdata/crashesOnRetract.py`;
const CORRECT = `${PYTHON} examples/python/join.py`;
const DIED =
  /the system died handling it \(dead: the process exited with code 1 with requests outstanding\), and again when the trace was run once more up to it/;

interface Report {
  readonly verdict: string;
  readonly failures: readonly {
    readonly path: string;
    readonly exampleStep: number | null;
    readonly steps: number;
    readonly divergence: { readonly step: number; readonly summary: string };
    readonly counterexample: string;
    readonly markdown: string;
  }[];
}

describe('a system under test that dies on a step', () => {
  it('conform at level cluster, the examples: fail, the example minimized to a counterexample that ends at the retraction it died on; replay fails it, the correct example passes it', async () => {
    const out = tmp();
    const r = await runCli(['conform', '--sut', CRASHES, '--level', 'cluster', '--seed=1', '--runs', '0', '--json', '--out', out]);
    const report = JSON.parse(r.stdout) as Report;
    expect([report.verdict, r.code], r.stderr.slice(-2000)).toEqual(['fail', 1]);
    // The one example that retracts a matched row, at that retraction.
    expect(report.failures.map((f) => [f.path, f.exampleStep, f.steps])).toEqual([
      ['spec/examples/cluster/planned-migration-under-traffic.trace.json', 9, 3],
    ]);
    const [failure] = report.failures;
    expect(failure?.divergence.summary).toMatch(/^record retract k1\/L\/a /);
    expect(failure?.divergence.summary).toMatch(DIED);
    expect(failure?.divergence.step).toBe(2);
    // The counterexample shows what the system wrote to stderr as it died.
    expect(readFileSync(failure?.markdown as string, 'utf8')).toContain('fatal: retracting a, which is matched');
    const file = failure?.counterexample as string;
    const again = await runCli(['replay', file, '--sut', CRASHES, '--level', 'cluster']);
    expect([again.code, again.stdout + again.stderr]).toEqual([1, expect.stringMatching(DIED)]);
    const correct = await runCli(['replay', file, '--sut', CORRECT, '--level', 'cluster']);
    expect(correct.code, correct.stdout + correct.stderr).toBe(0);
  });

  it('replay of an operator trace file (read again from its start up to the death): fail at the retraction; a death that does not come back: unknown, exit 2, saying so', async () => {
    const dir = tmp();
    const file = join(dir, 'retract-a-match.trace.json');
    const row = (kind: string, side: string, id: string) => ({ record: { kind, key: 'k', side, id, ts: 5, start: 5, end: 6 } });
    const trace = {
      format: 'streamjoin/operator-trace@1',
      name: 'retract-a-match',
      config: { allowedLateness: 10, maxIntervalLength: 5 },
      steps: [row('insert', 'L', 'a'), row('insert', 'R', 'b'), row('retract', 'L', 'a'), row('insert', 'R', 'c')],
    };
    writeFileSync(file, JSON.stringify(trace));
    const r = await runCli(['replay', file, '--sut', CRASHES, '--level', 'operator']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/step 3: record retract k\/L\/a/);
    expect(r.stdout + r.stderr).toMatch(DIED);
    const once = await runCli(['replay', file, '--sut', `env SJ_CRASH_ONCE=${join(dir, 'died')} ${CRASHES}`, '--level', 'operator']);
    expect(once.code, once.stdout + once.stderr).toBe(2);
    expect(once.stdout + once.stderr).toMatch(
      /dead: the process exited with code 1 with requests outstanding; run again up to step 3 in a fresh process, it answered every step: the death did not come back at that step/,
    );
  });
});
