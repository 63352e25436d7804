// The --shard flag and the seed every shard of a job shares: apart from
// harnessArgs.ts so that commands without a system under test (check, audit)
// parse them without loading the harness's adapters and generators.
import { envOf, type Output } from './output.ts';
import { seedFlag, usageError } from './exitCodes.ts';
import { parseShard, type Shard } from '../conformance/job/shard.ts';

export const SHARD_HELP = `  --shard K/N          run only shard K of N (1 <= K <= N): item i of every list
                       of work (examples, each scenario's interleavings, each
                       level's random traces; parts; mutants) goes to shard
                       (i mod N) + 1; every shard needs the same --seed (or
                       STREAMJOIN_SEED); merge the shards' --json reports with
                       streamjoin merge-reports`;

/** --shard K/N, or undefined. */
export function shardFlag(text: string | undefined): Shard | undefined {
  if (text === undefined) return undefined;
  const shard = parseShard(text);
  if (typeof shard === 'string') throw usageError(shard);
  return shard;
}

/**
 * The seed (seedFlag); a shard of a job that draws random traces needs one
 * given (--seed or STREAMJOIN_SEED): the shards of one run share it, or their
 * union is not one run.
 */
export function shardSeed(text: string | undefined, shard: Shard | undefined, random: boolean, out: Output): number {
  const env = envOf(out);
  const given = text !== undefined || (env['STREAMJOIN_SEED'] !== undefined && env['STREAMJOIN_SEED'] !== '');
  if (shard && random && !given)
    throw usageError('--shard needs the seed every shard shares: give --seed N (or set STREAMJOIN_SEED) the same in every shard');
  return seedFlag(text, env);
}
