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
import { ModelFault } from './guard.ts';
import type { SimulationOptions, SimulationReport } from './simulate.ts';
import { simulateInSession } from './walkers.ts';
import { EXPLORER_THREAD, type FromWorker, type ModelSource, type WorkerRequest } from './source.ts';
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

/** One worker thread: sends requests and resolves each with its reply. */
class PoolThread {
  // Private: the declarations then name no Node type (a TypeScript user needs no @types/node).
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (m: FromWorker) => void; reject: (e: Error) => void }>();
  private failure: Error | undefined;
  private requests = 0;

  constructor() {
    this.worker = startThread();
    // An idle thread does not keep the process alive (a session never closed, a run that ended early);
    // one with a request outstanding does, till it replies.
    this.worker.unref();
    this.worker.on('message', (m: FromWorker) => {
      const w = this.waiting.get(m.req);
      if (!w) return;
      this.waiting.delete(m.req);
      if (this.waiting.size === 0) this.worker.unref();
      if (m.type === 'failed')
        // A user's model that broke its contract on a thread is the same bad input it is on this one.
        w.reject(
          m.faultyModelFile === undefined
            ? new Error(`an explorer thread failed: ${m.message}`)
            : new ModelFault(m.faultyModelFile, m.message),
        );
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

  /** Stops the thread. */
  terminate(): Promise<number> {
    // The thread's 'exit', which terminate() waits for, does not keep the event loop alive: with
    // nothing else pending, the process could end first, its top-level await unsettled (exit code 13
    // instead of the verdict's; seen with check --model --workers 2). A timer does, till the thread stops.
    const alive = setInterval(() => undefined, 1000);
    return this.worker.terminate().finally(() => clearInterval(alive));
  }

  /** Sends `m` and resolves with the thread's reply to it. */
  ask(m: WorkerRequest): Promise<FromWorker> {
    if (this.failure) return Promise.reject(this.failure);
    const req = this.requests++;
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(req, { resolve, reject });
      this.worker.postMessage({ ...m, req });
    });
  }
}

/**
 * The worker threads of a session (one fewer than its workers: the main
 * thread is the other), started with the session so that their start-up
 * (an isolate, the modules, the models) overlaps the main thread's. A
 * thread is handed work only when it is idle, so a thread still starting
 * never holds anything up: an exploration's levels go on on the main thread,
 * and an idle thread joins a level under way (`offerHelp`), in turn over the
 * explorations that want help; a simulation takes every idle thread
 * (`acquire`).
 */
export class ThreadPool {
  private readonly threads: PoolThread[] = [];
  private readonly idle: PoolThread[] = [];
  private readonly queue: ((threads: PoolThread[]) => void)[] = [];
  /** Levels under way that an idle thread may join. */
  private readonly helpWanted = new Set<(thread: PoolThread) => void>();

  constructor(size: number) {
    for (let i = 0; i < size; i++) {
      const t = new PoolThread();
      this.threads.push(t);
      this.idle.push(t);
    }
  }

  get size(): number {
    return this.threads.length;
  }

  /** Every idle thread, shared with the simulations already waiting; at least one. */
  acquire(): Promise<PoolThread[]> {
    return new Promise((resolve) => {
      this.queue.push(resolve);
      this.dispatch();
    });
  }

  release(threads: readonly PoolThread[]): void {
    this.idle.push(...threads);
    this.dispatch();
  }

  /**
   * Asks every thread (when it is free) to build the models of `sources`, so
   * that an exploration or simulation of one finds it built; resolves once
   * each thread has (or failed to: the exploration that needs it says so).
   */
  async prepare(id: number, sources: readonly ModelSource[]): Promise<void> {
    await Promise.all(this.threads.flatMap((t) => sources.map((source) => t.ask({ type: 'prepare', id, source }).catch(() => undefined))));
  }

