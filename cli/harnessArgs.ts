// What the harness commands (conform, replay, mutants) share: the trace
// files they run first, the checks of their flags, and the system under
// test a --sut word names.
import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { LEVELS, type Level } from '../spec/index.ts';
import { inProcessSystem } from '../conformance/adapters/inProcess.ts';
import { modelSut } from '../conformance/adapters/modelSut.ts';
import { implSut } from '../conformance/adapters/implSut.ts';
import { DEFAULT_STARTUP_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, spawnSystem } from '../conformance/adapters/process.ts';
import { DEFAULT_MAX_LINE_BYTES } from '../conformance/adapters/lines.ts';
import type { SystemUnderTest } from '../conformance/adapters/sut.ts';
import type { ExhaustivePart } from '../conformance/conform.ts';
import { EXHAUSTIVE_SCENARIOS, coverAnyScenario, type AnyCover, type AnyScenario } from '../conformance/generate/exhaustive.ts';
import { exampleTracePaths, examplesDir } from './run.ts';
import type { Output } from './output.ts';
import { positiveIntegerFlag, usageError } from './exitCodes.ts';

const clusterExamplesDir = join(examplesDir, 'cluster');

/** The mutant catalogue's regression traces: each kill's shortest counterexample, kept (streamjoin mutants --regressions). */
export const regressionsDir = join(import.meta.dirname, '..', 'conformance', 'mutants', 'regressions');

const traceFilesIn = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.trace.json'))
    .sort()
    .map((f) => join(dir, f));

/** The hand-checked examples of spec/: operator examples, then cluster examples. */
export function specExamplePaths(): string[] {
  return [...exampleTracePaths(), ...traceFilesIn(clusterExamplesDir)];
}

/** The traces conform runs before the exhaustive and random ones: the spec's examples, then the mutant catalogue's regression traces. */
export function conformExamplePaths(): string[] {
  return [...specExamplePaths(), ...traceFilesIn(regressionsDir)];
}

/**
 * Why counterexamples could not be written under `dir`, or undefined: checked
 * before the run, so that a divergence found is never lost to a bad --out.
 * Creates nothing.
 */
export function outDirProblem(dir: string): string | undefined {
  let at = resolve(dir);
  while (!existsSync(at)) {
    const up = dirname(at);
    if (up === at) return 'no existing parent directory';
    at = up;
  }
  if (!statSync(at).isDirectory()) return `${at} is not a directory`;
  try {
    accessSync(at, constants.W_OK);
  } catch {
    return `${at} is not writable`;
  }
  return undefined;
}

export interface SystemFlags {
  timeout?: string | undefined;
  'max-line'?: string | undefined;
}

/** `--sut model`, `--sut impl` or a command. */
export function buildSystem(sut: string, flags: SystemFlags): SystemUnderTest {
  if (sut === 'model') return inProcessSystem(modelSut, 'model');
  if (sut === 'impl') return inProcessSystem(implSut, 'impl');
  const timeout = flags.timeout === undefined ? DEFAULT_TIMEOUT_MS : positiveIntegerFlag('--timeout', flags.timeout, 'milliseconds');
  const maxLine = flags['max-line'] === undefined ? DEFAULT_MAX_LINE_BYTES : positiveIntegerFlag('--max-line', flags['max-line'], 'bytes');
  return spawnSystem(sut, { timeoutMs: timeout, startupTimeoutMs: Math.max(timeout, DEFAULT_STARTUP_TIMEOUT_MS), maxLineBytes: maxLine });
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
    throw usageError(
      `--scenario: unknown scenario ${unknown.map((n) => `"${n}"`).join(', ') || '(none given)'}; the scenarios are ${EXHAUSTIVE_SCENARIOS.map((x) => x.name).join(', ')}`,
    );
  }
  return EXHAUSTIVE_SCENARIOS.filter((x) => names.includes(x.name));
}

/** Each scenario's bounded graph and covering traces, with a progress line per scenario. */
export function buildCovers(scenarios: readonly AnyScenario[], out: Output): AnyCover[] {
  return scenarios.map((scenario) => {
    const t0 = performance.now();
    const cover = coverAnyScenario(scenario);
    const what = cover.kind === 'operator' ? 'logs' : 'interleavings';
    out.stderr(
      `exhaustive ${scenario.name}: ${cover.states} states, ${cover.transitions} transitions, ${cover.traces.length} ${what}, ${cover.probes} probes (built in ${Math.round(performance.now() - t0)} ms)\n`,
    );
    return cover;
  });
}

/** The scenarios as the conform job takes them: each covered when the job gets to it, only if it can run at a level checked. */
export function lazyCovers(scenarios: readonly AnyScenario[], out: Output): ExhaustivePart[] {
  return scenarios.map((scenario) => ({ scenario, build: () => buildCovers([scenario], out)[0] as AnyCover }));
}
