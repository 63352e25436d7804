// The sink of SPEC C9: per match id absent -> inserted -> retracted
// (retracted is terminal), per key a fence (the highest epoch raised or
// written), and the counters applied / deduped / fenced. Three of its checks
// are protocol elements that `check --ablate` can switch off (§6).
import type { Change } from '../../spec/index.ts';
import { copyEntries, emptyEntries, withEntry } from '../records.ts';
import { off, sinkWith, stateWith, type ClusterSetup, type ClusterState, type MatchStatus, type SinkState } from './clusterState.ts';
import { prefixShowing } from './oracleTimeline.ts';

/**
 * Writes the changes of one processed record for `key` under `epoch`. The
 * sink fences from its own record of the key's highest epoch (C9), never
 * from an epoch the writer supplies for comparison.
 */
export function sinkWrite(
  config: ClusterSetup,
  state: ClusterState,
  key: string,
  epoch: number,
  changes: readonly Change[],
): { state: ClusterState; fenced: boolean } {
  const sink = state.sink;
  const highest = sink.fence[key] ?? 0;
  if (epoch < highest && !off(config, 'sink-fence')) {
    return { state: stateWith(state, { sink: sinkWith(sink, { fenced: sink.fenced + changes.length }) }), fenced: true };
  }
  const matches = copyEntries<MatchStatus>(sink.matches[key] ?? emptyEntries());
  let { applied, deduped } = sink;
  let violation = state.ghost.violation;
  const committed = state.coordinator.epoch[key] ?? 0;
  if (epoch < committed && violation === null) {
    violation = `Fenced: a write for ${key} with epoch ${epoch} was applied after epoch ${committed} was committed`;
  }
  for (const c of changes) {
    const now = matches[c.match];
    if (c.op === 'insert') {
      if (now === undefined) {
        matches[c.match] = 'inserted';
        applied++;
      } else if (now === 'inserted') {
        if (off(config, 'sink-dedup')) {
          applied++;
          violation ??= `ExactlyOnce: insert of ${c.match} applied twice`;
        } else deduped++;
      } else if (off(config, 'terminal-retract')) {
        matches[c.match] = 'inserted';
        applied++;
        violation ??= `ExactlyOnce: ${c.match} was retracted and reappeared`;
      } else deduped++;
    } else if (now === 'retracted') {
      if (off(config, 'sink-dedup')) {
        applied++;
        violation ??= `ExactlyOnce: retract of ${c.match} applied twice`;
      } else deduped++;
    } else {
      // inserted -> retracted; absent -> retracted too, so that a late
      // insert of a match whose retract came first cannot resurrect it.
      matches[c.match] = 'retracted';
      applied++;
    }
  }
  const nextSink: SinkState = {
    matches: withEntry(sink.matches, key, matches),
    fence: withEntry(sink.fence, key, Math.max(highest, epoch)),
    applied,
    deduped,
    fenced: sink.fenced,
  };
  // Ghost (ExactlyOnce): the sink must now show the oracle's relation over
  // some prefix at or after the one it showed before.
  if (config.checkProperties === false) return { state: stateWith(state, { sink: nextSink }), fenced: false };
  const from = state.ghost.prefix[key] ?? 0;
  const p = prefixShowing(config.join, state.log, key, from, insertedMatches(nextSink, key));
  if (p === undefined) {
    violation ??= `ExactlyOnce: the sink's relation for ${key} equals the oracle's over no prefix of length >= ${from}`;
  }
  return {
    state: stateWith(state, { sink: nextSink, ghost: { prefix: withEntry(state.ghost.prefix, key, p ?? from), violation } }),
    fenced: false,
  };
}

/** Raises the sink's fence for `key` to at least `epoch` (C7 commit, C8 failover). */
export function raiseFence(state: ClusterState, key: string, epoch: number): ClusterState {
  const highest = state.sink.fence[key] ?? 0;
  if (epoch <= highest) return state;
  return stateWith(state, { sink: sinkWith(state.sink, { fence: withEntry(state.sink.fence, key, epoch) }) });
}

/** The match ids currently in the sink's relation for `key` (inserted, not retracted), sorted. */
export function sinkRelation(sink: SinkState, key: string): string[] {
  return insertedMatches(sink, key).sort();
}

/** The same, in no particular order (to compare as a set). */
export function insertedMatches(sink: SinkState, key: string): string[] {
  const out: string[] = [];
  const matches = sink.matches[key];
  for (const id in matches) if (matches[id] === 'inserted') out.push(id);
  return out;
}
