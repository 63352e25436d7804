// What the never-evicting oracle says the result of each key is after each
// prefix of the log: the yardstick of ExactlyOnce (SPEC §6). Memoized per
// log array; the cluster model interns its logs so equal logs share one array.
import { parseMatchId } from '../spec/index.ts';
import type { JoinConfig, LogRecord } from '../spec/index.ts';
import { initialOracleState, relationOf, stepOracle } from './oracle.ts';

/** A relation restricted to one key, as sorted match ids joined by newlines. */
export type RelationSignature = string;

const byPrefix = new WeakMap<readonly LogRecord[], WeakMap<JoinConfig, ReadonlyMap<string, RelationSignature>[]>>();

function signaturesByKey(ids: Iterable<string>): Map<string, RelationSignature> {
  const perKey = new Map<string, string[]>();
  for (const id of ids) {
    const key = parseMatchId(id)?.key ?? '';
    let list = perKey.get(key);
    if (!list) perKey.set(key, (list = []));
    list.push(id);
  }
  return new Map([...perKey].map(([k, list]) => [k, list.sort().join('\n')]));
}

/** `result[p].get(key)`: the oracle's relation for `key` over `log[0..p)`; absent means empty. */
export function oracleRelationsByPrefix(config: JoinConfig, log: readonly LogRecord[]): ReadonlyMap<string, RelationSignature>[] {
  let perConfig = byPrefix.get(log);
  if (!perConfig) byPrefix.set(log, (perConfig = new WeakMap()));
  const cached = perConfig.get(config);
  if (cached) return cached;
  const out: ReadonlyMap<string, RelationSignature>[] = [new Map()];
  let state = initialOracleState;
  for (const record of log) {
    state = stepOracle(config, state, record).state;
    out.push(signaturesByKey(relationOf(state.rows).keys()));
  }
  perConfig.set(config, out);
  return out;
}

/** The signature of a set of match ids, for one key. */
export function relationSignature(ids: readonly string[]): RelationSignature {
  return [...ids].sort().join('\n');
}
