// What crosses between a check session (session.ts) and its worker threads
// (worker.ts): where a thread gets a model, and the messages.
import type { EngineSettings, RunLimits, Tally } from './engine.ts';
import type { SimulationOptions, SimulationTally } from './simulate.ts';
import type { FrontierSegment } from './frontier.ts';
import type { StoreBuffers } from './store.ts';
import type { Model } from './types.ts';

/** Where a worker thread gets a model: `module`'s export `export`, called with `args`. */
export interface ModelSource {
  /** A module URL (`file:`). */
  readonly module: string;
  readonly export: string;
  /** Plain JSON values. */
  readonly args: readonly unknown[];
}

/** What a model factory may return: a model, or a holder that hands its model to a function (as presets do). */
export type BuiltModel = Model<unknown, unknown> | { use<R>(f: <S, A>(model: Model<S, A>) => R): R };

export async function buildModel(source: ModelSource): Promise<Model<unknown, unknown>> {
  const mod = (await import(source.module)) as Record<string, unknown>;
  const factory = mod[source.export];
  if (typeof factory !== 'function') throw new Error(`${source.module} has no function ${source.export}`);
  const built = (factory as (...args: readonly unknown[]) => BuiltModel)(...source.args);
  return 'use' in built ? built.use((m) => m as Model<unknown, unknown>) : built;
}

export type ToWorker =
  | {
      readonly type: 'join';
      readonly id: number;
      readonly source: ModelSource;
      readonly settings: EngineSettings;
      readonly buffers: StoreBuffers;
      readonly limits: RunLimits;
    }
  | {
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
      /** This thread runs walks first, first + stride, ... */
      readonly first: number;
      readonly stride: number;
      readonly limits: RunLimits;
      /** Shared counters: [stop flag, walks] (Int32) and steps (BigInt64 at byte 8). */
      readonly shared: SharedArrayBuffer;
    };

export type FromWorker =
  | { readonly type: 'level-done'; readonly id: number; readonly segments: FrontierSegment[]; readonly generated: number }
  | { readonly type: 'tally'; readonly id: number; readonly tally: Tally }
  | { readonly type: 'simulated'; readonly id: number; readonly tally: SimulationTally }
  | { readonly type: 'failed'; readonly id: number; readonly message: string };

/** The `workerData.role` of a session's threads. */
export const EXPLORER_THREAD = 'streamjoin-explorer';
