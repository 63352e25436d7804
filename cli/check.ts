// `streamjoin check`: run the explorer on a preset model, print the verdicts,
// write each counterexample as a replayable file; `--replay FILE` replays one.
import type { parseArgs } from 'node:util';
import { join } from 'node:path';
import { COUNTEREXAMPLE_FORMAT, InputError, loadCheckConfig, loadCounterexample } from '../spec/index.ts';
import type { CheckConfig, Counterexample } from '../spec/index.ts';
import {
  check,
  evaluateProperty,
  jsonDiff,
  type CheckOptions,
  type CheckReport,
  type Model,
  type ProgressSample,
  type PropertyResult,
  type VisitedMode,
  PRESETS,
  resolveBounds,
  type ModelPreset,
  type PresetModel,
} from '../model/index.ts';
import { writeFileAtomic } from '../conformance/report/atomicFiles.ts';
import { invocationOf, type Output } from './output.ts';
import { writeModelCounterexampleViews } from '../conformance/report/modelCounterexampleFiles.ts';
import { EXIT, parseCommandArgs, usageError, worstExit } from './exitCodes.ts';
import { shellCommand } from '../conformance/report/counterexampleFiles.ts';
import { shardItems, type Shard } from '../conformance/shard.ts';
import { shardFlag } from './harnessArgs.ts';
import { LiveProgress } from './progress.ts';
import {
  REPORTER_HELP,
  REPORTER_OPTION,
  checkStdoutUse,
  emitReports,
  parseReporters,
  reporterOnStdout,
  type Reporter,
} from './reporters/emit.ts';
import type { CiResult, TestCase } from './reporters/testCases.ts';
import { type ReportHeader, reportHeader } from './version.ts';

export const checkHelp = `streamjoin check [--preset NAME | --config FILE] [--bound NAME=VALUE ...] [--ablate ELEMENT]
                 [--json] [--out DIR] [--visited exact|fingerprint] [--no-symmetry] [--no-por]
                 [--max-states N] [--max-seconds N] [--shard K/N]
                 [--reporter junit=FILE] [--reporter tap[=FILE]]
streamjoin check --replay FILE [--json] [--reporter ...]
streamjoin check --list

Explores every state of a preset model within its bounds (breadth-first) and
checks its invariants, reachability goals, Progress and action coverage.

  --preset NAME        the model and bounds to check (see --list)
  --config FILE        a saved run (streamjoin/check-config@1); flags override it
  --bound NAME=VALUE   override one bound of the preset (repeatable)
  --ablate ELEMENT     switch off one protocol element (the preset lists them)
  --json               print the report as JSON on stdout
                       (streamjoin/check-report@1, spec/schemas/reports/)
  --out DIR            where counterexample files go (default: out/)
  --visited MODE       fingerprint (default: 64-bit fingerprints, ~25 bytes
                       a state) or exact (the encodings themselves)
  --no-symmetry        do not reduce by the model's symmetry
  --no-por             do not use partial-order reduction
  --max-states N       stop after N distinct states (the bound is then NOT
                       exhausted: exit 2, never a pass)
  --max-seconds N      stop after N seconds (likewise)
  --itf                also write each counterexample as <name>.itf.json in the
                       Informal Trace Format of Apalache and Quint
  --replay FILE        replay a counterexample file (or its .itf.json) step by
                       step, showing what each action changed, and check the
                       property at the end
  --list               list the presets, their bounds and ablatable elements
  --joint              for a preset checked key by key (ci, deep): explore all
                       its keys together in one model instead (SPEC §6)
  --shard K/N          check only shard K of N of the preset's parts (part i goes
                       to shard (i mod N) + 1; a preset of one part is shard 1's):
                       one part is one breadth-first search, not split further;
                       merge the shards' --json reports with merge-reports
${REPORTER_HELP}

Each counterexample is written to DIR/<preset>[-<element>]-<property>.json
(format streamjoin/counterexample@1), atomically, with <name>.md (Markdown
with a Mermaid diagram) and <name>.html (a self-contained viewer) beside it;
the summary prints the command that replays it. Progress goes to stderr: a
live line on a terminal, else a heartbeat line every few seconds.

Exit codes: the one table of \`streamjoin help\` (SPEC §8). Here 0: every
property holds over an exhausted bound; 1: a property is violated (an
invariant, Progress, a goal never reached, an expected action kind never
taken), or --replay reproduced the violation; 2 unknown: a time or
state budget ran out before the bound was exhausted and nothing was violated
(never a pass); 254 also for an unknown preset, bound or element, a
malformed file, a replayed action that is not enabled.`;

