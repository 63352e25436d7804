// `streamjoin check`: explore a preset model (every state within its bounds,
// part by part, on every core), or walk it at random (`--simulate`); print
// the verdicts, write each counterexample as a replayable file; `--replay
// FILE` replays one. Budgets bound the whole command; SIGINT or SIGTERM
// stops it with the report so far.
import type { parseArgs } from 'node:util';
import { availableParallelism, totalmem } from 'node:os';
import { InputError, loadCheckConfig, loadCounterexample } from '../spec/index.ts';
import type { CheckConfig } from '../spec/index.ts';
import {
  CheckSession,
  evaluateProperty,
  jsonDiff,
  replayPath,
  PRESETS,
  presetSource,
  resolveBounds,
  type CheckReport,
  type Model,
  type ModelPreset,
  type ModelSource,
  type PartOptions,
  type PresetModel,
  type ProgressSample,
  type SimulationProgress,
  type SimulationReport,
  type VisitedMode,
} from '../model/index.ts';
import { shardItems, type Shard } from '../conformance/shard.ts';
import { invocationOf, type Output } from './output.ts';
import { EXIT, nonNegativeIntegerFlag, parseCommandArgs, positiveIntegerFlag, seedFlag, usageError, worstExit } from './exitCodes.ts';
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
import type { CiResult } from './reporters/testCases.ts';
import { reportHeader } from './version.ts';
import {
  CHECK_REPLAY_REPORT_FORMAT,
  CHECK_REPORT_FORMAT,
  checkCases,
  explorationJson,
  explorationText,
  simulationJson,
  simulationText,
  verdictOf,
  writeCounterexamples,
  type CheckJson,
  type CheckPartJson,
  type SimulatedPartJson,
} from './checkOutput.ts';

