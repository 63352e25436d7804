// A check session: the explorations of one run (one `check` command: the
// parts of a preset, each a model) under one budget, on a pool of worker
// threads.
//
// With one worker, every exploration runs on this thread, one after the
// other, yielding to the event loop between frontier segments (so a signal
// can stop it). With more, a model that has a codec and a source a thread
// can build it from runs on the pool: each level is expanded by every thread
// the exploration holds, over the shared store, and the session gives the
// threads to whichever exploration starts a level next; so the parts of a
// preset run side by side, and one part left alone gets every thread. A
// thread goes back to the pool as soon as it has no segment of its level
// left to claim; idle while no exploration waits for a level, it joins a
// level under way (the threads claim its frontier segments one at a time),
// so no thread idles at the tail of a level while another part has work. The
// states stored, the verdicts and the depth of every counterexample are the
// same as with one thread (engine.ts says why).
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { setImmediate as yieldToEvents } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { engineSettings, runLimits } from './checker.ts';
import {
  emptyTally,
  Expander,
  exploreHere,
  interruptRun,
  mergeTally,
  runInterrupted,
  runTotal,
  type EngineSettings,
  type Exploration,
  type RunLimits,
  type Tally,
} from './engine.ts';
import { Visited } from './visited.ts';
import {
  discardSegments,
  FrontierWriter,
  frontierFigures,
  removeSegmentFiles,
  removeSpillDirectory,
  type FrontierSegment,
} from './frontier.ts';
import { buildReport } from './report.ts';
import type { SimulationOptions, SimulationReport } from './simulate.ts';
import { simulateInSession } from './walkers.ts';
import { EXPLORER_THREAD, type FromWorker, type ModelSource, type ToWorker } from './source.ts';
import { createStoreBuffers, recycleStoreBuffers, StateStore } from './store.ts';
import type { CheckOptions, CheckReport, Model, ProgressSample } from './types.ts';

export interface SessionOptions {
  /** Threads exploring (default: the machine's cores). */
  readonly workers?: number;
  /** Distinct states over every exploration of the session. */
  readonly maxStates?: number;
  /** Seconds from the session's start, for every exploration together. */
  readonly maxSeconds?: number;
  /** Bytes of frontier kept in memory before segments spill to disk (default: never). */
  readonly frontierMemory?: number;
  readonly spillDirectory?: string;
}

/** How one exploration runs: the reductions, and progress. */
export type PartOptions = Pick<
  CheckOptions,
  'visited' | 'symmetry' | 'partialOrder' | 'stopAtFirstViolation' | 'onProgress' | 'progressIntervalMs'
>;

/**
 * The young generation of a worker thread's heap, in MB (V8's default grows
 * it to 48). The explorer's garbage is short-lived (a state decoded,
 * expanded, encoded), so a small nursery collects it as well, and each
 * thread's heap stays 10–20 MB smaller: on `ci` with two threads, peak RSS
 * about 140 MB instead of 170, for the same CPU time.
 */
const THREAD_YOUNG_GENERATION_MB = 6;