/** A resolved run: what to build and how to check it. */
interface RunSettings {
  readonly preset: ModelPreset;
  readonly bounds: Record<string, number>;
  readonly ablate: string | undefined;
  readonly options: CheckOptions;
  readonly outDir: string;
  readonly json: boolean;
  /** Check a decomposed preset's joint model instead of its parts. */
  readonly joint: boolean;
  readonly shard: Shard | undefined;
  readonly reporters: readonly Reporter[];
  /** Also write each counterexample in the Informal Trace Format. */
  readonly itf: boolean;
}

function presetList(registry: readonly ModelPreset[]): string {
  return registry.map((p) => p.name).join(', ');
}

function listPresets(registry: readonly ModelPreset[], out: Output): number {
  for (const p of registry) {
    out.stdout(`${p.name}: ${p.description}\n`);
    for (const b of p.bounds) out.stdout(`${`  --bound ${b.name}=${b.default}`.padEnd(30)} ${b.description} [${b.min}..${b.max}]\n`);
    for (const a of p.ablations) out.stdout(`${`  --ablate ${a.name}`.padEnd(30)} ${a.description}\n`);
  }
  return EXIT.pass;
}

function parseBoundFlags(flags: readonly string[]): Record<string, number> {
  const bounds: Record<string, number> = {};
  for (const flag of flags) {
    const m = /^([A-Za-z][\w-]*)=(-?\d+)$/.exec(flag);
    if (!m) throw usageError(`--bound wants NAME=INTEGER, got "${flag}"`);
    bounds[m[1] as string] = Number(m[2]);
  }
  return bounds;
}

function positiveNumber(flag: string, text: string, integer: boolean): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw usageError(`${flag} wants a positive ${integer ? 'integer' : 'number'}, got "${text}"`);
  }
  return n;
}

function resolveSettings(registry: readonly ModelPreset[], values: ParsedValues): RunSettings {
  if (values.preset !== undefined && values.config !== undefined) throw usageError('give --preset or --config, not both');
  let config: CheckConfig | undefined;
  if (values.config !== undefined) config = loadCheckConfig(values.config);
  const presetName = values.preset ?? config?.preset;
  if (presetName === undefined) throw usageError(`check needs --preset NAME or --config FILE (presets: ${presetList(registry)})`);
  const preset = registry.find((p) => p.name === presetName);
  if (!preset) {
    if (values.preset === undefined && values.config !== undefined)
      throw new InputError('SJ102', values.config, `/preset: unknown preset "${presetName}" (presets: ${presetList(registry)})`);
    throw usageError(`unknown preset "${presetName}" (presets: ${presetList(registry)})`);
  }
  let bounds: Record<string, number>;
  try {
    bounds = resolveBounds(preset, config?.bounds ?? {});
  } catch (e) {
    throw new InputError('SJ102', values.config ?? 'config', `/bounds: ${(e as Error).message}`);
  }
  try {
    bounds = resolveBounds(preset, { ...bounds, ...parseBoundFlags(values.bound ?? []) });
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw usageError((e as Error).message);
  }
  const ablate = values.ablate ?? config?.ablate;
  if (ablate !== undefined && !preset.ablations.some((a) => a.name === ablate)) {
    const valid = preset.ablations.map((a) => a.name).join(', ');
    const message = `unknown element "${ablate}" for --ablate (preset ${preset.name} can ablate: ${valid === '' ? 'nothing' : valid})`;
    if (values.ablate === undefined && values.config !== undefined) throw new InputError('SJ102', values.config, `/ablate: ${message}`);
    throw usageError(message);
  }
  const visited = values.visited ?? config?.visited ?? 'fingerprint';
  if (visited !== 'exact' && visited !== 'fingerprint') throw usageError(`--visited wants exact or fingerprint, got "${visited}"`);
  const maxStates = values['max-states'] !== undefined ? positiveNumber('--max-states', values['max-states'], true) : config?.maxStates;
  const maxSeconds =
    values['max-seconds'] !== undefined ? positiveNumber('--max-seconds', values['max-seconds'], false) : config?.maxSeconds;
  const options: CheckOptions = {
    visited: visited as VisitedMode,
    // Unset means "use it when the model has it"; only an explicit choice is passed on.
    ...(values['no-symmetry'] ? { symmetry: false } : config?.symmetry !== undefined ? { symmetry: config.symmetry } : {}),
    ...(values['no-por'] ? { partialOrder: false } : config?.partialOrder !== undefined ? { partialOrder: config.partialOrder } : {}),
    ...(maxStates !== undefined ? { maxStates } : {}),
    ...(maxSeconds !== undefined ? { maxSeconds } : {}),
  };
  const reporters = parseReporters(values.reporter);
  checkStdoutUse(values.json ?? false, reporters);
  return {
    preset,
    bounds,
    ablate,
    options,
    outDir: values.out ?? 'out',
    json: values.json ?? false,
    joint: values.joint ?? false,
    shard: shardFlag(values.shard),
    reporters,
    itf: values.itf ?? false,
  };
}

