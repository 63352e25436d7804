import { describe, expect, inject, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { runCli } from './testSupport.ts';
import { MUTANTS } from '../conformance/mutants/catalogue.ts';
import { schemaError } from '../spec/index.ts';

const seed = String(inject('fcSeed'));

const run = runCli;

const tmp = useTemporaryDirectories('sj-mutants-', 'all');

/** As streamjoin is run in a checkout: the printed commands start with it, and a mutant is served by it. */
const invocation = ['node', 'bin/streamjoin.js'];

interface Row {
  name: string;
  rule: string;
  breaks: { rules: string[] } | null;
  verdict: string;
  by: string;
  steps: number;
  counterexample: string;
  html: string | null;
  replay: string[];
  replayCommand: string;
}

describe('streamjoin mutants', () => {
  it(
    'the unmodified implementation passes every part of the harness (the control), every ' +
      'mutant is killed (exit 0), and each counterexample replays against its mutant served over ' +
      'the protocol and conforms on the implementation',
    async () => {
      const out = tmp();
      const r = await run(['mutants', `--seed=${seed}`, '--runs', '50', '--json', '--out', out], { invocation });
      expect(r.stderr).toContain(`seed ${Number(seed) | 0}`);
      const report = JSON.parse(r.stdout) as { verdict: string; control: { verdict: string }; mutants: Row[] };
      expect(schemaError('reports/mutants-report', report)).toBeUndefined();
      expect(report.control.verdict).toBe('pass');
      expect(report.mutants.map((m) => [m.name, m.verdict])).toEqual(MUTANTS.map((m) => [m.name, 'killed']));
      expect(report.verdict).toBe('pass');
      expect(r.code).toBe(0);
      for (const m of report.mutants) {
        expect(existsSync(m.counterexample), m.name).toBe(true);
        // Short: shrunk or minimized.
        expect(m.steps, m.name).toBeLessThanOrEqual(10);
        // The divergence names the rule the mutant breaks (rules.ts: the rule that decides the differing field).
        expect(m.breaks?.rules, m.name).toContain(m.rule);
      }
      // Per kill: the trace, its explanation, its Markdown (Mermaid) and its HTML viewer.
      expect(readdirSync(out)).toHaveLength(4 * MUTANTS.length);
      for (const m of report.mutants) expect(existsSync(m.html as string), m.name).toBe(true);
      // The printed commands, run as printed: the mutant over the process diverges; the implementation conforms.
      const replays = await Promise.all(report.mutants.map((m) => run(m.replay.slice(invocation.length))));
      replays.forEach((x, i) => expect(x.code, `${report.mutants[i]?.replayCommand}\n${x.stdout}${x.stderr}`).toBe(1));
      for (const m of report.mutants) expect((await run(['replay', m.counterexample, '--sut', 'impl'])).code, m.name).toBe(0);
    },
  );

  it(
    '--each-part says which parts kill a mutant on their own: reversed intervals swapped are killed by an ' +
      'example (invalid-records) and by the exhaustive scenarios, whose operator probes send every J1 failure ' +
      '(random traces may or may not hold one)',
    async () => {
      const r = await run([
        'mutants',
        `--seed=${seed}`,
        '--runs',
        '100',
        '--mutant',
        'reversed-interval-swapped',
        '--each-part',
        '--out',
        tmp(),
      ]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^reversed-interval-swapped +J1 +killed +example invalid-records +1 /m);
      expect(r.stdout).toMatch(
        /^reversed-interval-swapped +killed: 1 steps, [\d.]+ s +killed: \d+ steps, [\d.]+ s +(killed: \d+ steps, [\d.]+ s|survived)$/m,
      );
      expect(r.stdout).toContain('verdict: PASS (all 1 mutants killed)');
    },
  );

  it('usage: exit 254 with one line naming what is wrong; --list prints the catalogue', async () => {
    const cases: [string[], RegExp][] = [
      [['mutants', '--mutant', 'no-such'], /^usage: SJ105 --mutant: unknown mutant "no-such"/],
      [['mutants', '--runs', 'many'], /^usage: SJ105 --runs must be a non-negative integer/],
      [['mutants', '--seed', 'x'], /^usage: SJ105 --seed must be an integer/],
      [['mutants', '--frobnicate'], /^usage: SJ105 unknown option --frobnicate \(streamjoin mutants --help lists the options\)\n$/],
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
