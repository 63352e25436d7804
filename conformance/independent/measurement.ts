// One part of `streamjoin conform` run against an independent system, and what
// its JSON report says about it: which example, level or scenario caught the
// system, at which trace, with a counterexample of how many steps, diverging at
// which step and citing which rule. Read only through the report's documented
// shape (spec/schemas/reports/conform-report.schema.json), as a user's CI would.

import type { IndependentSystem } from './systems.ts';

export type PartName = 'examples' | 'random' | 'exhaustive';
export type LevelName = 'operator' | 'cluster' | 'faults';

export interface PartRequest {
  readonly part: PartName;
  readonly seed: number;
  /** Random traces per level (random part only). */
  readonly runs?: number;
  /** Only these levels (--level takes one; none means every level). */
  readonly level?: LevelName;
  /** Only these exhaustive scenarios (exhaustive part only). */
  readonly scenarios?: readonly string[];
}

/** The system's command with one bug switched on (SJ_BUG=NAME, through the shell that runs it), or none. */
export function commandOf(system: IndependentSystem, bug: string | null): string {
  return bug === null ? system.command : `SJ_BUG=${bug} ${system.command}`;
}

/** The arguments after `streamjoin`, for one part alone: the others off. */
export function conformArguments(system: IndependentSystem, bug: string | null, request: PartRequest, out: string): string[] {
  const argv = ['conform', '--sut', commandOf(system, bug), `--seed=${request.seed}`, '--json', '--out', out];
  if (request.level !== undefined) argv.push('--level', request.level);
  if (request.part === 'examples') argv.push('--runs', '0');
  if (request.part === 'random') argv.push('--examples', 'none', '--runs', String(request.runs ?? 100));
  if (request.part === 'exhaustive') {
    argv.push('--examples', 'none', '--runs', '0', '--exhaustive');
    if (request.scenarios !== undefined) argv.push('--scenario', request.scenarios.join(','));
  }
  return argv;
}

/** Where a part caught the system, and the counterexample it wrote. */
export interface Catch {
  /** The example's name, the random level, or the exhaustive scenario. */
  readonly where: string;
  readonly level: string;
  /** The trace that failed: its number among the traces run (random, exhaustive); null for an example. */
  readonly trace: number | null;
  /** How many traces the example, level or scenario had (the random part: the runs requested). */
  readonly of: number | null;
  /** Steps of the shrunk counterexample, and the step where it diverges (numbered from 0, as its explanation numbers them). */
  readonly steps: number;
  readonly step: number;
  /** The observable that differed first, and the rules the report cites. */
  readonly field: string;
  readonly rules: readonly string[];
}

export interface PartResult {
  readonly verdict: string;
  readonly exitCode: number;
  readonly catches: readonly Catch[];
  /** Every example, level or scenario that ran and passed. */
  readonly passed: readonly string[];
  /** What the report says when the verdict is unknown. */
  readonly unknown: string | null;
  readonly ms: number;
}

interface FailureView {
  readonly level: string;
  readonly origin: string;
  readonly path: string | null;
  readonly scenario: string | null;
  readonly steps: number;
  readonly divergence: { readonly step: number; readonly field: string; readonly refs: { readonly rules: readonly string[] } };
}

interface ReportView {
  readonly format: string;
  readonly verdict: string;
  readonly exitCode: number;
  readonly ms: number;
  readonly examples: readonly { readonly name: string; readonly level: string; readonly verdict: string }[];
  readonly exhaustive: readonly { readonly scenario: string; readonly verdict: string; readonly run: number; readonly traces: number }[];
  readonly random: readonly { readonly level: string; readonly verdict: string; readonly runs: number; readonly requested: number }[];
  readonly failures: readonly FailureView[];
  readonly unknown: { readonly reason: string; readonly during: string } | null;
}

const FORMAT = 'streamjoin/conform-report@1';

/** Parses conform's --json output; anything else is an error that quotes it. */
export function readReport(stdout: string): ReportView {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Error(`conform --json printed no JSON report: ${stdout.slice(0, 300)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || (parsed as { format?: unknown }).format !== FORMAT) {
    throw new Error(`not a ${FORMAT}: ${stdout.slice(0, 300)}`);
  }
  return parsed as ReportView;
}

const baseName = (path: string | null): string => (path ?? '').replace(/^.*\//, '').replace(/\.trace\.json$/, '');

/** The catches and the passes of one part, from its report. */
export function summarise(part: PartName, report: ReportView): PartResult {
  const catches: Catch[] = [];
  const passed: string[] = [];
  const counterexample = (f: FailureView) => ({
    level: f.level,
    steps: f.steps,
    step: f.divergence.step,
    field: f.divergence.field,
    rules: f.divergence.refs.rules,
  });
  for (const f of report.failures) {
    if (part === 'examples' && f.origin === 'example') {
      catches.push({ where: baseName(f.path), trace: null, of: null, ...counterexample(f) });
    } else if (part === 'random' && f.origin === 'random') {
      const level = report.random.find((r) => r.level === f.level);
      catches.push({ where: f.level, trace: level?.runs ?? null, of: level?.requested ?? null, ...counterexample(f) });
    } else if (part === 'exhaustive' && f.origin === 'exhaustive') {
      const scenario = report.exhaustive.find((x) => x.scenario === f.scenario);
      catches.push({ where: f.scenario ?? '?', trace: scenario?.run ?? null, of: scenario?.traces ?? null, ...counterexample(f) });
    }
  }
  if (part === 'examples') for (const e of report.examples) if (e.verdict === 'pass') passed.push(e.name);
  if (part === 'random') for (const r of report.random) if (r.verdict === 'pass') passed.push(r.level);
  if (part === 'exhaustive') for (const x of report.exhaustive) if (x.verdict === 'pass') passed.push(x.scenario);
  const unknown = report.unknown === null ? null : `${report.unknown.during}: ${report.unknown.reason}`;
  return { verdict: report.verdict, exitCode: report.exitCode, catches, passed, unknown, ms: report.ms };
}

/** One catch in a table cell: `faults, trace 7 of 1000: 4 steps, diverges at 4 (observation, J8)`. */
export function describeCatch(c: Catch): string {
  const trace = c.trace === null ? '' : `, trace ${c.trace}${c.of === null ? '' : ` of ${c.of}`}`;
  return `${c.where}${trace}: ${c.steps} steps, diverges at ${c.step} (${c.field}, ${c.rules.join(' ') || 'no rule'})`;
}