const boundsText = (bounds: Readonly<Record<string, number>>): string =>
  Object.entries(bounds)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');

function progressLine(p: ProgressSample): string {
  return `${p.generated} states, ${p.distinct} distinct, depth ${p.depth}, queue ${p.queue}, ${Math.round(p.statesPerSecond)} states/s`;
}

/** The file a counterexample of `property` goes to. */
function counterexamplePath(s: RunSettings, part: string | undefined, property: string): string {
  return join(s.outDir, `${s.preset.name}${s.ablate ? `-${s.ablate}` : ''}${part ? `-${part}` : ''}-${property}.json`);
}

function counterexampleDocument<S, A>(
  model: Model<S, A>,
  s: RunSettings,
  part: string | undefined,
  r: PropertyResult<S, A>,
  report: CheckReport<S, A>,
): Counterexample | undefined {
  const toJson = model.actionToJson?.bind(model);
  if (!toJson || !r.path || (r.kind !== 'invariant' && r.kind !== 'progress')) return undefined;
  return {
    format: COUNTEREXAMPLE_FORMAT,
    model: model.name,
    preset: s.preset.name,
    bounds: s.bounds,
    ...(s.ablate !== undefined ? { ablate: s.ablate } : {}),
    ...(part !== undefined ? { part } : {}),
    property: { kind: r.kind, name: r.name },
    ...(r.explanation !== undefined ? { explanation: r.explanation } : {}),
    initialState: r.path.initialIndex,
    actions: r.path.actions.map(toJson),
    steps: r.path.actions.map((a) => model.describeAction(a)),
    ...(r.trap
      ? { trap: { kind: r.trap.kind, actions: r.trap.actions.map(toJson), steps: r.trap.actions.map((a) => model.describeAction(a)) } }
      : {}),
    check: { visited: report.options.visited, symmetry: report.options.symmetry, partialOrder: report.options.partialOrder },
  };
}

const reduction = (on: boolean, available: boolean): string => (on ? 'on' : available ? 'off' : 'n/a (the model has none)');

function verdictWord<S, A>(r: PropertyResult<S, A>): string {
  if (r.kind === 'goal') return r.verdict === 'holds' ? 'reached' : r.verdict === 'violated' ? 'NEVER REACHED' : 'not reached yet';
  return r.verdict === 'holds' ? 'holds' : r.verdict === 'violated' ? 'VIOLATED' : 'unknown';
}

export const CHECK_REPORT_FORMAT = 'streamjoin/check-report@1';
export const CHECK_REPLAY_REPORT_FORMAT = 'streamjoin/check-replay-report@1';

type Verdict3 = 'pass' | 'fail' | 'unknown';
const verdictOf = (code: number): Verdict3 => (code === EXIT.pass ? 'pass' : code === EXIT.unknown ? 'unknown' : 'fail');

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

/** One model checked (a part of a decomposed preset, or the whole). */
export interface CheckPartJson {
  readonly part: string | null;
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
  readonly invariants: readonly PropertyJson[];
  readonly goals: readonly PropertyJson[];
  readonly progress: PropertyJson | null;
  readonly unreachedActionKinds: readonly string[];
  readonly actionKindCounts: Readonly<Record<string, number>>;
  readonly passed: boolean;
  readonly verdict: Verdict3;
  readonly exitCode: number;
}

