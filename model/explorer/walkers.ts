// The walkers of one simulation, on this thread and on pool threads
// (session.ts, worker.ts): the counters they share (a stop flag, the walks
// and steps so far, the next walk to claim, and one entry word per pool
// thread), the hooks every walker runs with, a pool thread's loop, and a
// session's simulation, which runs this thread's walks and gathers the
// threads' (simulate.ts walks, minimizes and reports).
import { setImmediate as yieldToEvents } from 'node:timers/promises';
import { INTERRUPTED, runInterrupted, type RunLimits } from './engine.ts';
import type { CheckSession, SessionSimulation, ThreadPool } from './session.ts';
import {
  emptySimulationTally,
  mergeSimulationTally,
  simulationReport,
  walkHere,
  type SimulationOptions,
  type SimulationReport,
  type SimulationTally,
  type WalkResult,
} from './simulate.ts';
import type { FromWorker, ModelSource } from './source.ts';
import type { Model } from './types.ts';

/**
 * Counters a simulation's threads share: a stop flag and walks (Int32), steps (BigInt64), the next walk
 * to claim (Int32 at byte 16), then one entry word per pool thread (Int32 from byte 24, see `enterWalks`).
 */
export function createSimulationCounters(threads = 0): SharedArrayBuffer {
  return new SharedArrayBuffer(ENTRIES_AT + 4 * threads);
}

const ENTRIES_AT = 24;
/** A pool thread's entry word: it has not started walking yet, it has, or the simulation ended without it. */
const NOT_ENTERED = 0;
const ENTERED = 1;
const SHUT_OUT = 2;

/**
 * A pool thread, its model built, enters the simulation's walks: true, or
 * false if the simulation already ended without it (`shutOutLateThreads`).
 */
export function enterWalks(shared: SharedArrayBuffer, slot: number): boolean {
  return Atomics.compareExchange(new Int32Array(shared, ENTRIES_AT), slot, NOT_ENTERED, ENTERED) === NOT_ENTERED;
}

/**
 * When this thread's walks are over (the budget, a violation, the walk
 * count), the pool threads still building their model are shut out: none
 * has claimed a walk, so the simulation need not wait for them (a model
 * can take a second or more to build on a loaded machine, all past the
 * time budget). Returns, per slot, whether that thread entered (its walks
 * must then be awaited: they end at the same deadline, stop flag or count).
 */
export function shutOutLateThreads(shared: SharedArrayBuffer, threads: number): boolean[] {
  const entries = new Int32Array(shared, ENTRIES_AT, threads);
  const entered: boolean[] = [];
  for (let slot = 0; slot < threads; slot++) entered.push(Atomics.compareExchange(entries, slot, NOT_ENTERED, SHUT_OUT) === ENTERED);
  return entered;
}

/** Claims the next walk (in the shard's numbering) from the counters every walker of a simulation shares. */
export function walkClaimer(shared: SharedArrayBuffer): () => number {
  const next = new Int32Array(shared, 16, 1);
  return () => Atomics.add(next, 0, 1);
}

export function simulationCounters(shared: SharedArrayBuffer): {
  readonly walks: number;
  readonly steps: number;
  readonly stopped: boolean;
} {
  const ints = new Int32Array(shared, 0, 2);
  return {
    stopped: Atomics.load(ints, 0) !== 0,
    walks: Atomics.load(ints, 1),
    steps: Number(Atomics.load(new BigInt64Array(shared, 8, 1), 0)),
  };
}

/**
 * What every walker of one simulation shares, on this thread or a worker: `more` says go on while no
 * walker has found a violation (`shared`'s first int), nothing is `interrupted` and the deadline is
 * ahead; `counted` adds a walk and its steps to `shared`.
 */
export function sharedWalkHooks(
  shared: SharedArrayBuffer,
  deadline: number,
  interrupted: () => boolean,
): { readonly more: () => boolean; readonly counted: (walk: WalkResult) => void } {
  const ints = new Int32Array(shared, 0, 2);
  const steps = new BigInt64Array(shared, 8, 1);
  return {
    // The clock at every ask (one per walk and one per 1,024 steps: tens of nanoseconds against
    // milliseconds), so that a walker overruns the deadline by 1,024 steps at most, however slowly
    // a loaded machine runs it.
    more: () => !(Atomics.load(ints, 0) !== 0 || interrupted() || Date.now() >= deadline),
    counted: (walk) => {
      Atomics.add(ints, 1, 1);
      Atomics.add(steps, 0, BigInt(walk.steps));
      if (walk.violation) Atomics.store(ints, 0, 1);
    },
  };
}

/**
 * Runs a pool thread's walks to the end (the walk count, the deadline, an
 * interrupt, or a violation found by any walker), counting into `shared`
 * and claiming each walk from it; none if the simulation ended before the
 * thread entered it (its entry word `slot`, see `shutOutLateThreads`).
 */
export function runWalks<S, A>(
  model: Model<S, A>,
  options: Pick<SimulationOptions, 'seed' | 'walks' | 'walk' | 'depth' | 'shard'>,
  limits: { readonly control: SharedArrayBuffer; readonly deadline: number },
  shared: SharedArrayBuffer,
  slot: number,
): SimulationTally {
  if (!enterWalks(shared, slot)) return emptySimulationTally();
  const control = new Int32Array(limits.control);
  const hooks = sharedWalkHooks(shared, limits.deadline, () => Atomics.load(control, INTERRUPTED) !== 0);
  const loop = walkHere(model, options, 0, 1, hooks.more, hooks.counted, walkClaimer(shared));
  let step = loop.next();
  while (!step.done) step = loop.next();
  return step.value;
}