/** The command line to start a worker thread: the compiled worker, or the TypeScript one through tsx. */
function startThread(): Worker {
  const here = import.meta.url;
  const data = { role: EXPLORER_THREAD };
  const resourceLimits = { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB };
  if (extname(fileURLToPath(here)) !== '.ts') return new Worker(new URL('./worker.js', here), { workerData: data, resourceLimits });
  // From the TypeScript sources (tests, or the checkout's launcher): register tsx in the thread, then load the worker.
  const require = createRequire(here);
  const pkgFile = require.resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { exports: Record<string, { import?: { default?: string } }> };
  const api = pathToFileURL(join(pkgFile, '..', pkg.exports['./esm/api']?.import?.default ?? 'dist/esm/api/index.mjs')).href;
  const worker = new URL('./worker.ts', here).href;
  const code = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(worker)}); });`;
  return new Worker(code, { eval: true, workerData: data, resourceLimits });
}

/** One worker thread: sends messages and awaits the matching replies. */
class PoolThread {
  // Private: the declarations then name no Node type (a TypeScript user needs no @types/node).
  private readonly worker: Worker;
  /** Explorations this thread has joined. */
  readonly joined = new Set<number>();
  private readonly waiting = new Map<number, { resolve: (m: FromWorker) => void; reject: (e: Error) => void }>();
  private failure: Error | undefined;

  constructor() {
    this.worker = startThread();
    this.worker.on('message', (m: FromWorker) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.type === 'failed') w.reject(new Error(`an explorer thread failed: ${m.message}`));
      else w.resolve(m);
    });
    const fail = (e: Error): void => {
      this.failure = e;
      for (const w of this.waiting.values()) w.reject(e);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => {
      if (code !== 0 || this.waiting.size > 0) fail(new Error(`an explorer thread exited (code ${code})`));
    });
  }

  send(m: ToWorker): void {
    this.worker.postMessage(m);
  }

  /** Stops the thread. */
  terminate(): Promise<number> {
    return this.worker.terminate();
  }

  /** Sends `m` and resolves with the thread's reply about the same exploration. */
  ask(m: ToWorker): Promise<FromWorker> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.set(m.id, { resolve, reject });
      this.worker.postMessage(m);
    });
  }
}

/**
 * The threads, handed to explorations a level at a time. A thread that
 * falls idle while no exploration waits for a level joins a level already
 * under way (`offerHelp`): so once the small parts of a preset are done,
 * every thread works on the part left, within its level too.
 */
export class ThreadPool {
  private readonly threads: PoolThread[] = [];
  private readonly idle: PoolThread[] = [];
  private readonly queue: ((threads: PoolThread[]) => void)[] = [];
  /** Levels under way that an idle thread may join. */
  private readonly helpWanted = new Set<(thread: PoolThread) => void>();
  private readonly size: number;

  constructor(size: number) {
    this.size = size;
  }

  /**
   * Threads for one level: every idle one, shared with the explorations
   * already waiting; at least one. Starts threads up to `start` of the pool's
   * size (a simulation, which walks on this thread too, starts one fewer).
   */
  acquire(start = this.size): Promise<PoolThread[]> {
    while (this.threads.length < Math.min(this.size, start)) {
      const t = new PoolThread();
      this.threads.push(t);
      this.idle.push(t);
    }
    return new Promise((resolve) => {
      this.queue.push(resolve);
      this.dispatch();
    });
  }

  release(threads: readonly PoolThread[]): void {
    this.idle.push(...threads);
    this.dispatch();
  }

  /** Lets idle threads join a level under way (each calls `join`) until the returned function withdraws the offer. */
  offerHelp(join: (thread: PoolThread) => void): () => void {
    this.helpWanted.add(join);
    this.dispatch();
    return () => {
      this.helpWanted.delete(join);
    };
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const share = Math.max(1, Math.floor(this.idle.length / this.queue.length));
      const give = this.idle.splice(0, share);
      (this.queue.shift() as (threads: PoolThread[]) => void)(give);
    }
    // No exploration waits for a level: the idle threads help the levels under way, in turn.
    while (this.idle.length > 0 && this.helpWanted.size > 0) {
      for (const join of [...this.helpWanted]) {
        const thread = this.idle.shift();
        if (thread === undefined) break;
        join(thread);
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.terminate()));
    this.threads.length = 0;
    this.idle.length = 0;
  }
}

let explorationIds = 0;

/** Runs the explorations of one check command under one budget. */
export class CheckSession {
  readonly workers: number;
  readonly limits: RunLimits;
  private pool: ThreadPool | undefined;
  /** Explorations on this thread run one at a time. */
  private here: Promise<unknown> = Promise.resolve();

  constructor(options: SessionOptions = {}) {
    this.workers = Math.max(1, options.workers ?? availableParallelism());
    this.limits = runLimits(options);
  }

  /** Stops every exploration at once (they report `interrupted`, every property unknown). */
  interrupt(): void {
    interruptRun(this.limits);
  }

  get interrupted(): boolean {
    return runInterrupted(this.limits);
  }

  /**
   * Distinct states found so far, over every exploration. Without a state
   * budget each thread adds its new states every 64 states it expands, so
   * while explorations run this may trail by a few hundred.
   */
  get statesSoFar(): number {
    return runTotal(this.limits);
  }

  /**
   * Random walks on `model` (simulate.ts): on the pool's threads when the
   * session has more than one and `source` says how to build the model there.
   */
  simulate<S, A>(model: Model<S, A>, source: ModelSource | undefined, options: SessionSimulation): Promise<SimulationReport<S, A>> {
    return simulateInSession(this, () => (this.pool ??= new ThreadPool(this.workers)), explorationIds++, model, source, options);
  }

  /** Ends the session: stops the threads and removes spilled frontier files. */
  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = undefined;
    if (this.limits.spill.directory !== undefined) removeSpillDirectory(this.limits.spill.directory);
  }

  /**
   * Explores `model` and reports. With `source` (how a thread builds the
   * same model) and a codec, on the pool's threads when the session has
   * more than one; otherwise on this thread.
   */
  check<S, A>(model: Model<S, A>, source: ModelSource | undefined, options: PartOptions = {}): Promise<CheckReport<S, A>> {
    const { settings, notes } = engineSettings(model, options);
    const parallel = this.workers > 1 && source !== undefined && model.codec !== undefined && settings.visited === 'fingerprint';
    if (this.workers > 1 && !parallel) {
      notes.push(
        settings.visited === 'exact'
          ? 'explored on one thread: the exact visited set is not shared between threads'
          : 'explored on one thread: the model has no codec or no source a thread can build it from',
      );
    }
    if (parallel) return this.onThreads(model, source, settings, notes, options);
    const run = this.here.then(() => this.onThisThread(model, settings, notes, options));
    this.here = run.catch(() => undefined);
    return run;
  }

  private async onThisThread<S, A>(
    model: Model<S, A>,
    settings: EngineSettings,
    notes: string[],
    options: PartOptions,
  ): Promise<CheckReport<S, A>> {
    const progress = progressReporter(options);
    const loop = exploreHere(model, settings, this.limits, (p) => progress?.(p.depth, p.queued, p.generated, p.distinct));
    let lastYield = performance.now();
    let step = loop.next();
    while (!step.done) {
      const now = performance.now();
      if (now - lastYield >= 25) {
        await yieldToEvents();
        lastYield = performance.now();
      }
      step = loop.next();
    }
    progress?.final();
    const report = buildReport(model, step.value, { ...settings, notes, workers: 1, frontier: frontierFigures(this.limits.spill.account) });
    recycleStoreBuffers(step.value.visited.store.buffers);
    return report;
  }

  private async onThreads<S, A>(
    model: Model<S, A>,
    source: ModelSource,
    settings: EngineSettings,
    notes: string[],
    options: PartOptions,
  ): Promise<CheckReport<S, A>> {
    this.pool ??= new ThreadPool(this.workers);
    const pool = this.pool;
    const id = explorationIds++;
    const started = performance.now();
    const buffers = createStoreBuffers(model.progress !== undefined);
    const store = new StateStore(buffers, true);
    // This thread stores the initial states (level 0); the threads do the rest.
    const here = new Expander(model, settings, store, undefined, this.limits);
    const name = `p${process.pid}-${id}`;
    const writer = new FrontierWriter(true, this.limits.spill, `${name}-level-0.seg`);
    here.discoverInitial(writer);
    let segments: FrontierSegment[] = writer.finish();
    const participants = new Set<PoolThread>();
    const progress = progressReporter(options);
    let generated = here.generated;
    let depth = 0;
    let maxThreads = 1;
    try {
      while (segments.length > 0 && store.stopReason() === undefined) {
        if (runInterrupted(this.limits)) {
          store.stop('interrupted');
          break;
        }
        const threads = await pool.acquire();
        const levelEnd = store.claimed;
        store.resetWork(threads.length);
        const replies: FromWorker[] = [];
        const joinExploration = (t: PoolThread): void => {
          if (!t.joined.has(id)) {
            t.send({ type: 'join', id, source, settings, buffers, limits: this.limits });
            t.joined.add(id);
            participants.add(t);
          }
        };
        let files = 0;
        let late = 0;
        const pending: Promise<void>[] = [];
        const expand = (t: PoolThread, late: boolean): Promise<void> =>
          t
            .ask({ type: 'level', id, segments, depth, levelEnd, file: `${name}-level-${depth + 1}-t${files++}.seg`, late })
            .then((reply) => {
              replies.push(reply);
              // Once a thread is done, every unit of the level is taken: no one else need join.
              withdraw();
            })
            // Each thread goes back to the pool as soon as it is done: to the next level of a part
            // waiting for one, or to help a level under way, rather than idle till this level's end.
            .finally(() => pool.release([t]));
        // A thread that falls idle meanwhile joins this level.
        const withdraw = pool.offerHelp((t) => {
          late++;
          joinExploration(t);
          pending.push(expand(t, true));
        });
        try {
          for (const t of threads) joinExploration(t);
          pending.push(...threads.map((t) => expand(t, false)));
          while (pending.length > 0) await Promise.all(pending.splice(0));
        } finally {
          withdraw();
        }
        maxThreads = Math.max(maxThreads, threads.length + late);
        const next: FrontierSegment[] = [];
        let levelGenerated = 0;
        for (const r of replies) {
          if (r.type !== 'level-done') continue;
          next.push(...r.segments);
          levelGenerated += r.generated;
        }
        generated = here.generated + levelGenerated;
        if (store.stopReason() !== undefined) {
          discardSegments(this.limits.spill.account, segments);
          discardSegments(this.limits.spill.account, next);
          break;
        }
        removeSegmentFiles(segments);
        segments = next;
        depth++;
        progress?.(
          depth,
          segments.reduce((n, s) => n + s.states, 0),
          generated,
          store.size,
        );
      }
      const tally: Tally = emptyTally(model.invariants.length, model.goals?.length ?? 0);
      mergeTally(tally, here.tally);
      const tallies = await Promise.all([...participants].map((t) => t.ask({ type: 'finish', id })));
      for (const r of tallies) if (r.type === 'tally') mergeTally(tally, r.tally);
      progress?.final();
      const stoppedBy = store.stopReason();
      const exploration: Exploration = {
        visited: new Visited(store, undefined, here.visited.keyer) as Visited<unknown>,
        tally,
        exhausted: stoppedBy === undefined,
        stoppedBy,
        durationMs: performance.now() - started,
      };
      const report = buildReport(model, exploration, {
        ...settings,
        notes,
        workers: maxThreads,
        frontier: frontierFigures(this.limits.spill.account),
      });
      recycleStoreBuffers(buffers);
      return report;
    } catch (e) {
      discardSegments(this.limits.spill.account, segments);
      throw e;
    }
  }
}

// ---------------------------------------------------------------------------
// Simulation

export interface SessionSimulation extends SimulationOptions {
  /** Seconds to spend minimizing a violation (default 30). */
  readonly minimizeSeconds?: number;
}

/** Calls `onProgress` at most every interval, with a sample made from what the exploration says. */
function progressReporter(
  options: PartOptions,
): (((depth: number, queued: number, generated: number, distinct: number) => void) & { final(): void }) | undefined {
  const onProgress = options.onProgress;
  if (!onProgress) return undefined;
  const every = options.progressIntervalMs ?? 500;
  const started = performance.now();
  let last = started;
  let sample: Omit<ProgressSample, 'elapsedMs' | 'statesPerSecond'> = { generated: 0, distinct: 0, depth: 0, queue: 0 };
  const emit = (now: number): void => {
    const elapsedMs = now - started;
    onProgress({ ...sample, elapsedMs, statesPerSecond: elapsedMs > 0 ? (sample.distinct * 1000) / elapsedMs : 0 });
  };
  const report = (depth: number, queued: number, generated: number, distinct: number): void => {
    sample = { generated, distinct, depth, queue: queued };
    const now = performance.now();
    if (now - last >= every) {
      last = now;
      emit(now);
    }
  };
  return Object.assign(report, { final: () => emit(performance.now()) });
}