/** `streamjoin check --json` (spec/schemas/reports/check-report.schema.json). */
export interface CheckJson extends ReportHeader {
  readonly preset: string;
  readonly bounds: Readonly<Record<string, number>>;
  readonly ablate: string | null;
  readonly joint: boolean;
  /** Every part of the preset (a preset checked whole has one, named null), and the shard's share. */
  readonly partsTotal: number;
  readonly shard: Shard | null;
  readonly parts: readonly CheckPartJson[];
  readonly verdict: Verdict3;
  readonly exitCode: number;
}

/** A decomposed preset (SPEC §6) is checked part by part; it passes iff every part does. */
function runCheck(s: RunSettings, out: Output): number {
  const all = !s.joint && s.preset.parts ? s.preset.parts(s.bounds, s.ablate) : undefined;
  const parts: { label: string | undefined; model: PresetModel }[] = shardItems(
    all
      ? all.map((p) => ({ label: p.label as string | undefined, model: p.model }))
      : [{ label: undefined, model: s.preset.build(s.bounds, s.ablate) }],
    s.shard,
  );
  const text = !s.json && !reporterOnStdout(s.reporters);
  const shardText = s.shard
    ? ` (shard ${s.shard.index}/${s.shard.count}: ${parts.length} of ${all?.length ?? 1} part${(all?.length ?? 1) === 1 ? '' : 's'})`
    : '';
  if (text && (all || s.shard))
    out.stdout(
      all
        ? `streamjoin check: preset ${s.preset.name} in ${all.length} parts (key independence, SPEC §6): ${all.map((p) => p.label).join(', ')}${shardText}\n`
        : `streamjoin check: preset ${s.preset.name}${shardText}\n`,
    );
  const live = new LiveProgress(out, 'streamjoin check');
  const results: CheckPartJson[] = [];
  try {
    for (const p of parts) {
      live.part(p.label !== undefined ? `part ${p.label}` : `preset ${s.preset.name}`);
      results.push(checkModel(s, p.model, p.label, out, text, live));
    }
  } finally {
    live.stop();
  }
  // Worst wins: a violation over a budget, a budget over a pass.
  const code = worstExit(results.map((r) => r.exitCode));
  const json: CheckJson = {
    ...reportHeader(CHECK_REPORT_FORMAT),
    preset: s.preset.name,
    bounds: s.bounds,
    ablate: s.ablate ?? null,
    joint: s.joint,
    partsTotal: all?.length ?? 1,
    shard: s.shard ?? null,
    parts: results,
    verdict: verdictOf(code),
    exitCode: code,
  };
  if (s.json) out.stdout(`${JSON.stringify(json)}\n`);
  else if (text && (all || s.shard))
    out.stdout(
      parts.length === 0
        ? 'PASS: no part falls to this shard\n'
        : code === EXIT.pass
          ? `PASS: every part passes\n`
          : code === EXIT.unknown
            ? 'NOT EXHAUSTED in some part: no verdict\n'
            : 'FAIL in some part\n',
    );
  emitReports([checkCases(json)], s.reporters, out, s.json);
  return code;
}

