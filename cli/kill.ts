// `streamjoin conform --kill` and `streamjoin replay --kill`: kill mode
// (spec/PROTOCOL.md, "Kill mode"; conformance/kill/). Parses nothing itself:
// conform.ts and replay.ts hand over their checked flags.
import { join } from 'node:path';
import type { ClusterTrace } from '../spec/index.ts';
import { prettyJson } from '../conformance/sut/jsonDiff.ts';
import { writeFileAtomic } from '../conformance/streams/atomicFiles.ts';
import { DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, type ProcessOptions } from '../conformance/adapters/process.ts';
import { divergenceStepText, explainDivergence } from '../conformance/report/divergence.ts';
import { describeDivergence } from '../conformance/views/explain.ts';
import { DATA_PLACEHOLDER, totalKills } from '../conformance/kill/killRun.ts';
import { runKillJob, type KillJobReport } from '../conformance/kill/killJob.ts';
import { killNoteAt, withKills } from '../conformance/kill/killTraces.ts';
import type { ExhaustiveKill } from '../conformance/kill/everyWritePoint.ts';
import { invocationOf, type Output } from './output.ts';
import { inShard, type Shard } from '../conformance/job/shard.ts';
import { withDeadline, type AbortSignalLike } from '../spec/index.ts';
import { emitReports, reporterOnStdout, type Reporter } from './reporters/emit.ts';
import { killCases, killJson } from './killReport.ts';
import { positiveIntegerFlag, usageError, verdictText } from './exitCodes.ts';
import type { SystemFlags } from './harnessArgs.ts';

export const KILL_HELP = `  --kill               kill mode (spec/PROTOCOL.md, "Kill mode"), level faults: the
                       command names its data directory with {data} (the harness
                       gives each trace a fresh one and removes it after); at each
                       crash point (and in flight at one or two other steps of
                       each random trace, and inside the first init of some)
                       the whole process group gets SIGKILL, the command is
                       started again on the same directory, re-attaches (init
                       with "recover": true) and must show the model's state
                       after a crash of every node; prints the kills and the
                       time each kill and restart took; every trace ends with
                       a kill after its last step; with --exhaustive, first
                       the init and each step of the cluster example
                       ${'planned-migration-under-traffic'}, then a step of
                       each kind it lacks from the other examples, killed at
                       every durable write point it makes, in turn (slow: a
                       process start per write point); --json (the report
                       streamjoin/conform-kill-report@1), --shard, --time-budget
                       and --reporter work as below, a case per trace`;

export const REPLAY_KILL_HELP = `  --kill               replay a kill-mode trace (spec/PROTOCOL.md, "Kill mode"): the
                       command names its data directory with {data}; at each kill
                       step of the trace (a trace with none: at each crash point
                       and after its last step)
                       the process group gets SIGKILL, the command restarts on the
                       same directory and re-attaches; an in-flight kill is
                       resolved again by what the system shows; --json prints
                       the kill report (streamjoin/conform-kill-report@1, the
                       trace as its one example), --reporter as for conform;
                       --out, --itf and --write-expected are refused (the trace
                       is the counterexample already)`;

/** The process options of --timeout, --startup-timeout and --max-line. */
function processOptions(flags: SystemFlags, signal: AbortSignalLike | undefined): ProcessOptions {
  const timeout = flags.timeout === undefined ? undefined : positiveIntegerFlag('--timeout', flags.timeout, 'milliseconds');
  const startup =
    flags['startup-timeout'] === undefined ? undefined : positiveIntegerFlag('--startup-timeout', flags['startup-timeout'], 'milliseconds');
  return {
    timeoutMs: timeout ?? DEFAULT_TIMEOUT_MS,
    startupTimeoutMs: startup ?? timeout ?? DEFAULT_STARTUP_TIMEOUT_MS,
    ...(flags['max-line'] === undefined ? {} : { maxLineBytes: positiveIntegerFlag('--max-line', flags['max-line'], 'bytes') }),
    ...(signal ? { signal } : {}),
  };
}

