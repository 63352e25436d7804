// What `streamjoin check` prints and writes for each part it checked: the
// counterexample files (one function writes them all), the text report, the
// part's entry in the JSON report (spec/schemas/reports/check-report.schema.json)
// and the report as CI test cases (JUnit, TAP).
import { join } from 'node:path';
import { COUNTEREXAMPLE_FORMAT, type Counterexample, type OverallVerdict } from '../spec/index.ts';
import type { CheckReport, Model, ModelPreset, PropertyResult, SimulationReport } from '../model/index.ts';
import { writeFileAtomic } from '../conformance/streams/atomicFiles.ts';
import { shellCommand } from '../conformance/views/counterexampleFiles.ts';
import { writeModelCounterexampleViews, writeUserModelCounterexampleViews } from '../conformance/views/modelCounterexampleFiles.ts';
import type { Shard } from '../conformance/job/shard.ts';
import { EXIT } from './exitCodes.ts';
import type { CiResult, TestCase } from './reporters/testCases.ts';
import type { ReportHeader } from './version.ts';

export const CHECK_REPORT_FORMAT = 'streamjoin/check-report@1';
export const CHECK_REPLAY_REPORT_FORMAT = 'streamjoin/check-replay-report@1';

export const verdictOf = (code: number): OverallVerdict => (code === EXIT.pass ? 'pass' : code === EXIT.unknown ? 'unknown' : 'fail');

/** How a part ended: every state explored, sampled by walks, out of budget, or interrupted. */
export type PartStatus = 'exhausted' | 'simulated' | 'budget' | 'interrupted';

/** One property in a JSON report. */
export interface PropertyJson {
  readonly name: string;
  readonly kind: string;
  readonly verdict: string;
  readonly explanation?: string;
  readonly path?: { readonly initialState: number; readonly actions: readonly unknown[]; readonly steps: readonly string[] };
  readonly trap?: { readonly kind: string; readonly actions: readonly unknown[]; readonly reachable: number };
  readonly file?: string;
  /** The command that replays the counterexample file, as words. */
  readonly replay?: readonly string[];
}

/** One model explored breadth-first (a part of a decomposed preset, or the whole). */
export interface CheckPartJson {
  readonly part: string | null;
  readonly status: Exclude<PartStatus, 'simulated'>;
  readonly model: string;
  readonly options: CheckReport<unknown, unknown>['options'];
  readonly generated: number;
  readonly distinct: number;
  readonly maxDepth: number;
  readonly durationMs: number;
  readonly statesPerSecond: number;
  readonly bytesPerState: number;
  readonly edgeBytesPerState: number;
  readonly collisionProbability: number;
  readonly outsideBoundary: number;
  readonly exhausted: boolean;
  readonly stoppedBy: string | null;
  readonly workers: number;
  readonly frontier: CheckReport<unknown, unknown>['frontier'];
  readonly invariants: readonly PropertyJson[];
  readonly goals: readonly PropertyJson[];
  readonly progress: PropertyJson | null;
  readonly unreachedActionKinds: readonly string[];
  readonly actionKindCounts: Readonly<Record<string, number>>;
  readonly passed: boolean;
  readonly verdict: OverallVerdict;
  readonly exitCode: number;
}

/** The random walks of `check --simulate`. */
export interface SimulatedPartJson {
  readonly part: null;
  readonly status: 'simulated' | 'interrupted';
  /** Always false: walks sample the state space, so even a pass (no violation within the budget) proves nothing. */
  readonly exhaustive: false;
  readonly model: string;
  readonly seed: number;
  readonly depth: number;
  readonly walks: number;
  readonly steps: number;
  readonly durationMs: number;
  readonly walksPerSecond: number;
  readonly stepsPerSecond: number;
  readonly longestWalk: number;
  readonly deadEnds: number;
  readonly workers: number;
  readonly stoppedBy: string;
  readonly violation: { readonly walk: number; readonly steps: number; readonly minimal: boolean } | null;
  readonly invariants: readonly PropertyJson[];
  readonly progress: PropertyJson | null;
  readonly actionKindCounts: Readonly<Record<string, number>>;
  readonly verdict: OverallVerdict;
  readonly exitCode: number;
}

