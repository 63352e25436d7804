// The domains random cluster traces (clusterTraces.ts) are drawn from:
// worker names, keys, row ids, times, and how many records and choices.
import { collidingNames, LOOSELY_EQUAL, lineBreakNames, looselyEqualNames } from './edges.ts';

/** Small domains: two keys, two or three workers, a dozen records, a dozen control actions. */
export interface ClusterDomain {
  /** Worker names; a config takes the first two or more. */
  readonly workers: readonly string[];
  /** The declared keys. */
  readonly keys: readonly string[];
  /** The row ids. */
  readonly ids: readonly string[];
  /** Row times are drawn from [0, maxTime]. */
  readonly maxTime: number;
  /** Fewest records in a workload. */
  readonly minRecords: number;
  /** Most records in a workload. */
  readonly maxRecords: number;
  /** Most choices (control actions and scenarios) in a trace. */
  readonly maxChoices: number;
  /** Keys and ids collide when concatenated naively with a common separator (J3): workloads then insert colliding pairs together. */
  readonly colliding?: boolean;
}

export const smallClusterDomain: ClusterDomain = {
  workers: ['w1', 'w2', 'w3'],
  keys: ['k1', 'k2'],
  ids: ['a', 'b', 'c'],
  maxTime: 3,
  minRecords: 3,
  maxRecords: 12,
  maxChoices: 12,
};

/**
 * Larger configurations: up to five workers and six keys, so that a worker
 * owns several keys and copies are numbered past ten (worker index × keys +
 * key index): when a paused or restarted worker catches up on several keys
 * at once, eager processing orders more than ten copies (SPEC §7), and the
 * guards and recoveries meet keys that are not alike (C5, C6, C10).
 */
export const wideClusterDomain: ClusterDomain = {
  ...smallClusterDomain,
  workers: ['w1', 'w2', 'w3', 'w4', 'w5'],
  keys: ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'],
  minRecords: 6,
  maxRecords: 18,
  maxChoices: 14,
};

/** Longer runs, for lockstep tests that drive a cluster directly (cheap per step; faults compound). */
export const longClusterDomain: ClusterDomain = { ...smallClusterDomain, maxRecords: 16, maxChoices: 24 };

/**
 * Odd names everywhere: a worker and a key named `__proto__`, a worker named
 * `constructor`, and names and ids with the characters the match-id encoding
 * escapes (`/`, `%`) or an unescaped encoding like `"L:"+a+"|R:"+b` splits on (`|R:`).
 */
export const oddClusterDomain: ClusterDomain = {
  ...smallClusterDomain,
  workers: ['__proto__', 'constructor', 'w/1%2F'],
  keys: ['__proto__', 'k|R:1/%'],
  ids: ['a|R:b', 'a', 'constructor'],
};

/**
 * Keys and ids that collide under a naive match-id encoding with any common
 * separator (edges.ts `collidingNames`, J3); of the keys `k{s}x` that
 * collide across keys, those of `/` (the spec's own separator) and `|`.
 */
export const collidingClusterDomain: ClusterDomain = { ...smallClusterDomain, ...collidingNames(['/', '|']), colliding: true };

/**
 * Keys, ids and a worker with every line break of the class inside them
 * (edges.ts `LINE_BREAKS`): what a system keeps in a line-oriented file
 * (its log, its checkpoints, its ownership table) and splits as text cuts in two.
 */
export const lineBreakClusterDomain: ClusterDomain = { ...smallClusterDomain, ...lineBreakNames(), workers: ['w1', 'w\u20292', 'w\n3'] };

/**
 * One domain per group of names equal under a loose comparison (edges.ts
 * `LOOSELY_EQUAL`): its members as keys, ids and workers (an ownership table
 * or a store keyed loosely takes two of them for one).
 */
export const looselyEqualClusterDomains: readonly ClusterDomain[] = LOOSELY_EQUAL.map((group) => ({
  ...smallClusterDomain,
  ...looselyEqualNames(group),
  workers: group.length >= 3 ? group.slice(0, 3) : [...group, 'w'],
}));

/** A key no domain declares (C3: records of it are rejected before the log). */
export const UNDECLARED_KEY = 'k-undeclared';
