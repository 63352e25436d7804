// The independent systems under test and their injected bugs: written from
// SPEC.md, PROTOCOL.md and the schemas alone, outside impl/, so that the
// harness is measured against code nobody tuned it for. Each bug is switched
// on by SJ_BUG=NAME in the system's environment.

import { join } from 'node:path';

export type SystemName = 'ledger' | 'relay';

export interface InjectedBug {
  /** The value of SJ_BUG. */
  readonly name: string;
  /** The rule the slip breaks. */
  readonly rule: string;
  /** What the one-line slip is, in the words of a code review. */
  readonly slip: string;
}

export interface IndependentSystem {
  readonly name: SystemName;
  readonly language: string;
  /** The shell command, run from the repository's root. */
  readonly command: string;
  /** How it is organised, in one sentence: what makes it unlike impl/. */
  readonly design: string;
  readonly bugs: readonly InjectedBug[];
}

const here = import.meta.dirname;
export const repositoryRoot = join(here, '..', '..');

export const independentSystems: readonly IndependentSystem[] = [
  {
    name: 'ledger',
    language: 'Python 3 (stdlib only)',
    command: 'python3 conformance/independent/ledger/main.py',
    design:
      'event-sourced: a copy is (epoch, cursor, frozen) and a checkpoint (epoch, cursor); the join state of (key, cursor) is ' +
      'folded from the log and memoized; it never evicts and derives the retained counts by filtering on the horizon',
    bugs: [
      { name: 'naive-match-id', rule: 'J3', slip: "active matches filed under 'L:'+left+'|R:'+right instead of the escaped triple" },
      { name: 'late-inclusive', rule: 'J5', slip: 'an insert at exactly ts = gw − L is late (`<=` for `<`)' },
      { name: 'retract-unbound-dropped', rule: 'J6', slip: 'a retract that overtakes its insert is accepted but binds no tombstone' },
      { name: 'no-terminal-retract', rule: 'C9', slip: 'the sink lets a replayed insert resurrect a retracted match' },
      {
        name: 'checkpoint-coordinator-epoch',
        rule: 'C4',
        slip: "a checkpoint is stamped with the coordinator's epoch of the key, not the copy's",
      },
      {
        name: 'eager-string-order',
        rule: '§7',
        slip: "eager processing picks the copy with the least ordinal compared as strings ('10' < '2')",
      },
      {
        name: 'install-check-any-key',
        rule: 'C6',
        slip: 'the install epoch check refuses when any copy the destination holds, of any key, has an epoch ≥ the message’s',
      },
      {
        name: 'install-fresh',
        rule: 'C6',
        slip: 'install restores an empty copy at cursor 0 instead of the checkpoint the message carries',
      },
    ],
  },
  {
    name: 'relay',
    language: 'JavaScript (Node ESM, no imports)',
    command: 'node conformance/independent/relay/main.js',
    design:
      "textbook: per key, each side's rows by id, each row linked to its active matches, eviction as soon as gw passes a " +
      'horizon; checkpoints are snapshots; coordinator, workers and sink are objects that pass messages',
    bugs: [
      {
        name: 'naive-sink-id',
        rule: 'C9',
        slip: "the sink files a key's matches under 'L:'+left+'|R:'+right, so two colliding matches dedup as one",
      },
      { name: 'horizon-early', rule: 'J8', slip: 'a row is evicted once gw reaches its horizon (`>=` for `>`)' },
      {
        name: 'snapshot-without-watermarks',
        rule: 'C2',
        slip: "a checkpoint's snapshot leaves out the copy's watermarks (its rows and matches are all there)",
      },
      { name: 'fenced-writer-keeps-copy', rule: 'C9', slip: 'a fenced writer is refused but keeps its copy and goes on writing' },
      { name: 'release-no-epoch-check', rule: 'C7', slip: "a release drops the source's copy of the key whatever its epoch" },
      { name: 'install-equal-epoch', rule: 'C6', slip: 'the install epoch check refuses only an older epoch (`>` for `>=`)' },
      {
        name: 'restart-fresh',
        rule: 'C10',
        slip: 'a restarted worker recovers its keys empty at cursor 0 instead of from their checkpoints',
      },
      { name: 'abort-any-key', rule: 'C5', slip: 'abort checks that a migration is in flight, not that it is of the key named' },
    ],
  },
];
