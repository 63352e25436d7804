// SIGINT and SIGTERM, for every command (main.ts): the first signal aborts
// `Output.signal`, and the command stops, reports what it has (verdict
// unknown), stops its system under test and writes nothing half; a second
// signal stops at once, taking every system under test's processes and every
// input read ahead (spec/inputFiles.ts) along. This is the only place that
// listens to signals; library code gets the AbortSignal, and long work on the
// main thread yields to the event loop so the handler runs (spec/pacing.ts).
import { killAllSystems } from '../conformance/adapters/processGroup.ts';
import { releaseInputs } from '../spec/index.ts';

export interface Interrupts {
  /** Aborted by the first SIGINT or SIGTERM; its reason is an Error whose message is the signal's name. */
  readonly signal: AbortSignal;
  /** Removes the handlers (the command has returned). */
  dispose(): void;
}

/** Installs the handlers; `notice` is told, once, that the command is stopping. */
export function installInterrupts(notice: (text: string) => void): Interrupts {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!controller.signal.aborted) {
      notice(`\nstreamjoin: ${signal}: stopping and reporting what was done (send ${signal} again to stop at once)\n`);
      controller.abort(new Error(signal));
      return;
    }
    // Stop at once, as the signal would without us: nothing of the run outlives it.
    killAllSystems();
    releaseInputs();
    dispose();
    process.kill(process.pid, signal);
  };
  const dispose = (): void => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { signal: controller.signal, dispose };
}

/**
 * After the command returned, the process should end by itself: nothing of
 * the run is left. If something still holds the event loop (a pipe nobody
 * closed), say what, on stderr, and end anyway after `ms`.
 */
export function exitSoon(code: number, ms: number, notice: (text: string) => void): void {
  setTimeout(() => {
    const left = process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap' && r !== 'Timeout');
    notice(`streamjoin: internal error: still waiting for ${left.join(', ') || 'something'} ${ms} ms after the command ended; exiting\n`);
    process.exit(code);
  }, ms).unref();
}

/**
 * An end of the process that no command decided is never a verdict. Until
 * `done()` is called, code run in this process (a user's model for `check
 * --model`, a system under test in-process) that calls `process.exit`, or an
 * event loop that empties with the command's promise unsettled, would end it
 * with whatever code came (0, a pass; 13, unsettled); and at any time, before
 * or after the command returned, a rejected promise nothing handled would end
 * it with Node's 1, a fail. Each is said on stderr (and, under `--json`, as the
 * error report `report` makes of the line) and ends the process with 255, an
 * internal error.
 */
export function refuseStrayEnds(command: string, notice: (text: string) => void, report: ((text: string) => void) | undefined): () => void {
  const say = (text: string): void => {
    notice(`${text}\n`);
    report?.(text);
  };
  const onExit = (code: number): void => {
    say(
      `streamjoin: internal error: the process ended (code ${code}) before ${command} finished: code it ran called process.exit, or nothing was left to wait for; there is no verdict`,
    );
    process.exitCode = 255;
  };
  const onRejection = (e: unknown): void => {
    process.off('exit', onExit);
    say(`streamjoin: internal error: a rejected promise nothing handled: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(255);
  };
  process.on('exit', onExit);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('exit', onExit);
  };
}
