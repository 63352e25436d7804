// `check`: explores a model breadth-first on this thread and reports. The
// engine is engine.ts (levels, partial-order reduction and its soundness
// argument), store.ts (the visited set), frontier.ts (the compact frontier
// and spilling), report.ts (verdicts and counterexamples); several threads
// run the same engine in session.ts.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunControl, exploreHere, type EngineSettings, type RunLimits } from './engine.ts';
import { createFrontierAccount, frontierFigures, removeSpillDirectory } from './frontier.ts';
import { buildReport } from './report.ts';
import type { CheckOptions, CheckReport, Model, ProgressSample } from './types.ts';

/** The reductions in effect for `model` under `options`, and notes on what was asked but is not. */
export function engineSettings<S, A>(model: Model<S, A>, options: CheckOptions): { settings: EngineSettings; notes: string[] } {
  const notes: string[] = [];
  const hasSymmetry = model.representative !== undefined || model.codec?.symmetric === true;
  const symmetry = (options.symmetry ?? true) && hasSymmetry;
  if (options.symmetry === true && !hasSymmetry) notes.push('symmetry requested, but the model defines no symmetry');
  let partialOrder = (options.partialOrder ?? true) && model.partialOrder !== undefined;
  if (options.partialOrder === true && model.partialOrder === undefined)
    notes.push('partial-order reduction requested, but the model defines no independence hook');
  if (partialOrder && model.withinBoundary !== undefined) {
    partialOrder = false;
    notes.push('partial-order reduction off: the model has a boundary (withinBoundary), which its soundness argument does not cover');
  }
  return {
    settings: {
      visited: options.visited ?? 'fingerprint',
      symmetry,
      partialOrder,
      stopAtFirstViolation: options.stopAtFirstViolation ?? false,
    },
    notes,
  };
}

let spillCounter = 0;

/** A directory name for spilled frontier segments (made on the first spill). */
export function spillDirectoryName(parent: string | undefined): string {
  return join(parent ?? tmpdir(), `streamjoin-frontier-${process.pid}-${Date.now().toString(36)}-${spillCounter++}`);
}

/** Budgets and frontier settings of a run, from the options of `check`. */
export function runLimits(options: CheckOptions, started = Date.now()): RunLimits {
  const memoryBound = options.frontierMemory ?? Number.POSITIVE_INFINITY;
  return {
    control: createRunControl(),
    maxStates: options.maxStates ?? Number.POSITIVE_INFINITY,
    deadline: options.maxSeconds === undefined ? Number.POSITIVE_INFINITY : started + options.maxSeconds * 1000,
    spill: {
      memoryBound,
      directory: Number.isFinite(memoryBound) ? spillDirectoryName(options.spillDirectory) : undefined,
      account: createFrontierAccount(),
    },
  };
}

/** Explores `model` breadth-first on this thread and checks its properties. Pure apart from `onProgress` and spill files. */
export function check<S, A>(model: Model<S, A>, options: CheckOptions = {}): CheckReport<S, A> {
  const { settings, notes } = engineSettings(model, options);
  const limits = runLimits(options);
  const onProgress = options.onProgress;
  const every = options.progressIntervalMs ?? 500;
  const started = performance.now();
  let last = started;
  let depth = 0;
  let queued = 0;
  let generated = 0;
  let distinct = 0;
  const sample = (now: number): ProgressSample => {
    const elapsedMs = now - started;
    return { generated, distinct, depth, queue: queued, statesPerSecond: elapsedMs > 0 ? (distinct * 1000) / elapsedMs : 0, elapsedMs };
  };
  const loop = exploreHere(
    model,
    settings,
    limits,
    onProgress
      ? (p) => {
          depth = p.depth;
          queued = p.queued;
          generated = p.generated;
          distinct = p.distinct;
          const now = performance.now();
          if (now - last >= every) {
            last = now;
            onProgress(sample(now));
          }
        }
      : undefined,
  );
  try {
    let step = loop.next();
    while (!step.done) step = loop.next();
    if (onProgress) onProgress(sample(performance.now()));
    return buildReport(model, step.value, { ...settings, notes, workers: 1, frontier: frontierFigures(limits.spill.account) });
  } finally {
    if (limits.spill.directory !== undefined) removeSpillDirectory(limits.spill.directory);
  }
}
