// One verdict word wherever it appears (SPEC §8): the library's result, the
// JSON report and the text (in capitals) say `pass`, `fail` or `unknown` for
// conform and check; an audit says `valid`, `violation` or `unknown` in all
// three. Each verdict is reached for real and each word read where a user
// reads it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import type { OverallVerdict } from '../spec/index.ts';
import { check, type Model } from '../model/index.ts';
import { runConform } from '../conformance/job/conform.ts';
import { builtInTraces } from '../conformance/job/traceFilesPart.ts';
import { implSut } from '../conformance/adapters/implSut.ts';
import type { InProcessSut, OperatorFactory } from '../conformance/sut/sut.ts';
import { writeCounterexamples } from '../conformance/views/counterexampleFiles.ts';
import { type AuditVerdict, auditHistory } from '../conformance/audit/audit.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { conformJson, conformSummary } from './conformReport.ts';
import { runCli } from './testSupport.ts';

const tmp = useTemporaryDirectories('sj-verdict-words-');
const seed = Number(inject('fcSeed')) | 0;

/** The last line of `text` that starts with `prefix`, what follows it up to a space or `(`/`:`. */
function wordAfter(text: string, prefix: string): string | undefined {
  const line = text
    .split('\n')
    .filter((l) => l.startsWith(prefix))
    .at(-1);
  return line?.slice(prefix.length).match(/^[A-Za-z]+/)?.[0];
}

/** The built-in implementation with every change dropped: it diverges at the first match. */
const dropsChanges: InProcessSut = {
  ...implSut,
  levels: ['operator'],
  operator: ((config) => {
    const op = (implSut.operator as OperatorFactory)(config);
    return { apply: (record) => ({ ...op.apply(record), changes: [] }), retained: () => op.retained() };
  }) satisfies OperatorFactory,
};

describe('conform: runConform’s verdict is the word of the JSON report and of the text', () => {
  it.each([
    ['pass', implSut, undefined],
    ['fail', dropsChanges, undefined],
    ['unknown', implSut, AbortSignal.abort(new Error('SIGINT'))],
  ] as const)('%s', async (expected: OverallVerdict, system, signal) => {
    const { examples } = builtInTraces();
    const report = await runConform({
      system,
      levels: ['operator'],
      seed,
      runs: 3,
      examples,
      ...(signal !== undefined ? { signal } : {}),
    });
    expect(report.verdict).toBe(expected);
    // What `streamjoin conform` does with the report: the files, the JSON, the text.
    const written = writeCounterexamples(report, tmp(), ['npx', 'streamjoin'], 'impl');
    expect(conformJson(report, written).verdict).toBe(report.verdict);
    expect(wordAfter(conformSummary(report, written), 'verdict: ')).toBe(report.verdict.toUpperCase());
  });
});

/** Two processes take a lock by check-then-set (`racy`: both can enter) or by test-and-set. */
const lockModule = (racy: boolean): string => `
export default {
  name: '${racy ? 'racy' : 'test-and-set'} lock',
  initialStates: () => [{ pc: ['idle', 'idle'], locked: false }],
  actions(s) {
    const out = [];
    s.pc.forEach((pc, p) => {
      ${racy ? "if (pc === 'idle' && !s.locked) out.push({ p, step: 'check' });\n      if (pc === 'checked') out.push({ p, step: 'set' });" : "if (pc === 'idle' && !s.locked) out.push({ p, step: 'take' });"}
      if (pc === 'holding') out.push({ p, step: 'enter' });
      if (pc === 'critical') out.push({ p, step: 'leave' });
    });
    return out;
  },
  next(s, a) {
    const to = { check: 'checked', set: 'holding', take: 'holding', enter: 'critical', leave: 'idle' }[a.step];
    const locked = a.step === 'set' || a.step === 'take' ? true : a.step === 'leave' ? false : s.locked;
    return { pc: s.pc.map((x, p) => (p === a.p ? to : x)), locked };
  },
  encode: (s) => JSON.stringify(s),
  actionKind: (a) => a.step,
  describeAction: (a) => 'p' + a.p + ' ' + a.step,
  invariants: [{ name: 'Mutex', check: (s) => (s.pc.filter((x) => x === 'critical').length > 1 ? 'both are in the critical section' : undefined) }],
  goals: [],
  actionToJson: (a) => a,
  actionFromJson: (j) => j,
};
`;

describe('check: check()’s verdict is the word of the JSON report and of the text', () => {
  it.each([
    ['pass', false, []],
    ['fail', true, []],
    ['unknown', false, ['--max-states', '3']],
  ] as const)('%s', async (expected: OverallVerdict, racy, budget) => {
    const dir = tmp();
    const file = join(dir, racy ? 'racy.mjs' : 'tas.mjs');
    writeFileSync(file, lockModule(racy));
    const model = ((await import(pathToFileURL(file).href)) as { default: Model<unknown, unknown> }).default;
    const report = check(model, budget.length > 0 ? { maxStates: 3 } : {});
    expect(report.verdict).toBe(expected);
    const argv = ['check', '--model', file, '--workers', '1', '--out', dir, ...budget];
    const json = JSON.parse((await runCli([...argv, '--json'])).stdout) as { verdict: string; parts: { verdict: string }[] };
    expect(json.verdict).toBe(report.verdict);
    expect(json.parts[0]?.verdict).toBe(report.verdict);
    const text = (await runCli(argv)).stdout;
    expect(
      text
        .trimEnd()
        .split('\n')
        .at(-1)
        ?.match(/^[A-Z]+/)?.[0],
    ).toBe(report.verdict.toUpperCase());
  });
});

describe('audit: auditHistory’s verdict is the word of the JSON report and of the text', () => {
  it.each([
    ['valid', []],
    ['violation', ['--damage', 'resurrection']],
    ['unknown', ['--damage', 'truncate']],
  ] as const)('%s', async (expected: AuditVerdict, damage) => {
    const dir = join(tmp(), 'history');
    expect((await runCli(['audit', '--example', dir, '--seed', '3', '--records', '600', ...damage])).code).toBe(0);
    const files = { log: join(dir, 'log.jsonl'), sink: join(dir, 'sink.jsonl') };
    const result = await auditHistory({ ...files, config: join(dir, 'config.json') });
    expect(result.verdict).toBe(expected);
    const argv = ['audit', '--log', files.log, '--sink', files.sink, '--quiet'];
    expect((JSON.parse((await runCli([...argv, '--json'])).stdout) as { verdict: string }).verdict).toBe(result.verdict);
    const text = (await runCli(argv)).stdout;
    expect(
      text
        .trimEnd()
        .split('\n')
        .at(-1)
        ?.match(/^[A-Za-z]+/)?.[0]
        ?.toLowerCase(),
    ).toBe(result.verdict);
  });
});
