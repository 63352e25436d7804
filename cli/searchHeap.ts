// The heap of a `check` process: its main thread explores (alone, or as one
// of the workers), and the explorer's garbage is short-lived (a state decoded,
// expanded, encoded), so a nursery left at its first size collects it as well
// as the larger one V8 would grow it to. The explorer's own threads get
// the same by their resource limits (model/explorer/session.ts). Measured on
// `ci`, one thread: peak RSS about 14 MB smaller (111 → 97 MB), CPU time
// within the noise (docs/benchmarks.md, "The explorer's heap").
import { setFlagsFromString } from 'node:v8';

/**
 * Keeps this process's young generation at its first size. Only V8's
 * growth decision reads the flag, so setting it after start-up is safe; the
 * CLI calls it for `check`, never the library (a flag is process-wide).
 */
export function keepNurserySmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
