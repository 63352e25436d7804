// The mutant catalogue: one deliberately broken variant of the
// implementation (impl/) per known bug class, each a small source patch.
// Each patch site is marked in impl/ by a line `// mutant: NAME` (so a reader
// of impl/ sees where each known bug class would live, and tidying the code
// around it cannot move the patch); the patch replaces the lines under the
// marker. `mutants.test.ts` checks that every marker is used by exactly one
// mutant and every patch finds its marker. `streamjoin mutants` runs the
// harness against each and must kill every one.

/** Replaces the `lines` lines under the mutant's marker (`// mutant: NAME`) in one file under impl/, or inserts after it (`lines: 0`). */
export interface SourcePatch {
  /** Path under impl/, with forward slashes. */
  readonly file: string;
  /** How many lines under the marker the patch replaces. A mutant with several patches in one file has one marker per patch, in the same order. */
  readonly lines: number;
  /** The lines put in their place. */
  readonly replace: string;
  /** The marker to anchor on when it is not the mutant's own name: for a mutant a test makes up (the catalogue's mutants never set it). */
  readonly marker?: string;
  /**
   * For a mutant a test makes up where impl/ has no marker (the catalogue's
   * mutants never set it): the exact text to replace, found exactly once in
   * the file, instead of a marker (`lines` is then not read).
   */
  readonly find?: string;
}

/** A seeded bug in impl/: the patches that make it, the rule it breaks, and its regression trace. */
export interface Mutant {
  /** A command-line word: `streamjoin serve --mutant NAME`. */
  readonly name: string;
  /** The bug class, in a few words. */
  readonly bugClass: string;
  /** The SPEC rule it breaks. */
  readonly rule: string;
  /** What the patch does, and how the bug shows. */
  readonly description: string;
  /**
   * Its regression trace (conformance/mutants/regressions/NAME.trace.json):
   * named after what it exercises, not after the bug, since a system that
   * fails it need not have this bug. Two mutants may share one.
   */
  readonly regression: string;
  /** Usually one; a bug class that lives in two places (replay and dedup; buffering and its flush) has more. */
  readonly patches: readonly SourcePatch[];
}

