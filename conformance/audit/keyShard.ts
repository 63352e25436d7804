// Sharded audits (`audit --shard K/N`): the properties are per key (SPEC §6),
// so shard K of N judges only the keys that hash to it, reading both files
// whole (every watermark counts for every key) but keeping state for its
// keys only. The hash is FNV-1a over the key's UTF-16 code units: stable
// across machines and runs, so N shards split the keys exactly.

/** Shard `index` (1-based) of `count`: the same shape as the harness's `--shard K/N`. */
export interface KeyShard {
  /** The shard, 1-based. */
  readonly index: number;
  /** How many shards the keys are split into. */
  readonly count: number;
}

/** The shard (1-based) of `count` that key `key` falls to. */
export function shardOfKey(key: string, count: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return (h % count) + 1;
}

/** Whether `key` is the shard's (every key is when there is no shard). */
export function keyInShard(key: string, shard: KeyShard | undefined): boolean {
  return shard === undefined || shard.count === 1 || shardOfKey(key, shard.count) === shard.index;
}
