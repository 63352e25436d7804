// `conform --kill` with the flags every judging command takes (PROTOCOL.md,
// "Kill mode"; docs/conform.md): --json (a report with the kill counts and a
// verdict per trace, matching spec/schemas/reports/conform-kill-report),
// --shard K/N (the traces of one seed split, each run once; merge-reports
// joins the shards' reports into one), --time-budget
// (a run that runs out is unknown, never a pass) and --reporter (JUnit, TAP:
// a case per trace). Run against the Python starter, whose restart is quick:
// with --data it conforms, without it (state in memory) it fails at its
// first kill. The end-to-end tier: it kills processes.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { schemaError } from '../spec/index.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { runCli } from './testSupport.ts';
import type { KillReportJson } from './killReport.ts';

const seed = String(inject('fcSeed'));
const tmp = useTemporaryDirectories('sj-kill-reports-', 'all');
/** The interpreter `python3` names, run directly (a version manager's shim slows every restart). */
const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8', timeout: 60_000 }).trim();
const ON_DISK = `${PYTHON} examples/python/join.py --data {data}`;
const IN_MEMORY = `env STREAMJOIN_IGNORED_DIR={data} ${PYTHON} examples/python/join.py`;

/** Parses a kill-mode --json report and checks it against its schema. */
function killReport(stdout: string): KillReportJson {
  const doc = JSON.parse(stdout) as KillReportJson;
  expect(doc.format).toBe('streamjoin/conform-kill-report@1');
  expect(schemaError('reports/conform-kill-report', doc)).toBeUndefined();
  return doc;
}