/** The catalogue: every mutant the harness must kill. */
export const MUTANTS: readonly Mutant[] = [
  {
    name: 'commit-before-durable-checkpoint',
    regression: 'install-after-persist',
    bugClass: 'commit before the checkpoint is durable',
    rule: 'C5',
    description:
      'persist reports the checkpoint written (and the handoff moves on) but never puts it in ' +
      'the durable store, so install sends whatever older checkpoint the store holds, or none',
    patches: [
      {
        file: 'cluster/effects.ts',
        lines: 1,
        replace: `      // MUTANT: the checkpoint is announced but never made durable.
      const persisted = copyOf(workerNamed(c, h.src), slot);
      slot.stored = { epoch: persisted.epoch, cursor: persisted.cursor, retained: persisted.operator.retained(slot.key) };`,
      },
    ],
  },
  {
    name: 'no-fencing',
    regression: 'zombie-resumes-after-failover',
    bugClass: 'no fencing',
    rule: 'C9',
    description:
      'the sink applies a write whose epoch is below its fence for the key: a zombie owner that resumes after a failover writes on',
    patches: [
      {
        file: 'cluster/sink.ts',
        lines: 1,
        replace: `    if (entry.epoch < highest && entry.kind !== 'write') { // MUTANT: writes below the fence are applied`,
      },
    ],
  },
  {
    name: 'replay-from-older-checkpoint-without-dedup',
    regression: 'failover-replays-from-checkpoint',
    bugClass: 'replay from an older checkpoint without dedup',
    rule: 'C4',
    description:
      'failover and restart rebuild a key from cursor 0 instead of the latest checkpoint, and ' +
      'the sink applies a replayed insert of a match it already holds instead of deduplicating it',
    patches: [
      {
        file: 'cluster/clusterState.ts',
        lines: 1,
        replace: `  storedCheckpoint(c, slot);
  return undefined; // MUTANT: recover from the beginning of the log, whatever was checkpointed`,
      },
      {
        file: 'cluster/sink.ts',
        lines: 1,
        replace: `    if (now === 'inserted') return 'inserted'; // MUTANT: no dedup: a replayed insert is applied again`,
      },
    ],
  },
  {
    name: 'eviction-at-ts-plus-lateness',
    regression: 'row-kept-until-end-passes',
    bugClass: 'eviction at wm > ts + L',
    rule: 'J8',
    description:
      'a row is evicted once the global watermark passes ts + L (a row horizon that ignores the ' +
      'interval), not end + L + D: a long row still overlapped by later inserts is forgotten',
    patches: [
      {
        file: 'operator.ts',
        lines: 1,
        replace: `      if (next === undefined || gw <= next.ts + this.config.allowedLateness) return; // MUTANT: a horizon from ts`,
      },
    ],
  },
  {
    name: 'match-dropped-with-one-endpoint',
    regression: 'match-kept-with-one-endpoint',
    bugClass: 'a match dropped when one endpoint is evicted',
    rule: 'J8',
    description:
      'a match is forgotten with its first evicted endpoint, so retracting the other endpoint later no longer retracts the match',
    patches: [
      {
        file: 'operator.ts',
        lines: 3,
        replace: `        // MUTANT: the match goes with this endpoint; the partner forgets it too.
        const partner = row.side === 'L' ? m.right : m.left;
        if (partner !== null) removeMatch(partner, m);
        m.left = null;
        m.right = null;
        dropped++;`,
      },
    ],
  },
  {
    name: 'retraction-held-to-insert-lateness',
    regression: 'retraction-within-its-lateness',
    bugClass: 'retractions held to the insert lateness bound',
    rule: 'J6',
    description:
      'a retract is late when ts < gw - L, the bound for inserts, instead of when gw > end + L + D: retractions of rows still held and joined are refused',
    patches: [
      {
        file: 'operator.ts',
        lines: 4,
        replace: `      const late =
        record.kind === 'insert'
          ? record.ts < gw - this.config.allowedLateness // J5
          : record.ts < gw - this.config.allowedLateness; // MUTANT: J5's bound for a retract`,
      },
    ],
  },
  {
    name: 'overtaking-retract-dropped',
    regression: 'retract-overtakes-insert',
    bugClass: 'a retract overtaking its insert dropped (no tombstone)',
    rule: 'J6',
    description:
      'a retract of a row the operator has not seen is dropped instead of leaving a tombstone, so the insert that arrives after it brings the row to life',
    patches: [
      {
        file: 'operator.ts',
        lines: 0,
        replace: `    if (record.kind === 'retract') return { outcome: { code: 'accepted' }, changes: [] }; // MUTANT: no tombstone`,
      },
    ],
  },
  {
    name: 'sink-fence-from-caller-epochs',
    regression: 'zombie-resumes-after-failover',
    bugClass: 'sink fence computed from caller-supplied epochs',
    rule: 'C9',
    description:
      'the sink judges a write by an epoch the writer supplies (its own) instead of its own ' +
      "record of the key's highest epoch: it never fences, and a stale write even lowers the fence",
    patches: [
      {
        file: 'cluster/sink.ts',
        lines: 1,
        replace: `    const highest = entry.kind === 'write' ? entry.epoch : this.fenceOf(entry.key); // MUTANT: the caller's epoch`,
      },
    ],
  },
  {
    name: 'last-writer-wins-sink',
    regression: 'replayed-insert-after-retract',
    bugClass: 'last-writer-wins sink',
    rule: 'C9',
    description:
      'retracted is not terminal: a replayed insert after the retract flips the match back to inserted (a last-writer-wins sink)',
    patches: [
      {
        file: 'cluster/sink.ts',
        lines: 1,
        replace: `    if (now === 'retracted') return 'inserted'; // MUTANT: last writer wins`,
      },
    ],
  },
  {
    name: 'ambiguous-match-ids',
    regression: 'separators-in-ids',
    bugClass: 'ambiguous match ids',
    rule: 'J3',
    description:
      'the parts of a match id are joined without escaping, as a naive ' +
      '"L:"+a+"|R:"+b does: two different pairs can share an id (key "k", ids "a/b" and "c" against ' +
      '"a" and "b/c"). Ids without "/" or "%" come out as the spec\'s, so only odd ids kill it',
    patches: [
      {
        file: 'matchId.ts',
        lines: 1,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the patch is source text holding a template literal
        replace: '  return `${key}/${left}/${right}`; // MUTANT: not escaped: ambiguous',
      },
    ],
  },
  {
    name: 'reversed-interval-swapped',
    regression: 'reversed-interval',
    bugClass: 'reversed intervals swapped instead of rejected',
    rule: 'J1',
    description: 'a row with start > end is repaired by swapping its endpoints, inventing a row nobody sent, instead of being rejected',
    patches: [
      {
        file: 'operator.ts',
        lines: 0,
        replace: `    if (record.start > record.end) record = { ...record, start: record.end, end: record.start }; // MUTANT: swapped`,
      },
      {
        file: 'cluster/inputChecks.ts',
        lines: 1,
        replace:
          `      return { kind: record.kind, key: record.key, side: record.side, id: record.id, ts: ` +
          `record.ts, start: Math.min(record.start, record.end), end: Math.max(record.start, ` +
          `record.end) }; // MUTANT: swapped`,
      },
    ],
  },
  {
    name: 'frozen-key-events-in-coordinator-memory',
    regression: 'record-for-a-frozen-key',
    bugClass: 'frozen-key events buffered in coordinator memory',
    rule: 'C3',
    description:
      "records of a key frozen by a migration are held in the coordinator's memory instead of staying in the durable log, appended only at commit; a coordinator crash loses them",
    patches: [
      {
        file: 'cluster/cluster.ts',
        lines: 0,
        replace: `      frozenRecords: [], // MUTANT: records of a frozen key, held in the coordinator's memory`,
      },
      {
        file: 'cluster/effects.ts',
        lines: 0,
        replace: `        c.frozenRecords = []; // MUTANT: the buffer dies with the coordinator`,
      },
      {
        file: 'cluster/effects.ts',
        lines: 0,
        replace: `  const h = c.handoff; // MUTANT: a frozen key's record waits in memory
  if (slot !== undefined && h !== null && h.kind === 'migrate' && h.key === slot.key && h.phase !== 'committed') {
    c.frozenRecords.push(record);
    events.push({ type: 'appended', index: index + c.frozenRecords.length - 1 });
    return;
  }`,
      },
      {
        file: 'cluster/handoff.ts',
        lines: 1,
        replace: `import { indexRecord, wake } from './eager.ts'; // MUTANT: the commit flushes the records held in memory`,
      },
      {
        file: 'cluster/handoff.ts',
        lines: 0,
        replace: `  for (const r of c.frozenRecords.splice(0)) indexRecord(c, r, c.storage.log.length), c.storage.log.append(r); // MUTANT: flushed at commit`,
      },
    ],
  },
  {
    name: 'off-by-one-eviction',
    regression: 'eviction-boundary',
    bugClass: 'off-by-one eviction (>= instead of >)',
    rule: 'J8',
    description:
      'a row is evicted when gw >= end + L + D, one tick early: at gw = end + L + D an overlapping insert is still on time and its match is lost',
    patches: [
      {
        file: 'operator.ts',
        lines: 1,
        replace: `      if (next === undefined || gw < next.end + this.slack) return; // MUTANT: >= instead of >`,
      },
    ],
  },
];

export function mutantNamed(name: string): Mutant | undefined {
  return MUTANTS.find((m) => m.name === name);
}
