// Long work on the main thread, made interruptible. A signal handler (and
// every timer) runs on the event loop, which synchronous work never returns
// to: a loop over a long trace, a model run in-process, a cover being built
// would not hear SIGINT until it ended. Such loops call `pace` now and then:
// it returns to the event loop once a slice of work has run since the last
// turn, and throws `Interrupted` once the run's AbortSignal is aborted (the
// CLI aborts it on SIGINT or SIGTERM, cli/interrupts.ts; a budget aborts it
// when it runs out).

/**
 * The part of an `AbortSignal` the library reads: whether it is aborted, why,
 * and its `abort` event. Structural, so a caller passes any AbortSignal (the
 * DOM's, Node's) and the published declarations need neither the DOM lib nor
 * `@types/node`.
 */
export interface AbortSignalLike {
  /** Whether the signal was aborted. */
  readonly aborted: boolean;
  /** Why it was aborted (an Error, a string, anything), once it is. */
  readonly reason?: unknown;
  /** Calls `listener` when the signal aborts. */
  addEventListener(type: 'abort', listener: () => void, options?: { readonly once?: boolean }): void;
  /** Stops calling `listener`. */
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** How much synchronous work runs between two turns of the event loop, in milliseconds. */
export const PACE_SLICE_MS = 20;

/** The work stopped because its AbortSignal was aborted: `reason` says why (the signal's name, a budget). */
export class Interrupted extends Error {
  /** Why the work stopped: the signal's name or the budget that ran out. */
  readonly reason: string;
  /** Builds the error; the message is `interrupted: ` and the reason. */
  constructor(reason: string) {
    super(`interrupted: ${reason}`);
    this.name = 'Interrupted';
    this.reason = reason;
  }
}

/** What an abort says: its reason's message (the CLI aborts with an Error naming the signal), else `aborted`. */
export function abortReason(signal: AbortSignalLike | undefined): string {
  const r: unknown = signal?.reason;
  if (r instanceof Error) return r.message;
  return typeof r === 'string' ? r : 'aborted';
}

/** Throws Interrupted if `signal` is aborted. */
export function throwIfInterrupted(signal: AbortSignalLike | undefined): void {
  if (signal?.aborted) throw new Interrupted(abortReason(signal));
}

/** One turn of the event loop: pending signals, timers and I/O run before this resolves. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

let lastTurn = performance.now();

/**
 * Call it often from long synchronous work (it costs a clock read): once
 * PACE_SLICE_MS of work ran since the last turn of the event loop (taken
 * here or anywhere else that called `pace`), it takes one, so a signal is
 * heard; then it throws Interrupted if `signal` is aborted.
 */
export async function pace(signal?: AbortSignalLike): Promise<void> {
  if (performance.now() - lastTurn >= PACE_SLICE_MS) {
    await yieldToEventLoop();
    lastTurn = performance.now();
  }
  throwIfInterrupted(signal);
}

/**
 * Whether `pace` has anything to do now (a turn of the event loop is due, or
 * `signal` is aborted): a hot loop calls it (a clock read) and awaits `pace`
 * only then, saving an await per item.
 */
export function paceDue(signal?: AbortSignalLike): boolean {
  return performance.now() - lastTurn >= PACE_SLICE_MS || signal?.aborted === true;
}

/**
 * A synchronous generator driven at the event loop's pace: its items, and
 * its return value, as an async generator that calls `pace` before each
 * pull (so a long read can be interrupted between any two items).
 */
export async function* paced<T, R>(items: Generator<T, R, undefined>, signal?: AbortSignalLike): AsyncGenerator<T, R, undefined> {
  try {
    for (;;) {
      if (paceDue(signal)) await pace(signal);
      const next = items.next();
      if (next.done) return next.value;
      yield next.value;
    }
  } finally {
    items.return(undefined as R);
  }
}

/**
 * `signal`, also aborted once `ms` milliseconds have passed (its reason then
 * an Error saying `budget`, e.g. "the time budget (--time-budget 60) ran
 * out"): a budget for a whole command, whose work stops as it stops on an
 * interrupt. `dispose` clears the timer.
 */
export function withDeadline(
  signal: AbortSignalLike | undefined,
  ms: number | undefined,
  budget: string,
): { readonly signal: AbortSignalLike | undefined; dispose(): void } {
  if (ms === undefined) return { signal, dispose: () => {} };
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new Error(`the time budget (${budget}) ran out`)), ms);
  timer.unref();
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}