  /** Lets idle threads join a level under way (each calls `join`, which must release it when done) until the returned function withdraws the offer. */
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
    // The idle threads help the levels under way, in turn (the first offer goes to the back, for fairness).
    while (this.idle.length > 0 && this.helpWanted.size > 0) {
      for (const join of [...this.helpWanted]) {
        const thread = this.idle.shift();
        if (thread === undefined) break;
        this.helpWanted.delete(join);
        this.helpWanted.add(join);
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
    // The threads start now: their start-up overlaps what the caller does before it explores (its models).
    if (this.workers > 1) this.threadPool();
  }

  /** The session's worker threads (one fewer than its workers: this thread is one). */
  private threadPool(): ThreadPool {
    this.pool ??= new ThreadPool(this.workers - 1);
    return this.pool;
  }

  /**
   * Has the session's threads build the models of `sources` now, while this
   * thread does something else (builds its own): an exploration or
   * simulation of one of them then finds it built on every thread. Resolves
   * once they have; nothing to do with one worker.
   */
  async prepare(sources: readonly ModelSource[]): Promise<void> {
    if (this.workers > 1 && sources.length > 0) await this.threadPool().prepare(explorationIds++, sources);
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
    return simulateInSession(this, () => this.threadPool(), explorationIds++, model, source, options);
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

  /**
   * Explores `model` on this thread and the pool's. This thread stores the
   * initial states and expands every level, in turns of `TURN_MS` (yielding
   * to the event loop between them: other explorations on this thread take
   * their turns, signals are heard); an idle pool thread joins the level under
   * way (`offerHelp`), first building its model if it has not, and claims
   * its segments like this thread. A level ends once every segment is
   * expanded and every thread that joined it has replied; so a thread that
   * starts late, or is busy with another exploration, holds no level up.
   */
  private async onThreads<S, A>(
    model: Model<S, A>,
    source: ModelSource,
    settings: EngineSettings,
    notes: string[],
    options: PartOptions,
  ): Promise<CheckReport<S, A>> {
    const pool = this.threadPool();
    const id = explorationIds++;
    const started = performance.now();
    const buffers = createStoreBuffers(model.progress !== undefined);
    const store = new StateStore(buffers, true);
    const here = new Expander(model, settings, store, undefined, this.limits);
    const name = `p${process.pid}-${id}`;
    const writer = new FrontierWriter(true, this.limits.spill, `${name}-level-0.seg`);
    here.discoverInitial(writer);
    let segments: FrontierSegment[] = writer.finish();
    /** Threads that joined the exploration (their models built), and what each has generated so far. */
    const joined = new Map<PoolThread, number>();
    const joining = new Set<PoolThread>();
    let failure: Error | undefined;
    const progress = progressReporter(options);
    let depth = 0;
    const join: WorkerRequest = { type: 'join', id, source, settings, buffers, limits: this.limits };
    try {
      while (segments.length > 0 && store.stopReason() === undefined) {
        if (runInterrupted(this.limits)) {
          store.stop('interrupted');
          break;
        }
        const levelEnd = store.claimed;
        store.resetWork(1);
        const out = new FrontierWriter(true, this.limits.spill, `${name}-level-${depth + 1}-t0.seg`);
        const replies: FrontierSegment[][] = [];
        const pending: Promise<void>[] = [];
        let files = 1;
        const level: WorkerRequest = { type: 'level', id, segments, depth, levelEnd, file: '' };
        const help = (t: PoolThread): void => {
          if (!joined.has(t)) {
            // Not yet a part of this exploration: it builds its model and joins, then is free for a level.
            joining.add(t);
            t.ask(join)
              .then(
                () => joined.set(t, 0),
                (e: unknown) => {
                  failure ??= e instanceof Error ? e : new Error(String(e));
                },
              )
              .finally(() => {
                joining.delete(t);
                pool.release([t]);
              });
            return;
          }
          pending.push(
            t
              .ask({ ...level, file: `${name}-level-${depth + 1}-t${files++}.seg` })
              .then(
                (reply) => {
                  if (reply.type !== 'level-done') return;
                  replies.push(reply.segments);
                  joined.set(t, reply.generated);
                  // Once a thread is done, every segment of the level is taken: no one else need join.
                  withdraw();
                },
                // Kept, not thrown here: when this thread's share throws first (a user's model that breaks its
                // contract here only), no one awaits this promise, and the thread's end as the session closes
                // must not become an unhandled rejection after the command has reported its own error.
                (e: unknown) => {
                  failure ??= e instanceof Error ? e : new Error(String(e));
                },
              )
              .finally(() => pool.release([t])),
          );
        };
        const withdraw = pool.offerHelp(help);
        try {
          await this.expandHere(here, store, segments, depth, levelEnd, out);
        } finally {
          withdraw();
        }
        while (pending.length > 0) await Promise.all(pending.splice(0));
        if (failure) throw failure;
        const next = [...out.finish(), ...replies.flat()];
        if (store.stopReason() !== undefined) {
          discardSegments(this.limits.spill.account, segments);
          discardSegments(this.limits.spill.account, next);
          break;
        }
        removeSegmentFiles(segments);
        segments = next;
        depth++;
        let generated = here.generated;
        for (const n of joined.values()) generated += n;
        progress?.(
          depth,
          segments.reduce((n, s) => n + s.states, 0),
          generated,
          store.size,
        );
      }
      const tally: Tally = emptyTally(model.invariants.length, model.goals?.length ?? 0);
      mergeTally(tally, here.tally);
      // A thread still joining is told to forget the exploration once it has (it expanded nothing of it).
      for (const t of joining) if (!joined.has(t)) void t.ask({ type: 'finish', id }).catch(() => undefined);
      const tallies = await Promise.all([...joined.keys()].map((t) => t.ask({ type: 'finish', id })));
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
      const worked = [...joined.values()].filter((n) => n > 0).length;
      const report = buildReport(model, exploration, {
        ...settings,
        notes,
        workers: 1 + worked,
        frontier: frontierFigures(this.limits.spill.account),
      });
      recycleStoreBuffers(buffers);
      return report;
    } catch (e) {
      discardSegments(this.limits.spill.account, segments);
      throw e;
    }
  }

  /**
   * This thread's share of a level of an exploration on threads: claims
   * segments till none is left, in turns, yielding between them. While it
   * yields it is out of the level (`leave`), so a thread that asks for a
   * pause to rebuild the table does not wait for its turn to come back.
   */
  private async expandHere<S, A>(
    here: Expander<S, A>,
    store: StateStore,
    segments: readonly FrontierSegment[],
    depth: number,
    levelEnd: number,
    out: FrontierWriter,
  ): Promise<void> {
    store.refresh();
    let inLevel = true;
    const turn = async (): Promise<void> => {
      store.leave();
      inLevel = false;
      await yieldToEvents();
      store.joinWork();
      inLevel = true;
    };
    try {
      let turnStarted = performance.now();
      for (let unit = store.claimWork(); unit < segments.length; unit = store.claimWork()) {
        const segment = segments[unit] as FrontierSegment;
        let ok = here.expandSegment(segment, depth, levelEnd, out, { turnMs: TURN_MS, resume: false });
        while (ok === 'turn') {
          await turn();
          turnStarted = performance.now();
          ok = here.expandSegment(segment, depth, levelEnd, out, { turnMs: TURN_MS, resume: true });
        }
        if (!ok) return;
        if (performance.now() - turnStarted >= TURN_MS) {
          await turn();
          turnStarted = performance.now();
        }
      }
    } finally {
      if (inLevel) store.leave();
    }
  }
}

/** How long this thread expands a level of an exploration on threads before it yields to the event loop. */
const TURN_MS = 20;

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
