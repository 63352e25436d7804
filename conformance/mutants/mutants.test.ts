import { describe, expect, inject, it } from 'vitest';
import { existsSync, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { builtInImpl } from '../adapters/implOperator.ts';
import { loadCheckedTrace } from '../lockstep/traceFiles.ts';
import { levelOfClusterTrace, runTrace } from '../lockstep/anyTrace.ts';
import { expectedClusterSteps } from '../lockstep/clusterLockstep.ts';
import { implSut } from '../adapters/implSut.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { MUTANTS, mutantNamed, type Mutant } from './catalogue.ts';
import {
  MutantPatchError,
  PROJECT_ROOT,
  applyPatch,
  loadMutantImpl,
  materializeMutant,
  mutantSut,
  patchedFiles,
  removeDir,
} from './load.ts';
import { runMutants } from './run.ts';

const seed = inject('fcSeed');
const examplesDir = join(PROJECT_ROOT, 'spec', 'examples');
const examples = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.trace.json'))
  .map((f) => join(examplesDir, f))
  .map((path) => ({ path, trace: loadCheckedTrace(path) }));

const regressionsDir = join(import.meta.dirname, 'regressions');

describe('the mutant catalogue', () => {
  it('has one regression trace per mutant (its shortest kill, kept): the model agrees with its expectations, the implementation conforms, and the mutant diverges', async () => {
    const files = readdirSync(regressionsDir)
      .filter((f) => f.endsWith('.trace.json'))
      .sort();
    expect(files).toEqual(MUTANTS.map((m) => `${m.name}.trace.json`).sort());
    for (const m of MUTANTS) {
      const loaded = loadCheckedTrace(join(regressionsDir, `${m.name}.trace.json`));
      const level = loaded.kind === 'operator' ? 'operator' : levelOfClusterTrace(loaded.trace);
      if (loaded.kind === 'cluster') expect(expectedClusterSteps(loaded.trace).disagreements, m.name).toEqual([]);
      expect(await runTrace(inProcessSystem(implSut), loaded, level), m.name).toBeUndefined();
      expect(await runTrace(inProcessSystem(await mutantSut(m)), loaded, level), m.name).toBeDefined();
    }
  });

  it('has one mutant per bug class the design names, each citing a SPEC rule', () => {
    expect(MUTANTS.map((m) => m.name)).toEqual([
      'commit-before-durable-checkpoint',
      'no-fencing',
      'replay-from-older-checkpoint-without-dedup',
      'eviction-at-ts-plus-lateness',
      'match-dropped-with-one-endpoint',
      'retraction-held-to-insert-lateness',
      'overtaking-retract-dropped',
      'sink-fence-from-caller-epochs',
      'last-writer-wins-sink',
      'ambiguous-match-ids',
      'reversed-interval-swapped',
      'frozen-key-events-in-coordinator-memory',
      'off-by-one-eviction',
    ]);
    const spec = readFileSync(join(PROJECT_ROOT, 'spec', 'SPEC.md'), 'utf8');
    for (const m of MUTANTS) expect(spec, `${m.name} cites ${m.rule}`).toContain(`### ${m.rule} `);
  });

  it('every patch still applies: its snippet occurs exactly once in its impl/ file, and the patched file differs', () => {
    for (const m of MUTANTS) {
      const files = patchedFiles(m);
      for (const [file, text] of files) {
        expect(text, `${m.name}: impl/${file}`).not.toBe(readFileSync(join(PROJECT_ROOT, 'impl', ...file.split('/')), 'utf8'));
        expect(text).toContain('MUTANT');
      }
    }
  });

  it('a patch whose snippet is missing or occurs twice is refused, naming the mutant, the file and the count', () => {
    expect(() => applyPatch('m', 'a b', { file: 'x.ts', find: 'c', replace: 'd' })).toThrow(MutantPatchError);
    expect(() => applyPatch('m', 'a b a', { file: 'x.ts', find: 'a', replace: 'd' })).toThrow(
      /mutant m: the snippet to replace in impl\/x\.ts \("a"\) occurs 2 times, not once/,
    );
    expect(applyPatch('m', 'a b c', { file: 'x.ts', find: 'b', replace: 'B' })).toBe('a B c');
  });

  it('a mutant is a patched copy of impl/ next to a symlink of spec/, loaded in-process as a module of its own', async () => {
    const m = mutantNamed('off-by-one-eviction') as Mutant;
    const dir = materializeMutant(m);
    expect(lstatSync(join(dir, 'spec')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(dir, 'impl', 'operator.test.ts'))).toBe(false);
    expect(readFileSync(join(dir, 'impl', 'operator.ts'), 'utf8')).toContain('MUTANT: >= instead of >');
    removeDir(dir);
    expect(existsSync(dir)).toBe(false);
    const impl = await loadMutantImpl(m);
    expect(impl.JoinOperator).not.toBe(builtInImpl.JoinOperator);
    // One tick early: at gw = end + L + D the row is already gone.
    const op = new impl.JoinOperator({ allowedLateness: 0, maxIntervalLength: 0 });
    op.apply({ kind: 'insert', key: 'k', side: 'L', id: 'a', ts: 1, start: 1, end: 1 });
    op.apply({ kind: 'watermark', side: 'L', wm: 1 });
    op.apply({ kind: 'watermark', side: 'R', wm: 1 });
    expect(op.retained()).toEqual({ live: 0, tombstones: 0, matches: 0 });
    const sut = await mutantSut(m);
    expect(sut.implementation.name).toBe('streamjoin-impl-mutant-off-by-one-eviction');
    const horizon = examples.find((e) => e.path.endsWith('horizon-boundary.trace.json'));
    if (!horizon) throw new Error('example missing');
    expect(await runTrace(inProcessSystem(sut), horizon.trace, 'operator')).toBeDefined();
  });

  it('a mutant the harness cannot tell from the implementation (an equivalent one: only a comment changed) survives, and the verdict is fail', async () => {
    const equivalent: Mutant = {
      name: 'equivalent',
      bugClass: 'none',
      rule: 'J1',
      description: 'a comment changed',
      patches: [
        { file: 'operator.ts', find: '    // J7 check 1: validity.\n', replace: '    // J7 check 1: validity (MUTANT: unchanged).\n' },
      ],
    };
    const report = await runMutants({
      seed,
      runs: 20,
      examples,
      exhaustive: [],
      mutants: [equivalent, mutantNamed('off-by-one-eviction') as Mutant],
    });
    expect(report.baseline.verdict).toBe('pass');
    expect(report.results.map((r) => [r.mutant.name, r.verdict])).toEqual([
      ['equivalent', 'survived'],
      ['off-by-one-eviction', 'killed'],
    ]);
    expect(report.verdict).toBe('fail');
  });
});
