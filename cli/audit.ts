// `streamjoin audit`: check a recorded history (a log and a sink) against the
// spec, or write an example history to check. Arguments only; the work is in
// conformance/audit/.
import { existsSync, rmSync, statSync } from 'node:fs';
import { abortReason, Interrupted, printable, readInputsAhead } from '../spec/index.ts';
import type { AuditProgress, AuditResult } from '../conformance/audit/audit.ts';
import { AUDIT_HEAP_MB, auditBounded } from '../conformance/audit/auditThread.ts';
import { DAMAGE_KINDS, type DamageKind } from '../conformance/audit/damage.ts';
import { SINK_MODELS, type SinkModel } from '../conformance/audit/diffSink.ts';
import { writeExampleHistory } from '../conformance/audit/example.ts';
import { loadColumnMapping } from '../conformance/audit/columns.ts';
import { HISTORY_FORMATS, READ_FORMATS, type HistoryFormat, type ReadFormat } from '../conformance/audit/formats.ts';
import { TIME_UNITS, type TimeUnit } from '../conformance/audit/times.ts';
import { invocationOf, type Output } from './output.ts';
import { EXIT, positiveIntegerFlag, seedFlag, usageError } from './exitCodes.ts';
import type { Shard } from '../conformance/job/shard.ts';
import { shardFlag } from './shardArgs.ts';
import { parseCommandArgs } from './options.ts';
import { reportHeader, type ReportHeader } from './version.ts';

export const AUDIT_REPORT_FORMAT = 'streamjoin/audit-report@1';

export const auditHelp = `streamjoin audit --log FILE --sink FILE [--config FILE] [options]
streamjoin audit --log LEFT --log-right RIGHT --sink FILE [options]
streamjoin audit --example DIR [--seed N] [--records N] [--format F] [--gzip] [--damage KIND]

Checks a recorded history against the spec (docs/audit.md): the log (the
input records in the order the system consumed them, watermarks included)
and the sink (the changes the sink applied, in the order it applied them).
Both files are read in one streaming pass, in memory that retention bounds,
gzip or not (told by their first bytes).

  JoinCorrect   at the end, the sink's relation equals the oracle's over the whole log
  ExactlyOnce   no change applied twice, no retracted match re-inserted; with
                sequence numbers, every prefix of the sink equals the oracle over
                a prefix of the log that never shrinks
  Fenced        with epochs, no write below the highest epoch seen for its key

The log itself must be valid (J1) and in contract (J9): a corrupt recording is
bad input, not a violation.

  --log FILE           the input records (formats below)
  --log-right FILE     the log in two files recorded apart (two topics): --log
                       holds the left side's records and watermarks, this the
                       right side's, each in the order the system consumed it;
                       a row whose lateness depends on how the system
                       interleaved the two is counted, not judged
  --sink FILE          the applied changes
  --config FILE        the join config (SPEC J0), or a cluster config; default:
                       the log's header line
  --format F           both files' format: streamjoin, flink (changelog-json),
                       debezium (also Flink's debezium-json), canal, maxwell,
                       flink-print (default: told from the first lines);
                       --log-format, --sink-format for each. FILE - is stdin
  --columns MAP        the rows' column names: key=COL,side=COL,id=COL,ts=COL,
                       start=COL,end=COL (log), match=, left=, right= (sink),
                       side.NAME=L|R, order=COL COL ... (printed rows); or a
                       JSON file with the same (docs/audit.md)
  --time-unit U        the unit of the log's times, for ISO-8601 ones (and of
                       L and D): s, ms (default), us, ns
  --sink-model M       how the sink's lines are read: set (default), each line
                       an insert or a retraction of its match; diff, signed
                       multiplicities (+1/-1, or a diff field) netted per write,
                       which must be 0 or 1 at every write's end
  --no-lateness        the engine has no watermark lateness (L unbounded): no
                       row is late, none is evicted; the config's L is ignored
  --shard K/N          judge only the keys whose hash falls to shard K of N
                       (both files are read whole; state is kept for those keys
                       only): merge the shards' --json reports with merge-reports
  --incomplete         the recording stopped while the system ran: the final
                       relation is not judged (the sink's last line may say so too)
  --allow-invalid      invalid records (J1) were consumed and rejected by the
                       system, not a corrupt recording
  --lookahead N        log records read ahead of where the sink stands before a
                       change the log has not made yet is set aside (default 100000)
  --spill MODE         check by partitions by key hash on disk (bounded memory
                       for a sink far out of log order, e.g. grouped by key):
                       auto (default: when the one pass would hold too much),
                       always, never
  --heap MB            the audit's heap (default ${AUDIT_HEAP_MB}); a full heap ends the
                       audit with no verdict (exit 2). A history whose
                       watermark stalls, or a key whose own changes the sink
                       writes far from log order, may need more
  --keep N             violations kept with witnesses per property (default 20)
  --json               print one JSON report (${AUDIT_REPORT_FORMAT},
                       spec/schemas/reports/audit-report.schema.json)
  --quiet              no progress on stderr

  --example DIR        write a history to audit into DIR: the implementation's
                       cluster under random faults, recorded, brought back to
                       quiescence (log.jsonl, sink.jsonl, config.json)
  --seed N             its seed (default: STREAMJOIN_SEED, else random; printed)
  --records N          its log records (default 2000)
  --gzip               compress both files
  --damage KIND        damage its sink: ${DAMAGE_KINDS.join(', ')}

SIGINT or SIGTERM stops it: how far it read is printed, no verdict (exit 2).

Exit codes: 0 valid (every property holds); 1 a property is violated; 2 unknown
(the history is incomplete or cut short, and nothing is violated, or the
audit was interrupted); 254 bad
input (unreadable, malformed line, invalid or out-of-contract log) or usage;
255 internal error.`;