// ---------------------------------------------------------------------------
// A simulation of a session, on this thread and the pool's

/** How often the session samples a simulation's counters for progress, when the walks run on threads. */
const SIMULATION_SAMPLE_MS = 200;

/**
 * A simulation of `session` (`CheckSession.simulate`, with the exploration
 * id `id`): walks on this thread, and with several workers on N−1 threads
 * of `pool` as well, all claiming walks from one shared counter.
 */
export async function simulateInSession<S, A>(
  session: CheckSession,
  pool: () => ThreadPool,
  id: number,
  model: Model<S, A>,
  source: ModelSource | undefined,
  options: SessionSimulation,
): Promise<SimulationReport<S, A>> {
  const limits = session.limits;
  const started = performance.now();
  const shared = createSimulationCounters(session.workers);
  const onProgress = options.onProgress;
  const every = options.progressIntervalMs ?? 500;
  let last = started;
  const sample = (): void => {
    if (!onProgress) return;
    const now = performance.now();
    if (now - last < every) return;
    last = now;
    const c = simulationCounters(shared);
    const s = (now - started) / 1000;
    onProgress({ walks: c.walks, steps: c.steps, elapsedMs: now - started, walksPerSecond: c.walks / s, stepsPerSecond: c.steps / s });
  };
  const parallel = session.workers > 1 && source !== undefined && options.walk === undefined;
  const tally = emptySimulationTally();
  let workers = 1;
  // The walks on this thread, claimed from the shared counter like the threads' (yielding to the event loop every 25 ms between walks).
  const walkOnThisThread = async (claim: (() => number) | undefined): Promise<SimulationTally> => {
    const loop = walkHereCounting(model, options, shared, limits, claim);
    let lastYield = performance.now();
    let step = loop.next();
    while (!step.done) {
      const now = performance.now();
      if (now - lastYield >= 25) {
        sample();
        await yieldToEvents();
        lastYield = performance.now();
      }
      step = loop.next();
    }
    return step.value;
  };
  if (parallel) {
    // N walkers: this thread, which has the model and starts at once, and N-1 of the pool's,
    // which join as soon as they have built theirs; each claims the next walk when it is free.
    const threadPool = pool();
    const threads = await threadPool.acquire();
    workers = threads.length + 1;
    const claim = walkClaimer(shared);
    const timer = setInterval(sample, SIMULATION_SAMPLE_MS);
    const failures: (Error | undefined)[] = threads.map(() => undefined);
    const replies = threads.map((t, slot) => {
      const reply = t.ask({
        type: 'simulate',
        id,
        source,
        options: {
          seed: options.seed,
          depth: options.depth,
          ...(options.walks !== undefined ? { walks: options.walks } : {}),
          ...(options.shard !== undefined ? { shard: options.shard } : {}),
        },
        limits,
        shared,
        slot,
      });
      // Each thread goes back to the pool when it replies: a thread shut out below replies only once
      // its model is built, after this simulation may have ended. A failure is rethrown below, not left unhandled.
      reply.then(
        () => threadPool.release([t]),
        (e: unknown) => {
          failures[slot] = e instanceof Error ? e : new Error(String(e));
          threadPool.release([t]);
        },
      );
      return reply;
    });
    try {
      mergeSimulationTally(tally, await walkOnThisThread(claim));
      // The threads that have not begun walking yet (still building their model) are not waited for.
      const entered = shutOutLateThreads(shared, threads.length);
      for (let slot = 0; slot < threads.length; slot++) {
        const failure = failures[slot];
        if (failure) throw failure;
        if (!entered[slot]) continue;
        const r = await (replies[slot] as Promise<FromWorker>);
        if (r.type === 'simulated') mergeSimulationTally(tally, r.tally);
      }
    } finally {
      clearInterval(timer);
    }
  } else {
    mergeSimulationTally(tally, await walkOnThisThread(undefined));
  }
  if (onProgress) {
    last = -Infinity;
    sample();
  }
  const durationMs = performance.now() - started;
  const stoppedBy: SimulationReport<S, A>['stoppedBy'] = tally.violation
    ? 'violation'
    : runInterrupted(limits)
      ? 'interrupted'
      : (options.walks !== undefined && tally.walks >= options.walks) || options.walk !== undefined
        ? 'walks'
        : 'max-seconds';
  return simulationReport(model, tally, {
    seed: options.seed,
    depth: options.depth,
    durationMs,
    workers,
    stoppedBy,
    minimizeSeconds: options.minimizeSeconds ?? 30,
  });
}

/** Walks on this thread, counting into `shared` as the threads do (and, with `claim`, claiming walks as they do). */
function* walkHereCounting<S, A>(
  model: Model<S, A>,
  options: SimulationOptions,
  shared: SharedArrayBuffer,
  limits: RunLimits,
  claim: (() => number) | undefined,
): Generator<void, SimulationTally, void> {
  // A violation found by any walker stops every walker.
  const hooks = sharedWalkHooks(shared, limits.deadline, () => runInterrupted(limits));
  return yield* walkHere(model, options, 0, 1, hooks.more, hooks.counted, claim);
}
