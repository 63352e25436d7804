// `conform --kill` and `replay --kill` (PROTOCOL.md, "Kill mode"), as a user
// runs them: `streamjoin serve --data {data}` conforms with its kills
// counted (C2, C10: every acknowledged part recovered from its directory);
// `serve` with its durable parts in memory fails with a short
// counterexample that says where it was killed, which replays; a kill-mode
// trace is refused without --kill. The end-to-end tier: it kills processes.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { ClusterTrace } from '../spec/index.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { KILL_REPORT_FORMAT, type KillReportJson } from './killReport.ts';
import { runCli } from './testSupport.ts';

const seed = String(inject('fcSeed'));
const tmp = useTemporaryDirectories('sj-kill-', 'all');
const SERVE = 'node bin/streamjoin.js serve --data {data}';
const IN_MEMORY = 'env STREAMJOIN_IGNORED_DIR={data} node bin/streamjoin.js serve';

describe('conform --kill', () => {
  it('C11: a system that saves an install and its message in two writes fails the default run with no random trace: its install, killed between the two writes, keeps one of them', async () => {
    const split = 'python3 conformance/testdata/splitMessages.py phase-first --data {data}';
    const r = await runCli(['conform', '--kill', '--sut', split, '--runs', '0', `--seed=${seed}`, '--out', tmp()]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^streamjoin conform --kill: FAIL$/m);
    expect(r.stdout).toMatch(/planned-migration-under-traffic\.trace\.json, step \d+ killed at write \d+/);
  });

  it(`serve --data conforms: the cluster examples with a crash point and one random trace (seed ${seed}), kills counted, exit 0`, async () => {
    const r = await runCli(['conform', '--kill', '--sut', SERVE, '--runs', '1', `--seed=${seed}`, '--out', tmp()]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^streamjoin conform --kill: PASS$/m);
    // After the examples, the migration's install and release are killed at each write point too (C11, messageKills).
    expect(r.stdout).toMatch(/traces: 5 examples, [1-9]\d* exhaustive \(one per write point; \d+ died at theirs\), 1 of 1 random/);
    const kills = /kills: (\d+) \(after a reply (\d+); in flight (\d+)/.exec(r.stdout);
    // Each of the five examples has a crash point: at least five kills after a reply.
    expect(Number(kills?.[2])).toBeGreaterThanOrEqual(5);
    expect(r.stdout).toMatch(/kill and restart: \d+, mean \d+ ms, longest \d+ ms/);
  });

  it('serve with its durable parts in memory fails at its first kill with a short counterexample that says "killed here"; replay --kill diverges again; replay without --kill refuses it (254)', async () => {
    const out = tmp();
    const r = await runCli(['conform', '--kill', '--sut', IN_MEMORY, '--runs', '0', '--out', out]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^streamjoin conform --kill: FAIL$/m);
    expect(r.stdout).toMatch(/killed here/);
    const file = /^written: (.+)$/m.exec(r.stdout)?.[1] as string;
    expect(existsSync(file)).toBe(true);
    const trace = JSON.parse(readFileSync(file, 'utf8')) as ClusterTrace;
    expect(trace.steps.length).toBeLessThanOrEqual(3);
    expect(trace.steps.at(-1)?.kill?.when).toBe('after-reply');
    expect(trace.steps.at(-1)?.note).toMatch(/^killed here/);
    const again = await runCli(['replay', '--kill', file, '--sut', IN_MEMORY]);
    expect(again.code, again.stdout).toBe(1);
    expect(again.stdout).toMatch(/killed here/);
    // The same replay as a report a bug tracker or CI reads: one JSON line on stdout, and a JUnit file beside it.
    const junit = join(out, 'replay.junit.xml');
    const asJson = await runCli(['replay', '--kill', file, '--sut', IN_MEMORY, '--json', '--reporter', `junit=${junit}`]);
    expect(asJson.code, asJson.stderr).toBe(1);
    const report = JSON.parse(asJson.stdout) as KillReportJson;
    expect([report.format, report.verdict, report.exitCode, report.examples]).toEqual([KILL_REPORT_FORMAT, 'fail', 1, 1]);
    expect(report.failure?.killNote).toMatch(/^killed here/);
    expect(report.failure?.steps).toBe(trace.steps.length);
    expect(readFileSync(junit, 'utf8')).toMatch(/<failure/);
    const plain = await runCli(['replay', file, '--sut', 'model']);
    expect(plain.code).toBe(254);
    expect(plain.stderr).toMatch(/has kill steps.*--kill/);
  });

  it('usage: --kill needs a command naming {data}, not an in-process system (254)', async () => {
    const noData = await runCli(['conform', '--kill', '--sut', 'node bin/streamjoin.js serve', '--runs', '0']);
    expect(noData.code).toBe(254);
    expect(noData.stderr).toMatch(/\{data\}/);
    const inProcess = await runCli(['conform', '--kill', '--sut', 'impl']);
    expect(inProcess.code).toBe(254);
    expect(inProcess.stderr).toMatch(/in-process/);
  });
});
