// The audit's second pass over the log, run only when the first pass found
// something: it settles exactly what the first pass, holding only what
// retention allows, could not. A row's fate (J2-J8) depends only on its own
// records and the watermarks, and a match's only on its two rows', so the
// records of just the identities in question, with every watermark, run
// through a fresh oracle answer for them exactly as the whole log would:
//
// - the lifecycle of each match the sink changed after it was forgotten (or
//   that the log never made), so the first pass can say what the change was;
// - the records of the rows each reported violation involves (its witness);
// - whether an identity the filter flagged really re-uses a forgotten one
//   (J9: the contract checker, on the same records).
//
// Then both files are read once more for the text of every witness line.
import { InputError, parseMatchId } from '../../spec/index.ts';
import type { JoinConfig, LogRecord } from '../../spec/index.ts';
import { contractChecker } from '../../model/index.ts';
import { AuditOracle } from './auditOracle.ts';
import type { AuditViolation, WitnessLine } from './findings.ts';
import type { ReadingOptions } from './columns.ts';
import type { LogItem, ReadFormat } from './formats.ts';
import { HistoryFile } from './historyFiles.ts';
import { openLines } from './lines.ts';

/** Identities a second pass follows, at most (more would not be bounded memory). */
const SECOND_PASS_IDENTITIES = 200_000;

export interface SecondPassInput {
  readonly config: JoinConfig;
  readonly log: { readonly path: string; readonly format: ReadFormat; readonly reading?: ReadingOptions };
  readonly sink: { readonly path: string; readonly format: ReadFormat };
  /** Matches whose oracle lifecycle is wanted. */
  readonly matches: readonly string[];
  /** Identities the filter flagged (J9), with the line of the record that bound them anew. */
  readonly suspects: readonly { line: number; key: string; side: string; id: string }[];
}

/** A record of a row in question that the oracle dropped (late, J5/J6; a conflicting update, J2), and why, in words. */
export interface DroppedRecord {
  readonly line: number;
  readonly why: string;
  /** The record, and for a late one the watermark that made it late. */
  readonly witness: readonly WitnessLine[];
}

export interface SecondPassResult {
  /** Per match: the log lines where the oracle inserts and retracts it (0 = never). */
  readonly lifecycles: ReadonlyMap<string, { insert: number; retract: number }>;
  /** Per match asked for: the records of its rows that the oracle dropped, in log order. */
  readonly dropped: ReadonlyMap<string, readonly DroppedRecord[]>;
  /** The first J9 violation among the suspects, if one is real. */
  readonly contract?: { line: number; boundAt: number; message: string };
}

const identityOf = (key: string, side: string, id: string): string => JSON.stringify([key, side, id]);

/** The identities of a match's two rows. */
export function rowsOf(match: string): string[] {
  const p = parseMatchId(match);
  return p === undefined ? [] : [identityOf(p.key, 'L', p.left), identityOf(p.key, 'R', p.right)];
}

/** Every record of `path` with its line, in order. */
async function* records(
  path: string,
  format: ReadFormat,
  config: JoinConfig,
  reading?: ReadingOptions,
): AsyncGenerator<{ record: LogRecord; line: number }> {
  // The same readers as the first pass: the same records, times and key-only deletes resolved the same way.
  const file = new HistoryFile<LogItem>(path, 'log', format, reading);
  await file.useConfig(config);
  try {
    for (let batch = await file.next(); batch !== undefined; batch = await file.next()) {
      for (let i = 0; i < batch.items.length; i++) {
        const item = batch.items[i] as LogItem;
        if (item.kind !== 'config') yield { record: item, line: batch.lines[i] as number };
      }
    }
  } finally {
    file.close();
  }
}

/**
 * Re-runs the records of the identities in question; fills the witnesses of
 * `violations` with the rows' records (and every witness line with its
 * text) afterwards, through `fillWitnesses`.
 */
