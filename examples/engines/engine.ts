// What the two example jobs share: an incremental join engine seen as a
// black box that takes batches of row changes (+1 a row arrives, -1 it is
// withdrawn) and gives back the signed changes of its match relation, and
// the two ways the jobs use one:
//
// - `writeChangelog`: the job as it runs in production. It consumes the log
//   in batches and writes every match change the engine emits, as the
//   engine emits it (unconsolidated, one line per unit of multiplicity),
//   each tagged with its batch number as `seq`: the changelog
//   `streamjoin audit` reads. `gate: 'spec'` puts streamjoin's bookkeeping
//   (JoinBookkeeping: lateness, duplicates, conflicts, tombstones) in front
//   of the engine; `gate: 'none'` feeds it every insert and retract, as a
//   pipeline without that stage would.
// - `liveMatcher`: the engine as a system under test, through
//   matchingEngineSystem: one record per batch, its match changes returned.
import { readFileSync } from 'node:fs';
import {
  JoinBookkeeping,
  matchId,
  type EngineMatch,
  type JoinConfig,
  type LogRecord,
  type MatchingEngine,
  type RowRecord,
} from '../../index.ts';

/** A row change fed to an engine: `diff` +1 inserts the row, -1 withdraws it. */
export interface RowChange {
  readonly row: RowRecord;
  readonly diff: 1 | -1;
}

/** A change of the engine's match relation: `diff` copies of the match (L row `left`, R row `right`) added, or removed if negative. */
export interface MatchDiff {
  readonly key: string;
  readonly left: string;
  readonly right: string;
  readonly diff: number;
}

/** An incremental join: each batch of row changes in, the match relation's changes it causes out. */
export interface IncrementalJoin {
  batch(changes: readonly RowChange[]): readonly MatchDiff[] | Promise<readonly MatchDiff[]>;
  close?(): void | Promise<void>;
}

/**
 * How the job decides overlap (SPEC J3, inclusive bounds). `strict` is the
 * same job with a one-character bug, `<` for `<=`: rows that touch at one
 * instant do not match.
 */
export type Overlap = 'inclusive' | 'strict';

/** A streamjoin history log: its config (from the header line) and records. */
export function readLog(path: string): { config: JoinConfig; records: LogRecord[] } {
  let config: JoinConfig | undefined;
  const records: LogRecord[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const value = JSON.parse(line) as { format?: string; config?: JoinConfig } & LogRecord;
    if (value.format !== undefined) config = value.config;
    else records.push(value);
  }
  if (config === undefined) throw new Error(`${path}: no header line with the join config`);
  return { config, records };
}

/** How the changelog job runs. */
export interface ChangelogOptions {
  /** Log records per batch (one engine version, one Postgres transaction): the sink's `seq`. */
  readonly batch: number;
  /** `spec`: streamjoin's bookkeeping in front of the engine; `none`: every insert and retract goes in. */
  readonly gate: 'spec' | 'none';
}

/**
 * Runs the log through the engine in batches; returns the sink's lines
 * (streamjoin history format), each match change as the engine emitted it:
 * a `diff` of +2 is two insert lines, -1 one retract line, and a match
 * added and removed in one batch appears as both.
 */
export async function writeChangelog(
  engine: IncrementalJoin,
  config: JoinConfig,
  records: readonly LogRecord[],
  options: ChangelogOptions,
): Promise<string[]> {
  const books = new JoinBookkeeping(config);
  const lines: string[] = [];
  for (let at = 0, seq = 1; at < records.length; at += options.batch, seq++) {
    const changes: RowChange[] = [];
    for (const record of records.slice(at, at + options.batch)) {
      const row = options.gate === 'spec' ? books.admit(record).forward : record.kind === 'watermark' ? undefined : (record as RowRecord);
      if (row) changes.push({ row, diff: row.kind === 'insert' ? 1 : -1 });
    }
    for (const d of await engine.batch(changes)) {
      const line = JSON.stringify({ op: d.diff > 0 ? 'insert' : 'retract', match: matchId(d.key, d.left, d.right), key: d.key, seq });
      for (let n = 0; n < Math.abs(d.diff); n++) lines.push(line);
    }
  }
  lines.push(JSON.stringify({ end: { complete: true } }));
  return lines;
}

/**
 * The engine as a MatchingEngine (matchingEngineSystem): each record it is
 * given is one batch; every unit of each match change it emits is one
 * EngineMatch, so a match made twice is seen twice.
 */
export function liveMatcher(engine: IncrementalJoin): MatchingEngine {
  return {
    async apply(record) {
      const matches: EngineMatch[] = [];
      for (const d of await engine.batch([{ row: record, diff: record.kind === 'insert' ? 1 : -1 }]))
        for (let n = 0; n < Math.abs(d.diff); n++)
          matches.push({ op: d.diff > 0 ? 'insert' : 'retract', key: d.key, left: d.left, right: d.right });
      return matches;
    },
    close: () => engine.close?.(),
  };
}