function checkModel(
  s: RunSettings,
  built: PresetModel,
  part: string | undefined,
  out: Output,
  text: boolean,
  live: LiveProgress,
): CheckPartJson {
  return built.use(<S, A>(model: Model<S, A>): CheckPartJson => {
    const onProgress = (p: ProgressSample): void => live.tick(progressLine(p));
    const report = check(model, { ...s.options, onProgress });

    const written = new Map<string, string>();
    for (const r of [...report.invariants, ...(report.progress ? [report.progress] : [])]) {
      if (r.verdict !== 'violated') continue;
      const doc = counterexampleDocument(model, s, part, r, report);
      if (!doc) continue;
      const path = counterexamplePath(s, part, r.name);
      writeFileAtomic(path, `${JSON.stringify(doc, null, 2)}\n`);
      written.set(r.name, path);
      writeModelCounterexampleViews(doc, path, { itf: s.itf });
    }

    const violated =
      [...report.invariants, ...report.goals, ...(report.progress ? [report.progress] : [])].some((r) => r.verdict === 'violated') ||
      (report.exhausted && report.unreachedActionKinds.length > 0);
    const code = violated ? EXIT.fail : report.exhausted ? (report.passed ? EXIT.pass : EXIT.fail) : EXIT.unknown;
    const replayArgv = (file: string): string[] => [...invocationOf(out), 'check', '--replay', file];

    const toJson = (a: A): unknown => (model.actionToJson ? model.actionToJson(a) : model.describeAction(a));
    const property = (r: PropertyResult<S, A>): PropertyJson => {
      const file = written.has(r.name) && r.kind !== 'goal' ? written.get(r.name) : undefined;
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
        ...(file !== undefined ? { file, replay: replayArgv(file) } : {}),
      };
    };
    const { invariants, goals, progress, stoppedBy, ...figures } = report;
    const json: CheckPartJson = {
      part: part ?? null,
      ...figures,
      stoppedBy: stoppedBy ?? null,
      invariants: invariants.map(property),
      goals: goals.map(property),
      progress: progress ? property(progress) : null,
      verdict: verdictOf(code),
      exitCode: code,
    };
    if (!text) return json;

    const lines: string[] = [];
    lines.push(
      `${part !== undefined ? `part ${part}` : 'streamjoin check'}: preset ${s.preset.name}${s.ablate ? ` without ${s.ablate}` : ''} ` +
        `(model ${report.model}), bounds ${boundsText(s.bounds)}`,
    );
    lines.push(
      `  visited ${report.options.visited}, symmetry ${reduction(report.options.symmetry, model.representative !== undefined || model.canonical !== undefined)}, ` +
        `partial-order reduction ${reduction(report.options.partialOrder, model.partialOrder !== undefined)}${report.options.notes.map((n) => `; ${n}`).join('')}`,
    );
    lines.push(
      `  ${report.generated} states, ${report.distinct} distinct, depth ${report.maxDepth}, ${(report.durationMs / 1000).toFixed(1)} ` +
        `s, ${Math.round(report.statesPerSecond)} states/s, ${report.bytesPerState.toFixed(1)} bytes/state` +
        (report.outsideBoundary > 0 ? `, ${report.outsideBoundary} outside the boundary` : '') +
        (report.options.visited === 'fingerprint' ? `, collision probability ${report.collisionProbability.toExponential(1)}` : ''),
    );
    lines.push(
      report.exhausted ? '  bound exhausted' : `  bound NOT exhausted: stopped by ${report.stoppedBy ?? 'budget'}; nothing below is a pass`,
    );
    const show = (r: PropertyResult<S, A>): void => {
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
        const file = written.get(r.name);
        if (file) lines.push(`      replay: ${shellCommand(replayArgv(file))}`);
      }
    };
    for (const r of report.invariants) show(r);
    if (report.progress) show(report.progress);
    for (const r of report.goals) show(r);
    if (report.unreachedActionKinds.length > 0) lines.push(`  action kinds never taken: ${report.unreachedActionKinds.join(', ')}`);
    else if (model.expectedActionKinds && model.expectedActionKinds.length > 0) lines.push('  every expected action kind taken');
    lines.push(
      code === EXIT.pass
        ? 'PASS: every property holds over the exhausted bound'
        : code === EXIT.unknown
          ? 'NOT EXHAUSTED: a budget ran out first; no violation found so far, and no verdict'
          : 'FAIL',
    );
    live.clear();
    out.stdout(`${lines.join('\n')}\n`);
    return json;
  });
}

function propertyCase(p: PropertyJson, classname: string, exhausted: boolean, stoppedBy: string | null): TestCase {
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
  return {
    name,
    classname,
    status: 'unknown',
    message: exhausted ? (p.explanation ?? 'undecided') : `bound not exhausted (stopped by ${stoppedBy ?? 'budget'})`,
  };
}

