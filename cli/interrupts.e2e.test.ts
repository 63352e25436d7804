// SIGINT and SIGTERM (cli/interrupts.ts): conform reports what it has
// (verdict unknown), writes nothing half and stops its system under test;
// serve removes its session directory; a second signal stops at once. The
// CLI runs as a process, as a user runs it.
import { readdirSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { livingWithEnvironment } from '../conformance/adapters/processGroup.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { exitWithin, startProcess as start } from './testProcesses.ts';
import { PROTOCOL_VERSION } from '../spec/index.ts';

const seed = String(inject('fcSeed'));
const tmp = useTemporaryDirectories('sj-interrupts-', 'all');

/** Polls the file system (every 20 ms) until `condition` holds: no event says when a directory appears. */
async function poll(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

const misbehave = (mode: string, ...rest: string[]): string =>
  ['node --import tsx conformance/testdata/misbehave.ts', mode, ...rest].join(' ');

describe('conform stops on SIGINT and SIGTERM: the report so far, verdict unknown, nothing half-written, nothing left running', () => {
  it('SIGINT in the middle of the examples: the summary says interrupted, exit 2', async () => {
    const out = tmp();
    const run = start([
      'bin/streamjoin.js',
      'conform',
      '--sut',
      misbehave('slow', '4', '300'),
      '--level',
      'operator',
      '--runs',
      '1',
      `--seed=${seed}`,
      '--startup-timeout',
      '60000',
      '--out',
      out,
    ]);
    await run.until(() => run.stderr().includes('system under test:'));
    run.child.kill('SIGINT');
    const { code } = await exitWithin(run);
    expect(run.stderr()).toContain('streamjoin: SIGINT: stopping and reporting what was done (send SIGINT again to stop at once)');
    expect(run.stdout()).toMatch(/^UNKNOWN during example .*: interrupted: SIGINT$/m);
    expect(run.stdout()).toContain('levels checked: none; not checked: operator (the run stopped, see UNKNOWN below)');
    expect(run.stdout()).toMatch(/verdict: UNKNOWN\n$/);
    expect(code).toBe(2);
    expect(livingWithEnvironment('HOSTILE_TAG', run.tag)).toEqual([]);
    expect(readdirSync(out)).toEqual([]);
  });

  it('SIGTERM with `serve --data DIR` as the system: the JSON report says interrupted, exit 2, and no session directory is left in DIR', async () => {
    const out = tmp();
    const data = tmp();
    const run = start([
      'bin/streamjoin.js',
      'conform',
      '--sut',
      `node bin/streamjoin.js serve --data ${data}`,
      '--level',
      'faults',
      '--runs',
      '100000',
      `--seed=${seed}`,
      '--startup-timeout',
      '60000',
      '--out',
      out,
      '--json',
    ]);
    // A session holds a directory under DIR while it runs.
    await poll(() => readdirSync(data).length > 0);
    run.child.kill('SIGTERM');
    const { code } = await exitWithin(run);
    const report = JSON.parse(run.stdout()) as { verdict: string; unknown: { reason: string } | null };
    expect(report.verdict).toBe('unknown');
    expect(report.unknown?.reason).toBe('interrupted: SIGTERM');
    expect(code).toBe(2);
    expect(livingWithEnvironment('HOSTILE_TAG', run.tag)).toEqual([]);
    expect(readdirSync(data)).toEqual([]);
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('serve ends its session on SIGINT, SIGTERM and the end of stdin', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal}: the session directory under --data is removed; exit 0`, async () => {
      const data = tmp();
      const run = start(['bin/streamjoin.js', 'serve', '--data', data]);
      run.child.stdin.write(
        `{"id":1,"type":"init","protocol":${PROTOCOL_VERSION},"level":"faults",` +
          `"config":{"join":{"allowedLateness":0,"maxIntervalLength":0},"workers":["w1","w2"],` +
          `"keys":[{"key":"k1","owner":"w1"}]}}\n`,
      );
      // The first reply, whatever it is (a wait for init_ok alone would hang on an error reply).
      await run.until(() => run.stdout().includes('\n'));
      expect(run.stdout()).toContain('"init_ok"');
      expect(readdirSync(data)).toHaveLength(1);
      run.child.kill(signal);
      const { code } = await exitWithin(run);
      expect(code).toBe(0);
      expect(readdirSync(data)).toEqual([]);
    });
  }
});

describe('a second signal stops at once', () => {
  it('the first aborts (the command reports); the second ends the process by that signal, its systems under test killed', async () => {
    const script = [
      "import { installInterrupts } from './cli/interrupts.ts';",
      "import { spawnInGroup } from './conformance/adapters/processGroup.ts';",
      'const interrupts = installInterrupts((text) => process.stderr.write(text));',
      "interrupts.signal.addEventListener('abort', () => process.stderr.write('aborted\\n'));",
      // A system under test that would outlive us, were it not killed.
      "spawnInGroup('sleep 300');",
      "process.stdout.write('ready\\n');",
      // A command that does not stop when asked.
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const run = start(['--import', 'tsx', '--input-type=module', '-e', script]);
    await run.until(() => run.stdout().includes('ready'));
    run.child.kill('SIGINT');
    await run.until(() => run.stderr().includes('aborted'));
    expect(run.stderr()).toContain('streamjoin: SIGINT: stopping and reporting what was done (send SIGINT again to stop at once)');
    run.child.kill('SIGINT');
    expect(await exitWithin(run)).toEqual({ code: null, signal: 'SIGINT' });
    expect(livingWithEnvironment('HOSTILE_TAG', run.tag)).toEqual([]);
  });
});
