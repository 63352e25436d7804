// `streamjoin audit --log LEFT --log-right RIGHT`: a log in two files recorded
// apart (docs/audit.md, "A log in two files"). A row whose lateness (J5)
// depends on how the engine interleaved the two (J4: gw is the min over the
// sides) is reported as depending on the processing order, with a count, in
// the text and the JSON report; a lost match of two certain rows is exit 1.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaError } from '../spec/index.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { runCli } from './testSupport.ts';

const tmp = useTemporaryDirectories('sj-cli-two-inputs-');
const jsonl = (xs: readonly unknown[]): string => xs.map((x) => `${JSON.stringify(x)}\n`).join('');

function history(sink: readonly unknown[]): { left: string; right: string; sink: string } {
  const dir = tmp();
  const paths = { left: join(dir, 'left.jsonl'), right: join(dir, 'right.jsonl'), sink: join(dir, 'sink.jsonl') };
  writeFileSync(
    paths.left,
    jsonl([
      { format: 'streamjoin/history-log@1', config: { allowedLateness: 2, maxIntervalLength: 4 } },
      { kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 10, start: 10, end: 12 },
      { kind: 'watermark', side: 'L', wm: 20 },
      { kind: 'insert', key: 'k', side: 'L', id: 'b', ts: 5, start: 5, end: 9 },
    ]),
  );
  writeFileSync(
    paths.right,
    jsonl([
      { kind: 'insert', key: 'k', side: 'R', id: 'x', ts: 10, start: 8, end: 12 },
      { kind: 'watermark', side: 'R', wm: 30 },
    ]),
  );
  writeFileSync(paths.sink, jsonl(sink));
  return paths;
}

describe('streamjoin audit --log-right', () => {
  it('an order-dependent row is counted in the text and the JSON report, never a violation (exit 0)', async () => {
    const h = history([
      { op: 'insert', match: 'k/a/x', key: 'k' },
      { op: 'insert', match: 'k/b/x', key: 'k' },
    ]);
    const r = await runCli(['audit', '--log', h.left, '--log-right', h.right, '--sink', h.sink, '--quiet']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('1 row(s) depend on the processing order');
    expect(r.stdout).toContain(`${h.left}:4`);
    expect(r.stdout).toMatch(/prefix property is not checked/);
    const j = await runCli(['audit', '--log', h.left, '--log-right', h.right, '--sink', h.sink, '--json']);
    const report = JSON.parse(j.stdout) as Record<string, unknown>;
    expect(schemaError('reports/audit-report', report)).toBeUndefined();
    expect(report).toMatchObject({ exitCode: 0, verdict: 'valid', twoInputs: { orderDependentRows: 1, left: h.left, right: h.right } });
  });

  it('a lost match of two certain rows is a violation (exit 1), cited in the right file', async () => {
    const h = history([{ op: 'insert', match: 'k/b/x', key: 'k' }]);
    const r = await runCli(['audit', '--log', h.left, '--log-right', h.right, '--sink', h.sink, '--quiet']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/JoinCorrect +VIOLATED/);
    expect(r.stdout).toContain(`${h.right}:1`);
  });
});
