// `streamjoin audit`'s library: checks a recorded history (a log and a sink,
// docs/audit.md) against the spec in one streaming pass over both files
// (historyCheck.ts), and, only when it found something, a second pass that
// settles it exactly and gathers the witnesses (secondPass.ts).
import { InputError, checkAgainstSchema, documentFormat, readDocument, throwIfInterrupted } from '../../spec/index.ts';
import type { JoinConfig, RejectReason } from '../../spec/index.ts';
import { AUDIT_PROPERTIES, type AuditProperty, type AuditPropertyResult, type AuditViolation } from './findings.ts';
import type { SinkModel } from './diffSink.ts';
import { type CheckSummary, combineChecks, firstPass, type PassOutput, SpillNeeded } from './firstPass.ts';
import type { ReadingOptions } from './columns.ts';
import { HISTORY_LOG_FORMAT, type LogItem, type ReadFormat, type SinkItem } from './formats.ts';
import { HistoryCheck } from './historyCheck.ts';
import type { SetAside } from './historyState.ts';
import { type KeyShard, keyInShard } from './keyShard.ts';
import { HistoryFile } from './historyFiles.ts';
import { contractError, fillWitnessTexts, secondPass } from './secondPass.ts';
import { partitionHistory, type Partitions, type WatermarkCounts } from './spill.ts';
import { type MergedLog, mergeTwoInputs, originalError, originalLines, type TwoInputsSummary } from './twoInputs.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

/** Options of `auditHistory` (`streamjoin audit`): the two files, their formats, and how to check them. */
export interface AuditOptions {
  /** The log; with `logRight`, the left side's records and watermarks only. */
  readonly log: string;
  /**
   * The right side's records and watermarks, recorded apart from the left's
   * (two topics): their interleaving is unknown, so a row whose lateness
   * depends on it is counted as order-dependent, not judged (twoInputs.ts).
   */
  readonly logRight?: string;
  /** Path of the recorded sink (gzip allowed). */
  readonly sink: string;
  /** A file with the join config (SPEC J0), a cluster config, or a history log header; else the log's own header. */
  readonly config?: string;
  /** The log's format (default `auto`: detected from its lines). */
  readonly logFormat?: ReadFormat | 'auto';
  /** The sink's format (default `auto`: detected from its lines). */
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
  /**
   * Checking by partitions on disk (spill.ts): `auto` (default) when the
   * check would hold more than `spillAt` items (a sink far out of log
   * order); `always`; `never`.
   */
  readonly spill?: 'auto' | 'always' | 'never';
  /** With spill `auto`: items held past which the check goes on by partitions (default 150,000). */
  readonly spillAt?: number;
  /** How many partitions, when it checks by partitions (default: about one per 50,000 log records, at least 2). */
  readonly partitions?: number;
  /** Called now and then with how far the audit is. */
  readonly onProgress?: (p: AuditProgress) => void;
  /** Aborting it stops the audit: it rejects with Interrupted (spec/pacing.ts), with no verdict. */
  readonly signal?: AbortSignalLike;
}

/** How far an audit is, for a progress line. */
export interface AuditProgress {
  /** Log records read so far. */
  readonly logRecords: number;
  /** Sink changes read so far. */
  readonly sinkChanges: number;
  /** Bytes of both files read, and their sizes on disk (gzip: compressed). */
  readonly bytesRead: number;
  /** Size of both files on disk (gzip: compressed). */
  readonly bytes: number;
}

/** The audit's verdict; `unknown` is never `valid`. */
export type AuditVerdict = 'valid' | 'violation' | 'unknown';

/** The largest L (SPEC J0): a record is late only when the watermark is more than 2^50 past it, which times in range never are unless they span more than 2^50. */
export const UNBOUNDED_LATENESS = 2 ** 50;

/** What the history was checked against: the lateness and the reading of the sink. */
export interface AuditProfile {
  /** `bounded`: the config's L; `none`: no lateness (`--no-lateness`, L = 2^50). */
  readonly lateness: 'bounded' | 'none';
  /** How the sink's lines were read (`set` or `diff`). */
  readonly sinkModel: SinkModel;
}

/** What the one-pass check may hold (matches, set-aside changes, oracle steps) before the audit goes on by partitions. */
const SPILL_AT = 150_000;
/** Log records per partition, about. */
const PARTITION_RECORDS = 50_000;
const MAX_PARTITIONS = 512;