/** `streamjoin check --json` (spec/schemas/reports/check-report.schema.json). */
export interface CheckJson extends ReportHeader {
  readonly preset: string;
  readonly bounds: Readonly<Record<string, number>>;
  readonly ablate: string | null;
  readonly joint: boolean;
  /** Breadth-first search (part by part), or random walks. */
  readonly mode: 'exhaustive' | 'simulation';
  /** Threads the command could explore on. */
  readonly workers: number;
  /** The walks' seed, for a simulation. */
  readonly seed: number | null;
  /** The budgets of the whole command. */
  readonly budget: { readonly maxStates: number | null; readonly maxSeconds: number | null; readonly frontierMemoryBytes: number };
  /** Every part of the preset (a preset checked whole has one, named null), and the shard's share. */
  readonly partsTotal: number;
  readonly shard: Shard | null;
  readonly parts: readonly (CheckPartJson | SimulatedPartJson)[];
  readonly verdict: OverallVerdict;
  readonly exitCode: number;
}

// ---------------------------------------------------------------------------
// Counterexample files

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
  readonly check?: NonNullable<Counterexample['check']>;
  /** For a simulation: the seed and the walk that found it. */
  readonly simulation?: { readonly seed: number; readonly walk: number };
  /**
   * A user's model (`check --model`): its views are drawn from the model
   * itself (its rendering hook, or generically), and `replay` is the command
   * that replays a file with it. Else the preset's model is drawn.
   */
  readonly userModel?: { readonly replay: (file: string) => readonly string[] };
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
      ...(origin.simulation ? { simulation: { seed: origin.simulation.seed, walk: origin.simulation.walk } } : {}),
    };
    const path = counterexamplePath(origin, r.name);
    writeFileAtomic(path, `${JSON.stringify(doc, null, 2)}\n`);
    if (origin.userModel)
      writeUserModelCounterexampleViews(doc, path, model, r.path, shellCommand(origin.userModel.replay(path)), { itf: origin.itf });
    else writeModelCounterexampleViews(doc, path, { itf: origin.itf });
    written.set(r.name, path);
  }
  return written;
}

// ---------------------------------------------------------------------------
// Verdicts

export function explorationStatus<S, A>(report: CheckReport<S, A>): CheckPartJson['status'] {
  if (report.exhausted) return 'exhausted';
  return report.stoppedBy === 'interrupted' ? 'interrupted' : 'budget';
}

export function simulationStatus<S, A>(report: SimulationReport<S, A>): SimulatedPartJson['status'] {
  return report.stoppedBy === 'interrupted' ? 'interrupted' : 'simulated';
}

/** The exit code of one exhaustive part (SPEC §8): its verdict's (the library's `CheckReport.verdict`). */
export function explorationExit<S, A>(report: CheckReport<S, A>): number {
  return exitOfVerdict(report.verdict);
}

/**
 * A simulation's exit, its verdict's: 1 for a violation; 2 when interrupted;
 * otherwise 0, "no violation within the budget" (as TLC's and Quint's
 * simulators do), with every property left `unknown` in the report, which
 * says that the walks sampled the state space and proved nothing.
 */
export function simulationExit<S, A>(report: SimulationReport<S, A>): number {
  return exitOfVerdict(report.verdict);
}

const exitOfVerdict = (v: OverallVerdict): number => (v === 'pass' ? EXIT.pass : v === 'fail' ? EXIT.fail : EXIT.unknown);

// ---------------------------------------------------------------------------
// JSON

function propertyJson<S, A>(
  model: Model<S, A>,
  r: PropertyResult<S, A>,
  file: string | undefined,
  replay: (file: string) => string[],
): PropertyJson {
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
    ...(file !== undefined ? { file, replay: replay(file) } : {}),
  };
}

/** One exhaustive part of the JSON report. */
export function explorationJson<S, A>(
  model: Model<S, A>,
  part: string | undefined,
  report: CheckReport<S, A>,
  written: ReadonlyMap<string, string>,
  replay: (file: string) => string[],
): CheckPartJson {
  const { invariants, goals, progress, stoppedBy, ...figures } = report;
  const code = explorationExit(report);
  return {
    part: part ?? null,
    status: explorationStatus(report),
    ...figures,
    stoppedBy: stoppedBy ?? null,
    invariants: invariants.map((r) => propertyJson(model, r, written.get(r.name), replay)),
    goals: goals.map((r) => propertyJson(model, r, undefined, replay)),
    progress: progress ? propertyJson(model, progress, written.get(progress.name), replay) : null,
    verdict: verdictOf(code),
    exitCode: code,
  };
}

