// The search both minimizers share (minimize.ts for lockstep traces,
// kill/killJob.ts for traces run with process kills): delete runs of steps,
// then single steps, while the trace still diverges (delta debugging).

/** One search: the trace's length now, and a try without some of its steps. */
export interface StepDeletion {
  /** The steps of the trace kept so far; its last is the step that diverged, never deleted. */
  readonly length: () => number;
  /**
   * Tries the trace kept without steps first..first+count-1: 'kept' when it
   * still diverges (it becomes the trace kept, cut at its divergence),
   * 'not kept' when it does not, 'not run' when it was not tried (out of
   * contract, J9): only runs count against the budget.
   */
  readonly without: (first: number, count: number) => Promise<'kept' | 'not kept' | 'not run'>;
  /** Runs of the system at most. */
  readonly budget: number;
  /** The search stops early when this says so (an interrupt). */
  readonly stopped?: () => boolean;
}

/**
 * Deletes steps before the last: first all of them at once, then halves,
 * quarters, down to single steps, from the front; a length that deleted
 * something is tried again before it is halved, so the single steps end at
 * a fixpoint. A divergence that needs a few of hundreds of steps loses the
 * rest in some tens of runs, where one run per step would spend the budget
 * first. Returns the runs it made.
 */
export async function deleteSteps(search: StepDeletion): Promise<number> {
  let runs = 0;
  const more = (): boolean => runs < search.budget && !search.stopped?.();
  let size = search.length() - 1;
  while (size >= 1 && more()) {
    let changed = false;
    for (let first = 0; first + size <= search.length() - 1 && more(); ) {
      const tried = await search.without(first, size);
      if (tried !== 'not run') runs++;
      // Kept: the steps after the run deleted moved to `first`, which is tried again.
      if (tried === 'kept') changed = true;
      else first += size;
    }
    if (!changed || size > search.length() - 1) size = Math.min(Math.floor(size / 2), search.length() - 1);
  }
  return runs;
}
