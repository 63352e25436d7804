// What `streamjoin check` prints and writes for each part it checked: the
// counterexample files (one function writes them all), the text report, and
// the part's entry in the JSON report (spec/schemas/check-report.schema.json).
import { join } from 'node:path';
import { COUNTEREXAMPLE_FORMAT, type Counterexample } from '../spec/index.ts';
import type { CheckReport, Model, PropertyResult, SimulationReport } from '../model/index.ts';
import { writeFileAtomic } from '../conformance/report/atomicFiles.ts';
import { writeModelCounterexampleViews } from '../conformance/report/modelCounterexampleFiles.ts';
import { EXIT } from './exitCodes.ts';

/** Which run wrote a counterexample, for its file name and its fields. */
export interface CounterexampleOrigin {
  readonly preset: string;
  readonly bounds: Readonly<Record<string, number>>;
  readonly ablate: string | undefined;
  /** The part (a key of a decomposed preset), if any. */
  readonly part: string | undefined;
  readonly outDir: string;
  /** Also write the Informal Trace Format beside it. */
  readonly itf: boolean;
  /** How the check that found it ran (informative). */
  readonly check?: Counterexample['check'];
  /** For a simulation: the seed and the walk that found it. */
  readonly simulation?: { readonly seed: number; readonly walk: number };
}

/** The file a counterexample of `property` goes to. */
export function counterexamplePath(origin: CounterexampleOrigin, property: string): string {
  const { preset, ablate, part } = origin;
  return join(origin.outDir, `${preset}${ablate ? `-${ablate}` : ''}${part ? `-${part}` : ''}-${property}.json`);
}

/**
 * Writes a counterexample file (streamjoin/counterexample@1, atomically) for
 * each violated invariant and Progress in `results`, with its Markdown and
 * HTML views (and ITF on request) beside it. Returns the files by property.
 */
export function writeCounterexamples<S, A>(
  model: Model<S, A>,
  results: readonly PropertyResult<S, A>[],
  origin: CounterexampleOrigin,
): Map<string, string> {
  const written = new Map<string, string>();
  const toJson = model.actionToJson?.bind(model);
  if (!toJson) return written;
  for (const r of results) {
    if (r.verdict !== 'violated' || !r.path || (r.kind !== 'invariant' && r.kind !== 'progress')) continue;
    const doc: Counterexample = {
      format: COUNTEREXAMPLE_FORMAT,
      model: model.name,
      preset: origin.preset,
      bounds: { ...origin.bounds },
      ...(origin.ablate !== undefined ? { ablate: origin.ablate } : {}),
      ...(origin.part !== undefined ? { part: origin.part } : {}),
      property: { kind: r.kind, name: r.name },
      ...(r.explanation !== undefined ? { explanation: r.explanation } : {}),
      initialState: r.path.initialIndex,
      actions: r.path.actions.map(toJson),
      steps: r.path.actions.map((a) => model.describeAction(a)),
      ...(r.trap
        ? { trap: { kind: r.trap.kind, actions: r.trap.actions.map(toJson), steps: r.trap.actions.map((a) => model.describeAction(a)) } }
        : {}),
      ...(origin.check ? { check: origin.check } : {}),
      ...(origin.simulation ? { simulation: { ...origin.simulation } } : {}),
    };
    const path = counterexamplePath(origin, r.name);
    writeFileAtomic(path, `${JSON.stringify(doc, null, 2)}\n`);
    writeModelCounterexampleViews(doc, path, { itf: origin.itf });
    written.set(r.name, path);
  }
  return written;
}

/** How a part ended: every state explored, sampled by walks, out of budget, or interrupted. */
export type PartStatus = 'exhausted' | 'simulated' | 'budget' | 'interrupted';

export function explorationStatus<S, A>(report: CheckReport<S, A>): PartStatus {
  if (report.exhausted) return 'exhausted';
  return report.stoppedBy === 'interrupted' ? 'interrupted' : 'budget';
}

export function simulationStatus<S, A>(report: SimulationReport<S, A>): PartStatus {
  return report.stoppedBy === 'interrupted' ? 'interrupted' : 'simulated';
}

/** The exit code of one exhaustive part (SPEC §8): a violation 1; exhausted and passed 0; exhausted and not 1; else 2. */
export function explorationExit<S, A>(report: CheckReport<S, A>): number {
  const violated =
    [...report.invariants, ...report.goals, ...(report.progress ? [report.progress] : [])].some((r) => r.verdict === 'violated') ||
    (report.exhausted && report.unreachedActionKinds.length > 0);
  if (violated) return EXIT.fail;
  return report.exhausted ? (report.passed ? EXIT.pass : EXIT.fail) : EXIT.unknown;
}

