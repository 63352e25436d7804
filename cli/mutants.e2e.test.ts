import { describe, expect, inject, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { runCli } from './testSupport.ts';
import { MUTANTS } from '../conformance/mutants/catalogue.ts';

const seed = String(inject('fcSeed'));

const run = runCli;

const tmp = useTemporaryDirectories('sj-mutants-', 'all');

/** A printed command, split as a shell would (single quotes only). */
const words = (command: string): string[] => command.match(/'[^']*'|\S+/g)?.map((w) => w.replace(/^'|'$/g, '')) ?? [];

interface Row {
  name: string;
  verdict: string;
  by: string;
  steps: number;
  counterexample: string;
  html: string | null;
  replay: string;
}

describe('streamjoin mutants', () => {
  it('the unmodified implementation passes every part of the harness (the control), every mutant is killed (exit 0), and each counterexample replays against its mutant served over the protocol and conforms on the implementation', async () => {
    const out = tmp();
    const r = await run(['mutants', `--seed=${seed}`, '--runs', '50', '--json', '--out', out]);
    expect(r.stderr).toContain(`seed ${Number(seed) | 0}`);
    const report = JSON.parse(r.stdout) as { verdict: string; control: { verdict: string }; mutants: Row[] };
    expect(report.control.verdict).toBe('pass');
    expect(report.mutants.map((m) => [m.name, m.verdict])).toEqual(MUTANTS.map((m) => [m.name, 'killed']));
    expect(report.verdict).toBe('pass');
    expect(r.code).toBe(0);
    for (const m of report.mutants) {
      expect(existsSync(m.counterexample), m.name).toBe(true);
      // Short: shrunk or minimized.
      expect(m.steps, m.name).toBeLessThanOrEqual(10);
    }
    // Per kill: the trace, its explanation, its Markdown (Mermaid) and its HTML viewer.
    expect(readdirSync(out)).toHaveLength(4 * MUTANTS.length);
    for (const m of report.mutants) expect(existsSync(m.html as string), m.name).toBe(true);
    // The printed commands, run as printed: the mutant over the process diverges; the implementation conforms.
    const replays = await Promise.all(report.mutants.map((m) => run(words(m.replay).slice(1))));
    replays.forEach((x, i) => expect(x.code, `${report.mutants[i]?.replay}\n${x.stdout}${x.stderr}`).toBe(1));
    for (const m of report.mutants) expect((await run(['replay', m.counterexample, '--sut', 'impl'])).code, m.name).toBe(0);
  });

  it('--each-part says which parts kill a mutant on their own: the last-writer-wins sink survives the examples, the exhaustive scenarios kill it (random traces usually do, within a hundred)', async () => {
    const r = await run(['mutants', `--seed=${seed}`, '--runs', '100', '--mutant', 'last-writer-wins-sink', '--each-part', '--out', tmp()]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^last-writer-wins-sink +C9 +killed +exhaustive migration-under-traffic +5 /m);
    expect(r.stdout).toMatch(/^last-writer-wins-sink +survived +killed: 5 steps, [\d.]+ s +(killed: \d+ steps, [\d.]+ s|survived)$/m);
    expect(r.stdout).toContain('verdict: all 1 mutants killed');
  });

  it('usage: exit 254 with one line naming what is wrong; --list prints the catalogue', async () => {
    const cases: [string[], RegExp][] = [
      [['mutants', '--mutant', 'no-such'], /^usage: SJ105 --mutant: unknown mutant "no-such"/],
      [['mutants', '--runs', 'many'], /^usage: SJ105 --runs must be a non-negative integer/],
      [['mutants', '--seed', 'x'], /^usage: SJ105 --seed must be an integer/],
      [['mutants', '--frobnicate'], /^usage: SJ105 Unknown option '--frobnicate'/],
      [
        ['serve', '--mutant', 'no-such'],
        /^usage: SJ105 --mutant: unknown mutant "no-such"; the mutants are commit-before-durable-checkpoint, /,
      ],
      [['serve', '--model', '--mutant', 'no-fencing'], /^usage: SJ105 --model and --mutant exclude each other/],
    ];
    for (const [argv, message] of cases) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(254);
      expect(r.stderr, argv.join(' ')).toMatch(message);
    }
    const list = await run(['mutants', '--list']);
    expect(list.code).toBe(0);
    for (const m of MUTANTS) expect(list.stdout).toContain(m.name);
  });
});