/** `streamjoin audit --json`: the header, the exit code, and the library's result. */
export interface AuditJson extends ReportHeader, AuditResult {
  readonly exitCode: number;
  readonly seconds: number;
}

function formatFlag(flag: string, value: string | undefined): ReadFormat | 'auto' | undefined {
  if (value === undefined) return undefined;
  if (value === 'auto' || (READ_FORMATS as readonly string[]).includes(value)) return value as ReadFormat | 'auto';
  throw usageError(`${flag} must be one of ${READ_FORMATS.join(', ')} (or auto), got "${value}"`);
}

const n = (x: number): string => x.toLocaleString('en-US');

/** Progress on stderr: records per second and an ETA from the bytes read; live on a terminal, a line every 5 s elsewhere. */
function progressReporter(out: Output): { tick: (p: AuditProgress) => void; stop: () => void } {
  const started = performance.now();
  let last = started;
  let live = false;
  const every = out.interactive ? 500 : 5000;
  return {
    tick(p) {
      const now = performance.now();
      if (now - last < every || now - started < 1000) return;
      last = now;
      const seconds = (now - started) / 1000;
      const share = p.bytes > 0 ? p.bytesRead / p.bytes : 0;
      const eta = share > 0 ? (seconds / share) * (1 - share) : Number.NaN;
      const text =
        `audit: ${n(p.logRecords)} log records, ${n(p.sinkChanges)} sink changes, ` +
        `${(100 * share).toFixed(0)}% read, ${n(Math.round(p.logRecords / seconds))} records/s, ` +
        `ETA ${Number.isFinite(eta) ? `${Math.ceil(eta)} s` : '?'}`;
      if (out.interactive) {
        out.stderr(`\r\x1b[K${text}`);
        live = true;
      } else out.stderr(`${text}\n`);
    },
    stop() {
      if (live) out.stderr('\r\x1b[K');
    },
  };
}

function verdictExit(r: AuditResult): number {
  return r.verdict === 'violation' ? EXIT.fail : r.verdict === 'unknown' ? EXIT.unknown : EXIT.pass;
}

function describeFile(f: AuditResult['log'] | AuditResult['sink'], what: string): string {
  return `${f.path} (${f.format}${f.gzip ? ', gzip' : ''}${f.cut ? ', CUT SHORT' : ''}, ${what})`;
}

