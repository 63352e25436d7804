// The parts of the job that run trace files, first: the spec's examples,
// and the regression traces the mutant catalogue keeps (each kill's
// shortest counterexample). Each file runs at the weakest checked level
// that has all its steps, or is skipped saying why; a divergence is cut and
// minimized like any other and keeps the file's name. Both report in the
// report's `examples` (failures of origin `example`).
import { readdirSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { LEVELS, PACKAGE_ROOT, packagePath } from '../../spec/index.ts';
import type { AnyTrace, Level } from '../../spec/index.ts';
import { SutUnavailable } from '../sut/sut.ts';
import { levelOfClusterTrace, runTraceObserved, withoutExpectations } from '../lockstep/anyTrace.ts';
import type { TraceSource } from './conformTypes.ts';
import { minimizedCounterexample, namedCounterexample } from './counterexample.ts';
import type { ConformPart, PartJob } from './part.ts';
import { inShard } from './shard.ts';
import { loadCheckedTrace } from '../lockstep/traceFiles.ts';

const traceFilesIn = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.trace.json'))
    .sort()
    .map((f) => join(dir, f));

/** The operator examples of spec/examples/. */
export function operatorExamplePaths(): string[] {
  return traceFilesIn(packagePath('spec', 'examples'));
}

/** The hand-checked examples of spec/: operator examples, then cluster examples. */
export function specExamplePaths(): string[] {
  return [...operatorExamplePaths(), ...traceFilesIn(packagePath('spec', 'examples', 'cluster'))];
}

/** The mutant catalogue's regression traces: each kill's shortest counterexample, kept (streamjoin mutants --regressions). */
export const REGRESSIONS_DIR = packagePath('conformance', 'mutants', 'regressions');

export function regressionTracePaths(): string[] {
  return traceFilesIn(REGRESSIONS_DIR);
}

/**
 * streamjoin's own traces, loaded and checked: the spec's examples (operator,
 * then cluster) and the mutant catalogue's regression traces, as `conform`
 * runs them: `runConform({ system, seed, runs, ...builtInTraces() })`.
 */
export function builtInTraces(): { readonly examples: TraceSource[]; readonly regressions: TraceSource[] } {
  const load = (paths: readonly string[]): TraceSource[] => paths.map((path) => ({ path, trace: loadCheckedTrace(path) }));
  return { examples: load(specExamplePaths()), regressions: load(regressionTracePaths()) };
}

/** Where a trace file runs: its level among those checked, or why it is skipped. */
function levelOfFile(trace: AnyTrace, levels: readonly Level[]): Level | string {
  if (trace.kind === 'operator') return levels.includes('operator') ? 'operator' : 'needs level operator';
  const need = levelOfClusterTrace(trace.trace);
  if (need === 'cluster' && levels.includes('cluster')) return 'cluster';
  if (levels.includes('faults')) return 'faults';
  return `needs level ${need}`;
}

const isLevel = (x: string): x is Level => (LEVELS as readonly string[]).includes(x);

/** A path inside the project relative to its root (so that a written trace names no machine's directories). */
function projectRelative(path: string): string {
  const r = relative(PACKAGE_ROOT, path);
  return r.startsWith('..') || isAbsolute(r) ? path : r;
}

/** An example's divergence in both traces (indices in, steps counted from 1 out): the example's step, and the minimized counterexample's. */
export function exampleStepText(exampleIndex: number, index: number, steps: number): string {
  return `step ${exampleIndex + 1} of the example (step ${index + 1} of the ${steps}-step counterexample)`;
}

/**
 * Trace files as a part. `numberedFrom`: the index of the first file in the
 * report's one list of trace files, for sharding (the regression traces
 * continue the examples' numbering, so that merged shards list them in the
 * unsharded order).
 */
export function traceFilesPart(name: 'examples' | 'regressions', files: readonly TraceSource[], numberedFrom = 0): ConformPart {
  const what = name === 'examples' ? 'example' : 'regression trace';
  return {
    name,
    async run(job: PartJob): Promise<void> {
      for (const [i, file] of files.entries()) {
        if (job.stopped()) return;
        if (!inShard(numberedFrom + i, job.shard)) continue;
        const level = levelOfFile(file.trace, job.levels);
        if (!isLevel(level)) {
          job.report.skipped.push({ path: file.path, why: level });
          continue;
        }
        job.enter(`${what} ${file.path} at level ${level}`);
        job.onTrace({ part: 'example', level, trace: file.trace });
        const trace = file.trace.trace;
        const run = await runTraceObserved(job.system, file.trace, level).catch((e: unknown) => {
          // Listed with its own verdict before the job stops: every part that ran is in the report.
          if (e instanceof SutUnavailable)
            job.report.examples.push({ level, path: file.path, name: trace.name, steps: trace.steps.length, verdict: 'unknown' });
          throw e;
        });
        const d = run.divergence;
        job.report.examples.push({ level, path: file.path, name: trace.name, steps: trace.steps.length, verdict: d ? 'fail' : 'pass' });
        if (!d) {
          job.progress(`pass ${level.padEnd(8)} ${trace.name}`);
          continue;
        }
        const foundAfterMs = job.since();
        // Without the file's expectations: a deleted step would make them stale; the model's are the same (the examples are checked against it).
        const plain = withoutExpectations(file.trace);
        const minimal = await minimizedCounterexample(job.system, level, plain, d, run.stderr);
        const steps = minimal.trace.trace.steps.length;
        const { divergence } = minimal;
        // Both numberings: the file's own step (what it shows) and the counterexample's.
        job.progress(`FAIL ${level.padEnd(8)} ${trace.name}: ${exampleStepText(d.step, divergence.step, steps)}: ${divergence.summary}`);
        const description =
          `Cut from the ${what} ${projectRelative(file.path)} at its divergence and minimized by deleting steps ` +
          `(${steps} of ${trace.steps.length} steps). It diverged at step ${divergence.step + 1}: ${divergence.summary}`;
        job.report.failures.push({
          level,
          origin: 'example',
          path: file.path,
          trace: namedCounterexample(minimal.trace, trace.name, description),
          divergence,
          foundAfterMs,
          exampleStep: d.step,
          ...(minimal.stderr ? { stderr: minimal.stderr } : {}),
        });
      }
    },
  };
}