export async function secondPass(input: SecondPassInput, violations: readonly AuditViolation[]): Promise<SecondPassResult> {
  const wanted = new Set<string>();
  const add = (identity: string): void => {
    if (wanted.size < SECOND_PASS_IDENTITIES) wanted.add(identity);
  };
  for (const s of input.suspects) add(identityOf(s.key, s.side, s.id));
  for (const m of input.matches) for (const r of rowsOf(m)) add(r);
  for (const v of violations) if (v.match !== undefined) for (const r of rowsOf(v.match)) add(r);
  const suspects = new Set(input.suspects.map((s) => identityOf(s.key, s.side, s.id)));
  const matches = new Set(input.matches);
  const lifecycles = new Map<string, { insert: number; retract: number }>();
  for (const m of matches) lifecycles.set(m, { insert: 0, retract: 0 });
  /** Per identity, the lines where the operator accepted its records. */
  const rowLines = new Map<string, WitnessLine[]>();
  const engine = new AuditOracle(input.config);
  const checker = contractChecker(input.config);
  let contract: SecondPassResult['contract'];
  /** Per identity, its records the operator dropped (late or conflicting). */
  const droppedOf = new Map<string, DroppedRecord[]>();
  /** Each side's watermark (J4), and gw with the line that raised it to its value, to say what made a record late. */
  const marks: Record<'L' | 'R', { wm: number; line: number } | undefined> = { L: undefined, R: undefined };
  let gwMark: { wm: number; line: number } | undefined;
  const { allowedLateness: L, maxIntervalLength: D } = input.config;
  for await (const { record, line } of records(input.log.path, input.log.format, input.config, input.log.reading)) {
    if (record.kind === 'watermark') {
      if (engine.apply(record) === 'accepted' && (record.side === 'L' || record.side === 'R')) {
        marks[record.side] = { wm: record.wm, line };
        // gw = min of the sides (J4) moves only when this line raises the lower side: then this line made it. With the
        // sides equal, the one that came second made gw (the first left it where the other side held it).
        if (marks.L !== undefined && marks.R !== undefined) {
          const gw = Math.min(marks.L.wm, marks.R.wm);
          if (gwMark === undefined || gw > gwMark.wm) gwMark = { wm: gw, line };
        }
      }
      checker.check(record, line);
      continue;
    }
    const identity = identityOf(record.key, record.side, record.id);
    if (!wanted.has(identity)) continue;
    if (suspects.has(identity) && contract === undefined) {
      const v = checker.check(record, line);
      if (v !== undefined) contract = { line, boundAt: v.boundAt, message: v.message };
    }
    const code = engine.apply(record);
    const changes = engine.changes;
    const rowName = `(${record.key}, ${record.side}, ${record.id})`;
    if (code === 'late' && gwMark !== undefined) {
      const gw = gwMark.wm;
      const why =
        record.kind === 'insert'
          ? `the insert of row ${rowName} at log line ${line} is late (J5: ts ${record.ts} < gw − L = ${gw} − ${L} = ${gw - L}; the watermark at log line ${gwMark.line} made gw ${gw}), so the oracle drops it and joins it with nothing`
          : `the retraction of row ${rowName} at log line ${line} is late (J6: gw ${gw} > end + L + D = ${record.end} + ${L} + ${D} = ${record.end + L + D}; the watermark at log line ${gwMark.line} made gw ${gw}), so the oracle drops it and keeps the row's matches`;
      const list = droppedOf.get(identity) ?? [];
      list.push({
        line,
        why,
        witness: [
          { file: 'log', line: gwMark.line, role: `the watermark that made gw ${gw}` },
          {
            file: 'log',
            line,
            role: `${record.kind === 'insert' ? 'the insert' : 'the retraction'} of row ${rowName}, late (L = ${L}): dropped`,
          },
        ],
      });
      droppedOf.set(identity, list);
    } else if (code === 'rejected' && engine.reason === 'conflict') {
      const list = droppedOf.get(identity) ?? [];
      list.push({
        line,
        why: `the record at log line ${line} re-uses row ${rowName}'s identity with other content (J2: a conflicting update), so the oracle drops it and keeps the row as first inserted`,
        witness: [{ file: 'log', line, role: `a conflicting update of row ${rowName} (J2): dropped` }],
      });
      droppedOf.set(identity, list);
    }
    if (code === 'accepted') {
      const lines = rowLines.get(identity) ?? [];
      lines.push({
        file: 'log',
        line,
        role: `${record.kind === 'insert' ? 'inserts' : 'retracts'} row (${record.key}, ${record.side}, ${record.id})`,
      });
      rowLines.set(identity, lines);
    }
    for (const c of changes) {
      const l = lifecycles.get(c.match);
      if (l === undefined) continue;
      if (c.op === 'insert') l.insert = line;
      else l.retract = line;
    }
  }
  const dropped = new Map<string, readonly DroppedRecord[]>();
  for (const m of matches) {
    const list = rowsOf(m)
      .flatMap((r) => droppedOf.get(r) ?? [])
      .sort((a, b) => a.line - b.line);
    if (list.length > 0) dropped.set(m, list);
  }
  // The rows of each violation's match join its witness (their records, and those the oracle dropped), in log order, ahead of the sink lines.
  for (const v of violations) {
    if (v.match === undefined) continue;
    const rows = rowsOf(v.match).flatMap((r) => [...(rowLines.get(r) ?? []), ...(droppedOf.get(r) ?? []).flatMap((d) => d.witness)]);
    for (const w of rows) {
      const same = v.witness.findIndex((x) => x.file === 'log' && x.line === w.line);
      if (same === -1) v.witness.push(w);
      else {
        const known = v.witness[same] as WitnessLine;
        if (!known.role.includes(w.role)) v.witness[same] = { ...known, role: `${w.role}; ${known.role}` };
      }
    }
    v.witness.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file === 'log' ? -1 : 1));
  }
  return contract === undefined ? { lifecycles, dropped } : { lifecycles, dropped, contract };
}

/** Reads both files once more for the text of every witness line. */
export async function fillWitnessTexts(
  log: { readonly path: string },
  sink: { readonly path: string },
  violations: readonly AuditViolation[],
): Promise<void> {
  for (const which of ['log', 'sink'] as const) {
    const want = new Map<number, WitnessLine[]>();
    for (const v of violations)
      for (const w of v.witness) {
        if (w.file !== which) continue;
        const list = want.get(w.line) ?? [];
        list.push(w);
        want.set(w.line, list);
      }
    if (want.size === 0) continue;
    const last = Math.max(...want.keys());
    const file = openLines(which === 'log' ? log.path : sink.path);
    try {
      for (let batch = await file.next(); batch !== undefined; batch = await file.next()) {
        for (let i = 0; i < batch.lines.length; i++) {
          const ws = want.get(batch.first + i);
          if (ws !== undefined) for (const w of ws) w.text = batch.lines[i] as string;
        }
        if (batch.first + batch.lines.length > last) break;
      }
    } finally {
      file.close();
    }
  }
}

/** A confirmed J9 violation, as bad input (SPEC §8 SJ104). */
export function contractError(logPath: string, c: NonNullable<SecondPassResult['contract']>): InputError {
  return new InputError('SJ104', `${logPath}:${c.line}`, `${c.message}; it was bound at line ${c.boundAt}`);
}