/** The simulated part of the JSON report. */
export function simulationJson<S, A>(
  model: Model<S, A>,
  report: SimulationReport<S, A>,
  written: ReadonlyMap<string, string>,
  replay: (file: string) => string[],
): SimulatedPartJson {
  const { invariants, progress, violation, ...figures } = report;
  const code = simulationExit(report);
  return {
    part: null,
    status: simulationStatus(report),
    exhaustive: false,
    ...figures,
    violation: violation ?? null,
    invariants: invariants.map((r) => propertyJson(model, r, written.get(r.name), replay)),
    progress: progress ? propertyJson(model, progress, written.get(progress.name), replay) : null,
    verdict: verdictOf(code),
    exitCode: code,
  };
}

// ---------------------------------------------------------------------------
// CI test cases

function propertyCase(p: PropertyJson, classname: string, decided: boolean, why: string): TestCase {
  const name = `${p.kind === 'goal' ? 'goal ' : ''}${p.name}`;
  if (p.verdict === 'holds') return { name, classname, status: 'pass' };
  if (p.verdict === 'violated') {
    const steps = p.path?.steps ?? [];
    return {
      name,
      classname,
      status: 'fail',
      message: p.kind === 'goal' ? `goal ${p.name} is never reached` : `${p.name} is VIOLATED${p.explanation ? `: ${p.explanation}` : ''}`,
      details: [
        ...(steps.length > 0 ? [`counterexample, ${steps.length} step(s):`, ...steps.map((x, i) => `  ${i + 1}. ${x}`)] : []),
        ...(p.file !== undefined ? [`counterexample file: ${p.file}`] : []),
        ...(p.replay ? [`replay: ${shellCommand(p.replay)}`] : []),
      ].join('\n'),
      ...(p.file !== undefined ? { file: p.file } : {}),
    };
  }
  return { name, classname, status: 'unknown', message: decided ? (p.explanation ?? 'undecided') : why };
}

function isSimulated(p: CheckPartJson | SimulatedPartJson): p is SimulatedPartJson {
  return 'walks' in p;
}

/** A check report as CI test cases: per part, the bound (or the walks), every invariant, Progress, every goal, and the action coverage. */
export function checkCases(j: CheckJson): CiResult {
  const shard = j.shard ? ` shard ${j.shard.index}/${j.shard.count}` : '';
  const properties = {
    preset: j.preset,
    bounds: Object.entries(j.bounds)
      .map(([k, v]) => `${k}=${v}`)
      .join(' '),
    ...(j.ablate !== null ? { ablate: j.ablate } : {}),
    ...(j.shard ? { shard: `${j.shard.index}/${j.shard.count}` } : {}),
    ...(j.seed !== null ? { seed: String(j.seed) } : {}),
    streamjoin: j.streamjoin,
    spec: j.spec,
  };
  const suites = j.parts.map((p) => {
    const classname = `check.${j.preset}${p.part !== null ? `.${p.part}` : ''}`;
    const name = `check ${j.preset}${j.ablate !== null ? ` without ${j.ablate}` : ''}${p.part !== null ? ` part ${p.part}` : ''}`;
    if (isSimulated(p)) {
      // Walks that found nothing pass (not exhaustive: the report says so); an interrupted simulation has no verdict.
      const interrupted = p.status === 'interrupted';
      const why = interrupted
        ? `interrupted after ${p.walks} random walk(s) of seed ${p.seed}: no verdict`
        : p.violation
          ? `walk ${p.violation.walk} of seed ${p.seed} broke a property`
          : `no violation in ${p.walks} random walk(s) of seed ${p.seed} (not exhaustive)`;
      const walks: TestCase = {
        name: 'random walks',
        classname,
        status: interrupted ? 'unknown' : p.violation ? 'fail' : 'pass',
        message: why,
        timeMs: p.durationMs,
      };
      const sampled = (x: PropertyJson): TestCase =>
        x.verdict === 'violated' || interrupted
          ? propertyCase(x, classname, false, why)
          : { name: x.name, classname, status: 'pass', message: why };
      return {
        name: `${name} (simulation)`,
        properties,
        cases: [walks, ...p.invariants.map(sampled), ...(p.progress ? [sampled(p.progress)] : [])],
      };
    }
    const bound: TestCase = p.exhausted
      ? { name: 'bound exhausted', classname, status: 'pass', timeMs: p.durationMs }
      : {
          name: 'bound exhausted',
          classname,
          status: p.stoppedBy === 'violation' ? 'skipped' : 'unknown',
          message: `stopped by ${p.stoppedBy ?? 'budget'} after ${p.distinct} distinct states`,
          timeMs: p.durationMs,
        };
    const notExhausted = `bound not exhausted (stopped by ${p.stoppedBy ?? 'budget'})`;
    const coverage: TestCase =
      p.unreachedActionKinds.length === 0
        ? {
            name: 'every expected action kind taken',
            classname,
            status: p.exhausted ? 'pass' : 'unknown',
            ...(p.exhausted ? {} : { message: 'bound not exhausted' }),
          }
        : {
            name: 'every expected action kind taken',
            classname,
            status: p.exhausted ? 'fail' : 'unknown',
            message: `never taken: ${p.unreachedActionKinds.join(', ')}`,
          };
    return {
      name,
      properties,
      cases: [
        bound,
        ...p.invariants.map((x) => propertyCase(x, classname, p.exhausted, notExhausted)),
        ...(p.progress ? [propertyCase(p.progress, classname, p.exhausted, notExhausted)] : []),
        ...p.goals.map((x) => propertyCase(x, classname, p.exhausted, notExhausted)),
        coverage,
      ],
    };
  });
  return {
    title: `streamjoin check${j.mode === 'simulation' ? ' --simulate' : ''} --preset ${j.preset}${j.ablate !== null ? ` --ablate ${j.ablate}` : ''}${shard}`,
    verdict: j.verdict,
    suites,
  };
}

