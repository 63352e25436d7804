// What the harness commands (conform, replay, mutants) share: the checks
// of their flags, and the system under test a --sut word names.
import { nearestOption } from './options.ts';
import { type AbortSignalLike, Interrupted, LEVELS, type Level } from '../spec/index.ts';
import { inProcessSystem } from '../conformance/adapters/inProcess.ts';
import { modelSut } from '../conformance/sut/modelSut.ts';
import { implSut } from '../conformance/adapters/implSut.ts';
import { DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, spawnSystem } from '../conformance/adapters/process.ts';
import { DEFAULT_MAX_LINE_BYTES } from '../conformance/adapters/lines.ts';
import { SutUnavailable, type SystemUnderTest } from '../conformance/sut/sut.ts';
import type { ExhaustivePart } from '../conformance/job/conformTypes.ts';
import { EXHAUSTIVE_SCENARIOS, coverAnyScenarioPaced, type AnyCover, type AnyScenario } from '../conformance/generate/exhaustive.ts';
import type { Output } from './output.ts';
import { positiveIntegerFlag, usageError } from './exitCodes.ts';
import { DEFAULT_LINK_BASE, linkBaseProblem, type LinkBase } from '../conformance/report/specLinks.ts';

export interface SystemFlags {
  timeout?: string | undefined;
  'startup-timeout'?: string | undefined;
  'max-line'?: string | undefined;
}

/** The flags of a process system under test, in every harness command's help. */
export const SYSTEM_FLAGS_HELP = `  --timeout MS         no reply for this long with requests outstanding means the
                       system hung (default ${DEFAULT_TIMEOUT_MS}); it bounds the first reply too,
                       unless --startup-timeout says otherwise
  --startup-timeout MS the same for the first reply, which includes the system's
                       start-up (default: --timeout if given, else ${DEFAULT_STARTUP_TIMEOUT_MS})
  --max-line BYTES     cap on a reply line (default ${DEFAULT_MAX_LINE_BYTES})`;

/** The parseArgs options of SYSTEM_FLAGS_HELP. */
export const SYSTEM_FLAG_OPTIONS = {
  timeout: { type: 'string' },
  'startup-timeout': { type: 'string' },
  'max-line': { type: 'string' },
} as const;

/** `--link-base`: in the help of every command that writes a counterexample's Markdown and HTML. */
export const LINK_BASE_HELP = `  --link-base URL|file where the rule links of NAME.md and NAME.html point: URL/spec/SPEC.md
                       (default: ${DEFAULT_LINK_BASE}, the published
                       repository at this version); "file" for this installation's
                       SPEC.md, relative to the files (for reading them on this machine)`;

/** The parseArgs option of LINK_BASE_HELP. */
export const LINK_BASE_OPTION = { 'link-base': { type: 'string' } } as const;

/** The `--link-base` value checked, or undefined (the default). */
export function linkBaseFlag(text: string | undefined): LinkBase | undefined {
  if (text === undefined) return undefined;
  const problem = linkBaseProblem(text);
  if (problem) throw usageError(`--link-base: ${problem}`);
  return text;
}

/**
 * `--sut model`, `--sut impl` or a command. `signal` interrupts it: every
 * call of a system then rejects. `levels` are the levels the run will ask
 * for (`--level`): a command's handshake sends `init` at these only.
 */
export function buildSystem(sut: string, flags: SystemFlags, signal?: AbortSignalLike, levels?: readonly Level[]): SystemUnderTest {
  // Checked whatever the system: a bad value is a usage error with an in-process system too, where it has no use.
  const timeout = flags.timeout === undefined ? undefined : positiveIntegerFlag('--timeout', flags.timeout, 'milliseconds');
  const startup =
    flags['startup-timeout'] === undefined ? undefined : positiveIntegerFlag('--startup-timeout', flags['startup-timeout'], 'milliseconds');
  const maxLine = flags['max-line'] === undefined ? DEFAULT_MAX_LINE_BYTES : positiveIntegerFlag('--max-line', flags['max-line'], 'bytes');
  if (sut === 'model') return inProcessSystem(modelSut, 'model', signal);
  if (sut === 'impl') return inProcessSystem(implSut, 'impl', signal);
  return spawnSystem(sut, {
    timeoutMs: timeout ?? DEFAULT_TIMEOUT_MS,
    startupTimeoutMs: startup ?? timeout ?? DEFAULT_STARTUP_TIMEOUT_MS,
    maxLineBytes: maxLine,
    ...(signal ? { signal } : {}),
    ...(levels ? { levels } : {}),
  });
}

export function parseLevel(text: string | undefined): Level | undefined {
  if (text === undefined) return undefined;
  if (!(LEVELS as readonly string[]).includes(text)) throw usageError(`--level must be one of ${LEVELS.join(', ')}, got "${text}"`);
  return text as Level;
}

/** The scenarios a --scenario list names, or a usage message. */
export function scenariosNamed(list: string): AnyScenario[] {
  const names = list
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const known = new Map(EXHAUSTIVE_SCENARIOS.map((x) => [x.name, x]));
  const unknown = names.filter((n) => !known.has(n));
  if (names.length === 0 || unknown.length > 0) {
    // The whole list no longer fits one bounded message line: name the scenarios each unknown name may mean, and where the list is.
    const all = EXHAUSTIVE_SCENARIOS.map((x) => x.name);
    const meant = unknown.flatMap((n) => {
      const containing = all.filter((x) => x.includes(n));
      const near = nearestOption(n, all);
      return containing.length > 0 ? containing : near !== undefined ? [near] : [];
    });
    const hint = meant.length > 0 ? `; did you mean ${[...new Set(meant)].join(', ')}?` : '';
    throw usageError(
      `--scenario: unknown scenario ${unknown.map((n) => `"${n}"`).join(', ') || '(none given)'}${hint} (streamjoin conform --help lists all ${all.length})`,
    );
  }
  return EXHAUSTIVE_SCENARIOS.filter((x) => names.includes(x.name));
}

/**
 * Each scenario's bounded graph and covering traces, with a progress line
 * per scenario, built at the event loop's pace: rejects with Interrupted
 * once `signal` is aborted.
 */
export async function buildCovers(
  scenarios: readonly AnyScenario[],
  out: Output,
  signal: AbortSignalLike | undefined = out.signal,
): Promise<AnyCover[]> {
  const covers: AnyCover[] = [];
  for (const scenario of scenarios) {
    const t0 = performance.now();
    const cover = await coverAnyScenarioPaced(scenario, signal);
    const what = cover.kind === 'operator' ? 'logs' : 'interleavings';
    out.stderr(
      `exhaustive ${scenario.name}: ${cover.states} states, ${cover.transitions} transitions, ${cover.traces.length} ` +
        `${what}, ${cover.probes} probes (built in ${Math.round(performance.now() - t0)} ms)\n`,
    );
    covers.push(cover);
  }
  return covers;
}

/**
 * The scenarios as the conform job takes them: each covered when the job
 * gets to it, only if it can run at a level checked. An interrupt while one
 * is built stops the job as an interrupted system does (verdict unknown).
 */
export function lazyCovers(
  scenarios: readonly AnyScenario[],
  out: Output,
  signal: AbortSignalLike | undefined = out.signal,
): ExhaustivePart[] {
  return scenarios.map((scenario) => ({
    scenario,
    build: async () => {
      try {
        return (await buildCovers([scenario], out, signal))[0] as AnyCover;
      } catch (e) {
        throw e instanceof Interrupted ? new SutUnavailable(e.message) : e;
      }
    },
  }));
}
