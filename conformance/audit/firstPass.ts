// The audit's first pass (audit.ts): a log and a sink — the files
// themselves, or one partition of them (spill.ts) — fed to one history check
// (historyCheck.ts), the log read only as far ahead as the sink needs. With
// a `spillAt` bound, it gives up (SpillNeeded) once the check holds more
// than that: the sink is far out of log order, and the audit goes on by
// partitions instead.
import { InputError, pace, paceDue } from '../../spec/index.ts';
import type { RejectReason } from '../../spec/index.ts';
import { AUDIT_PROPERTIES, type AuditProperty, type AuditViolation } from './findings.ts';
import { DiffSinkBatcher, type SinkModel, weightOf } from './diffSink.ts';
import type { LogItem, SinkChange, SinkItem } from './formats.ts';
import { SinkEnd } from './lineItems.ts';
import type { HistoryCheck, HistoryCounts } from './historyCheck.ts';
import type { ItemBatch } from './historyFiles.ts';
import { keyOfMatch } from './historyState.ts';
import type { ItemSource, WatermarkCounts } from './spill.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

/** Log records fed at a time while the sink waits for them. */
const LOG_SLICE = 256;

/** The check holds more than the first pass may: go on by partitions. */
export class SpillNeeded extends Error {
  constructor(readonly held: number) {
    super(`the check holds ${held} items: the sink is far out of log order`);
    this.name = 'SpillNeeded';
  }
}

export interface PassInput {
  readonly check: HistoryCheck;
  readonly log: ItemSource<LogItem>;
  /** The log's first batch, already read, and where in it to start (past a config header). */
  readonly logBatch: ItemBatch<LogItem> | undefined;
  readonly logAt: number;
  readonly sink: ItemSource<SinkItem>;
  /** The sink's end line when the sink source has none of its own (a partition). */
  readonly end?: { readonly complete: boolean; readonly why?: string };
  readonly names: { readonly log: string; readonly sink: string };
  /** Whether a key is judged (a shard's keys); undefined: every key. */
  readonly keep: ((key: string) => boolean) | undefined;
  readonly sinkModel: SinkModel;
  /** Give up (SpillNeeded) once the check holds more than this. */
  readonly spillAt: number;
  readonly signal: AbortSignalLike | undefined;
  readonly progress: () => void;
}

export interface PassOutput {
  readonly end: { complete: boolean; why?: string } | undefined;
  /** Diff sinks: the change lines read (the check saw their net changes). */
  readonly sinkLines: number | undefined;
}

export async function firstPass(input: PassInput): Promise<PassOutput> {
  const { check, log, sink, names, keep, signal } = input;
  let logBatch = input.logBatch;
  let logAt = input.logAt;
  if (logBatch === undefined) check.endLog(log.cut(), log.cutHow?.());
  const guard = (): void => {
    if (input.spillAt !== Number.POSITIVE_INFINITY) {
      const held = check.held();
      if (held > input.spillAt) throw new SpillNeeded(held);
    }
  };
  /** Feeds the next few log records (a slice of the current batch: the log runs only a little ahead of the sink). */
  const feedLog = async (): Promise<void> => {
    if (logBatch === undefined) throw new Error('internal: the audit asked for log past its end');
    const { items, lines } = logBatch;
    const end = Math.min(items.length, logAt + LOG_SLICE);
    for (let i = logAt; i < end; i++) {
      const item = items[i] as LogItem;
      if (item.kind === 'config') throw new InputError('SJ102', `${names.log}:${lines[i]}`, 'a header line may only be the first line');
      // Another shard's key: its records are not ours to follow (watermarks are everyone's, J4).
      if (keep !== undefined && item.kind !== 'watermark' && !keep(item.key)) continue;
      check.pushLog(item, lines[i] as number);
    }
    logAt = end;
    await pace(signal);
    if (logAt < items.length) return;
    logAt = 0;
    guard();
    logBatch = await log.next();
    if (logBatch === undefined) check.endLog(log.cut(), log.cutHow?.());
    input.progress();
  };

  const batcher = input.sinkModel === 'diff' ? new DiffSinkBatcher(names.sink) : undefined;
  /** Offers net changes of a diff sink, reading the log as far as each needs. */
  const offerNet = async (changes: readonly { change: SinkChange; line: number }[]): Promise<void> => {
    for (const c of changes) while (!check.offerSink(c.change, c.line)) await feedLog();
  };
  const sinkEnd = new SinkEnd(names.sink);
  for (let batch = await sink.next(); batch !== undefined; batch = await sink.next()) {
    for (let i = 0; i < batch.items.length; i++) {
      const item = batch.items[i] as SinkItem;
      const line = batch.lines[i] as number;
      if (sinkEnd.take(item, line)) continue;
      if (keep !== undefined && !keep(item.key ?? keyOfMatch(item.match))) continue;
      if (batcher !== undefined) {
        const net = batcher.push(item, line);
        if (net.length > 0) await offerNet(net);
        continue;
      }
      if (item.diff !== undefined && Math.abs(weightOf(item, `${names.sink}:${line}`)) !== 1)
        throw new InputError('SJ102', `${names.sink}:${line}`, `diff ${item.diff} is a multiplicity: read the sink with --sink-model diff`);
      // Once the log has ended the check takes every change, so this ends.
      while (!check.offerSink(item, line)) await feedLog();
      if (paceDue(signal)) await pace(signal);
    }
    input.progress();
    guard();
    await pace(signal);
  }
  if (batcher !== undefined) await offerNet(batcher.end());
  const end = sinkEnd.end ?? (input.end === undefined ? undefined : { ...input.end });
  check.endSink(sink.cut(), end, sink.cutHow?.());
  while (check.waitsForLog()) {
    await feedLog();
    check.resumePrefix();
  }
  while (logBatch !== undefined) await feedLog();
  return { end, sinkLines: batcher?.lines };
}

