// A reader that closes the command's stdout before it is done (`| head`)
// changes nothing of the command but what it can print: no stack trace,
// and the exit code is the command's own (issue 22 item 8).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'streamjoin.js');
const dir = mkdtempSync(join(tmpdir(), 'streamjoin-closed-stdout-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI with its stdout a pipe whose reader is gone before the command writes; its exit code and stderr. */
function runWithClosedStdout(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (t: string) => {
      stderr += t;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a closed stdout never changes the exit code nor prints a stack (EPIPE)', () => {
  it('help, an example, and an audit of a valid history keep exit 0', async () => {
    const help = await runWithClosedStdout(['help']);
    expect(help).toEqual({ code: 0, stderr: '' });
    const example = await runWithClosedStdout(['audit', '--example', 'h', '--seed', '1', '--records', '200']);
    expect(example.code).toBe(0);
    expect(example.stderr).not.toMatch(/EPIPE|at /);
    const audit = await runWithClosedStdout(['audit', '--log', 'h/log.jsonl', '--sink', 'h/sink.jsonl', '--quiet', '--json']);
    expect(audit).toEqual({ code: 0, stderr: '' });
  }, 60_000);

  it('a command that fails keeps its own exit code (254 for bad input)', async () => {
    const bad = await runWithClosedStdout(['audit', '--log', 'nothing.jsonl', '--sink', 'nothing.jsonl']);
    expect(bad.code).toBe(254);
    expect(bad.stderr).toMatch(/SJ100/);
    expect(bad.stderr).not.toMatch(/EPIPE/);
  }, 60_000);
});