/** A usage error unless the command is one kill mode can run: a command (not in-process) naming {data}. */
export function checkKillCommand(sut: string): void {
  if (sut === 'model' || sut === 'impl')
    throw usageError(
      `--kill kills a process: --sut ${sut} runs in-process; use a command, e.g. "streamjoin serve --data ${DATA_PLACEHOLDER}"`,
    );
  if (!sut.includes(DATA_PLACEHOLDER))
    throw usageError(
      `--kill: the command must name its data directory with ${DATA_PLACEHOLDER}, e.g. "streamjoin serve --data ${DATA_PLACEHOLDER}"`,
    );
}

const quoteArg = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`);

/** The summary lines of a kill-mode run. */
export function killSummary(report: KillJobReport, written: string | undefined, replay: string | undefined, shard?: Shard): string {
  const k = report.kills;
  const lines: string[] = [];
  lines.push(`streamjoin conform --kill: ${verdictText(report.verdict)}`);
  lines.push(`  system: ${report.sut}${shard ? ` (shard ${shard.index}/${shard.count})` : ''}`);
  lines.push(
    `  traces: ${report.examples} examples, ${report.exhaustiveRuns > 0 ? `${report.exhaustiveRuns} exhaustive (one per write point; ${report.exhaustiveDiedAtWrite} died at theirs), ` : ''}${report.runs} of ${report.requested} random (seed ${report.seed}); ${report.steps} steps`,
  );
  if (report.exhaustiveRuns > 0 && report.exhaustiveDiedAtWrite === 0)
    lines.push(
      '  note: the system never killed itself at a write point: it does not implement STREAMJOIN_KILL_AT_WRITE (spec/PROTOCOL.md), or no request this run killed makes a durable write; each was killed only after it answered, never inside its writes',
    );
  lines.push(
    `  kills: ${totalKills(k)} (after a reply ${k.afterReply}; in flight ${k.inFlightLost + k.inFlightApplied + k.inFlightPartly}: lost ${k.inFlightLost}, applied ${k.inFlightApplied}, partly ${k.inFlightPartly}; inside init ${k.inInit})`,
  );
  if (report.restarts.count > 0)
    lines.push(
      `  kill and restart: ${report.restarts.count}, mean ${Math.round(report.restarts.meanMs)} ms, longest ${Math.round(report.restarts.maxMs)} ms`,
    );
  const f = report.failure;
  if (f) {
    lines.push(`  counterexample: ${f.trace.steps.length} steps (from ${f.originalSteps}, ${f.shrinks} reruns minimizing; ${f.source})`);
    const note = f.killed ? killNoteAt(f.trace, f.divergence.step) : undefined;
    if (note) lines.push(`  ${f.divergence.step < 0 ? 'init' : divergenceStepText(f.divergence.step)}: ${note}`);
    lines.push('');
    lines.push(describeDivergence(explainDivergence(f.divergence)));
    const reattachFailed = f.divergence.at.level === 'cluster' && f.divergence.at.reattachFailed !== undefined;
    if (f.killed && !reattachFailed)
      lines.push(
        'The observation above is the one right after the restart: the system did not recover from its directory what the model keeps across a crash of every node (C2, C10): the log, the store, the coordinator table and handoff, the sink.',
      );
    if (written) lines.push(`written: ${written}`);
    if (replay) lines.push(`replay: ${replay}`);
  }
  if (report.unknown) {
    lines.push(`  reason: ${report.unknown.reason}`);
    for (const l of report.unknown.stderrTail) lines.push(`  | ${l}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `conform --kill`: the kill-mode job; prints the summary, writes the counterexample; the exit code. */
