// `streamjoin audit`'s library: checks a recorded history (a log and a sink,
// docs/audit.md) against the spec in one streaming pass over both files
// (historyCheck.ts), and, only when it found something, a second pass that
// settles it exactly and gathers the witnesses (secondPass.ts).
import { InputError, checkAgainstSchema, documentFormat, pace, paceDue, readDocument, throwIfInterrupted } from '../../spec/index.ts';
import type { JoinConfig, RejectReason } from '../../spec/index.ts';
import { AUDIT_PROPERTIES, type AuditProperty, type AuditPropertyResult, type AuditViolation } from './findings.ts';
import type { ReadingOptions } from './columns.ts';
import { HISTORY_LOG_FORMAT, isEnd, type LogItem, type ReadFormat, type SinkChange, type SinkItem } from './formats.ts';
import { DiffSinkBatcher, type SinkModel, weightOf } from './diffSink.ts';
import { HistoryCheck } from './historyCheck.ts';
import { keyOfMatch } from './historyState.ts';
import { type KeyShard, keyInShard } from './keyShard.ts';
import { HistoryFile } from './historyFiles.ts';
import { contractError, fillWitnessTexts, secondPass } from './secondPass.ts';

export interface AuditOptions {
  readonly log: string;
  readonly sink: string;
  /** A file with the join config (SPEC J0), a cluster config, or a history log header; else the log's own header. */
  readonly config?: string;
  readonly logFormat?: ReadFormat | 'auto';
  readonly sinkFormat?: ReadFormat | 'auto';
  /** How rows are read: the user's column names, the unit of the log's times (docs/audit.md). */
  readonly reading?: ReadingOptions;
  /** The recording was cut while the system ran: the final relation is not judged. */
  readonly incomplete?: boolean;
  /** Invalid records (J1) in the log are the system's to reject, not a corrupt recording. */
  readonly allowInvalid?: boolean;
  /** Log records the reader may run ahead of where the sink stands (default 100,000). */
  readonly lookahead?: number;
  /** Violations kept with witnesses, per property (default 20). */
  readonly keepViolations?: number;
  /** Forgotten matches remembered to name what the sink does to one (default 4,096; the rest are judged by the second pass). */
  readonly forgottenCache?: number;
  /**
   * How the sink's lines are read: `set` (default), each line an insert or a
   * retraction of its match; `diff`, signed multiplicities netted per write
   * (diffSink.ts).
   */
  readonly sinkModel?: SinkModel;
  /** The engine has no watermark lateness (L unbounded): the config's L is replaced by the largest, 2^50. */
  readonly noLateness?: boolean;
  /** Judge only the keys that hash to this shard (keyShard.ts); merge the shards' reports with merge-reports. */
  readonly shard?: KeyShard;
  /** Called now and then with how far the audit is. */
  readonly onProgress?: (p: AuditProgress) => void;
  /** Aborting it stops the audit: it rejects with Interrupted (spec/pacing.ts), with no verdict. */
  readonly signal?: AbortSignal;
}

export interface AuditProgress {
  readonly logRecords: number;
  readonly sinkChanges: number;
  /** Bytes of both files read, and their sizes on disk (gzip: compressed). */
  readonly bytesRead: number;
  readonly bytes: number;
}

export type AuditVerdict = 'valid' | 'violation' | 'unknown';

/** The largest L (SPEC J0): a record is late only when the watermark is more than 2^50 past it, which times in range never are unless they span more than 2^50. */
export const UNBOUNDED_LATENESS = 2 ** 50;

/** What the history was checked against: the lateness and the reading of the sink. */
export interface AuditProfile {
  /** `bounded`: the config's L; `none`: no lateness (`--no-lateness`, L = 2^50). */
  readonly lateness: 'bounded' | 'none';
  readonly sinkModel: SinkModel;
}

/** Log records fed at a time while the sink waits for them. */
const LOG_SLICE = 256;