export const checkHelp = `streamjoin check [--preset NAME | --config FILE] [--bound NAME=VALUE ...] [--ablate ELEMENT]
                 [--workers N] [--max-states N] [--max-seconds N] [--frontier-memory MB] [--shard K/N]
                 [--json] [--out DIR] [--itf] [--visited exact|fingerprint] [--no-symmetry] [--no-por] [--joint]
                 [--reporter junit=FILE] [--reporter tap[=FILE]]
streamjoin check --simulate [--preset NAME | --config FILE] [--bound NAME=VALUE ...] [--ablate ELEMENT]
                 [--seed S] [--walks N | --max-seconds T] [--walk K] [--depth D] [--workers N] [--json] [--out DIR]
streamjoin check --replay FILE [--json] [--reporter ...]
streamjoin check --list

Explores every state of a preset model within its bounds (breadth-first) and
checks its invariants, reachability goals, Progress and action coverage; a
preset checked key by key (ci, deep) explores its parts side by side. With
--simulate, takes random walks instead, at bounds no search can exhaust.

  --preset NAME        the model and bounds to check (see --list)
  --config FILE        a saved run (streamjoin/check-config@1); flags override it
  --bound NAME=VALUE   override one bound of the preset (repeatable)
  --ablate ELEMENT     switch off one protocol element (the preset lists them)
  --workers N          threads exploring (default: the machine's cores, here
                       ${availableParallelism()}); the states, verdicts and counterexample lengths
                       are the same for every N
  --max-states N       stop after N distinct states over the whole command
                       (the bound is then NOT exhausted: exit 2, never a pass)
  --max-seconds N      stop after N seconds, for the whole command (likewise;
                       with --simulate: how long to walk)
  --frontier-memory MB keep at most this much of the breadth-first frontier in
                       memory; past it, frontier segments spill to disk
                       (default: a quarter of the machine's memory, at most 4096)
  --json               print the report as JSON on stdout
                       (streamjoin/check-report@1, spec/schemas/reports/)
  --out DIR            where counterexample files go (default: out/)
  --itf                also write each counterexample as <name>.itf.json in the
                       Informal Trace Format of Apalache and Quint
  --visited MODE       fingerprint (default: 64-bit fingerprints in shared
                       memory) or exact (the encodings themselves; one thread)
  --no-symmetry        do not reduce by the model's symmetry
  --no-por             do not use partial-order reduction
  --joint              for a preset checked key by key (ci, deep): explore all
                       its keys together in one model instead (SPEC §6)
  --shard K/N          check only shard K of N of the preset's parts (part i goes
                       to shard (i mod N) + 1; a preset of one part is shard 1's):
                       merge the shards' --json reports with merge-reports
  --simulate           random walks on the (joint) model: every invariant after
                       every step, Progress where a walk ends with nothing
                       enabled; a violation is minimized and written like any
                       counterexample. Never a pass: no violation exits 2
  --seed S             the walks' seed (default: STREAMJOIN_SEED, else a fresh
                       one, printed); walk K of seed S is always the same walk
  --walks N            walk N times (default: until --max-seconds, 60 s if
                       neither is given)
  --walk K             run only walk K of the seed (to replay it)
  --depth D            steps per walk at most (default: the preset's, else 10000)
  --replay FILE        replay a counterexample file (or its .itf.json) step by
                       step, showing what each action changed, and check the
                       property at the end
  --list               list the presets, their bounds and ablatable elements
${REPORTER_HELP}

Each counterexample is written to DIR/<preset>[-<element>][-<part>]-<property>.json
(format streamjoin/counterexample@1), atomically, with <name>.md (Markdown
with a Mermaid diagram) and <name>.html (a self-contained viewer) beside it;
the summary prints the command that replays it. Progress goes to stderr: a
live line on a terminal, else a heartbeat line every few seconds. SIGINT or
SIGTERM stops the command: it
prints the report so far (every property unknown), writes no counterexample
for the interrupted parts and exits 2.

Exit codes: the one table of \`streamjoin help\` (SPEC §8). Here 0: every
property holds over an exhausted bound; 1: a property is violated (an
invariant, Progress, a goal never reached, an expected action kind never
taken), or --replay reproduced the violation; 2 unknown: a time or
state budget ran out before the bound was exhausted, the run was
interrupted, or a simulation found nothing (never a pass); 254 also for an
unknown preset, bound or element, a malformed file, a replayed action that
is not enabled.`;

