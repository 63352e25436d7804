// `streamjoin check` as a process: SIGINT and SIGTERM stop it with the report
// so far (every property unknown, exit 2 as for any run without a verdict)
// and leave no file behind.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';

const tmp = useTemporaryDirectories('sj-check-signal-');
const bin = join(import.meta.dirname, '..', 'bin', 'streamjoin.js');

/** Runs the CLI, sends `signal` once its first line of output is out, and collects what it printed and how it ended. */
function interrupted(args: readonly string[], signal: NodeJS.Signals): Promise<{ code: number | null; stdout: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let sent = 0;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      if (sent === 0 && stdout.includes('\n')) {
        sent = performance.now();
        child.kill(signal);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, ms: performance.now() - sent }));
  });
}

describe('streamjoin check stops on a signal with the report so far', () => {
  for (const [signal, workers] of [
    ['SIGINT', '2'],
    ['SIGTERM', '1'],
  ] as const) {
    it(`${signal} (${workers} worker${workers === '1' ? '' : 's'}): states so far, every property unknown, exit 2, no file`, async () => {
      const dir = tmp();
      const r = await interrupted(['check', '--preset', 'deep', '--workers', workers, '--out', dir], signal);
      expect(r.code).toBe(2);
      expect(r.stdout).toMatch(/^streamjoin check: preset deep in 2 parts/);
      expect(r.stdout).toMatch(/INTERRUPTED after \d+ distinct states: every property unknown/);
      for (const property of ['ExactlyOnce', 'Fenced', 'BoundedState', 'Progress'])
        expect(r.stdout).toMatch(new RegExp(`${property} +unknown`));
      expect(r.stdout).not.toMatch(/VIOLATED|PASS/);
      expect(r.stdout).toMatch(/^UNKNOWN: interrupted$/m);
      expect(readdirSync(dir)).toEqual([]);
      // Promptly: an order of magnitude looser than the second it takes.
      expect(r.ms).toBeLessThan(30_000);
    });
  }

  it('SIGINT during --simulate: the walks so far, no verdict, exit 2', async () => {
    const dir = tmp();
    const r = await interrupted(['check', '--simulate', '--preset', 'sim-large', '--seed', '1', '--workers', '1', '--out', dir], 'SIGINT');
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/INTERRUPTED after \d+ walk\(s\)/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('streamjoin check --simulate in CI', () => {
  it('walks sim-large for a time budget, finds nothing and exits 0, saying it is not exhaustive (the nightly recipe of docs/ci.md)', async () => {
    const dir = tmp();
    const r = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [bin, 'check', '--simulate', '--preset', 'sim-large', '--max-seconds', '2', '--seed', '1', '--workers', '1', '--out', dir],
        { stdio: ['ignore', 'pipe', 'ignore'] },
      );
      let stdout = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout }));
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/simulated, NOT exhaustive \(stopped by max-seconds\)/);
    expect(r.stdout).toMatch(/^PASS \(not exhaustive\): no violation in \d+ walk\(s\)/m);
    expect(readdirSync(dir)).toEqual([]);
  });
});