export interface AuditResult {
  readonly verdict: AuditVerdict;
  readonly config: JoinConfig;
  readonly profile: AuditProfile;
  /** The shard of the keys judged (`--shard K/N`), or null: every key. */
  readonly shard: KeyShard | null;
  readonly engine: 'impl';
  readonly log: {
    readonly path: string;
    readonly format: ReadFormat;
    readonly gzip: boolean;
    readonly lines: number;
    readonly records: number;
    readonly watermarks: number;
    readonly rejected: Partial<Record<RejectReason, number>>;
    readonly cut: boolean;
    /** What the reader skipped or resolved (tombstones, key-only deletes, the time origin). */
    readonly notes: readonly string[];
  };
  readonly sink: {
    readonly path: string;
    readonly format: ReadFormat;
    readonly gzip: boolean;
    readonly lines: number;
    readonly changes: number;
    /** Writes, when sequence numbers are recorded. */
    readonly writes: number | null;
    readonly sequence: boolean;
    readonly epochs: boolean;
    readonly cut: boolean;
    /** The sink's own last line, if it has one. */
    readonly end: { readonly complete: boolean; readonly why?: string } | null;
    /** What the reader skipped or resolved (tombstones, updates that keep their match, fields outside the payload). */
    readonly notes: readonly string[];
  };
  /** Why the final relation is not judged, if it is not. */
  readonly incomplete: string | null;
  readonly properties: readonly AuditPropertyResult[];
  /** The violations kept, with their witnesses (at most `keepViolations` per property). */
  readonly violations: readonly AuditViolation[];
  readonly stats: {
    readonly oracleInserts: number;
    readonly oracleRetracts: number;
    readonly peakFollowed: number;
    readonly forgotten: number;
    /** Identities the J9 filter flagged as possibly re-used; the second pass confirmed or cleared each. */
    readonly contractSuspects: number;
    readonly secondPass: boolean;
  };
}

/** The join config: from `--config` (a join config, a cluster config, or a history log header). */
export function loadAuditConfig(path: string): JoinConfig {
  const doc = readDocument(path);
  const value = doc.value;
  if (documentFormat(value) === HISTORY_LOG_FORMAT) {
    checkAgainstSchema('history-streamjoin#/$defs/HistoryLogHeader', doc);
    return (value as { config: JoinConfig }).config;
  }
  if (typeof value === 'object' && value !== null && 'join' in value) {
    checkAgainstSchema('cluster-config', doc);
    return (value as { join: JoinConfig }).join;
  }
  checkAgainstSchema('config', doc);
  return value as JoinConfig;
}

/** Audits a recorded history. Throws InputError for bad input (unreadable, malformed, J1/J9 of the log, no config). */
export async function auditHistory(options: AuditOptions): Promise<AuditResult> {
  const log = new HistoryFile<LogItem>(options.log, 'log', options.logFormat ?? 'auto', options.reading);
  const sink = new HistoryFile<SinkItem>(options.sink, 'sink', options.sinkFormat ?? 'auto', options.reading);
  try {
    return await run(options, log, sink);
  } finally {
    log.close();
    sink.close();
  }
}