function textReport(r: AuditResult, seconds: number): string {
  const out: string[] = [];
  const recorded = [r.sink.sequence ? 'sequence numbers' : '', r.sink.epochs ? 'epochs' : ''].filter(Boolean).join(' and ');
  out.push(
    `streamjoin audit: ${describeFile(r.log, `${n(r.log.records)} records, ${n(r.log.watermarks)} watermarks`)} against ${describeFile(
      r.sink,
      `${n(r.sink.changes)} changes${r.sink.writes === null ? '' : ` in ${n(r.sink.writes)} writes`}${recorded ? `; ${recorded} recorded` : ''}`,
    )}`,
  );
  if (r.shard !== null) out.push(`  shard ${r.shard.index}/${r.shard.count}: only the keys whose hash falls to it are judged`);
  const lateness = r.profile.lateness === 'none' ? 'no lateness (L unbounded)' : `L=${r.config.allowedLateness}`;
  out.push(
    `  profile: ${lateness} D=${r.config.maxIntervalLength}, sink read as ${r.profile.sinkModel === 'diff' ? 'signed multiplicities (diff)' : 'set changes (set)'}; oracle: the ` +
      `audit's join (${n(r.stats.oracleInserts)} inserts, ` +
      `${n(r.stats.oracleRetracts)} retractions); ${seconds.toFixed(1)} s`,
  );
  // What comes from the files (ids, field names, the lines themselves) is printed printable and bounded: one line each.
  for (const note of r.log.notes) out.push(`  log: ${printable(note)}`);
  for (const note of r.sink.notes) out.push(`  sink: ${printable(note)}`);
  if (r.incomplete !== null) out.push(`  incomplete: ${r.incomplete}`);
  if (r.twoInputs !== null) {
    const t = r.twoInputs;
    out.push(
      `  two inputs recorded apart (left ${t.left}, right ${t.right}): ${n(t.orderDependentRows)} row(s) depend on the processing order` +
        (t.orderDependentRows > 0
          ? ` (${n(t.orderDependentRecords)} record(s)): late or on time (or a re-use of a forgotten row, J9) depending on how the system interleaved the two; their matches are not judged`
          : ''),
    );
    for (const e of t.examples) out.push(`    ${`${e.path}:${e.line}`.padEnd(24)} row (${e.key}, ${e.side}, ${e.id}): ${e.why}`);
    if (t.orderDependentRecords > t.examples.length) out.push(`    ... and ${n(t.orderDependentRecords - t.examples.length)} more`);
  }
  for (const p of r.properties) {
    const mark =
      p.verdict === 'violated' ? 'VIOLATED' : p.verdict === 'unknown' ? 'UNKNOWN' : p.verdict === 'not-checked' ? 'not checked' : 'holds';
    out.push(`  ${p.property.padEnd(12)} ${mark.padEnd(11)} ${p.violations > 0 ? `${n(p.violations)} violation(s); ` : ''}${p.scope}`);
  }
  const total = r.properties.reduce((s, p) => s + p.violations, 0);
  r.violations.forEach((v, i) => {
    out.push(
      '',
      `violation ${i + 1}${total > r.violations.length ? ` (of ${n(total)}, ${r.violations.length} shown)` : ''}: ${v.property} (${v.kind}): ${printable(v.message, 1000)}`,
    );
    for (const w of v.witness) {
      const path = w.path ?? (w.file === 'log' ? r.log.path : r.sink.path);
      out.push(
        `    ${`${path}:${w.line}`.padEnd(24)} ${printable(w.role)}${w.text !== undefined ? `\n      ${printable(w.text, 1000)}` : ''}`,
      );
    }
  });
  out.push(
    '',
    r.verdict === 'valid'
      ? 'valid: every property holds (exit 0)'
      : r.verdict === 'violation'
        ? `VIOLATION: ${r.properties
            .filter((p) => p.verdict === 'violated')
            .map((p) => p.property)
            .join(', ')} (exit 1)`
        : 'UNKNOWN: nothing is violated, but the history cannot be judged whole (exit 2)',
  );
  return `${out.join('\n')}\n`;
}

