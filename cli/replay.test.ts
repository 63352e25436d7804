// run and replay over a long operator trace: both read it step by step
// (conformance/streams/); a divergence deep in the file is found at its
// step, and bad input after it still wins (SPEC §4: nothing is judged on a
// file that is not a trace).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JoinOperator } from '../impl/index.ts';
import { slidingLogConfig, writeSlidingTrace } from '../conformance/generate/slidingLogs.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { runCli } from './testSupport.ts';

const tmp = useTemporaryDirectories('sj-cli-replay-');
const STEPS = 12_000;

/** A sliding trace with every step's expectations; line k + 2 of the file holds step k. */
function longTrace(dir: string, expectations = true): string {
  const options = { records: STEPS, keys: 3, window: 20, seed: 17 };
  const operator = new JoinOperator(slidingLogConfig(options));
  const path = join(dir, expectations ? 'long.trace.json' : 'plain.trace.json');
  writeSlidingTrace(
    path,
    options,
    expectations
      ? (record) => {
          const { outcome, changes } = operator.apply(record);
          return { outcome, changes, retained: operator.retained() };
        }
      : undefined,
  );
  return path;
}

function editStep(path: string, step: number, edit: (line: string) => string): void {
  const lines = readFileSync(path, 'utf8').split('\n');
  lines[step + 1] = edit(lines[step + 1] as string);
  writeFileSync(path, lines.join('\n'));
}

/** `text` matched literally in a regular expression. */
const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('run and replay read a long operator trace step by step', () => {
  it(
    `${STEPS.toLocaleString('en-US')} steps: run and replay --sut impl conform; a wrong ` +
      `expectation at step 10,001 (index 10,000) is found there (replay: the file is wrong, SJ111; run: the ` +
      `operator diverges from the file); bad input after it wins`,
    async () => {
      const dir = tmp();
      const path = longTrace(dir);
      const run = await runCli(['run', path]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^pass +sliding-${STEPS} +${STEPS} steps`, 'm'));
      const replay = await runCli(['replay', path, '--sut', 'impl']);
      expect(replay.code).toBe(0);
      expect(replay.stdout).toContain(`: PASS (${STEPS} steps at level operator)`);
      // A wrong expectation deep in the file.
      editStep(path, 10_000, (l) => l.replace(/"outcome":\{"code":"[a-z]+"/, '"outcome":{"code":"stale"'));
      const wrong = await runCli(['replay', path, '--sut', 'impl']);
      expect(wrong.code).toBe(254);
      expect(wrong.stdout).toBe('');
      expect(wrong.stderr).toMatch(
        new RegExp(
          `^${escapeRegExp(path)}:\\d+:\\d+: SJ111 step 10001: the file expects outcome /code to be "stale", the reference model gives "[a-z]+"`,
        ),
      );
      const runDiverges = await runCli(['run', path]);
      expect(runDiverges.code).toBe(1);
      expect(runDiverges.stdout).toContain('at step 10001');
      // A step that is not of the schema after the divergence: bad input, nothing judged.
      editStep(path, STEPS - 1, (l) => l.replace('"record":{', '"record":{"extra":1,'));
      for (const args of [
        ['replay', path, '--sut', 'impl'],
        ['run', path],
      ]) {
        const bad = await runCli(args);
        expect(bad.code, args[0]).toBe(254);
        expect(bad.stdout).toBe('');
        expect(bad.stderr).toMatch(
          new RegExp(`^${escapeRegExp(path)}:\\d+:\\d+: SJ102 step ${STEPS}: /steps/${STEPS - 1}/record has unknown property "extra"\n$`),
        );
      }
    },
  );

  it('replay --write-expected fills a long plain trace with the expectations, as the model computes them', async () => {
    const dir = tmp();
    const plain = longTrace(dir, false);
    const withExpect = longTrace(dir, true);
    const r = await runCli(['replay', plain, '--write-expected', join(dir, 'golden.json')]);
    expect(r.code).toBe(0);
    const golden = JSON.parse(readFileSync(join(dir, 'golden.json'), 'utf8')) as unknown;
    expect(golden).toEqual(JSON.parse(readFileSync(withExpect, 'utf8')));
  });
});
