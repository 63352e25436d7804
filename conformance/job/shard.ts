// Sharding a job across CI machines (`--shard K/N`): item i of every list of
// work (examples, each scenario's interleavings, the random traces of a
// level, the parts of a model check, the mutants) belongs to shard
// (i mod N) + 1. Deterministic, so the N shards of one seed together run
// exactly the work of the unsharded run, each item once.

/** One shard of a job (`--shard K/N`): shard `index` of `count`. */
export interface Shard {
  /** 1-based. */
  readonly index: number;
  /** How many shards the job is split into. */
  readonly count: number;
}

/** Whether item `i` (0-based) of a list belongs to the shard; everything belongs to no shard at all. */
export function inShard(i: number, shard: Shard | undefined): boolean {
  return shard === undefined || i % shard.count === shard.index - 1;
}

/** The items of a list that belong to the shard. */
export function shardItems<T>(items: readonly T[], shard: Shard | undefined): T[] {
  return items.filter((_, i) => inShard(i, shard));
}

/** How many of the first `n` items belong to the shard. */
export function shardCount(n: number, shard: Shard | undefined): number {
  if (shard === undefined) return n;
  return n >= shard.index ? Math.floor((n - shard.index) / shard.count) + 1 : 0;
}

/** Parses `K/N` (1 <= K <= N); returns a message on error. */
export function parseShard(text: string): Shard | string {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  if (!m) return `--shard must be K/N (e.g. 2/4), got "${text}"`;
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (!Number.isSafeInteger(count) || count < 1 || index < 1 || index > count) return `--shard K/N needs 1 <= K <= N, got "${text}"`;
  return { index, count };
}