export async function auditCommand(args: readonly string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    {
      args: [...args],
      allowPositionals: false,
      options: {
        log: { type: 'string' },
        'log-right': { type: 'string' },
        sink: { type: 'string' },
        config: { type: 'string' },
        format: { type: 'string' },
        'log-format': { type: 'string' },
        'sink-format': { type: 'string' },
        'sink-model': { type: 'string' },
        'no-lateness': { type: 'boolean', default: false },
        shard: { type: 'string' },
        spill: { type: 'string' },
        incomplete: { type: 'boolean', default: false },
        'allow-invalid': { type: 'boolean', default: false },
        lookahead: { type: 'string' },
        keep: { type: 'string' },
        heap: { type: 'string' },
        json: { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        example: { type: 'string' },
        seed: { type: 'string' },
        records: { type: 'string' },
        gzip: { type: 'boolean', default: false },
        damage: { type: 'string' },
        columns: { type: 'string' },
        'time-unit': { type: 'string' },
      },
    },
    'audit',
  );
  if (positionals.length > 0) throw usageError(`audit takes no positional arguments, got ${positionals.join(' ')}`);
  const format = formatFlag('--format', values.format);
  if (values.example !== undefined) {
    if (format !== undefined && format !== 'auto' && !(HISTORY_FORMATS as readonly string[]).includes(format))
      throw usageError(`--example writes ${HISTORY_FORMATS.join(', ')}, not ${format}`);
    return example(values, format as HistoryFormat | 'auto' | undefined, out);
  }
  for (const flag of ['seed', 'records', 'gzip', 'damage'] as const) {
    if (values[flag] !== undefined && values[flag] !== false) throw usageError(`--${flag} goes with --example`);
  }
  if (values.log === undefined || values.sink === undefined) throw usageError('audit needs --log FILE and --sink FILE (or --example DIR)');
  if (values.log === '-' && values.sink === '-') throw usageError('--log and --sink cannot both be - (the standard input is one stream)');
  const logFormat = formatFlag('--log-format', values['log-format']) ?? format ?? 'auto';
  const sinkFormat = formatFlag('--sink-format', values['sink-format']) ?? format ?? 'auto';
  const timeUnit = values['time-unit'];
  if (timeUnit !== undefined && !(TIME_UNITS as readonly string[]).includes(timeUnit))
    throw usageError(`--time-unit must be one of ${TIME_UNITS.join(', ')}, got "${timeUnit}"`);
  const lookahead = values.lookahead === undefined ? undefined : positiveIntegerFlag('--lookahead', values.lookahead, 'records');
  const keep = values.keep === undefined ? undefined : positiveIntegerFlag('--keep', values.keep);
  const heapMb = values.heap === undefined ? undefined : positiveIntegerFlag('--heap', values.heap, 'MB');
  const sinkModel = values['sink-model'];
  if (sinkModel !== undefined && !(SINK_MODELS as readonly string[]).includes(sinkModel))
    throw usageError(`--sink-model must be one of ${SINK_MODELS.join(', ')}, got "${sinkModel}"`);
  const spill = values.spill;
  if (spill !== undefined && spill !== 'auto' && spill !== 'always' && spill !== 'never')
    throw usageError(`--spill must be one of auto, always, never, got "${spill}"`);
  const progress = values.quiet ? undefined : progressReporter(out);
  const started = performance.now();
  // A FIFO or a pipe is read ahead (spec/inputFiles.ts): nothing blocks, the interrupt is heard, and the second pass can read it again.
  await readInputsAhead(
    [values.log, values['log-right'], values.sink, values.config, values.columns?.includes('=') ? undefined : values.columns],
    { signal: out.signal },
  );
  let result: AuditResult;
  let last: AuditProgress | undefined;
  try {
    result = await auditBounded(
      {
        log: values.log,
        ...(values['log-right'] === undefined ? {} : { logRight: values['log-right'] }),
        sink: values.sink,
        ...(values.config === undefined ? {} : { config: values.config }),
        logFormat,
        sinkFormat,
        reading: {
          ...(values.columns === undefined ? {} : { columns: loadColumnMapping(values.columns) }),
          ...(timeUnit === undefined ? {} : { timeUnit: timeUnit as TimeUnit }),
        },
        ...(sinkModel === undefined ? {} : { sinkModel: sinkModel as SinkModel }),
        noLateness: values['no-lateness'],
        ...(spill === undefined ? {} : { spill }),
        ...(values.shard === undefined ? {} : { shard: shardFlag(values.shard) as Shard }),
        incomplete: values.incomplete,
        allowInvalid: values['allow-invalid'],
        ...(lookahead === undefined ? {} : { lookahead }),
        ...(keep === undefined ? {} : { keepViolations: keep }),
        onProgress: (p) => {
          last = p;
          progress?.tick(p);
        },
        ...(out.signal ? { signal: out.signal } : {}),
      },
      heapMb,
    );
  } catch (e) {
    // Interrupted: what was read so far, and no verdict (exit 2 by main, never a pass).
    if (e instanceof Interrupted && last !== undefined) {
      throw new Interrupted(`${e.reason} after ${n(last.logRecords)} log records and ${n(last.sinkChanges)} sink changes`);
    }
    throw e;
  } finally {
    progress?.stop();
  }
  const seconds = (performance.now() - started) / 1000;
  const exitCode = verdictExit(result);
  if (values.json) {
    const report: AuditJson = { ...reportHeader(AUDIT_REPORT_FORMAT), exitCode, seconds, ...result };
    out.stdout(`${JSON.stringify(report)}\n`);
  } else {
    out.stdout(textReport(result, seconds));
  }
  return exitCode;
}