/** A simulation finds violations or nothing: 1, or 2 (sampling is never a pass). */
export function simulationExit<S, A>(report: SimulationReport<S, A>): number {
  return [...report.invariants, ...(report.progress ? [report.progress] : [])].some((r) => r.verdict === 'violated')
    ? EXIT.fail
    : EXIT.unknown;
}

// ---------------------------------------------------------------------------
// JSON

function propertyJson<S, A>(model: Model<S, A>, r: PropertyResult<S, A>, file: string | undefined): unknown {
  const toJson = (a: A): unknown => (model.actionToJson ? model.actionToJson(a) : model.describeAction(a));
  return {
    name: r.name,
    kind: r.kind,
    verdict: r.verdict,
    ...(r.explanation !== undefined ? { explanation: r.explanation } : {}),
    ...(r.path
      ? {
          path: {
            initialState: r.path.initialIndex,
            actions: r.path.actions.map(toJson),
            steps: r.path.actions.map((a) => model.describeAction(a)),
          },
        }
      : {}),
    ...(r.trap ? { trap: { kind: r.trap.kind, actions: r.trap.actions.map(toJson), reachable: r.trap.reachable } } : {}),
    ...(file !== undefined ? { file } : {}),
  };
}

/** One exhaustive part of the JSON report. */
export function explorationJson<S, A>(
  model: Model<S, A>,
  part: string | undefined,
  report: CheckReport<S, A>,
  written: ReadonlyMap<string, string>,
): unknown {
  const { invariants, goals, progress, ...figures } = report;
  return {
    ...(part !== undefined ? { part } : {}),
    status: explorationStatus(report),
    ...figures,
    invariants: invariants.map((r) => propertyJson(model, r, written.get(r.name))),
    goals: goals.map((r) => propertyJson(model, r, undefined)),
    ...(progress ? { progress: propertyJson(model, progress, written.get(progress.name)) } : {}),
    exitCode: explorationExit(report),
  };
}

/** The simulated part of the JSON report. */
export function simulationJson<S, A>(model: Model<S, A>, report: SimulationReport<S, A>, written: ReadonlyMap<string, string>): unknown {
  const { invariants, progress, ...figures } = report;
  return {
    status: simulationStatus(report),
    ...figures,
    invariants: invariants.map((r) => propertyJson(model, r, written.get(r.name))),
    ...(progress ? { progress: propertyJson(model, progress, written.get(progress.name)) } : {}),
    exitCode: simulationExit(report),
  };
}

// ---------------------------------------------------------------------------
// Text

const reduction = (on: boolean, available: boolean): string => (on ? 'on' : available ? 'off' : 'n/a (the model has none)');
const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;

function verdictWord<S, A>(r: PropertyResult<S, A>): string {
  if (r.kind === 'goal') return r.verdict === 'holds' ? 'reached' : r.verdict === 'violated' ? 'NEVER REACHED' : 'not reached yet';
  return r.verdict === 'holds' ? 'holds' : r.verdict === 'violated' ? 'VIOLATED' : 'unknown';
}

/** The lines of one property: its verdict, and for a violation the counterexample and the file that replays it. */
function propertyLines<S, A>(model: Model<S, A>, r: PropertyResult<S, A>, file: string | undefined): string[] {
  const lines: string[] = [];
  const label = r.kind === 'goal' ? `goal ${r.name}` : r.name;
  const depth = r.path && r.kind === 'goal' ? ` (${r.path.actions.length} step${r.path.actions.length === 1 ? '' : 's'})` : '';
  lines.push(`  ${label.padEnd(36)} ${verdictWord(r)}${depth}`);
  if (r.verdict === 'violated' && r.explanation) lines.push(`      ${r.explanation}`);
  if (r.verdict === 'violated' && r.path) {
    lines.push(`      counterexample, ${r.path.actions.length} step(s) from initial state ${r.path.initialIndex}:`);
    r.path.actions.forEach((a, i) => lines.push(`        ${i + 1}. ${model.describeAction(a)}`));
    if (r.trap) {
      lines.push(`      then, without faults, ${r.trap.kind === 'deadlock' ? 'into a deadlock' : 'round a cycle'}:`);
      r.trap.actions.forEach((a, i) => lines.push(`        +${i + 1}. ${model.describeAction(a)}`));
    }
    if (file) lines.push(`      replay: streamjoin check --replay ${file}`);
  }
  return lines;
}

