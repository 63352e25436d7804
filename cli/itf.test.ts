// `--itf`: the counterexamples conform, replay and check write in the
// Informal Trace Format are valid ITF, and the commands read them back
// (replay FILE.itf.json, check --replay FILE.itf.json).
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { itfStructureProblem, loadAnyTrace, loadCounterexample, schemaError } from '../spec/index.ts';
import type { ItfTrace } from '../spec/index.ts';
import { runCli } from './testSupport.ts';
import { runTrace } from '../conformance/lockstep/anyTrace.ts';
import { writeCounterexample } from '../conformance/views/counterexampleFiles.ts';
import { explainDivergence } from '../conformance/report/divergence.ts';
import { clusterFailure, modelCounterexample, operatorFailure, unfencedSystem } from '../conformance/views/counterexampleFixtures.ts';
import { conformanceItf, modelItf } from '../conformance/views/itf.ts';
import { writeModelCounterexampleViews } from '../conformance/views/modelCounterexampleFiles.ts';
import { conformanceView, modelCounterexampleView } from '../conformance/views/view.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';

const tmp = useTemporaryDirectories('sj-itf-');
const context = { sut: 'test', level: 'faults', origin: 'the example', replay: 'streamjoin replay X --sut Y' };

/** Every JSON number under the states: ADR-015 (revision 2023-09-14) writes every integer as {"#bigint": "..."}. */
function plainNumbers(value: unknown, at = ''): string[] {
  if (typeof value === 'number') return [at];
  if (Array.isArray(value)) return value.flatMap((x, i) => plainNumbers(x, `${at}/${i}`));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([k, v]) => (k === '#meta' ? [] : plainNumbers(v, `${at}/${k}`)));
  return [];
}

/** Valid ITF as the ADR states it: the schema (spec/schemas/itf.schema.json), the structure, integers as #bigint. */
function expectValidItf(t: ItfTrace): void {
  expect(schemaError('itf', t)).toBeUndefined();
  expect(itfStructureProblem(t)).toBeUndefined();
  expect(plainNumbers(t.states)).toEqual([]);
  for (const s of t.states.slice(1)) expect(typeof s['mbt::actionTaken']).toBe('string');
  expect(t.states[0]?.['mbt::actionTaken']).toBe('init');
}

describe('--itf writes valid ITF that streamjoin reads back (replay FILE.itf.json, check --replay FILE.itf.json)', () => {
  it('a cluster counterexample: valid ITF; read back it is the same trace with the same expectations; it diverges at the same step, and conforms on the model', async () => {
    const f = await clusterFailure();
    const dir = tmp();
    const w = writeCounterexample(f, {
      outDir: dir,
      name: 'zombie',
      invocation: ['npx', 'streamjoin'],
      sutCommand: 'X',
      sut: 'X',
      itf: true,
    });
    const itf = conformanceItf(f.trace, conformanceView(f.trace, f.divergence, context), f.divergence);
    expectValidItf(itf);
    expect(itf.vars).toEqual([
      'log',
      'coordinator',
      'workers',
      'store',
      'sink',
      'events',
      'refused',
      'mbt::actionTaken',
      'mbt::nondetPicks',
    ]);
    expect(itf.params).toEqual(['config']);
    expect(itf.states).toHaveLength(f.trace.trace.steps.length + 1);
    expect(itf.states[1]?.['mbt::nondetPicks']).toMatchObject({ record: { tag: 'Some' }, key: { tag: 'None' } });
    const back = loadAnyTrace(w.itfPath as string);
    expect(back).toEqual(f.trace);
    const found = await runTrace(unfencedSystem(), back, 'faults');
    const again = found && explainDivergence(found);
    expect(again?.step).toBe(f.divergence.step);
    expect(again?.summary).toBe(f.divergence.summary);
    const replay = await runCli(['replay', w.itfPath as string, '--sut', 'model']);
    expect(replay.stdout).toContain(`: PASS (${f.trace.trace.steps.length} steps at level faults)`);
    expect(replay.code).toBe(0);
  });

  it('an operator counterexample round-trips too', async () => {
    const f = await operatorFailure();
    const dir = tmp();
    const w = writeCounterexample(f, {
      outDir: dir,
      name: 'retract',
      invocation: ['npx', 'streamjoin'],
      sutCommand: 'X',
      sut: 'X',
      itf: true,
    });
    expectValidItf(conformanceItf(f.trace, conformanceView(f.trace, f.divergence, context), f.divergence));
    expect(loadAnyTrace(w.itfPath as string)).toEqual(f.trace);
    expect((await runCli(['replay', w.itfPath as string, '--sut', 'impl'])).code).toBe(0);
  });

  it('a model counterexample: valid ITF; check --replay FILE.itf.json rebuilds the model and reproduces the violation', async () => {
    const cx = modelCounterexample();
    const dir = tmp();
    const file = join(dir, 'smoke-sink-fence-k1-Fenced.json');
    writeFileSync(file, JSON.stringify(cx));
    const written = writeModelCounterexampleViews(cx, file, { itf: true });
    const view = modelCounterexampleView(cx);
    if (!written?.itfPath || !view) throw new Error('no ITF');
    expectValidItf(modelItf(cx, view));
    const { steps: _steps, ...withoutSteps } = cx;
    expect(loadCounterexample(written.itfPath)).toEqual({ ...withoutSteps });
    const r = await runCli(['check', '--replay', written.itfPath]);
    expect(r.stdout).toContain('Fenced VIOLATED at the end');
    expect(r.code).toBe(1);
  });

  it('a broken ITF file is refused with one line naming the file and the place (exit 254)', async () => {
    const dir = tmp();
    const file = join(dir, 'bad.itf.json');
    writeFileSync(file, JSON.stringify({ vars: ['log', 'sink'], states: [{ log: { '#bigint': '0' } }] }));
    const r = await runCli(['replay', file, '--sut', 'model']);
    expect(r.code).toBe(254);
    expect(r.stderr.trim()).toBe(`${file}: SJ102 /states/0: state 0 sets no value for the variable "sink"`);
    writeFileSync(file, JSON.stringify({ vars: ['x'], states: [{ x: { '#bigint': 'ten' } }] }));
    const s = await runCli(['replay', file, '--sut', 'model']);
    expect(s.code).toBe(254);
    expect(s.stderr).toMatch(/SJ102 \/states\/0\/x.*not a valid ITF trace/);
  });
});
