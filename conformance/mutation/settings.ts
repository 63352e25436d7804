// The harness depth of the mutation measurement (docs/mutation.md): conform's
// defaults (every example, every exhaustive scenario, 100 random traces per
// level), with one fixed seed so that a rerun measures the same harness.

/** Random traces per level: `streamjoin conform`'s default `--runs`. */
export const MUTATION_RANDOM_RUNS = 100;

/** The fast-check seed of the random traces. */
export const MUTATION_SEED = 20_250_901;

/**
 * Random kill traces in the kill-mode part (kill.mutation.ts): each is a
 * process start per kill, so a few, at the same seed.
 */
export const KILL_MUTATION_RANDOM_RUNS = 8;
