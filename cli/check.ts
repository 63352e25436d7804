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
import { writeModelCounterexampleViews } from '../conformance/report/modelCounterexampleFiles.ts';
import type { Output } from './output.ts';
import { EXIT, parseCommandArgs, usageError, worstExit } from './exitCodes.ts';

export const checkHelp = `streamjoin check [--preset NAME | --config FILE] [--bound NAME=VALUE ...] [--ablate ELEMENT]
                 [--json] [--out DIR] [--visited exact|fingerprint] [--no-symmetry] [--no-por]
                 [--max-states N] [--max-seconds N]
streamjoin check --replay FILE [--json]
streamjoin check --list

Explores every state of a preset model within its bounds (breadth-first) and
checks its invariants, reachability goals, Progress and action coverage.

  --preset NAME        the model and bounds to check (see --list)
  --config FILE        a saved run (streamjoin/check-config@1); flags override it
  --bound NAME=VALUE   override one bound of the preset (repeatable)
  --ablate ELEMENT     switch off one protocol element (the preset lists them)
  --json               print the report as JSON on stdout
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

Each counterexample is written to DIR/<preset>[-<element>]-<property>.json
(format streamjoin/counterexample@1), atomically, with <name>.md (Markdown
with a Mermaid diagram) and <name>.html (a self-contained viewer) beside it;
the summary prints the command that replays it. A live progress line goes
to stderr when it is a terminal.

Exit codes: 0 every property holds over an exhausted bound; 1 a property is
violated (an invariant, Progress, a goal never reached, an expected action
kind never taken), or --replay reproduced the violation; 2 unknown: a time or
state budget ran out before the bound was exhausted and nothing was violated
(never a pass); 254 bad input or usage (unknown preset, bound or element;
malformed file; a replayed action that is not enabled); 255 internal error.`;

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
  return {
    preset,
    bounds,
    ablate,
    options,
    outDir: values.out ?? 'out',
    json: values.json ?? false,
    joint: values.joint ?? false,
    itf: values.itf ?? false,
  };
}

const boundsText = (bounds: Readonly<Record<string, number>>): string =>
  Object.entries(bounds)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');

function progressLine(p: ProgressSample): string {
  return `\r\x1b[K${p.generated} states, ${p.distinct} distinct, depth ${p.depth}, queue ${p.queue}, ${Math.round(p.statesPerSecond)} states/s`;
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

/** A decomposed preset (SPEC §6) is checked part by part; it passes iff every part does. */
function runCheck(s: RunSettings, out: Output): number {
  const parts = !s.joint && s.preset.parts ? s.preset.parts(s.bounds, s.ablate) : undefined;
  if (!parts) return checkModel(s, s.preset.build(s.bounds, s.ablate), undefined, out);
  const jsonParts: unknown[] = [];
  const partOut: Output = s.json ? { ...out, stdout: (text) => jsonParts.push(JSON.parse(text) as unknown) } : out;
  if (!s.json)
    out.stdout(
      `streamjoin check: preset ${s.preset.name} in ${parts.length} parts (key independence, SPEC §6): ${parts.map((p) => p.label).join(', ')}\n`,
    );
  const codes = parts.map((p) => checkModel(s, p.model, p.label, partOut));
  // Worst wins: a violation over a budget, a budget over a pass.
  const code = worstExit(codes);
  if (s.json) out.stdout(`${JSON.stringify({ preset: s.preset.name, parts: jsonParts, exitCode: code })}\n`);
  else
    out.stdout(
      code === EXIT.pass
        ? `PASS: every part passes\n`
        : code === EXIT.unknown
          ? 'NOT EXHAUSTED in some part: no verdict\n'
          : 'FAIL in some part\n',
    );
  return code;
}

function checkModel(s: RunSettings, built: PresetModel, part: string | undefined, out: Output): number {
  return built.use(<S, A>(model: Model<S, A>): number => {
    const onProgress = out.interactive && !s.json ? (p: ProgressSample) => out.stderr(progressLine(p)) : undefined;
    const report = check(model, { ...s.options, ...(onProgress ? { onProgress } : {}) });
    if (onProgress) out.stderr('\r\x1b[K');

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

    if (s.json) {
      const toJson = (a: A): unknown => (model.actionToJson ? model.actionToJson(a) : model.describeAction(a));
      const property = (r: PropertyResult<S, A>): unknown => ({
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
        ...(written.has(r.name) && r.kind !== 'goal' ? { file: written.get(r.name) } : {}),
      });
      const { invariants, goals, progress, ...figures } = report;
      out.stdout(
        `${JSON.stringify({
          preset: s.preset.name,
          ...(part !== undefined ? { part } : {}),
          bounds: s.bounds,
          ...(s.ablate !== undefined ? { ablate: s.ablate } : {}),
          ...figures,
          invariants: invariants.map(property),
          goals: goals.map(property),
          ...(progress ? { progress: property(progress) } : {}),
          exitCode: code,
        })}\n`,
      );
      return code;
    }

    const lines: string[] = [];
    lines.push(
      `${part !== undefined ? `part ${part}` : 'streamjoin check'}: preset ${s.preset.name}${s.ablate ? ` without ${s.ablate}` : ''} (model ${report.model}), bounds ${boundsText(s.bounds)}`,
    );
    lines.push(
      `  visited ${report.options.visited}, symmetry ${reduction(report.options.symmetry, model.representative !== undefined || model.codec?.symmetric === true)}, partial-order reduction ${reduction(report.options.partialOrder, model.partialOrder !== undefined)}${report.options.notes.map((n) => `; ${n}`).join('')}`,
    );
    lines.push(
      `  ${report.generated} states, ${report.distinct} distinct, depth ${report.maxDepth}, ${(report.durationMs / 1000).toFixed(1)} s, ${Math.round(report.statesPerSecond)} states/s, ${report.bytesPerState.toFixed(1)} bytes/state` +
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
        if (file) lines.push(`      replay: streamjoin check --replay ${file}`);
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
    out.stdout(`${lines.join('\n')}\n`);
    return code;
  });
}

function runReplay(registry: readonly ModelPreset[], file: string, json: boolean, out: Output): number {
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
    if (json) {
      out.stdout(
        `${JSON.stringify({ file, preset: preset.name, bounds, property: cx.property, initial: stateJson(start), steps, final: stateJson(state), verdict: evaluation.verdict, explanation: evaluation.explanation ?? null, exitCode: code })}\n`,
      );
      return code;
    }
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
  itf: { type: 'boolean' },
} as const;

type ParsedValues = ReturnType<typeof parseArgs<{ options: typeof checkOptions; allowPositionals: false }>>['values'];

/** Runs `check`; `registry` is the preset list (tests pass their own). */
export function checkCommand(args: readonly string[], out: Output, registry: readonly ModelPreset[] = PRESETS): number {
  const { values } = parseCommandArgs({ args: [...args], options: checkOptions, allowPositionals: false });
  if (values.list) return listPresets(registry, out);
  if (values.replay !== undefined) {
    const others = Object.keys(values).filter((k) => k !== 'replay' && k !== 'json');
    if (others.length > 0) throw usageError(`--replay takes only --json, not --${others.join(', --')}`);
    return runReplay(registry, values.replay, values.json ?? false, out);
  }
  return runCheck(resolveSettings(registry, values), out);
}