/** A resolved run: what to build and how to check it. */
interface RunSettings {
  readonly preset: ModelPreset;
  readonly bounds: Record<string, number>;
  readonly ablate: string | undefined;
  readonly part: PartOptions;
  readonly workers: number;
  readonly maxStates: number | undefined;
  readonly maxSeconds: number | undefined;
  readonly frontierMemory: number;
  readonly outDir: string;
  readonly json: boolean;
  /** Check a decomposed preset's joint model instead of its parts. */
  readonly joint: boolean;
  readonly shard: Shard | undefined;
  readonly reporters: readonly Reporter[];
  /** Also write each counterexample in the Informal Trace Format. */
  readonly itf: boolean;
  /** Random walks instead of the exhaustive search. */
  readonly simulate?: { readonly seed: number; readonly walks?: number; readonly walk?: number; readonly depth: number };
  /** Worker threads can build the preset's models (the built-in registry); a test's own registry explores on this thread. */
  readonly builtIn: boolean;
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

/** A quarter of the machine's memory, at most 4 GiB: the frontier kept in memory before it spills. */
function defaultFrontierMemory(totalMemory: number): number {
  return Math.min(totalMemory / 4, 4096 * 1048576);
}

function resolveSettings(registry: readonly ModelPreset[], values: ParsedValues, totalMemory: number): RunSettings {
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
  let maxSeconds = values['max-seconds'] !== undefined ? positiveNumber('--max-seconds', values['max-seconds'], false) : config?.maxSeconds;
  const workers = values.workers !== undefined ? positiveIntegerFlag('--workers', values.workers, 'threads') : availableParallelism();
  const frontierMemory =
    values['frontier-memory'] !== undefined
      ? positiveNumber('--frontier-memory', values['frontier-memory'], false) * 1048576
      : defaultFrontierMemory(totalMemory);
  const simulationFlags = (['seed', 'walks', 'walk', 'depth'] as const).filter((f) => values[f] !== undefined);
  let simulate: RunSettings['simulate'];
  if (values.simulate) {
    if (maxStates !== undefined) throw usageError('--max-states bounds an exhaustive search; a simulation takes --walks or --max-seconds');
    if (values.joint) throw usageError('--simulate walks the joint model already; --joint is for the exhaustive search');
    const walks = values.walks !== undefined ? positiveIntegerFlag('--walks', values.walks) : undefined;
    const walk = values.walk !== undefined ? nonNegativeIntegerFlag('--walk', values.walk) : undefined;
    if (walks !== undefined && walk !== undefined) throw usageError('give --walks N or --walk K, not both');
    if (values.shard !== undefined) throw usageError('--shard splits the parts of an exhaustive search; --simulate walks the joint model');
    if (walks === undefined && walk === undefined && maxSeconds === undefined) maxSeconds = 60;
    const depth = values.depth !== undefined ? positiveIntegerFlag('--depth', values.depth, 'steps') : (preset.simulation?.depth ?? 10_000);
    simulate = {
      seed: seedFlag(values.seed),
      ...(walks !== undefined ? { walks } : {}),
      ...(walk !== undefined ? { walk } : {}),
      depth,
    };
  } else {
    if (simulationFlags.length > 0) throw usageError(`--${simulationFlags.join(', --')} go with --simulate`);
    if (preset.simulation)
      throw usageError(`preset ${preset.name} is far beyond what an exhaustive search can explore: check it with --simulate`);
  }
  const reporters = parseReporters(values.reporter);
  checkStdoutUse(values.json ?? false, reporters);
  return {
    preset,
    bounds,
    ablate,
    part: {
      visited: visited as VisitedMode,
      // Unset means "use it when the model has it"; only an explicit choice is passed on.
      ...(values['no-symmetry'] ? { symmetry: false } : config?.symmetry !== undefined ? { symmetry: config.symmetry } : {}),
      ...(values['no-por'] ? { partialOrder: false } : config?.partialOrder !== undefined ? { partialOrder: config.partialOrder } : {}),
    },
    workers,
    maxStates,
    maxSeconds,
    frontierMemory,
    outDir: values.out ?? 'out',
    json: values.json ?? false,
    joint: values.joint ?? false,
    shard: shardFlag(values.shard),
    reporters,
    itf: values.itf ?? false,
    ...(simulate ? { simulate } : {}),
    builtIn: registry === PRESETS,
  };
}

const boundsText = (bounds: Readonly<Record<string, number>>): string =>
  Object.entries(bounds)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');

/**
 * SIGINT and SIGTERM (the CLI's abort signal, cli/interrupts.ts: a second
 * one stops at once) stop the session while `run` runs; the parts then
 * report what they have.
 */
async function interruptible<T>(session: CheckSession, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
  if (signal === undefined) return run();
  const stop = (): void => session.interrupt();
  if (signal.aborted) stop();
  signal.addEventListener('abort', stop, { once: true });
  try {
    return await run();
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/** One part to explore: its label (a key) or none, the model here, and how a thread builds it. */
interface Part {
  readonly label: string | undefined;
  readonly model: PresetModel;
  readonly source: ModelSource | undefined;
}

/** What one part came to: printed and written once every part is done. */
interface PartOutcome {
  readonly text: string;
  readonly json: CheckPartJson | SimulatedPartJson;
}

/** The parts' progress on stderr (a live line, or a heartbeat in a log). */
function progressOf(live: LiveProgress): (label: string, sample: ProgressSample) => void {
  const latest = new Map<string, ProgressSample>();
  return (label, sample) => {
    latest.set(label, sample);
    let distinct = 0;
    let generated = 0;
    let queue = 0;
    let rate = 0;
    for (const p of latest.values()) {
      distinct += p.distinct;
      generated += p.generated;
      queue += p.queue;
      rate += p.statesPerSecond;
    }
    const depths = [...latest.entries()].map(([l, p]) => `${l} ${p.depth}`).join(', ');
    live.tick(`${generated} states, ${distinct} distinct, depth ${depths}, queue ${queue}, ${Math.round(rate)} states/s`);
  };
}

/** The command that replays a counterexample file, as words. */
const replayArgv =
  (out: Output) =>
  (file: string): string[] => [...invocationOf(out), 'check', '--replay', file];

async function runCheck(s: RunSettings, out: Output): Promise<number> {
  const session = new CheckSession({
    workers: s.workers,
    ...(s.maxStates !== undefined ? { maxStates: s.maxStates } : {}),
    ...(s.maxSeconds !== undefined ? { maxSeconds: s.maxSeconds } : {}),
    frontierMemory: s.frontierMemory,
  });
  const live = new LiveProgress(out, 'streamjoin check');
  try {
    const json = await interruptible(session, out.signal, () =>
      s.simulate ? runSimulation(s, s.simulate, session, out, live) : runExploration(s, session, out, live),
    );
    emitReports([checkCases(json)], s.reporters, out, s.json);
    return json.exitCode;
  } finally {
    live.stop();
    await session.close();
  }
}

function reportOf(
  s: RunSettings,
  session: CheckSession,
  parts: readonly (CheckPartJson | SimulatedPartJson)[],
  partsTotal: number,
): CheckJson {
  const code = worstExit(parts.map((p) => p.exitCode));
  return {
    ...reportHeader(CHECK_REPORT_FORMAT),
    preset: s.preset.name,
    bounds: s.bounds,
    ablate: s.ablate ?? null,
    joint: s.joint,
    mode: s.simulate ? 'simulation' : 'exhaustive',
    workers: session.workers,
    seed: s.simulate ? s.simulate.seed : null,
    budget: { maxStates: s.maxStates ?? null, maxSeconds: s.maxSeconds ?? null, frontierMemoryBytes: s.frontierMemory },
    partsTotal,
    shard: s.shard ?? null,
    parts,
    verdict: verdictOf(code),
    exitCode: code,
  };
}

/** A decomposed preset (SPEC §6) is checked part by part, the parts side by side; it passes iff every part does. */
async function runExploration(s: RunSettings, session: CheckSession, out: Output, live: LiveProgress): Promise<CheckJson> {
  const all = !s.joint && s.preset.parts ? s.preset.parts(s.bounds, s.ablate) : undefined;
  const source = (part: string | undefined): ModelSource | undefined =>
    s.builtIn ? presetSource(s.preset.name, s.bounds, s.ablate, part) : undefined;
  const parts: Part[] = shardItems(
    all
      ? all.map((p) => ({ label: p.label as string | undefined, model: p.model, source: source(p.label) }))
      : [{ label: undefined, model: s.preset.build(s.bounds, s.ablate), source: source(undefined) }],
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
  live.part(parts.length === 1 && parts[0]?.label !== undefined ? `part ${parts[0].label}` : `preset ${s.preset.name}`);
  const progress = progressOf(live);
  const outcomes = await Promise.all(
    parts.map((part) =>
      part.model.use(async <S, A>(model: Model<S, A>): Promise<PartOutcome> => {
        const onProgress = (p: ProgressSample): void => progress(part.label ?? s.preset.name, p);
        const report = await session.check(model, part.source, { ...s.part, onProgress });
        return explorationOutcome(s, model, part.label, report, out);
      }),
    ),
  );
  live.clear();
  const json = reportOf(
    s,
    session,
    outcomes.map((o) => o.json),
    all?.length ?? 1,
  );
  if (s.json) out.stdout(`${JSON.stringify(json)}\n`);
  else if (text) {
    for (const o of outcomes) out.stdout(o.text);
    if (all || s.shard)
      out.stdout(
        parts.length === 0
          ? 'PASS: no part falls to this shard\n'
          : json.exitCode === EXIT.pass
            ? 'PASS: every part passes\n'
            : json.exitCode === EXIT.unknown
              ? session.interrupted
                ? 'INTERRUPTED: no verdict\n'
                : 'NOT EXHAUSTED in some part: no verdict\n'
              : 'FAIL in some part\n',
      );
  }
  return json;
}

function explorationOutcome<S, A>(
  s: RunSettings,
  model: Model<S, A>,
  part: string | undefined,
  report: CheckReport<S, A>,
  out: Output,
): PartOutcome {
  // An interrupted part has no verdict and leaves no file.
  const written =
    report.stoppedBy === 'interrupted'
      ? new Map<string, string>()
      : writeCounterexamples(model, [...report.invariants, ...(report.progress ? [report.progress] : [])], {
          preset: s.preset.name,
          bounds: s.bounds,
          ablate: s.ablate,
          part,
          outDir: s.outDir,
          itf: s.itf,
          check: { visited: report.options.visited, symmetry: report.options.symmetry, partialOrder: report.options.partialOrder },
        });
  const heading =
    `${part !== undefined ? `part ${part}` : 'streamjoin check'}: preset ${s.preset.name}${s.ablate ? ` without ${s.ablate}` : ''} ` +
    `(model ${report.model}), bounds ${boundsText(s.bounds)}`;
  const replay = replayArgv(out);
  return { text: explorationText(model, heading, report, written, replay), json: explorationJson(model, part, report, written, replay) };
}

async function runSimulation(
  s: RunSettings,
  sim: NonNullable<RunSettings['simulate']>,
  session: CheckSession,
  out: Output,
  live: LiveProgress,
): Promise<CheckJson> {
  const text = !s.json && !reporterOnStdout(s.reporters);
  if (text) out.stdout(`streamjoin check --simulate: preset ${s.preset.name}, seed ${sim.seed}\n`);
  live.part(`simulation of preset ${s.preset.name}`);
  const onProgress = (p: SimulationProgress): void =>
    live.tick(`${p.walks} walks, ${p.steps} steps, ${Math.round(p.walksPerSecond)} walks/s, ${Math.round(p.stepsPerSecond)} steps/s`);
  const source = s.builtIn ? presetSource(s.preset.name, s.bounds, s.ablate, undefined) : undefined;
  const outcome = await s.preset.build(s.bounds, s.ablate).use(async <S, A>(model: Model<S, A>): Promise<PartOutcome> => {
    const report: SimulationReport<S, A> = await session.simulate(model, source, { ...sim, onProgress });
    const written =
      report.stoppedBy === 'interrupted'
        ? new Map<string, string>()
        : writeCounterexamples(model, [...report.invariants, ...(report.progress ? [report.progress] : [])], {
            preset: s.preset.name,
            bounds: s.bounds,
            ablate: s.ablate,
            part: undefined,
            outDir: s.outDir,
            itf: s.itf,
            ...(report.violation ? { simulation: { seed: sim.seed, walk: report.violation.walk } } : {}),
          });
    const bounds = Object.entries(s.bounds)
      .map(([k, v]) => ` --bound ${k}=${v}`)
      .join('');
    const again = `streamjoin check --simulate --preset ${s.preset.name}${bounds}${s.ablate ? ` --ablate ${s.ablate}` : ''} --seed ${sim.seed} --depth ${sim.depth}`;
    const heading =
      `simulation of preset ${s.preset.name}${s.ablate ? ` without ${s.ablate}` : ''} (model ${report.model}), ` +
      `bounds ${boundsText(s.bounds)}`;
    const replay = replayArgv(out);
    return { text: simulationText(model, heading, report, written, replay, again), json: simulationJson(model, report, written, replay) };
  });
  live.clear();
  const json = reportOf(s, session, [outcome.json], 1);
  if (s.json) out.stdout(`${JSON.stringify(json)}\n`);
  else if (text) out.stdout(outcome.text);
  return json;
}

// ---------------------------------------------------------------------------
// --replay

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
    const replayed = replayPath(model, cx.initialState, actions);
    if (!replayed.ok) {
      if (replayed.failedStep < 0) throw new InputError('SJ108', file, `/initialState: ${replayed.reason}`);
      throw new InputError(
        'SJ108',
        file,
        `step ${replayed.failedStep + 1}: ${replayed.reason} in the state reached (the model or its bounds differ from the run that wrote the file)`,
      );
    }
    const stateJson = (st: S): unknown => (model.stateToJson ? model.stateToJson(st) : model.encode(st));
    const start = replayed.steps[0]?.before ?? replayed.final;
    const steps = replayed.steps.map((step, i) => ({
      step: i + 1,
      action: toJson(step.action),
      description: model.describeAction(step.action),
      changes: jsonDiff(stateJson(step.before), stateJson(step.after)),
    }));
    const state = replayed.final;
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
        `${JSON.stringify({
          ...reportHeader(CHECK_REPLAY_REPORT_FORMAT),
          file,
          preset: preset.name,
          bounds,
          property: cx.property,
          initial: stateJson(start),
          steps,
          final: stateJson(state),
          verdict: evaluation.verdict,
          explanation: evaluation.explanation ?? null,
          exitCode: code,
        })}\n`,
      );
      return code;
    }
    if (reporterOnStdout(reporters)) return code;
    const lines = [
      `replaying ${file}: ${cx.property.kind} ${cx.property.name} of preset ${preset.name}${cx.ablate ? ` without ${cx.ablate}` : ''} (${boundsText(bounds)})`,
    ];
    lines.push(`initial state ${cx.initialState}: ${JSON.stringify(stateJson(start))}`);
    for (const st of steps) {
      lines.push(`step ${st.step}: ${st.description}`);
      for (const c of st.changes) lines.push(`    ${c}`);
      if (st.changes.length === 0) lines.push('    (no change)');
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
  'frontier-memory': { type: 'string' },
  workers: { type: 'string' },
  simulate: { type: 'boolean' },
  seed: { type: 'string' },
  walks: { type: 'string' },
  walk: { type: 'string' },
  depth: { type: 'string' },
  replay: { type: 'string' },
  list: { type: 'boolean' },
  joint: { type: 'boolean' },
  shard: { type: 'string' },
  ...REPORTER_OPTION,
  itf: { type: 'boolean' },
} as const;

type ParsedValues = ReturnType<typeof parseArgs<{ options: typeof checkOptions; allowPositionals: false }>>['values'];

/**
 * Runs `check`; `registry` is the preset list (tests pass their own, whose
 * models are then explored on this thread), `totalMemory` sizes the default
 * frontier bound.
 */
export async function checkCommand(
  args: readonly string[],
  out: Output,
  registry: readonly ModelPreset[] = PRESETS,
  totalMemory = totalmem(),
): Promise<number> {
  const { values } = parseCommandArgs({ args: [...args], options: checkOptions, allowPositionals: false });
  if (values.list) return listPresets(registry, out);
  if (values.replay !== undefined) {
    const others = Object.keys(values).filter((k) => k !== 'replay' && k !== 'json' && k !== 'reporter');
    if (others.length > 0) throw usageError(`--replay takes only --json and --reporter, not --${others.join(', --')}`);
    const reporters = parseReporters(values.reporter);
    checkStdoutUse(values.json ?? false, reporters);
    return runReplay(registry, values.replay, values.json ?? false, reporters, out);
  }
  return runCheck(resolveSettings(registry, values, totalMemory), out);
}
