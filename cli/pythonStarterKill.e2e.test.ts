// The Python starter (examples/python/, stdlib only) at levels cluster and
// faults, and its on-disk mode under kill mode (PROTOCOL.md, "Kill mode"):
// with `--data {data}` it conforms with its kills counted (C2: the log, the
// store, the coordinator's table and the sink recovered from its directory;
// C10: every node down after the restart), also when killed inside its own
// writes (a torn journal line cut off, a record appended before its sink
// write); a copy that leaves its checkpoint store out of its directory
// diverges after a kill; killed inside its first `init`, it re-attaches
// with every node down (C10), and a copy that opens fresh there instead
// fails; without `--data` (its state in memory) it fails at its first kill
// with a short counterexample. The end-to-end tier: it kills processes.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { CLUSTER_TRACE_FORMAT, COORDINATOR, schemaError } from '../spec/index.ts';
import type { ClusterTrace, ExternalAction } from '../spec/index.ts';
import { insertRow, useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { runKillTrace } from '../conformance/kill/killRun.ts';
import { initWritePoints, killInitAtEveryWritePoint } from '../conformance/kill/everyWritePoint.ts';
import { matchTrace } from '../conformance/kill/killFixtures.ts';
import { runCli } from './testSupport.ts';
import type { ConformJson } from './conformReport.ts';

const seed = String(inject('fcSeed'));
const tmp = useTemporaryDirectories('sj-python-kill-', 'all');
/**
 * The interpreter `python3` names, run directly: a version manager's shim
 * (pyenv's is a shell script) can triple the start-up time, and kill mode
 * starts the system again at every kill.
 */
const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8', timeout: 60_000 }).trim();
const STARTER = `${PYTHON} examples/python/join.py`;
const ON_DISK = `${STARTER} --data {data}`;
/** The starter without --data: its durable parts in memory; the directory is named, and ignored. */
const IN_MEMORY = `env STREAMJOIN_IGNORED_DIR={data} ${STARTER}`;

const rec = (id: string, side: string, start: number): ExternalAction => ({
  type: 'record',
  record: insertRow('k1', side, id, start, start + 1),
});

/** Two records (a match), a third (another match) killed at durable write point `write` of its request, the nodes restarted, a fourth record. */
function killedAtWrite(write: number): ClusterTrace {
  return {
    format: CLUSTER_TRACE_FORMAT,
    name: `python-at-write-${write}`,
    config: { join: { allowedLateness: 2, maxIntervalLength: 2 }, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
    steps: [
      { action: rec('a', 'L', 1) },
      { action: rec('b', 'R', 2) },
      { action: rec('c', 'R', 1), kill: { when: 'in-flight', timing: 'at-write', write } },
      { action: { type: 'restart', node: COORDINATOR } },
      { action: { type: 'restart', node: 'w1' } },
      { action: { type: 'restart', node: 'w2' } },
      { action: rec('d', 'R', 2) },
    ],
  };
}

describe('examples/python at levels cluster and faults, and under kill mode', () => {
  it(`conform (seed ${seed}): every example at every level, 5 random traces per level: conforms at operator, cluster and faults, exit 0`, async () => {
    const r = await runCli(['conform', '--sut', STARTER, '--runs', '5', `--seed=${seed}`, '--json', '--out', tmp()]);
    const report = JSON.parse(r.stdout) as ConformJson;
    expect(report.unknown, r.stderr).toBeNull();
    expect(report.verdict).toBe('pass');
    expect(r.code).toBe(0);
    expect([report.supported, report.levels]).toEqual([
      ['operator', 'cluster', 'faults'],
      ['operator', 'cluster', 'faults'],
    ]);
    // Every cluster example runs (with the mutant catalogue's regression traces), at its level, and passes.
    const clusterFiles = readdirSync(join(import.meta.dirname, '..', 'spec', 'examples', 'cluster')).filter((f) => f.endsWith('.json'));
    const clusterExamples = report.examples.filter((e) => e.level !== 'operator');
    expect(clusterExamples.map((e) => basename(e.path))).toEqual(expect.arrayContaining(clusterFiles));
    expect(clusterExamples.some((e) => e.level === 'faults')).toBe(true);
    expect(report.examples.every((e) => e.verdict === 'pass')).toBe(true);
    expect(report.random.map((x) => [x.level, x.runs, x.verdict])).toEqual([
      ['operator', 5, 'pass'],
      ['cluster', 5, 'pass'],
      ['faults', 5, 'pass'],
    ]);
  });

  it(`conform --kill --sut "… join.py --data {data}" (seed ${seed}): the cluster examples with a crash point and one random trace conform, kills counted, exit 0`, async () => {
    const r = await runCli(['conform', '--kill', '--sut', ON_DISK, '--runs', '1', `--seed=${seed}`, '--out', tmp()]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^streamjoin conform --kill: PASS$/m);
    // After the examples, the migration's install and release are killed at each write point too (C11, messageKills).
    expect(r.stdout).toMatch(/traces: 5 examples, [1-9]\d* exhaustive \(one per write point; \d+ died at theirs\), 1 of 1 random/);
    const kills = /kills: (\d+) \(after a reply (\d+); in flight (\d+)/.exec(r.stdout);
    // Each of the five examples has a crash point: at least five kills after a reply, each followed by a restart.
    expect(Number(kills?.[2])).toBeGreaterThanOrEqual(5);
    const restarts = /kill and restart: (\d+), mean \d+ ms, longest \d+ ms/.exec(r.stdout);
    expect(Number(restarts?.[1])).toBe(Number(kills?.[1]));
  });

  it('killed inside its own writes (STREAMJOIN_KILL_AT_WRITE): a torn journal line is cut off (lost), the record synced before its sink write (partly), state.json renamed in place (applied)', async () => {
    // The request's durable write points (examples/python/disk.py): 1 half the log line, 2 the line synced,
    // 3 state.json's temporary file synced, 4 renamed over state.json, 5 the directory synced.
    const at = async (write: number): Promise<string | undefined> => {
      const r = await runKillTrace(killedAtWrite(write), { command: ON_DISK, dataRoot: tmp() });
      expect(r.divergence, `write ${write}`).toBeUndefined();
      expect(r.answeredAtWrite, `write ${write}`).toBe(0);
      return r.trace.steps[2]?.kill?.resolved;
    };
    expect(await at(1)).toBe('lost');
    expect(await at(2)).toBe('partly');
    expect(await at(4)).toBe('applied');
  });

  it('C10: killed inside its first init at each of its durable write points (state.json written, renamed, its directory synced), it re-attaches with every node down and empty durable parts', async () => {
    const { runs, complete } = await killInitAtEveryWritePoint(matchTrace, { command: ON_DISK, dataRoot: tmp() });
    expect(runs.filter((r) => r.divergence).map((r) => r.write)).toEqual([]);
    expect(complete).toBe(true);
    // examples/python/disk.py: init writes state.json, three write points; at the fourth it answers init.
    expect(initWritePoints(runs)).toBe(3);
  });

  it('the summary says how many exhaustive runs died at their write point, and notes a system that ignores STREAMJOIN_KILL_AT_WRITE (killed only after it answered)', async () => {
    const argv = (sut: string): string[] => [
      'conform',
      '--kill',
      '--exhaustive',
      '--sut',
      sut,
      '--runs',
      '0',
      '--examples',
      'none',
      '--shard',
      '1/40',
      '--out',
      tmp(),
    ];
    const hooked = await runCli(argv(ON_DISK));
    expect(hooked.code, hooked.stdout + hooked.stderr).toBe(0);
    // Shard 1/40 is the first scenario's init: three write points (disk.py), then init answered.
    expect(hooked.stdout).toMatch(/traces: 0 examples, 4 exhaustive \(one per write point; 3 died at theirs\)/);
    expect(hooked.stdout).not.toMatch(/note: the system never killed itself/);
    const ignoring = await runCli(argv(`env -u STREAMJOIN_KILL_AT_WRITE ${ON_DISK}`));
    expect(ignoring.code, ignoring.stdout + ignoring.stderr).toBe(0);
    expect(ignoring.stdout).toMatch(/traces: 0 examples, 1 exhaustive \(one per write point; 0 died at theirs\)/);
    expect(ignoring.stdout).toMatch(
      /note: the system never killed itself at a write point: it does not implement STREAMJOIN_KILL_AT_WRITE/,
    );
  });

  it('C10: a copy that opens fresh (every node up) when init was killed before its session was written fails conform --kill --exhaustive at init, write 1; the counterexample (the init kill alone) is a valid cluster trace and replay --kill of it fails at init, exit 1', async () => {
    const dir = tmp();
    const source = join(import.meta.dirname, '..', 'examples', 'python');
    for (const file of readdirSync(source).filter((f) => f.endsWith('.py'))) copyFileSync(join(source, file), join(dir, file));
    const text = readFileSync(join(source, 'join.py'), 'utf8');
    const recovered = 'cluster = Cluster(config, faults, recovered=True)\n                self.data.start_session(';
    expect(text).toContain(recovered);
    writeFileSync(
      join(dir, 'join.py'),
      text.replace(recovered, 'cluster = Cluster(config, faults)\n                self.data.start_session('),
    );
    const sut = `${PYTHON} ${join(dir, 'join.py')} --data {data}`;
    const out = tmp();
    const r = await runCli(['conform', '--kill', '--exhaustive', '--sut', sut, '--runs', '0', '--examples', 'none', '--out', out]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(
      /counterexample: 0 steps \(from \d+, 0 reruns minimizing; \S+planned-migration-under-traffic\.trace\.json, init killed at write 1\)/,
    );
    expect(r.stdout).toMatch(/^ {2}init: killed here, inside init: SIGKILL at durable write point 1 of init/m);
    expect(r.stdout).toMatch(/^Divergence at init \(killed here\): init killed inside its own writes/m);
    expect(r.stdout).toMatch(/\/coordinator\/up\s+expected false\s+actual true/);
    const written = readdirSync(out).find((f) => f.endsWith('.trace.json'));
    expect(written).toBeDefined();
    const counterexample = JSON.parse(readFileSync(join(out, written as string), 'utf8')) as ClusterTrace;
    expect(schemaError('cluster-trace', counterexample)).toBeUndefined();
    expect([counterexample.initKill?.write, counterexample.steps]).toEqual([1, []]);
    const again = await runCli(['replay', '--kill', join(out, written as string), '--sut', sut]);
    expect(again.code, again.stdout + again.stderr).toBe(1);
    expect(again.stdout).toMatch(/^Divergence at init \(killed here\)/m);
  });

  it('a copy whose checkpoint store never reaches its directory (C2: the store is durable) diverges after a kill (replay --kill of an example with a checkpoint): /store differs, exit 1', async () => {
    const dir = tmp();
    const source = join(import.meta.dirname, '..', 'examples', 'python');
    for (const file of readdirSync(source).filter((f) => f.endsWith('.py'))) copyFileSync(join(source, file), join(dir, file));
    const text = readFileSync(join(source, 'join.py'), 'utf8');
    const written = '"durable": cluster.durable}';
    expect(text).toContain(written);
    writeFileSync(join(dir, 'join.py'), text.replace(written, '"durable": {**cluster.durable, "store": {}}}'));
    // One example replayed in kill mode (no minimization): a checkpoint written, then a crash point.
    const example = join(import.meta.dirname, '..', 'spec', 'examples', 'cluster', 'restart-recovers-from-checkpoint.trace.json');
    const r = await runCli(['replay', '--kill', example, '--sut', `${PYTHON} ${join(dir, 'join.py')} --data {data}`]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/killed here/);
    expect(r.stdout).toMatch(/^\s+\/store\/k\d+\s+expected \{/m);
  });

  it('without --data (state in memory) it fails --kill at its first kill with a short counterexample that says "killed here", exit 1', async () => {
    const r = await runCli(['conform', '--kill', '--sut', IN_MEMORY, '--runs', '0', '--out', tmp()]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^streamjoin conform --kill: FAIL$/m);
    expect(r.stdout).toMatch(/counterexample: [1-3] steps? \(from \d+/);
    expect(r.stdout).toMatch(/killed here/);
    // C2, C10: after the restart its nodes are up, where the model has every node down.
    expect(r.stdout).toMatch(/\/coordinator\/up\s+expected false\s+actual true/);
  });
});