/** What an audit reports: the verdict, what was read, each property's verdict and the violations kept. */
export interface AuditResult {
  /** Valid only if every property checked holds. */
  readonly verdict: AuditVerdict;
  /** The join config the history was checked against (J0). */
  readonly config: JoinConfig;
  /** The lateness and sink reading used. */
  readonly profile: AuditProfile;
  /** The shard of the keys judged (`--shard K/N`), or null: every key. */
  readonly shard: KeyShard | null;
  /** The oracle the log was replayed through: the audit's own join (conformance/audit/auditOracle.ts). */
  readonly engine: 'audit';
  /** The log given as two files (`logRight`): they and the rows whose lateness depends on the order the engine consumed them; else null. */
  readonly twoInputs: TwoInputsSummary | null;
  /** What was read from the log: its file, format and counts. */
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
  /** What was read from the sink: its file, format, counts and what it records. */
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
  /** Each property's verdict. */
  readonly properties: readonly AuditPropertyResult[];
  /** The violations kept, with their witnesses (at most `keepViolations` per property). */
  readonly violations: readonly AuditViolation[];
  /** Figures of the check itself. */
  readonly stats: {
    readonly oracleInserts: number;
    readonly oracleRetracts: number;
    readonly peakFollowed: number;
    readonly forgotten: number;
    /** Identities the J9 filter flagged as possibly re-used; the second pass confirmed or cleared each. */
    readonly contractSuspects: number;
    readonly secondPass: boolean;
    /** 1, or how many partitions by key hash the history was checked in (a sink far out of log order: spill.ts). */
    readonly partitions: number;
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

/** The config judged with: L unbounded with --no-lateness. */
function effectiveConfig(options: AuditOptions, config: JoinConfig): JoinConfig {
  return options.noLateness === true ? { ...config, allowedLateness: UNBOUNDED_LATENESS } : config;
}

/** Audits a recorded history. Throws InputError for bad input (unreadable, malformed, J1/J9 of the log, no config). */
export async function auditHistory(options: AuditOptions): Promise<AuditResult> {
  if (options.logRight !== undefined) return auditTwoInputs(options, options.logRight);
  return auditOne(options, undefined);
}

/** How the log file is read: a merged log of two inputs is streamjoin's own format, read with no column mapping. */
const logReadingOf = (options: AuditOptions, merged: MergedLog | undefined): ReadingOptions | undefined =>
  merged === undefined ? options.reading : undefined;

const readingField = (reading: ReadingOptions | undefined): { reading?: ReadingOptions } => (reading === undefined ? {} : { reading });

async function auditOne(options: AuditOptions, merged: MergedLog | undefined): Promise<AuditResult> {
  const log = new HistoryFile<LogItem>(options.log, 'log', options.logFormat ?? 'auto', logReadingOf(options, merged));
  const sink = new HistoryFile<SinkItem>(options.sink, 'sink', options.sinkFormat ?? 'auto', options.reading);
  try {
    return await run(options, log, sink, merged);
  } finally {
    log.close();
    sink.close();
  }
}

/** A log in two files: merged in a canonical order, audited with the order-dependent rows passed over, and cited back in the two files. */
async function auditTwoInputs(options: AuditOptions, right: string): Promise<AuditResult> {
  const merged = await mergeTwoInputs({
    left: options.log,
    right,
    format: options.logFormat ?? 'auto',
    reading: options.reading,
    config: options.config !== undefined ? loadAuditConfig(options.config) : undefined,
    noLateness: options.noLateness === true,
    signal: options.signal,
  });
  try {
    let r: AuditResult;
    try {
      r = await auditOne({ ...options, log: merged.path, logFormat: 'streamjoin' }, merged);
    } catch (e) {
      throw originalError(e, merged);
    }
    // Witness lines of the merged log, said of the file and line they came from, with that line's own text.
    const refill: AuditViolation[] = [];
    const violations = r.violations.map((v) => ({
      ...v,
      message: originalLines(v.message, merged),
      witness: v.witness.map((w) => {
        const o = w.file === 'log' ? merged.origin(w.line) : undefined;
        if (o === undefined) return w;
        const moved = { file: 'log' as const, line: o.line, role: originalLines(w.role, merged), path: o.path };
        refill.push({ ...v, witness: [moved] });
        return moved;
      }),
    }));
    for (const path of [options.log, right])
      await fillWitnessTexts(
        { path },
        { path: options.sink },
        refill.filter((v) => v.witness[0]?.path === path),
      );
    return {
      ...r,
      twoInputs: merged.summary,
      log: {
        ...r.log,
        path: `${options.log} + ${right}`,
        format: merged.format,
        gzip: merged.gzip,
        lines: merged.lines,
        notes: [...merged.notes, ...r.log.notes],
      },
      violations,
    };
  } finally {
    merged.remove();
  }
}

async function run(
  options: AuditOptions,
  log: HistoryFile<LogItem>,
  sink: HistoryFile<SinkItem>,
  merged: MergedLog | undefined,
): Promise<AuditResult> {
  const logFormat = await log.format();
  const sinkFormat = await sink.format();
  // The config: --config, else the log's header line (its first item). Given, the log's reader has it
  // before its first line, as in the second pass (it forgets rows past their horizon at the same lines).
  let config = options.config !== undefined ? loadAuditConfig(options.config) : undefined;
  if (config !== undefined) await log.useConfig(effectiveConfig(options, config));
  const logBatch = await log.next();
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
  config = effectiveConfig(options, config);
  if (options.config === undefined) await log.useConfig(config);
  const sinkModel = options.sinkModel ?? 'set';
  const shard = options.shard !== undefined && options.shard.count > 1 ? options.shard : undefined;
  const keep = shard === undefined ? undefined : (key: string): boolean => keyInShard(key, shard);
  // About 60 bytes a record uncompressed, five times that compressed.
  const expectedRecords = Math.ceil((log.bytes * (log.gzip ? 5 : 1)) / 60);
  const newCheck = (expected: number, partitioned = false): HistoryCheck => {
    const check = new HistoryCheck({
      config: config as JoinConfig,
      lookahead: options.lookahead ?? 100_000,
      allowInvalid: options.allowInvalid === true,
      keepViolations: options.keepViolations ?? 20,
      expectedRecords: expected,
      logName: options.log,
      sinkName: options.sink,
      sinkModel,
      noLateness: options.noLateness === true,
      ...(partitioned ? { watermarksCountedApart: true } : {}),
      ...(merged === undefined ? {} : { interleavingUnknown: true }),
      ...(merged?.orderDependent === undefined ? {} : { orderDependent: merged.orderDependent }),
      ...(options.forgottenCache === undefined ? {} : { forgottenCache: options.forgottenCache }),
    });
    if (options.incomplete === true) check.markIncomplete('--incomplete: the recording was cut while the system ran');
    return check;
  };
  const names = { log: options.log, sink: options.sink };
  const spill = options.spill ?? 'auto';
  const checks: HistoryCheck[] = [];
  /** Per check, the matches it set aside for the second pass (finish()). */
  const setAsides: SetAside[][] = [];
  let pass: PassOutput | undefined;
  let partitions = 1;
  /** Checked by partitions: the log's watermarks, counted once by the partitioning. */
  let watermarks: WatermarkCounts | undefined;
  if (spill !== 'always') {
    const check = newCheck(expectedRecords);
    const progress = (): void =>
      options.onProgress?.({
        logRecords: check.counts.logRecords,
        sinkChanges: check.counts.sinkChanges,
        bytesRead: log.bytesRead() + sink.bytesRead(),
        bytes: log.bytes + sink.bytes,
      });
    try {
      pass = await firstPass({
        check,
        log,
        logBatch,
        logAt,
        sink,
        names,
        keep,
        sinkModel,
        spillAt: spill === 'auto' ? (options.spillAt ?? SPILL_AT) : Number.POSITIVE_INFINITY,
        signal: options.signal,
        progress,
      });
      checks.push(check);
      setAsides.push(check.finish());
    } catch (e) {
      if (!(e instanceof SpillNeeded)) throw e;
    }
  }
  if (pass === undefined) {
    // By partitions: each holds at most its share of what waits for the sink (spill.ts).
    partitions = options.partitions ?? Math.min(MAX_PARTITIONS, Math.max(2, Math.ceil(expectedRecords / PARTITION_RECORDS)));
    const parts = await partitionAnew(options, logFormat, sinkFormat, partitions, keep, config, logReadingOf(options, merged));
    try {
      let sinkLines = 0;
      for (let p = 1; p <= partitions; p++) {
        const check = newCheck(Math.ceil(expectedRecords / partitions), true);
        const source = parts.log(p);
        const out = await firstPass({
          check,
          log: source,
          logBatch: await source.next(),
          logAt: 0,
          sink: parts.sink(p),
          ...(parts.end === undefined ? {} : { end: parts.end }),
          names,
          keep: undefined,
          sinkModel,
          spillAt: Number.POSITIVE_INFINITY,
          signal: options.signal,
          progress: () => undefined,
        });
        sinkLines += out.sinkLines ?? 0;
        checks.push(check);
        // Judged at once and let go of: what a partition keeps after its pass does not grow with the history.
        setAsides.push(check.finish());
        check.release();
        options.onProgress?.({
          logRecords: checks.reduce((n, c) => n + c.counts.logRecords, 0),
          sinkChanges: checks.reduce((n, c) => n + c.counts.sinkChanges, 0),
          bytesRead: log.bytes + sink.bytes,
          bytes: log.bytes + sink.bytes,
        });
      }
      pass = { end: parts.end, sinkLines: sinkModel === 'diff' ? sinkLines : undefined };
      watermarks = parts.watermarks;
    } finally {
      parts.remove();
    }
  }
  const summarize = (): CheckSummary =>
    watermarks === undefined ? (checks[0] as HistoryCheck) : combineChecks(checks, options.keepViolations ?? 20, watermarks);
  const summary = summarize();
  // Two inputs: a re-use of an order-dependent identity is in contract under some interleaving (twoInputs.ts).
  const suspects =
    merged === undefined
      ? summary.contractSuspects
      : summary.contractSuspects.filter((s) => !merged?.dependentIdentity(s.key, s.side, s.id));
  const needSecond =
    setAsides.some((s) => s.length > 0) || suspects.length > 0 || Object.values(summary.violations().counted).some((n: number) => n > 0);
  if (needSecond) {
    throwIfInterrupted(options.signal);
    const keptOf = (): AuditViolation[] => checks.flatMap((c) => AUDIT_PROPERTIES.flatMap((p) => c.violations().kept[p]));
    const kept = keptOf();
    const files = {
      config,
      log: { path: options.log, format: logFormat, ...readingField(logReadingOf(options, merged)) },
      sink: { path: options.sink, format: sinkFormat },
    };
    const found = await secondPass({ ...files, matches: setAsides.flatMap((s) => s.map((a) => a.match)), suspects }, kept);
    if (found.contract !== undefined) throw contractError(options.log, found.contract);
    checks.forEach((c, i) => {
      for (const a of setAsides[i] ?? [])
        c.judgeSetAside(a, found.lifecycles.get(a.match) ?? { insert: 0, retract: 0 }, found.dropped.get(a.match));
    });
    // Violations found while judging what was set aside need their witnesses too.
    const all = keptOf();
    const fresh = all.filter((v) => !kept.includes(v));
    if (fresh.length > 0) await secondPass({ ...files, matches: [], suspects: [] }, fresh);
    await fillWitnessTexts({ path: options.log }, { path: options.sink }, all);
  }
  const final = summarize();
  return result(options, final, {
    log,
    sink,
    logFormat,
    sinkFormat,
    config,
    end: pass.end,
    secondPass: needSecond,
    profile: { lateness: options.noLateness === true ? 'none' : 'bounded', sinkModel },
    sinkLines: pass.sinkLines,
    partitions,
    twoInputs: merged !== undefined,
  });
}

/** Reads both files again, from the start, into partitions by key hash. */
async function partitionAnew(
  options: AuditOptions,
  logFormat: ReadFormat,
  sinkFormat: ReadFormat,
  count: number,
  keep: ((key: string) => boolean) | undefined,
  config: JoinConfig,
  logReading: ReadingOptions | undefined,
): Promise<Partitions> {
  const log = new HistoryFile<LogItem>(options.log, 'log', logFormat, logReading);
  const sink = new HistoryFile<SinkItem>(options.sink, 'sink', sinkFormat, options.reading);
  await log.useConfig(effectiveConfig(options, config));
  try {
    return await partitionHistory(log, sink, config, count, { log: options.log, sink: options.sink }, keep ?? (() => true), options.signal);
  } finally {
    log.close();
    sink.close();
  }
}

function result(
  options: AuditOptions,
  check: CheckSummary,
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
    partitions: number;
    /** The log was given as two files: their interleaving is unknown. */
    twoInputs: boolean;
  },
): AuditResult {
  const { kept, counted, unknown } = check.violations();
  const recorded = check.recorded();
  const incomplete = check.incompleteness();
  const scope: Record<AuditProperty, string> = {
    JoinCorrect: incomplete
      ? `not judged at the end (${incomplete}); ids that are no match of the log are still checked`
      : "at the end, the sink's relation equals the oracle's over the whole log",
    ExactlyOnce: ctx.twoInputs
      ? 'no change applied twice, no retracted match re-inserted, no retraction of a match the sink does not hold ' +
        "(the log's two inputs were recorded apart: with their interleaving unknown, the prefix property is not checked)"
      : recorded.sequence
        ? 'no change applied twice, no retracted match re-inserted, write sequence numbers rise, and ' +
          'every prefix of the sink equals the oracle over a prefix of the log that never shrinks'
        : 'no change applied twice, no retracted match re-inserted, no retraction of a match the ' +
          'sink does not hold (no sequence numbers recorded: the prefix property is not checked)',
    Fenced: recorded.epochs ? 'no write below the highest epoch already seen for its key' : 'no epochs recorded',
  };
  // An empty log is never a valid history: a recorder that wrote nothing (or a wrong path) would pass every run.
  const nothing =
    ctx.log.items() === 0
      ? 'the log holds no record and no watermark, so nothing was audited (is it the file the recorder writes?)'
      : undefined;
  const properties: AuditPropertyResult[] = AUDIT_PROPERTIES.map((property) => {
    const n = counted[property];
    const why = property === 'JoinCorrect' ? (incomplete ?? nothing ?? unknown[property]) : unknown[property];
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
    engine: 'audit',
    twoInputs: null,
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
      partitions: ctx.partitions,
    },
  };
}