/** What the report needs of a check: one, or several combined. */
export interface CheckSummary {
  readonly counts: HistoryCounts;
  readonly contractSuspects: readonly { line: number; key: string; side: string; id: string }[];
  violations(): {
    kept: Record<AuditProperty, AuditViolation[]>;
    counted: Record<AuditProperty, number>;
    unknown: Partial<Record<AuditProperty, string>>;
  };
  recorded(): { sequence: boolean; epochs: boolean };
  incompleteness(): string | undefined;
}

/**
 * The checks of the partitions of one history as one: counts add up (the
 * partitions' checks count no watermark: the partitioning counted them
 * once, `watermarks`), violations are kept up to `keep` per property in
 * partition order, a property unknown in one is unknown.
 */
export function combineChecks(checks: readonly HistoryCheck[], keep: number, watermarks: WatermarkCounts): CheckSummary {
  const sum = (f: (c: HistoryCounts) => number): number => checks.reduce((n, c) => n + f(c.counts), 0);
  const rejected: Partial<Record<RejectReason, number>> = { ...watermarks.rejected };
  for (const c of checks)
    for (const [k, n] of Object.entries(c.counts.rejected)) rejected[k as RejectReason] = (rejected[k as RejectReason] ?? 0) + (n ?? 0);
  const counts: HistoryCounts = {
    logRecords: sum((c) => c.logRecords) + watermarks.lines,
    watermarks: watermarks.valid,
    rejected,
    oracleInserts: sum((c) => c.oracleInserts),
    oracleRetracts: sum((c) => c.oracleRetracts),
    sinkChanges: sum((c) => c.sinkChanges),
    sinkWrites: sum((c) => c.sinkWrites),
    forgotten: sum((c) => c.forgotten),
    peakFollowed: Math.max(...checks.map((c) => c.counts.peakFollowed)),
  };
  const kept = {} as Record<AuditProperty, AuditViolation[]>;
  const counted = {} as Record<AuditProperty, number>;
  const unknown: Partial<Record<AuditProperty, string>> = {};
  for (const p of AUDIT_PROPERTIES) {
    kept[p] = checks.flatMap((c) => c.violations().kept[p]).slice(0, keep);
    counted[p] = checks.reduce((n, c) => n + c.violations().counted[p], 0);
    const why = checks.map((c) => c.violations().unknown[p]).find((w) => w !== undefined);
    if (why !== undefined) unknown[p] = why;
  }
  const recorded = { sequence: checks.some((c) => c.recorded().sequence), epochs: checks.some((c) => c.recorded().epochs) };
  return {
    counts,
    contractSuspects: checks.flatMap((c) => c.contractSuspects),
    violations: () => ({ kept, counted, unknown }),
    recorded: () => recorded,
    incompleteness: () => checks.map((c) => c.incompleteness()).find((w) => w !== undefined),
  };
}
