// fast-check keeps drawing and running values until its run count is
// reached; a property that merely passes once the job is interrupted still
// costs every remaining draw (a hundred thousand random traces go on for tens
// of seconds). This plugin ends the runs once an AbortSignal is aborted, the
// way fast-check's own time limit does: the run counts as interrupted, and a
// failure already found keeps what was shrunk of it so far.
import fc from 'fast-check';
import type { AbortSignalLike } from '../../spec/index.ts';

/**
 * Ends fast-check's runs (and its shrinking) once `signal` is aborted. The
 * property is called once more after the abort, so that it can record the
 * interrupt itself (conform's property turns it into verdict unknown).
 */
export function stopOnAbort(signal: AbortSignalLike): fc.UniversalPlugin {
  return () => ({
    decorateRun: (run) => (value) => {
      if (!signal.aborted) return run(value);
      const last = run(value);
      const stop = new fc.PreconditionFailure(true);
      return last !== null && typeof last === 'object' && 'then' in last ? last.then(() => stop) : stop;
    },
  });
}