// ---------------------------------------------------------------------------
// Text

const reduction = (on: boolean, available: boolean): string => (on ? 'on' : available ? 'off' : 'n/a (the model has none)');
const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;

function verdictWord<S, A>(r: PropertyResult<S, A>): string {
  // A goal's verdict says whether it is reached: the word is the library's, the reading follows.
  if (r.kind === 'goal') {
    const steps = r.path ? ` in ${r.path.actions.length} step${r.path.actions.length === 1 ? '' : 's'}` : '';
    return r.verdict === 'holds'
      ? `holds (reached${steps})`
      : r.verdict === 'violated'
        ? 'VIOLATED (never reached)'
        : 'unknown (not reached yet)';
  }
  return r.verdict === 'holds' ? 'holds' : r.verdict === 'violated' ? 'VIOLATED' : 'unknown';
}

/** The lines of one property: its verdict, and for a violation the counterexample and the command that replays its file. */
function propertyLines<S, A>(
  model: Model<S, A>,
  r: PropertyResult<S, A>,
  file: string | undefined,
  replay: (file: string) => string[],
): string[] {
  const lines: string[] = [];
  const label = r.kind === 'goal' ? `goal ${r.name}` : r.name;
  lines.push(`  ${label.padEnd(36)} ${verdictWord(r)}`);
  if (r.verdict === 'violated' && r.explanation) lines.push(`      ${r.explanation}`);
  if (r.verdict === 'violated' && r.path) {
    lines.push(`      counterexample, ${r.path.actions.length} step(s) from initial state ${r.path.initialIndex}:`);
    r.path.actions.forEach((a, i) => lines.push(`        ${i + 1}. ${model.describeAction(a)}`));
    if (r.trap) {
      lines.push(`      then, without faults, ${r.trap.kind === 'deadlock' ? 'into a deadlock' : 'round a cycle'}:`);
      r.trap.actions.forEach((a, i) => lines.push(`        +${i + 1}. ${model.describeAction(a)}`));
    }
    if (file) lines.push(`      replay: ${shellCommand(replay(file))}`);
  }
  return lines;
}