export async function killConformCommand(
  options: {
    readonly sut: string;
    readonly seed: number;
    readonly runs: number;
    readonly examples: readonly { path: string; trace: ClusterTrace }[];
    readonly exhaustive: readonly ExhaustiveKill[];
    /** Steps killed at every write point after the examples (the default run's message kills). */
    readonly afterExamples?: readonly ExhaustiveKill[];
    readonly outDir: string;
    readonly flags: SystemFlags;
    /** --json: the report on stdout instead of the summary. */
    readonly json?: boolean;
    readonly reporters?: readonly Reporter[];
    readonly shard?: Shard;
    /** --time-budget, in seconds: the run stops at it as at an interrupt (verdict unknown, never a pass). */
    readonly timeBudgetSeconds?: number;
  },
  out: Output,
): Promise<number> {
  checkKillCommand(options.sut);
  const budget = options.timeBudgetSeconds;
  const bounded = withDeadline(out.signal, budget === undefined ? undefined : budget * 1000, `--time-budget ${budget}`);
  let report: KillJobReport;
  try {
    report = await runKillJob({
      command: options.sut,
      seed: options.seed,
      runs: options.runs,
      examples: options.examples,
      exhaustive: options.exhaustive,
      ...(options.afterExamples ? { afterExamples: options.afterExamples } : {}),
      process: processOptions(options.flags, bounded.signal),
      ...(options.shard ? { inShard: (i: number) => inShard(i, options.shard) } : {}),
      ...(bounded.signal ? { signal: bounded.signal } : {}),
      progress: (line) => out.stderr(`streamjoin conform --kill: ${line}\n`),
    });
  } finally {
    bounded.dispose();
  }
  let written: string | undefined;
  let replay: string[] | undefined;
  if (report.failure) {
    const name = `kill-${report.seed}${options.shard ? `-shard${options.shard.index}of${options.shard.count}` : ''}`;
    written = join(options.outDir, `${name}.trace.json`);
    writeFileAtomic(written, `${prettyJson({ ...report.failure.trace, name })}\n`);
    replay = [...invocationOf(out), 'replay', '--kill', written, '--sut', options.sut];
  }
  const json = killJson(report, options.shard, written, replay);
  const reporters = options.reporters ?? [];
  if (options.json) out.stdout(`${JSON.stringify(json)}\n`);
  else if (!reporterOnStdout(reporters)) out.stdout(killSummary(report, written, replay?.map(quoteArg).join(' '), options.shard));
  emitReports([killCases(json)], reporters, out, options.json === true);
  return json.exitCode;
}

/** `replay --kill FILE`: the trace's kills as marked (a trace with none gets them at its crash points and after its last step). */
export async function killReplayCommand(
  options: {
    readonly file: string;
    readonly trace: ClusterTrace;
    readonly sut: string;
    readonly flags: SystemFlags;
    /** --json: the kill report (conform-kill-report@1, one example trace) on stdout instead of the summary. */
    readonly json?: boolean;
    readonly reporters?: readonly Reporter[];
  },
  out: Output,
): Promise<number> {
  checkKillCommand(options.sut);
  const marked = options.trace.initKill !== undefined || options.trace.steps.some((s) => s.kill !== undefined);
  const trace = marked ? options.trace : withKills(options.trace, [], { finalKill: true });
  const report = await runKillJob({
    command: options.sut,
    seed: 0,
    runs: 0,
    examples: [{ path: options.file, trace }],
    process: processOptions(options.flags, out.signal),
    maxShrinkRuns: 0,
    ...(out.signal ? { signal: out.signal } : {}),
  });
  const json = killJson(report, undefined, undefined, undefined);
  const reporters = options.reporters ?? [];
  if (options.json) out.stdout(`${JSON.stringify(json)}\n`);
  else if (!reporterOnStdout(reporters))
    out.stdout(killSummary(report, undefined, undefined).replace('streamjoin conform --kill', `${options.file} (replay --kill)`));
  emitReports([killCases(json)], reporters, out, options.json === true);
  return json.exitCode;
}
