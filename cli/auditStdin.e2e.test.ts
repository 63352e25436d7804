// `-` is the standard input for every reader (issue 22 item 3): audit reads
// its log or its sink from a pipe, by `-` or by /dev/stdin, and reads it a
// second time when it needs to (the copy made when it was read ahead).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const bin = join(import.meta.dirname, '..', 'bin', 'streamjoin.js');
const dir = mkdtempSync(join(tmpdir(), 'streamjoin-audit-stdin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const log = [
  '{"format":"streamjoin/history-log@1","config":{"allowedLateness":1,"maxIntervalLength":2}}',
  '{"kind":"insert","key":"k","side":"L","id":"a","ts":1,"start":1,"end":1}',
  '{"kind":"insert","key":"k","side":"R","id":"x","ts":1,"start":1,"end":1}',
  '{"kind":"insert","key":"k","side":"R","id":"y","ts":9,"start":9,"end":9}',
].join('\n');
writeFileSync(join(dir, 'log.jsonl'), `${log}\n`);
writeFileSync(join(dir, 'sink.jsonl'), '{"op":"insert","match":"k/a/x"}\n');
writeFileSync(join(dir, 'wrong.jsonl'), '{"op":"insert","match":"k/a/y"}\n');

/** Runs the CLI with `input` on its stdin (a pipe); its exit code and output. */
function run(args: readonly string[], input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => {
      stdout += t;
    });
    child.stderr.setEncoding('utf8').on('data', (t: string) => {
      stderr += t;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('audit reads - (and /dev/stdin) as the standard input', () => {
  it('the log from a pipe, by - and by /dev/stdin; the sink from a pipe', async () => {
    const dash = await run(['audit', '--log', '-', '--sink', 'sink.jsonl', '--quiet'], `${log}\n`);
    expect(dash.stderr).toBe('');
    expect(dash.stdout).toMatch(/valid: every property holds/);
    expect(dash.code).toBe(0);
    const dev = await run(['audit', '--log', '/dev/stdin', '--sink', 'sink.jsonl', '--quiet'], `${log}\n`);
    expect(dev.code).toBe(0);
    const sink = await run(['audit', '--log', 'log.jsonl', '--sink', '-', '--quiet'], '{"op":"insert","match":"k/a/x"}\n');
    expect(sink.code).toBe(0);
  }, 60_000);

  it('a violation found reads the piped log a second time for its witness; both files - is a usage error', async () => {
    const wrong = await run(['audit', '--log', '-', '--sink', 'wrong.jsonl', '--quiet'], `${log}\n`);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toMatch(/k\/a\/y/);
    expect(wrong.stdout).toMatch(/-:4 /);
    const both = await run(['audit', '--log', '-', '--sink', '-'], '');
    expect(both.code).toBe(254);
    expect(both.stderr).toMatch(/--log and --sink cannot both be -/);
  }, 60_000);
});