/** The text report of one exhaustive part. */
export function explorationText<S, A>(
  model: Model<S, A>,
  heading: string,
  report: CheckReport<S, A>,
  written: ReadonlyMap<string, string>,
): string {
  const lines: string[] = [heading];
  lines.push(
    `  visited ${report.options.visited}, symmetry ${reduction(report.options.symmetry, model.representative !== undefined || model.codec?.symmetric === true)}, partial-order reduction ${reduction(report.options.partialOrder, model.partialOrder !== undefined)}, ${report.workers} thread${report.workers === 1 ? '' : 's'}${report.options.notes.map((n) => `; ${n}`).join('')}`,
  );
  lines.push(
    `  ${report.generated} states, ${report.distinct} distinct, depth ${report.maxDepth}, ${(report.durationMs / 1000).toFixed(1)} s, ${Math.round(report.statesPerSecond)} states/s, ${report.bytesPerState.toFixed(1)} bytes/state` +
      (report.outsideBoundary > 0 ? `, ${report.outsideBoundary} outside the boundary` : '') +
      (report.options.visited === 'fingerprint' ? `, collision probability ${report.collisionProbability.toExponential(1)}` : ''),
  );
  if (report.frontier.spilledSegments > 0)
    lines.push(
      `  frontier spilled to disk: ${report.frontier.spilledSegments} segment(s), ${mb(report.frontier.spilledBytes)} (in memory at most ${mb(report.frontier.peakMemoryBytes)})`,
    );
  const status = explorationStatus(report);
  lines.push(
    status === 'exhausted'
      ? '  exhausted: every state within the bound was explored'
      : status === 'interrupted'
        ? `  INTERRUPTED after ${report.distinct} distinct states: every property unknown; nothing below is a verdict`
        : `  NOT exhausted: out of budget (${report.stoppedBy ?? 'budget'}); nothing below is a pass`,
  );
  for (const r of report.invariants) lines.push(...propertyLines(model, r, written.get(r.name)));
  if (report.progress) lines.push(...propertyLines(model, report.progress, written.get(report.progress.name)));
  for (const r of report.goals) lines.push(...propertyLines(model, r, undefined));
  if (report.unreachedActionKinds.length > 0) lines.push(`  action kinds never taken: ${report.unreachedActionKinds.join(', ')}`);
  else if (report.exhausted && model.expectedActionKinds && model.expectedActionKinds.length > 0)
    lines.push('  every expected action kind taken');
  const code = explorationExit(report);
  lines.push(
    code === EXIT.pass
      ? 'PASS: every property holds over the exhausted bound'
      : code === EXIT.unknown
        ? status === 'interrupted'
          ? 'INTERRUPTED: no verdict'
          : 'NOT EXHAUSTED: a budget ran out first; no violation found so far, and no verdict'
        : 'FAIL',
  );
  return `${lines.join('\n')}\n`;
}

/** The text report of a simulation. */
export function simulationText<S, A>(
  model: Model<S, A>,
  heading: string,
  report: SimulationReport<S, A>,
  written: ReadonlyMap<string, string>,
  replay: string,
): string {
  const lines: string[] = [heading];
  lines.push(
    `  seed ${report.seed}, ${report.walks} walk(s) of at most ${report.depth} steps, ${report.steps} steps, ${(report.durationMs / 1000).toFixed(1)} s, ${Math.round(report.walksPerSecond)} walks/s, ${Math.round(report.stepsPerSecond)} steps/s, ${report.workers} thread${report.workers === 1 ? '' : 's'}; longest walk ${report.longestWalk}, ${report.deadEnds} ended with nothing enabled`,
  );
  const status = simulationStatus(report);
  lines.push(
    status === 'interrupted'
      ? `  INTERRUPTED after ${report.walks} walk(s): nothing below is a verdict`
      : `  simulated (stopped by ${report.stoppedBy}): random walks sample the state space; no property is proven`,
  );
  if (report.violation) {
    lines.push(
      `  walk ${report.violation.walk} broke a property after ${report.violation.steps} step(s); minimized${report.violation.minimal ? ' (no single step can be deleted)' : ' (time ran out)'}; that walk again: ${replay} --walk ${report.violation.walk}`,
    );
  }
  for (const r of report.invariants) lines.push(...propertyLines(model, r, written.get(r.name)));
  if (report.progress) lines.push(...propertyLines(model, report.progress, written.get(report.progress.name)));
  lines.push(
    simulationExit(report) === EXIT.fail
      ? 'FAIL'
      : status === 'interrupted'
        ? 'INTERRUPTED: no verdict'
        : 'SIMULATED: no violation found; sampling is not a proof, so no verdict',
  );
  return `${lines.join('\n')}\n`;
}