/** The text report of one exhaustive part. */
export function explorationText<S, A>(
  model: Model<S, A>,
  heading: string,
  report: CheckReport<S, A>,
  written: ReadonlyMap<string, string>,
  replay: (file: string) => string[],
): string {
  const lines: string[] = [heading];
  lines.push(
    `  visited ${report.options.visited}, symmetry ${reduction(report.options.symmetry, model.representative !== undefined || model.codec?.symmetric === true)}, ` +
      `partial-order reduction ${reduction(report.options.partialOrder, model.partialOrder !== undefined)}, ` +
      `${report.workers} thread${report.workers === 1 ? '' : 's'}${report.options.notes.map((n) => `; ${n}`).join('')}`,
  );
  lines.push(
    `  ${report.generated} states, ${report.distinct} distinct, depth ${report.maxDepth}, ${(report.durationMs / 1000).toFixed(1)} s, ` +
      `${Math.round(report.statesPerSecond)} states/s, ${report.bytesPerState.toFixed(1)} bytes/state` +
      (report.outsideBoundary > 0 ? `, ${report.outsideBoundary} outside the boundary` : '') +
      (report.options.visited === 'fingerprint' ? `, collision probability ${report.collisionProbability.toExponential(1)}` : ''),
  );
  if (report.frontier.spilledSegments > 0)
    lines.push(
      `  frontier spilled to disk: ${report.frontier.spilledSegments} segment(s), ${mb(report.frontier.spilledBytes)} ` +
        `(in memory at most ${mb(report.frontier.peakMemoryBytes)})`,
    );
  const status = explorationStatus(report);
  lines.push(
    status === 'exhausted'
      ? '  exhausted: every state within the bound was explored'
      : status === 'interrupted'
        ? `  INTERRUPTED after ${report.distinct} distinct states: every property unknown; nothing below is a verdict`
        : report.stoppedBy === 'violation'
          ? report.invariants.some((r) => r.verdict === 'violated')
            ? '  NOT exhausted: stopped at the first violation (--stop-at-first)'
            : '  NOT exhausted: stopped by a violation in another part (--stop-at-first); nothing below is a pass'
          : `  NOT exhausted: out of budget (${report.stoppedBy ?? 'budget'}); nothing below is a pass`,
  );
  for (const r of report.invariants) lines.push(...propertyLines(model, r, written.get(r.name), replay));
  if (report.progress) lines.push(...propertyLines(model, report.progress, written.get(report.progress.name), replay));
  for (const r of report.goals) lines.push(...propertyLines(model, r, undefined, replay));
  if (report.unreachedActionKinds.length > 0) lines.push(`  action kinds never taken: ${report.unreachedActionKinds.join(', ')}`);
  else if (report.exhausted && model.expectedActionKinds && model.expectedActionKinds.length > 0)
    lines.push('  every expected action kind taken');
  const code = explorationExit(report);
  lines.push(
    code === EXIT.pass
      ? 'PASS: every property holds over the exhausted bound'
      : code === EXIT.unknown
        ? status === 'interrupted'
          ? 'UNKNOWN: interrupted'
          : report.stoppedBy === 'violation'
            ? 'UNKNOWN: NOT EXHAUSTED, stopped by a violation in another part; none found here so far'
            : 'UNKNOWN: NOT EXHAUSTED, a budget ran out first; no violation found so far'
        : 'FAIL',
  );
  return `${lines.join('\n')}\n`;
}

/** The text report of a simulation; `again` is the command that runs the same walks. */
export function simulationText<S, A>(
  model: Model<S, A>,
  heading: string,
  report: SimulationReport<S, A>,
  written: ReadonlyMap<string, string>,
  replay: (file: string) => string[],
  again: string,
): string {
  const lines: string[] = [heading];
  lines.push(
    `  seed ${report.seed}, ${report.walks} walk(s) of at most ${report.depth} steps, ${report.steps} steps, ${(report.durationMs / 1000).toFixed(1)} s, ` +
      `${Math.round(report.walksPerSecond)} walks/s, ${Math.round(report.stepsPerSecond)} steps/s, ${report.workers} thread${report.workers === 1 ? '' : 's'}; ` +
      `longest walk ${report.longestWalk}, ${report.deadEnds} ended with nothing enabled`,
  );
  const status = simulationStatus(report);
  lines.push(
    status === 'interrupted'
      ? `  INTERRUPTED after ${report.walks} walk(s): nothing below is a verdict`
      : `  simulated, NOT exhaustive (stopped by ${report.stoppedBy}): random walks sample the state space; no property is proven`,
  );
  if (report.violation) {
    lines.push(
      `  walk ${report.violation.walk} broke a property after ${report.violation.steps} step(s); minimized` +
        `${report.violation.minimal ? ' (no single step can be deleted)' : ' (time ran out)'}; that walk again: ${again} --walk ${report.violation.walk}`,
    );
  }
  for (const r of report.invariants) lines.push(...propertyLines(model, r, written.get(r.name), replay));
  if (report.progress) lines.push(...propertyLines(model, report.progress, written.get(report.progress.name), replay));
  lines.push(
    simulationExit(report) === EXIT.fail
      ? 'FAIL'
      : status === 'interrupted'
        ? 'UNKNOWN: interrupted'
        : `PASS (not exhaustive): no violation in ${report.walks} walk(s); random walks sample the state space and prove nothing`,
  );
  return `${lines.join('\n')}\n`;
}

/** The preset names, for a message. */
export function presetList(registry: readonly ModelPreset[]): string {
  return registry.map((p) => p.name).join(', ');
}

/** Bounds as NAME=VALUE words. */
export const boundsText = (bounds: Readonly<Record<string, number>>): string =>
  Object.entries(bounds)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
