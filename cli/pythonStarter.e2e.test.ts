// The Python starter (examples/python/join.py, stdlib only) conforms at level
// operator, over the process protocol, with --exhaustive; and a copy with one
// rule broken (J5's lateness bound off by one) does not: the check can fail.
// Its levels cluster and faults, and its on-disk mode under kill mode:
// pythonStarterKill.e2e.test.ts.
import { describe, expect, inject, it } from 'vitest';
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { runCli } from './testSupport.ts';
import type { ConformJson } from './conformReport.ts';

const seed = String(inject('fcSeed'));
const tmp = useTemporaryDirectories('sj-python-', 'all');
const starterDir = join(import.meta.dirname, '..', 'examples', 'python');

describe('examples/python/join.py, the stdlib-only starter, at level operator', () => {
  it('conform --sut "python3 examples/python/join.py" --level operator --exhaustive: every operator example and regression trace, random operator traces: conforms, exit 0', async () => {
    const r = await runCli([
      'conform',
      '--sut',
      'python3 examples/python/join.py',
      '--level',
      'operator',
      '--exhaustive',
      `--seed=${seed}`,
      '--json',
      '--out',
      tmp(),
    ]);
    const report = JSON.parse(r.stdout) as ConformJson;
    expect(report.unknown, r.stderr).toBeNull();
    expect(report.verdict).toBe('pass');
    expect(r.code).toBe(0);
    expect(report.implementation?.name).toBe('streamjoin-python-starter');
    expect([report.supported, report.levels]).toEqual([['operator', 'cluster', 'faults'], ['operator']]);
    expect(report.examples.length).toBeGreaterThanOrEqual(15);
    expect(report.examples.every((e) => e.level === 'operator' && e.verdict === 'pass')).toBe(true);
    expect(report.random).toMatchObject([{ level: 'operator', requested: 100, runs: 100, verdict: 'pass' }]);
    // The operator scenarios run in full and pass; the cluster ones are skipped (--level operator: level not checked).
    const operatorScenarios = report.exhaustive.filter((x) => x.kind === 'operator');
    const clusterScenarios = report.exhaustive.filter((x) => x.kind === 'cluster');
    expect(operatorScenarios.length).toBeGreaterThan(0);
    expect(clusterScenarios.length).toBeGreaterThan(0);
    for (const x of operatorScenarios) expect([x.scenario, x.verdict, x.run, x.skipped]).toEqual([x.scenario, 'pass', x.traces, 0]);
    for (const x of clusterScenarios) expect([x.scenario, x.verdict, x.run, x.skipped]).toEqual([x.scenario, 'skipped', 0, x.traces]);
  });

  it('a copy with J5 off by one (an insert at ts = gw - L taken as late) diverges: exit 1', async () => {
    const dir = tmp();
    for (const file of readdirSync(starterDir).filter((f) => f.endsWith('.py'))) copyFileSync(join(starterDir, file), join(dir, file));
    const text = readFileSync(join(starterDir, 'interval_join.py'), 'utf8');
    const bound = 'late = gw is not None and r["ts"] < gw - self.lateness  # J5';
    expect(text).toContain(bound);
    writeFileSync(join(dir, 'interval_join.py'), text.replace(bound, bound.replace(' < ', ' <= ')));
    const r = await runCli([
      'conform',
      '--sut',
      `python3 ${join(dir, 'join.py')}`,
      '--level',
      'operator',
      `--seed=${seed}`,
      '--out',
      join(dir, 'out'),
    ]);
    expect(r.code, r.stdout).toBe(1);
    expect(r.stdout).toMatch(/FAIL at level operator/);
    // One bug, one cause: several counterexamples, one named to attach, on the summary's last line.
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('attach: '))).toHaveLength(1);
    expect(lines.at(-2)).toMatch(/^verdict: FAIL \(\d+ counterexamples?, 1 cause\)$/);
    expect(lines.at(-1)).toMatch(/^attach: \S+\.md \(\d+ steps?\)$/);
  });
});
