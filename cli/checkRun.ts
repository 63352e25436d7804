// A resolved `streamjoin check` run: explore a preset part by part on a
// CheckSession, or walk it at random (`--simulate`), then print the verdicts
// and write the report and the counterexample files (checkOutput.ts formats
// them). check.ts resolves the arguments into RunSettings.
import {
  CheckSession,
  presetSource,
  type CheckReport,
  type Model,
  type ModelPreset,
  type ModelSource,
  type PartOptions,
  type PresetModel,
  type ProgressSample,
  type SimulationProgress,
  type SimulationReport,
} from '../model/index.ts';
import { shardItems, type Shard } from '../conformance/job/shard.ts';
import { invocationOf, type Output } from './output.ts';
import { EXIT, worstExit } from './exitCodes.ts';
import { LiveProgress } from './progress.ts';
import { emitReports, reporterOnStdout, type Reporter } from './reporters/emit.ts';
import { reportHeader } from './version.ts';
import {
  CHECK_REPORT_FORMAT,
  checkCases,
  explorationJson,
  explorationText,
  simulationJson,
  simulationText,
  verdictOf,
  writeCounterexamples,
  boundsText,
  type CheckJson,
  type CheckPartJson,
  type SimulatedPartJson,
} from './checkOutput.ts';

/** A resolved run: what to build and how to check it. */
export interface RunSettings {
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
  /** A user's model (`--model FILE`): where threads load it, and the flags that name it again. */
  readonly userModel?: { readonly source: ModelSource; readonly args: readonly string[] };
}

/** Where a worker thread builds the model of `part`: a built-in preset's, or the user's module; none for a test's own registry. */
function sourceOf(s: RunSettings, part: string | undefined): ModelSource | undefined {
  if (s.userModel) return s.userModel.source;
  return s.builtIn ? presetSource(s.preset.name, s.bounds, s.ablate, part) : undefined;
}

/** `, bounds ...` for a heading; nothing for a model without bounds (a user's). */
const boundsPart = (bounds: Readonly<Record<string, number>>): string =>
  Object.keys(bounds).length > 0 ? `, bounds ${boundsText(bounds)}` : '';

/** How the run names its model in headings: the preset, or the user's model file. */
function subjectOf(s: RunSettings): string {
  return s.userModel ? `model file ${s.userModel.args[1] ?? s.preset.name}` : `preset ${s.preset.name}`;
}

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
  (out: Output, s: RunSettings) =>
  (file: string): string[] => [...invocationOf(out), 'check', '--replay', file, ...(s.userModel?.args ?? [])];

export async function runCheck(s: RunSettings, out: Output): Promise<number> {
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
  const source = (part: string | undefined): ModelSource | undefined => sourceOf(s, part);
  const parts: Part[] = shardItems(
    all
      ? all.map((p) => ({ label: p.label as string | undefined, model: p.model, source: source(p.label) }))
      : [{ label: undefined, model: s.preset.build(s.bounds, s.ablate), source: source(undefined) }],
    s.shard,
  );
  // The session's threads build the parts' models while this thread starts exploring.
  void session.prepare(parts.flatMap((p) => (p.source ? [p.source] : [])));
  const text = !s.json && !reporterOnStdout(s.reporters);
  const shardText = s.shard
    ? ` (shard ${s.shard.index}/${s.shard.count}: ${parts.length} of ${all?.length ?? 1} part${(all?.length ?? 1) === 1 ? '' : 's'})`
    : '';
  if (text && (all || s.shard))
    out.stdout(
      all
        ? `streamjoin check: preset ${s.preset.name} in ${all.length} part${all.length === 1 ? '' : 's'} (key independence, SPEC §6): ${all.map((p) => p.label).join(', ')}${shardText}\n`
        : `streamjoin check: ${subjectOf(s)}${shardText}\n`,
    );
  live.part(parts.length === 1 && parts[0]?.label !== undefined ? `part ${parts[0].label}` : subjectOf(s));
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
                ? 'UNKNOWN: interrupted\n'
                : 'UNKNOWN: NOT EXHAUSTED in some part\n'
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
          ...(s.userModel ? { userModel: { replay: replayArgv(out, s) } } : {}),
          check: { visited: report.options.visited, symmetry: report.options.symmetry, partialOrder: report.options.partialOrder },
        });
  const heading =
    `${part !== undefined ? `part ${part}` : 'streamjoin check'}: ${subjectOf(s)}${s.ablate ? ` without ${s.ablate}` : ''} ` +
    `(model ${report.model})${boundsPart(s.bounds)}`;
  const replay = replayArgv(out, s);
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
  const shardText = s.shard
    ? `, shard ${s.shard.index}/${s.shard.count} (walks ${s.shard.index - 1}, ${s.shard.index - 1 + s.shard.count}, ...)`
    : '';
  if (text) out.stdout(`streamjoin check --simulate: ${subjectOf(s)}, seed ${sim.seed}${shardText}\n`);
  live.part(`simulation of ${subjectOf(s)}`);
  const onProgress = (p: SimulationProgress): void =>
    live.tick(`${p.walks} walks, ${p.steps} steps, ${Math.round(p.walksPerSecond)} walks/s, ${Math.round(p.stepsPerSecond)} steps/s`);
  const source = sourceOf(s, undefined);
  if (source) void session.prepare([source]);
  const outcome = await s.preset.build(s.bounds, s.ablate).use(async <S, A>(model: Model<S, A>): Promise<PartOutcome> => {
    const report: SimulationReport<S, A> = await session.simulate(model, source, {
      ...sim,
      ...(s.shard !== undefined ? { shard: s.shard } : {}),
      onProgress,
    });
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
            ...(s.userModel ? { userModel: { replay: replayArgv(out, s) } } : {}),
            ...(report.violation ? { simulation: { seed: sim.seed, walk: report.violation.walk } } : {}),
          });
    const bounds = Object.entries(s.bounds)
      .map(([k, v]) => ` --bound ${k}=${v}`)
      .join('');
    const subject = s.userModel ? s.userModel.args.join(' ') : `--preset ${s.preset.name}`;
    const again = `streamjoin check --simulate ${subject}${bounds}${s.ablate ? ` --ablate ${s.ablate}` : ''} --seed ${sim.seed} --depth ${sim.depth}`;
    const heading = `simulation of ${subjectOf(s)}${s.ablate ? ` without ${s.ablate}` : ''} (model ${report.model})${boundsPart(s.bounds)}`;
    const replay = replayArgv(out, s);
    return { text: simulationText(model, heading, report, written, replay, again), json: simulationJson(model, report, written, replay) };
  });
  live.clear();
  const json = reportOf(s, session, [outcome.json], 1);
  if (s.json) out.stdout(`${JSON.stringify(json)}\n`);
  else if (text) out.stdout(outcome.text);
  return json;
}