/** A check report as CI test cases: per part, the bound, every invariant, Progress, every goal, and the action coverage. */
export function checkCases(j: CheckJson): CiResult {
  const shard = j.shard ? ` shard ${j.shard.index}/${j.shard.count}` : '';
  const properties = {
    preset: j.preset,
    bounds: Object.entries(j.bounds)
      .map(([k, v]) => `${k}=${v}`)
      .join(' '),
    ...(j.ablate !== null ? { ablate: j.ablate } : {}),
    ...(j.shard ? { shard: `${j.shard.index}/${j.shard.count}` } : {}),
    streamjoin: j.streamjoin,
    spec: j.spec,
  };
  const suites = j.parts.map((p) => {
    const classname = `check.${j.preset}${p.part !== null ? `.${p.part}` : ''}`;
    const bound: TestCase = p.exhausted
      ? { name: 'bound exhausted', classname, status: 'pass', timeMs: p.durationMs }
      : {
          name: 'bound exhausted',
          classname,
          status: p.stoppedBy === 'violation' ? 'skipped' : 'unknown',
          message: `stopped by ${p.stoppedBy ?? 'budget'} after ${p.distinct} distinct states`,
          timeMs: p.durationMs,
        };
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
      name: `check ${j.preset}${j.ablate !== null ? ` without ${j.ablate}` : ''}${p.part !== null ? ` part ${p.part}` : ''}`,
      properties,
      cases: [
        bound,
        ...p.invariants.map((x) => propertyCase(x, classname, p.exhausted, p.stoppedBy)),
        ...(p.progress ? [propertyCase(p.progress, classname, p.exhausted, p.stoppedBy)] : []),
        ...p.goals.map((x) => propertyCase(x, classname, p.exhausted, p.stoppedBy)),
        coverage,
      ],
    };
  });
  return {
    title: `streamjoin check --preset ${j.preset}${j.ablate !== null ? ` --ablate ${j.ablate}` : ''}${shard}`,
    verdict: j.verdict,
    suites,
  };
}

function runReplay(registry: readonly ModelPreset[], file: string, json: boolean, reporters: readonly Reporter[], out: Output): number {
  const cx = loadCounterexample(file);
  const preset = registry.find((p) => p.name === cx.preset);
  if (!preset) throw new InputError('SJ102', file, `/preset: unknown preset "${cx.preset}" (presets: ${presetList(registry)})`);
  let bounds: Record<string, number>;
  try {
    bounds = resolveBounds(preset, cx.bounds);
  } catch (e) {
    throw new InputError('SJ102', file, `/bounds: ${(e as Error).message}`);
  }
  if (cx.ablate !== undefined && !preset.ablations.some((a) => a.name === cx.ablate)) {
    throw new InputError('SJ102', file, `/ablate: preset ${preset.name} has no element "${cx.ablate}"`);
  }
  let built = preset.build(bounds, cx.ablate);
  if (cx.part !== undefined) {
    const part = preset.parts?.(bounds, cx.ablate).find((p) => p.label === cx.part);
    if (!part) throw new InputError('SJ102', file, `/part: preset ${preset.name} has no part "${cx.part}"`);
    built = part.model;
  }
  return built.use(<S, A>(model: Model<S, A>): number => {
    const fromJson = model.actionFromJson?.bind(model);
    const toJson = model.actionToJson?.bind(model);
    if (!fromJson || !toJson) throw new InputError('SJ108', file, `model ${model.name} cannot read actions from JSON`);
    const actions = cx.actions.map((j, i) => {
      try {
        return fromJson(j);
      } catch (e) {
        throw new InputError('SJ102', file, `/actions/${i}: ${(e as Error).message}`);
      }
    });
    const initial = model.initialStates();
    if (cx.initialState >= initial.length)
      throw new InputError('SJ108', file, `/initialState: the model has ${initial.length} initial state(s)`);
    const stateJson = (st: S): unknown => (model.stateToJson ? model.stateToJson(st) : model.encode(st));
    const start = initial[cx.initialState] as S;
    let state = start;
    const steps: { step: number; action: unknown; description: string; changes: string[] }[] = [];
    for (let i = 0; i < actions.length; i++) {
      const wanted = JSON.stringify(toJson(actions[i] as A));
      const enabled = model.actions(state).find((a) => JSON.stringify(toJson(a)) === wanted);
      if (enabled === undefined) {
        throw new InputError(
          'SJ108',
          file,
          `step ${i + 1}: action ${model.describeAction(actions[i] as A)} is not enabled in the state reached (the model or its bounds differ from the run that wrote the file)`,
        );
      }
      const after = model.next(state, enabled);
      steps.push({
        step: i + 1,
        action: toJson(enabled),
        description: model.describeAction(enabled),
        changes: jsonDiff(stateJson(state), stateJson(after)),
      });
      state = after;
    }
    const evaluation = evaluateProperty(model, cx.property.kind, cx.property.name, state, { maxSeconds: 60 });
    if (!evaluation.found)
      throw new InputError('SJ108', file, `/property: model ${model.name} has no ${cx.property.kind} "${cx.property.name}"`);
    const code = evaluation.verdict === 'violated' ? EXIT.fail : evaluation.verdict === 'holds' ? EXIT.pass : EXIT.unknown;
    const name = `${file}: ${cx.property.kind} ${cx.property.name}`;
    const result: CiResult = {
      title: `streamjoin check --replay ${file}`,
      verdict: verdictOf(code),
      suites: [
        {
          name: 'check --replay',
          properties: { preset: preset.name },
          cases: [
            code === EXIT.pass
              ? { name, classname: 'check.replay', status: 'pass' }
              : code === EXIT.fail
                ? {
                    name,
                    classname: 'check.replay',
                    status: 'fail',
                    message: `${cx.property.name} VIOLATED at the end: ${evaluation.explanation ?? ''}`,
                    file,
                  }
                : { name, classname: 'check.replay', status: 'unknown', message: evaluation.explanation ?? 'undecided', file },
          ],
        },
      ],
    };
    emitReports([result], reporters, out, json);
    if (json) {
      out.stdout(
        `${JSON.stringify({ ...reportHeader(CHECK_REPLAY_REPORT_FORMAT), file, preset: preset.name, bounds, property: cx.property, initial: stateJson(start), steps, final: stateJson(state), verdict: evaluation.verdict, explanation: evaluation.explanation ?? null, exitCode: code })}\n`,
      );
      return code;
    }
    if (reporterOnStdout(reporters)) return code;
    const lines = [
      `replaying ${file}: ${cx.property.kind} ${cx.property.name} of preset ${preset.name}${cx.ablate ? ` without ${cx.ablate}` : ''} (${boundsText(bounds)})`,
    ];
    lines.push(`initial state ${cx.initialState}: ${JSON.stringify(stateJson(start))}`);
    for (const s of steps) {
      lines.push(`step ${s.step}: ${s.description}`);
      for (const c of s.changes) lines.push(`    ${c}`);
      if (s.changes.length === 0) lines.push('    (no change)');
    }
    lines.push(
      evaluation.verdict === 'violated'
        ? `${cx.property.name} VIOLATED at the end: ${evaluation.explanation ?? ''}`
        : evaluation.verdict === 'holds'
          ? `${cx.property.name} holds at the end${evaluation.explanation ? ` (${evaluation.explanation})` : ''}: the counterexample no longer reproduces`
          : `${cx.property.name} undecided: ${evaluation.explanation ?? ''}`,
    );
    out.stdout(`${lines.join('\n')}\n`);
    return code;
  });
}