async function run(options: AuditOptions, log: HistoryFile<LogItem>, sink: HistoryFile<SinkItem>): Promise<AuditResult> {
  const logFormat = await log.format();
  const sinkFormat = await sink.format();
  // The config: --config, else the log's header line (its first item). Given, the log's reader has it
  // before its first line, as in the second pass (it forgets rows past their horizon at the same lines).
  let config = options.config !== undefined ? loadAuditConfig(options.config) : undefined;
  if (config !== undefined) await log.useConfig(options.noLateness === true ? { ...config, allowedLateness: UNBOUNDED_LATENESS } : config);
  let logBatch = await log.next();
  let logAt = 0;
  const first = logBatch?.items[0];
  if (first?.kind === 'config') {
    config ??= first.config;
    logAt = 1;
  }
  if (config === undefined && logBatch === undefined && log.cut()) {
    throw new InputError(
      'SJ105',
      options.log,
      `the log file is cut short (${log.cutHow()}) before its first whole line, so it has no header with the join config; pass --config FILE to audit what is there`,
    );
  }
  if (config === undefined) {
    throw new InputError(
      'SJ105',
      'usage',
      `no join config: pass --config FILE (a join config, a cluster config) or start ${options.log} with a header line {"format":"${HISTORY_LOG_FORMAT}","config":{...}}`,
    );
  }
  if (options.noLateness === true) config = { ...config, allowedLateness: UNBOUNDED_LATENESS };
  const sinkModel = options.sinkModel ?? 'set';
  const shard = options.shard !== undefined && options.shard.count > 1 ? options.shard : undefined;
  if (options.config === undefined) await log.useConfig(config);
  const check = new HistoryCheck({
    config,
    lookahead: options.lookahead ?? 100_000,
    allowInvalid: options.allowInvalid === true,
    keepViolations: options.keepViolations ?? 20,
    // About 60 bytes a record uncompressed, five times that compressed.
    expectedRecords: Math.ceil((log.bytes * (log.gzip ? 5 : 1)) / 60),
    logName: options.log,
    sinkName: options.sink,
    sinkModel,
    noLateness: options.noLateness === true,
    ...(options.forgottenCache === undefined ? {} : { forgottenCache: options.forgottenCache }),
  });
  if (options.incomplete === true) check.markIncomplete('--incomplete: the recording was cut while the system ran');
  const progress = (): void =>
    options.onProgress?.({
      logRecords: check.counts.logRecords,
      sinkChanges: check.counts.sinkChanges,
      bytesRead: log.bytesRead() + sink.bytesRead(),
      bytes: log.bytes + sink.bytes,
    });

  if (logBatch === undefined) check.endLog(log.cut(), log.cutHow());
  /**
   * Feeds the next few log records (a slice of the current batch, so that
   * the log runs only a little ahead of what the sink needs), reading the
   * next batch when this one is done.
   */
  const feedLog = async (): Promise<void> => {
    if (logBatch === undefined) throw new Error('internal: the audit asked for log past its end');
    const { items, lines } = logBatch;
    const end = Math.min(items.length, logAt + LOG_SLICE);
    for (let i = logAt; i < end; i++) {
      const item = items[i] as LogItem;
      if (item.kind === 'config') throw new InputError('SJ102', `${options.log}:${lines[i]}`, 'a header line may only be the first line');
      // Another shard's key: its records are not ours to follow (watermarks are everyone's, J4).
      if (shard !== undefined && item.kind !== 'watermark' && !keyInShard(item.key, shard)) continue;
      check.pushLog(item, lines[i] as number);
    }
    logAt = end;
    await pace(options.signal);
    if (logAt < items.length) return;
    logAt = 0;
    logBatch = await log.next();
    if (logBatch === undefined) check.endLog(log.cut(), log.cutHow());
    progress();
  };

  const batcher = sinkModel === 'diff' ? new DiffSinkBatcher(options.sink) : undefined;
  /** Offers net changes of a diff sink, reading the log as far as each needs. */
  const offerNet = async (changes: readonly { change: SinkChange; line: number }[]): Promise<void> => {
    for (const c of changes) while (!check.offerSink(c.change, c.line)) await feedLog();
  };
  let end: { complete: boolean; why?: string } | undefined;
  let endLine = 0;
  for (let batch = await sink.next(); batch !== undefined; batch = await sink.next()) {
    for (let i = 0; i < batch.items.length; i++) {
      const item = batch.items[i] as SinkItem;
      const line = batch.lines[i] as number;
      if (end !== undefined) throw new InputError('SJ102', `${options.sink}:${line}`, `the end line (line ${endLine}) must be the last`);
      if (isEnd(item)) {
        end = item.why === undefined ? { complete: item.complete } : { complete: item.complete, why: item.why };
        endLine = line;
        continue;
      }
      if (shard !== undefined && !keyInShard(item.key ?? keyOfMatch(item.match), shard)) continue;
      if (batcher !== undefined) {
        const net = batcher.push(item, line);
        if (net.length > 0) await offerNet(net);
        continue;
      }
      if (item.diff !== undefined && Math.abs(weightOf(item, `${options.sink}:${line}`)) !== 1)
        throw new InputError(
          'SJ102',
          `${options.sink}:${line}`,
          `diff ${item.diff} is a multiplicity: read the sink with --sink-model diff`,
        );
      // Once the log has ended the check takes every change, so this ends.
      while (!check.offerSink(item, line)) await feedLog();
      if (paceDue(options.signal)) await pace(options.signal);
    }
    progress();
    await pace(options.signal);
  }
  if (batcher !== undefined) await offerNet(batcher.end());
  check.endSink(sink.cut(), end, sink.cutHow());
  while (check.waitsForLog()) {
    await feedLog();
    check.resumePrefix();
  }
  while (logBatch !== undefined) await feedLog();
  const setAside = check.finish();
  const needSecond =
    setAside.length > 0 || check.contractSuspects.length > 0 || Object.values(check.violations().counted).some((n) => n > 0);
  if (needSecond) {
    throwIfInterrupted(options.signal);
    const kept = AUDIT_PROPERTIES.flatMap((p) => check.violations().kept[p]);
    const found = await secondPass(
      {
        config,
        log: { path: options.log, format: logFormat, ...(options.reading === undefined ? {} : { reading: options.reading }) },
        sink: { path: options.sink, format: sinkFormat },
        matches: setAside.map((a) => a.match),
        suspects: check.contractSuspects,
      },
      kept,
    );
    if (found.contract !== undefined) throw contractError(options.log, found.contract);
    for (const a of setAside)
      check.judgeSetAside(a, found.lifecycles.get(a.match) ?? { insert: 0, retract: 0 }, found.dropped.get(a.match));
    // Violations found while judging what was set aside need their witnesses too.
    const all = AUDIT_PROPERTIES.flatMap((p) => check.violations().kept[p]);
    const fresh = all.filter((v) => !kept.includes(v));
    if (fresh.length > 0)
      await secondPass(
        {
          config,
          log: { path: options.log, format: logFormat, ...(options.reading === undefined ? {} : { reading: options.reading }) },
          sink: { path: options.sink, format: sinkFormat },
          matches: [],
          suspects: [],
        },
        fresh,
      );
    await fillWitnessTexts({ path: options.log }, { path: options.sink }, all);
  }
  return result(options, check, {
    log,
    sink,
    logFormat,
    sinkFormat,
    config,
    end,
    secondPass: needSecond,
    profile: { lateness: options.noLateness === true ? 'none' : 'bounded', sinkModel },
    sinkLines: batcher?.lines,
  });
}