describe('conform --kill with --json, --shard, --time-budget and --reporter', () => {
  it('--json --reporter junit=FILE, a system that loses its state: the failure with its kill note, the counterexample and its replay; a failed case in JUnit, the traces after it skipped; exit 1', async () => {
    const out = tmp();
    const junit = join(out, 'kill.xml');
    const r = await runCli([
      'conform',
      '--kill',
      '--sut',
      IN_MEMORY,
      '--runs',
      '0',
      '--json',
      '--reporter',
      `junit=${junit}`,
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(1);
    const j = killReport(r.stdout);
    expect([j.verdict, j.exitCode, j.unknown]).toEqual(['fail', 1, null]);
    expect(j.failure?.killed).toBe(true);
    expect(j.failure?.killNote).toMatch(/^killed here/);
    expect(j.failure?.steps).toBeLessThanOrEqual(3);
    expect(existsSync(j.failure?.counterexample as string)).toBe(true);
    expect(j.failure?.replay).toEqual(expect.arrayContaining(['replay', '--kill', j.failure?.counterexample, '--sut', IN_MEMORY]));
    // The first example fails; the job stops there, and every other trace is listed as not run.
    expect(j.traces.map((t) => t.verdict)).toEqual(['fail', ...j.traces.slice(1).map(() => 'not run')]);
    expect(j.traces.length).toBeGreaterThanOrEqual(5);
    expect(j.kills.total).toBe(
      j.kills.afterReply + j.kills.inFlightLost + j.kills.inFlightApplied + j.kills.inFlightPartly + j.kills.inInit,
    );
    const xml = readFileSync(junit, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(j.traces.length);
    expect(xml).toMatch(/<failure message="diverges at step \d+ of \d+ \(minimized\), killed here/);
    expect(xml.match(/<skipped\/>/g)).toHaveLength(j.traces.length - 1);
  });

  it(`--shard 1/2 and 2/2 (seed ${seed}, 4 random traces, no examples): each trace in one shard, (i mod 2) + 1; kills counted per shard; TAP and JUnit a case per trace; merge-reports joins them (one missing: unknown); exit 0`, async () => {
    const out = tmp();
    const shard = async (k: number, reporter: string): Promise<KillReportJson> => {
      const r = await runCli([
        'conform',
        '--kill',
        '--sut',
        ON_DISK,
        '--examples',
        'none',
        '--runs',
        '4',
        `--seed=${seed}`,
        '--shard',
        `${k}/2`,
        '--json',
        '--reporter',
        reporter,
        '--out',
        out,
      ]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const j = killReport(r.stdout);
      expect([j.verdict, j.shard, j.requested, j.runs]).toEqual(['pass', { index: k, count: 2 }, 2, 2]);
      expect(j.traces.reduce((n, t) => n + t.kills, 0)).toBe(j.kills.total);
      expect(j.restarts.count).toBe(j.kills.total);
      return j;
    };
    const tap = join(out, 'first.tap');
    const junit = join(out, 'second.xml');
    const first = await shard(1, `tap=${tap}`);
    const second = await shard(2, `junit=${junit}`);
    expect(first.traces.map((t) => t.source)).toEqual([`random trace 1 of 4 (seed ${seed})`, `random trace 3 of 4 (seed ${seed})`]);
    expect(second.traces.map((t) => t.source)).toEqual([`random trace 2 of 4 (seed ${seed})`, `random trace 4 of 4 (seed ${seed})`]);
    expect(readFileSync(tap, 'utf8')).toMatch(/^TAP version 13\n1\.\.2\nok 1 - .*random trace 1 of 4.*\nok 2 - .*random trace 3 of 4/);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<property name="shard" value="2\/2"\/>/);
    expect(xml.match(/<testcase [^>]*classname="conform\.kill\.random"/g)).toHaveLength(2);
    // merge-reports: the two shards are one run again, its traces in the unsharded order, its counts the sums.
    const files = [first, second].map((j, i) => {
      const file = join(out, `shard${i + 1}.json`);
      writeFileSync(file, JSON.stringify(j));
      return file;
    });
    const merged = await runCli(['merge-reports', ...files, '--json']);
    expect(merged.code, merged.stderr).toBe(0);
    const doc = JSON.parse(merged.stdout) as { runs: { shards: number; missing: number[]; report: KillReportJson }[] };
    expect(schemaError('reports/merge-report', doc)).toBeUndefined();
    const run = doc.runs[0];
    expect([doc.runs.length, run?.shards, run?.missing, run?.report.shard, run?.report.verdict]).toEqual([1, 2, [], null, 'pass']);
    expect(run?.report.traces.map((t) => t.source)).toEqual([1, 2, 3, 4].map((n) => `random trace ${n} of 4 (seed ${seed})`));
    expect([run?.report.requested, run?.report.runs, run?.report.kills.total]).toEqual([4, 4, first.kills.total + second.kills.total]);
    // One shard missing: the run is unknown, never a pass.
    const half = await runCli(['merge-reports', files[0] as string, '--json']);
    expect(half.code).toBe(2);
    expect(JSON.parse(half.stdout)).toMatchObject({ verdict: 'unknown', runs: [{ missing: [2], report: { verdict: 'unknown' } }] });
  });

  it('--time-budget 1 that runs out: verdict unknown (exit 2, never a pass), the reason names the budget, the traces it did not reach not run', async () => {
    const r = await runCli([
      'conform',
      '--kill',
      '--sut',
      ON_DISK,
      '--runs',
      '2',
      `--seed=${seed}`,
      '--time-budget',
      '1',
      '--json',
      '--out',
      tmp(),
    ]);
    expect(r.code, r.stderr).toBe(2);
    const j = killReport(r.stdout);
    expect([j.verdict, j.exitCode, j.failure]).toEqual(['unknown', 2, null]);
    expect(j.unknown?.reason).toMatch(/time budget \(--time-budget 1\) ran out/);
    expect(j.traces.some((t) => t.verdict === 'not run')).toBe(true);
    expect(j.traces.every((t) => t.verdict !== 'pass' || t.kind === 'example')).toBe(true);
  });

  it('usage (254): --json with TAP on stdout; --shard without the seed every shard shares; flags kill mode has no use for', async () => {
    const both = await runCli(['conform', '--kill', '--sut', ON_DISK, '--json', '--reporter', 'tap']);
    expect([both.code, both.stderr]).toEqual([254, expect.stringMatching(/both want stdout/)]);
    const noSeed = await runCli(['conform', '--kill', '--sut', ON_DISK, '--shard', '1/2'], { env: {} });
    expect([noSeed.code, noSeed.stderr]).toEqual([254, expect.stringMatching(/--shard needs the seed/)]);
    const itf = await runCli(['conform', '--kill', '--sut', ON_DISK, '--itf']);
    expect([itf.code, itf.stderr]).toEqual([254, expect.stringMatching(/--itf is not available with --kill/)]);
  });
});
