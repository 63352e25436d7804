// `streamjoin check`: explore a preset model (every state within its bounds,
// part by part, on every core), or walk it at random (`--simulate`); print
// the verdicts, write each counterexample as a replayable file; `--replay
// FILE` replays one. Budgets bound the whole command; SIGINT or SIGTERM
// stops it with the report so far. This file parses the arguments into
// RunSettings; checkRun.ts runs them and reports, checkReplay.ts replays.
import type { parseArgs } from 'node:util';
import { availableParallelism, totalmem } from 'node:os';
import { InputError, loadCheckConfig, readInputsAhead, withDeadline } from '../spec/index.ts';
import type { CheckConfig } from '../spec/index.ts';
import { PRESETS, resolveBounds, type ModelPreset, type VisitedMode } from '../model/index.ts';
import type { Output } from './output.ts';
import { EXIT, nonNegativeIntegerFlag, positiveIntegerFlag, usageError } from './exitCodes.ts';
import { checkedOutDir, parseCommandArgs } from './options.ts';
import { shardFlag, shardSeed } from './shardArgs.ts';
import { REPORTER_HELP, REPORTER_OPTION, checkStdoutUse, parseReporters } from './reporters/emit.ts';
import { presetList } from './checkOutput.ts';
import { runCheck, type RunSettings } from './checkRun.ts';
import { runReplay } from './checkReplay.ts';
import { loadUserModel, userModelArgs } from './checkModel.ts';
import { reportHeader } from './version.ts';

export const checkHelp = `streamjoin check [--preset NAME | --config FILE] [--bound NAME=VALUE ...] [--ablate ELEMENT]
                 [--workers N] [--max-states N] [--max-seconds N] [--frontier-memory MB] [--shard K/N] [--stop-at-first]
                 [--json] [--out DIR] [--itf] [--visited exact|fingerprint] [--no-symmetry] [--no-por] [--joint]
                 [--reporter junit=FILE] [--reporter tap[=FILE]]
streamjoin check --simulate [--preset NAME | --config FILE] [--bound NAME=VALUE ...] [--ablate ELEMENT]
                 [--seed S] [--walks N | --max-seconds T] [--walk K] [--depth D] [--workers N] [--shard K/N]
                 [--json] [--out DIR]
streamjoin check --model FILE [--export NAME] [any option above but --preset, --config, --bound, --ablate, --joint]
streamjoin check --replay FILE [--model FILE [--export NAME]] [--json] [--reporter ...]
streamjoin check --list [--json]

Explores every state of a preset model within its bounds (breadth-first) and
checks its invariants, reachability goals, Progress and action coverage; a
preset checked key by key (ci, deep) explores its parts side by side. With
--simulate, takes random walks instead, at bounds no search can exhaust.

  --preset NAME        the model and bounds to check (see --list)
  --config FILE        a saved run (streamjoin/check-config@1); flags override it
  --model FILE         check your own model instead of a preset: a module
                       (JavaScript, or TypeScript where tsx is installed)
                       whose default export (or export "model") is an object
                       of the Model interface (docs/check.md, "Your own model")
  --export NAME        the module's export that holds the model
  --bound NAME=VALUE   override one bound of the preset (repeatable)
  --ablate ELEMENT     switch off one protocol element (the preset lists them)
  --workers N          threads exploring (default: the machine's cores, here
                       ${availableParallelism()}); the states, verdicts and counterexample lengths
                       are the same for every N
  --max-states N       stop after N distinct states over the whole command
                       (the bound is then NOT exhausted: exit 2, never a pass)
  --max-seconds N      stop after N seconds, for the whole command, reading a
                       --config from a FIFO or a pipe included (likewise;
                       with --simulate: how long to walk)
  --stop-at-first      end the whole command at the first invariant violation
                       (in any part) with its shortest counterexample, instead
                       of exploring on for the other properties; the parts
                       left are not exhausted (a simulation always stops at
                       its first violation)
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
                       to shard (i mod N) + 1; a preset of one part is shard 1's);
                       with --simulate, run only walks K-1, K-1+N, K-1+2N,
                       ... of seed S (disjoint across shards, the same on every
                       run; --walks counts the shard's): merge the shards'
                       --json reports with merge-reports
  --simulate           random walks on the (joint) model: every invariant after
                       every step, Progress where a walk ends with nothing
                       enabled; a violation is minimized and written like any
                       counterexample. No violation within the budget exits 0
                       (the report says it is not exhaustive: no proof)
  --seed S             the walks' seed (default: STREAMJOIN_SEED, else a fresh
                       one, printed); walk K of seed S is always the same walk
  --walks N            walk N times (default: until --max-seconds, 60 s if
                       neither is given)
  --walk K             run only walk K of seed S (to replay it)
  --depth D            steps per walk at most (default: the preset's, else 10000)
  --replay FILE        replay a counterexample file (or its .itf.json) step by
                       step, showing what each action changed, and check the
                       property at the end (with --model FILE for a file your
                       own model wrote)
  --list               list the presets, their bounds and ablatable elements
                       (with --json: streamjoin/check-presets@1)
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
state budget ran out before the bound was exhausted (--stop-at-first
included, when nothing was violated), or the run was interrupted. A
simulation exits 0 when its walks found no violation within the budget.
254 also for an unknown preset, bound or element, a malformed file, a replayed action that
is not enabled.`;