function result(
  options: AuditOptions,
  check: HistoryCheck,
  ctx: {
    log: HistoryFile<LogItem>;
    sink: HistoryFile<SinkItem>;
    logFormat: ReadFormat;
    sinkFormat: ReadFormat;
    config: JoinConfig;
    end: { complete: boolean; why?: string } | undefined;
    secondPass: boolean;
    profile: AuditProfile;
    /** Diff sinks: the change lines read (the check saw their net changes). */
    sinkLines: number | undefined;
  },
): AuditResult {
  const { kept, counted, unknown } = check.violations();
  const recorded = check.recorded();
  const incomplete = check.incompleteness();
  const scope: Record<AuditProperty, string> = {
    JoinCorrect: incomplete
      ? `not judged at the end (${incomplete}); ids that are no match of the log are still checked`
      : "at the end, the sink's relation equals the oracle's over the whole log",
    ExactlyOnce: recorded.sequence
      ? 'no change applied twice, no retracted match re-inserted, write sequence numbers rise, and ' +
        'every prefix of the sink equals the oracle over a prefix of the log that never shrinks'
      : 'no change applied twice, no retracted match re-inserted, no retraction of a match the ' +
        'sink does not hold (no sequence numbers recorded: the prefix property is not checked)',
    Fenced: recorded.epochs ? 'no write below the highest epoch already seen for its key' : 'no epochs recorded',
  };
  const properties: AuditPropertyResult[] = AUDIT_PROPERTIES.map((property) => {
    const n = counted[property];
    const why = property === 'JoinCorrect' && incomplete !== undefined ? incomplete : unknown[property];
    const verdict =
      n > 0 ? 'violated' : property === 'Fenced' && !recorded.epochs ? 'not-checked' : why !== undefined ? 'unknown' : 'holds';
    return {
      property,
      verdict,
      scope: verdict === 'unknown' && why !== undefined ? `${scope[property]}; unknown: ${why}` : scope[property],
      violations: n,
    };
  });
  const verdict: AuditVerdict = properties.some((p) => p.verdict === 'violated')
    ? 'violation'
    : properties.some((p) => p.verdict === 'unknown')
      ? 'unknown'
      : 'valid';
  return {
    verdict,
    config: ctx.config,
    profile: ctx.profile,
    shard: options.shard !== undefined && options.shard.count > 1 ? options.shard : null,
    engine: 'impl',
    log: {
      path: options.log,
      format: ctx.logFormat,
      gzip: ctx.log.gzip,
      lines: ctx.log.lines(),
      records: check.counts.logRecords,
      watermarks: check.counts.watermarks,
      rejected: check.counts.rejected,
      cut: ctx.log.cut(),
      notes: ctx.log.notes(),
    },
    sink: {
      path: options.sink,
      format: ctx.sinkFormat,
      gzip: ctx.sink.gzip,
      lines: ctx.sink.lines(),
      changes: ctx.sinkLines ?? check.counts.sinkChanges,
      writes: recorded.sequence ? check.counts.sinkWrites : null,
      sequence: recorded.sequence,
      epochs: recorded.epochs,
      cut: ctx.sink.cut(),
      end: ctx.end ?? null,
      notes: ctx.sink.notes(),
    },
    incomplete: incomplete ?? null,
    properties,
    violations: AUDIT_PROPERTIES.flatMap((p) => kept[p]),
    stats: {
      oracleInserts: check.counts.oracleInserts,
      oracleRetracts: check.counts.oracleRetracts,
      peakFollowed: check.counts.peakFollowed,
      forgotten: check.counts.forgotten,
      contractSuspects: check.contractSuspects.length,
      secondPass: ctx.secondPass,
    },
  };
}