const checkOptions = {
  preset: { type: 'string' },
  config: { type: 'string' },
  bound: { type: 'string', multiple: true },
  ablate: { type: 'string' },
  json: { type: 'boolean' },
  out: { type: 'string' },
  visited: { type: 'string' },
  'no-symmetry': { type: 'boolean' },
  'no-por': { type: 'boolean' },
  'max-states': { type: 'string' },
  'max-seconds': { type: 'string' },
  replay: { type: 'string' },
  list: { type: 'boolean' },
  joint: { type: 'boolean' },
  shard: { type: 'string' },
  ...REPORTER_OPTION,
  itf: { type: 'boolean' },
} as const;

type ParsedValues = ReturnType<typeof parseArgs<{ options: typeof checkOptions; allowPositionals: false }>>['values'];

/** Runs `check`; `registry` is the preset list (tests pass their own). */
export function checkCommand(args: readonly string[], out: Output, registry: readonly ModelPreset[] = PRESETS): number {
  const { values } = parseCommandArgs({ args: [...args], options: checkOptions, allowPositionals: false });
  if (values.list) return listPresets(registry, out);
  if (values.replay !== undefined) {
    const others = Object.keys(values).filter((k) => k !== 'replay' && k !== 'json' && k !== 'reporter');
    if (others.length > 0) throw usageError(`--replay takes only --json and --reporter, not --${others.join(', --')}`);
    const reporters = parseReporters(values.reporter);
    checkStdoutUse(values.json ?? false, reporters);
    return runReplay(registry, values.replay, values.json ?? false, reporters, out);
  }
  return runCheck(resolveSettings(registry, values), out);
}