export const PRESETS_LIST_FORMAT = 'streamjoin/check-presets@1';

function listPresets(registry: readonly ModelPreset[], out: Output, json: boolean): number {
  if (json) {
    const presets = registry.map((p) => ({
      name: p.name,
      description: p.description,
      simulation: p.simulation === undefined ? null : { depth: p.simulation.depth },
      bounds: p.bounds.map((b) => ({ name: b.name, description: b.description, default: b.default, min: b.min, max: b.max })),
      ablations: p.ablations.map((a) => ({ name: a.name, description: a.description })),
    }));
    out.stdout(`${JSON.stringify({ ...reportHeader(PRESETS_LIST_FORMAT), presets })}\n`);
    return EXIT.pass;
  }
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
    const value = Number(m[2]);
    // Past 2^53 a number is not the integer written (9007199254740993 reads as ...992): say so with the text given.
    if (!Number.isSafeInteger(value))
      throw usageError(`--bound ${m[1] as string}: ${m[2] as string} is far beyond any bound (the presets list theirs: check --list)`);
    bounds[m[1] as string] = value;
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

function resolveSettings(registry: readonly ModelPreset[], values: ParsedValues, totalMemory: number, out: Output): RunSettings {
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
  const stopAtFirst = values['stop-at-first'] ?? config?.stopAtFirst ?? false;
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
    if (values.shard !== undefined && walk !== undefined)
      throw usageError('--walk K names a walk of the whole seed: give it without --shard');
    if (walks === undefined && walk === undefined && maxSeconds === undefined) maxSeconds = 60;
    const depth = values.depth !== undefined ? positiveIntegerFlag('--depth', values.depth, 'steps') : (preset.simulation?.depth ?? 10_000);
    simulate = {
      // The shards of one simulation share its seed (their walks are one run's).
      seed: shardSeed(values.seed, shardFlag(values.shard), true, out),
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
      ...(stopAtFirst ? { stopAtFirstViolation: true } : {}),
    },
    workers,
    maxStates,
    maxSeconds,
    frontierMemory,
    outDir: checkedOutDir('--out', values.out ?? 'out'),
    json: values.json ?? false,
    joint: values.joint ?? false,
    shard: shardFlag(values.shard),
    reporters,
    itf: values.itf ?? false,
    ...(simulate ? { simulate } : {}),
    builtIn: registry === PRESETS,
  };
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
  'stop-at-first': { type: 'boolean' },
  model: { type: 'string' },
  export: { type: 'string' },
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
  const { values } = parseCommandArgs({ args: [...args], options: checkOptions, allowPositionals: false }, 'check');
  if (values.list) return listPresets(registry, out, values.json === true);
  if (values.export !== undefined && values.model === undefined) throw usageError('--export NAME goes with --model FILE');
  if (values.model !== undefined) {
    const presetFlags = (['preset', 'config', 'bound', 'ablate', 'joint'] as const).filter((f) => values[f] !== undefined);
    if (presetFlags.length > 0) throw usageError(`--model checks your own model: --${presetFlags.join(', --')} belong to the presets`);
  }
  const user = values.model !== undefined ? await loadUserModel(values.model, values.export) : undefined;
  const presets = user ? [user.preset] : registry;
  if (values.replay !== undefined) {
    const others = Object.keys(values).filter((k) => !['replay', 'json', 'reporter', 'model', 'export'].includes(k));
    if (others.length > 0) throw usageError(`--replay takes only --json, --reporter and --model, not --${others.join(', --')}`);
    const reporters = parseReporters(values.reporter);
    checkStdoutUse(values.json ?? false, reporters);
    await readInputsAhead([values.replay], { signal: out.signal });
    return runReplay(presets, values.replay, values.json ?? false, reporters, out);
  }
  // --max-seconds bounds the whole command: reading a --config from a FIFO or a pipe included.
  const started = performance.now();
  const flagSeconds = values['max-seconds'] === undefined ? undefined : positiveNumber('--max-seconds', values['max-seconds'], false);
  const bounded = withDeadline(
    out.signal,
    flagSeconds === undefined ? undefined : flagSeconds * 1000,
    `--max-seconds ${values['max-seconds']}`,
  );
  try {
    await readInputsAhead([values.config], { signal: bounded.signal });
  } finally {
    bounded.dispose();
  }
  const resolved = resolveSettings(presets, user ? { ...values, preset: user.preset.name } : values, totalMemory, out);
  const settings: RunSettings = user ? { ...resolved, userModel: { source: user.source, args: userModelArgs(user) } } : resolved;
  const spent = (performance.now() - started) / 1000;
  return runCheck(
    flagSeconds !== undefined && settings.maxSeconds !== undefined
      ? { ...settings, maxSeconds: Math.max(0.001, settings.maxSeconds - spent) }
      : settings,
    out,
  );
}
