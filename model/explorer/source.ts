// What crosses between a check session (session.ts) and its worker threads
// (worker.ts): where a thread gets a model, and the messages.
import type { EngineSettings, RunLimits, Tally } from './engine.ts';
import type { SimulationOptions, SimulationTally } from './simulate.ts';
import type { FrontierSegment } from './frontier.ts';
import type { StoreBuffers } from './store.ts';
import type { Model } from './types.ts';
import { guardModel } from './guard.ts';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Where a worker thread gets a model: `module`'s export `export`, called with `args`. */
export interface ModelSource {
  /** A module URL (`file:`). */
  readonly module: string;
  readonly export: string;
  /** Plain JSON values. */
  readonly args: readonly unknown[];
  /**
   * Where a user's model came from (its file): the model built is then
   * checked against its contract as it runs (guard.ts), and its mistakes are
   * reported as the model's (SJ102 at this name), on every thread.
   */
  readonly userModelFile?: string;
}

/** What a model factory may return: a model, or a holder that hands its model to a function (as presets do). */
export type BuiltModel = Model<unknown, unknown> | { use<R>(f: <S, A>(model: Model<S, A>) => R): R };

const TYPESCRIPT = /\.[mc]?tsx?$/;

/**
 * Imports a module; a TypeScript one (`.ts`, `.mts`, `.cts`) that Node cannot
 * load by itself is loaded through tsx when tsx can be found (from the
 * working directory, as a user's project has it, or beside streamjoin), by
 * registering its loader in this thread.
 */
export async function importModule(url: string): Promise<Record<string, unknown>> {
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (e) {
    if ((e as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION' || !TYPESCRIPT.test(url)) throw e;
    const api = tsxApi();
    if (api === undefined)
      throw new Error(
        'a TypeScript model needs a loader: install tsx where you run streamjoin (npm install --save-dev tsx), or compile the model to JavaScript',
      );
    const tsx = (await import(api)) as { register(): unknown };
    tsx.register();
    return (await import(url)) as Record<string, unknown>;
  }
}

/** The URL of tsx's ESM API, resolved from the working directory or from streamjoin's own; undefined when tsx is not installed. */
function tsxApi(): string | undefined {
  for (const base of [pathToFileURL(join(process.cwd(), 'package.json')).href, import.meta.url]) {
    try {
      return pathToFileURL(createRequire(base).resolve('tsx/esm/api')).href;
    } catch {
      // not resolvable from here
    }
  }
  return undefined;
}

/**
 * The model `source` names: its export called with its arguments when the
 * export is a function (a factory, as presets have), else the export itself
 * (a module that exports a model object, as `check --model` loads).
 */
export async function buildModel(source: ModelSource): Promise<Model<unknown, unknown>> {
  const mod = await importModule(source.module);
  const exported = mod[source.export];
  let model: Model<unknown, unknown>;
  if (typeof exported === 'function') {
    const built = (exported as (...args: readonly unknown[]) => BuiltModel)(...source.args);
    model = 'use' in built ? built.use((m) => m as Model<unknown, unknown>) : built;
  } else if (typeof exported === 'object' && exported !== null) model = exported as Model<unknown, unknown>;
  else throw new Error(`${source.module} has no export ${source.export}`);
  return source.userModelFile === undefined ? model : guardModel(model, source.userModelFile);
}

/**
 * A message to a worker thread. Every one is a request (`req`, unique per
 * thread) that the thread answers once, in the order sent.
 */
export type ToWorker = { readonly req: number } & (
  | {
      /** Build (and keep) the model of `source` now, before any exploration of it asks. */
      readonly type: 'prepare';
      readonly id: number;
      readonly source: ModelSource;
    }
  | {
      readonly type: 'join';
      readonly id: number;
      readonly source: ModelSource;
      readonly settings: EngineSettings;
      readonly buffers: StoreBuffers;
      readonly limits: RunLimits;
    }
  | {
      /** Take part in the level under way (the main thread and any others expand it too): claim its segments till none is left. */
      readonly type: 'level';
      readonly id: number;
      readonly segments: readonly FrontierSegment[];
      readonly depth: number;
      readonly levelEnd: number;
      /** This thread's spill file for the level. */
      readonly file: string;
    }
  | { readonly type: 'finish'; readonly id: number }
  | {
      readonly type: 'simulate';
      readonly id: number;
      readonly source: ModelSource;
      readonly options: Pick<SimulationOptions, 'seed' | 'walks' | 'depth' | 'shard'>;
      readonly limits: RunLimits;
      /** Shared counters (simulate.ts, `createSimulationCounters`). */
      readonly shared: SharedArrayBuffer;
      /** This thread's entry word in `shared`. */
      readonly slot: number;
    }
);

/** A worker thread's answer to the request `req`. */
export type FromWorker = { readonly req: number } & (
  | { readonly type: 'prepared'; readonly id: number }
  | { readonly type: 'joined'; readonly id: number }
  | { readonly type: 'level-done'; readonly id: number; readonly segments: FrontierSegment[]; readonly generated: number }
  | { readonly type: 'tally'; readonly id: number; readonly tally: Tally }
  | { readonly type: 'simulated'; readonly id: number; readonly tally: SimulationTally }
  | {
      readonly type: 'failed';
      readonly id: number;
      readonly message: string;
      /** Set when the model broke its contract (guard.ts `ModelFault`): the file the fault names. */
      readonly faultyModelFile?: string;
    }
);

/** A message to a worker thread before the pool numbers it. */
export type WorkerRequest = ToWorker extends infer M ? (M extends unknown ? Omit<M, 'req'> : never) : never;

/** The `workerData.role` of a session's threads. */
export const EXPLORER_THREAD = 'streamjoin-explorer';
