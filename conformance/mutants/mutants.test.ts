import { describe, expect, inject, it } from 'vitest';
import { existsSync, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
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
  applyPatches,
  markersOf,
  loadMutantImpl,
  materializeMutant,
  mutantSut,
  patchedFiles,
  removeDir,
} from '../adapters/mutantSut.ts';
import { runMutants } from '../job/mutantsJob.ts';

const seed = inject('fcSeed');
const examplesDir = join(PROJECT_ROOT, 'spec', 'examples');
const examples = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.trace.json'))
  .map((f) => join(examplesDir, f))
  .map((path) => ({ path, trace: loadCheckedTrace(path) }));

const regressionsDir = join(import.meta.dirname, 'regressions');

describe('the mutant catalogue', () => {
  it('has a regression trace for every mutant (its shortest kill, kept, named after what it exercises): the model agrees with its expectations, the implementation conforms, and the mutant diverges', async () => {
    const files = readdirSync(regressionsDir)
      .filter((f) => f.endsWith('.trace.json'))
      .sort();
    expect(files).toEqual([...new Set(MUTANTS.map((m) => `${m.regression}.trace.json`))].sort());
    for (const m of MUTANTS) {
      // Named for what it exercises: never after a bug of the catalogue, which a system failing it need not have.
      expect(
        MUTANTS.some((x) => x.name === m.regression),
        m.regression,
      ).toBe(false);
      // Nor an example's name: counterexample files are named after the trace, and would overwrite each other.
      expect(examples.map((e) => e.trace.trace.name)).not.toContain(m.regression);
      expect(readdirSync(join(examplesDir, 'cluster'))).not.toContain(`${m.regression}.trace.json`);
      const loaded = loadCheckedTrace(join(regressionsDir, `${m.regression}.trace.json`));
      expect(loaded.trace.name).toBe(m.regression);
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

  it('every patch still applies, and the patched file differs', () => {
    for (const m of MUTANTS) {
      const files = patchedFiles(m);
      for (const [file, text] of files) {
        expect(text, `${m.name}: impl/${file}`).not.toBe(readFileSync(join(PROJECT_ROOT, 'impl', ...file.split('/')), 'utf8'));
        expect(text).toContain('MUTANT');
      }
    }
  });

  it('every marker in impl/ (`// mutant: NAME`) is used by exactly one patch of one mutant, and every marked patch has its marker', () => {
    const implDir = join(PROJECT_ROOT, 'impl');
    const sources = readdirSync(implDir, { recursive: true, encoding: 'utf8' })
      .map((f) => f.split(sep).join('/'))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    const found = new Map<string, number>();
    for (const file of sources) {
      for (const marker of markersOf(readFileSync(join(implDir, ...file.split('/')), 'utf8'))) {
        const at = `${marker.mutant} in impl/${file}`;
        found.set(at, (found.get(at) ?? 0) + 1);
      }
    }
    const wanted = new Map<string, number>();
    for (const m of MUTANTS) {
      for (const p of m.patches) {
        expect(p.marker, `${m.name} anchors on its own markers`).toBeUndefined();
        const at = `${m.name} in impl/${p.file}`;
        wanted.set(at, (wanted.get(at) ?? 0) + 1);
      }
    }
    expect(Object.fromEntries([...found].sort())).toEqual(Object.fromEntries([...wanted].sort()));
    expect(found.size).toBeGreaterThan(0);
  });

  it('a patch whose markers are missing or too many is refused, naming the mutant, the file and the counts; a marked site is replaced, or inserted after the marker', () => {
    const patch = { file: 'x.ts', lines: 1, replace: '  b(); // MUTANT' };
    expect(() => applyPatches('m', 'x.ts', 'a();\nb();\n', [patch])).toThrow(MutantPatchError);
    expect(() => applyPatches('m', 'x.ts', '// mutant: m\na();\n// mutant: m\nb();\n', [patch])).toThrow(
      /mutant m: impl\/x\.ts has 2 markers "\/\/ mutant: m", the catalogue has 1 patch for it there/,
    );
    expect(() => applyPatches('m', 'x.ts', 'a();\n  // mutant: m', [patch])).toThrow(/runs past the end of the file/);
    const text = 'a();\n  // mutant: m\n  // mutant: other\n  c();\nd();\n';
    expect(applyPatches('m', 'x.ts', text, [patch])).toBe('a();\n  // mutant: m\n  // mutant: other\n  b(); // MUTANT\nd();\n');
    expect(applyPatches('m', 'x.ts', text, [{ ...patch, lines: 0 }])).toBe(
      'a();\n  // mutant: m\n  // mutant: other\n  b(); // MUTANT\n  c();\nd();\n',
    );
    // A marker must stand alone on its line: a trailing comment is not one.
    expect(markersOf('x(); // mutant: m\n  // mutant: n\n')).toEqual([{ mutant: 'n', line: 1 }]);
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
      regression: 'none',
      patches: [
        // Anchored on another mutant's marker: a comment inserted there.
        { file: 'operator.ts', marker: 'reversed-interval-swapped', lines: 0, replace: '    // MUTANT: a comment, nothing else' },
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