async function example(
  values: { example?: string; seed?: string; records?: string; gzip: boolean; damage?: string; json: boolean; log?: string; sink?: string },
  format: HistoryFormat | 'auto' | undefined,
  out: Output,
): Promise<number> {
  const dir = values.example as string;
  if (dir === '') throw usageError('--example names no directory');
  if (values.log !== undefined || values.sink !== undefined)
    throw usageError('--example writes a history; audit it afterwards with --log and --sink');
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw usageError(`--example ${dir}: not a directory`);
  const damage = values.damage;
  if (damage !== undefined && !(DAMAGE_KINDS as readonly string[]).includes(damage)) {
    throw usageError(`--damage must be one of ${DAMAGE_KINDS.join(', ')}, got "${damage}"`);
  }
  const seed = seedFlag(values.seed);
  const records = values.records === undefined ? 2000 : positiveIntegerFlag('--records', values.records);
  const chosen: HistoryFormat = format === undefined || format === 'auto' ? 'streamjoin' : format;
  let h: ReturnType<typeof writeExampleHistory>;
  try {
    h = writeExampleHistory({
      dir,
      seed,
      records,
      format: chosen,
      gzip: values.gzip,
      ...(damage === undefined ? {} : { damage: damage as DamageKind }),
    });
  } catch (e) {
    if (e instanceof Error && e.message.startsWith('this history has no place')) throw usageError(`--damage ${damage}: ${e.message}`);
    throw e;
  }
  // Written in one piece (the work does not stop between records): an interrupt heard meanwhile takes the files back,
  // and the command ends with no history (exit 2, never a pass).
  // A signal that came while the work held the thread is dispatched at the next turn of the event loop.
  await new Promise((resolve) => setTimeout(resolve, 20));
  if (out.signal?.aborted === true) {
    for (const path of [h.log, h.sink, h.config]) rmSync(path, { force: true });
    throw new Interrupted(`${abortReason(out.signal)}; the history written meanwhile was removed`);
  }
  const configFlag = chosen === 'streamjoin' ? '' : ` --config ${h.config}`;
  const lines = [
    `wrote a recorded history of the implementation's cluster under random faults (seed ` +
      `${seed}): ${n(h.actions)} actions, ${n(h.records)} log records, ${n(h.changes)} sink changes`,
    `  log:    ${h.log}`,
    `  sink:   ${h.sink}`,
    `  config: ${h.config}`,
    ...(h.incomplete === undefined
      ? []
      : [`  the cluster did not come back to quiescence (${h.incomplete}): the sink's last line says the history is incomplete`]),
    ...(h.damage === undefined ? [] : [`  damage: ${h.damage.kind}: ${h.damage.description}`]),
    `audit it with:`,
    `  ${invocationOf(out).join(' ')} audit --log ${h.log} --sink ${h.sink}${configFlag}`,
  ];
  if (values.json) out.stdout(`${JSON.stringify({ seed, ...h })}\n`);
  else out.stdout(`${lines.join('\n')}\n`);
  return EXIT.pass;
}
