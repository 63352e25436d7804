// The kill-mode part of the mutation run's killing test (docs/mutation.md):
// kill-mode traces (conformance/kill/) against `serve --data` started from
// this checkout's own sources, so that the mutants of the durable parts (the
// checkpoint store on disk, the crash-safe writer, the journals, recovery)
// are judged by the harness like the rest of impl/. Only Stryker runs this
// file (vitest.mutation.config.ts); `npm test` never does.
//
// Stryker switches mutants inside the test's process; `serve` runs in a
// child. The instrumented code reads the active mutant from the environment
// variable __STRYKER_ACTIVE_MUTANT__ when none is set in its process
// (@stryker-mutator/instrumenter, the header it puts in every instrumented
// file), so each child is started with the mutant active in this process,
// and runs the sandbox's instrumented sources through tsx (not dist/). In
// Stryker's initial run the children write what they reached to files
// (childCoverage.ts), counted here as this test's coverage for the mutants
// of the durable files (DURABLE_FILES).
//
// The set: the cluster examples with a crash point, killed after the reply
// at each (recovery after a kill at each crash point); a migration's
// install message delivered again after a kill; a request killed in flight
// (unread, answered, at its writes); a migration's commit killed at each
// of its durable write points in turn; the first `init` killed at each of
// its durable write points (a directory with no session yet, or half of
// one, C10); each step of the planned migration
// under traffic killed at each of its durable writes (conform --kill
// --exhaustive's scenario); a few random kill traces at the run's seed.
// Each is a test of its own: a mutant runs only the tests that reach it and
// stops at the first that fails.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClusterTrace, ExternalAction } from '../../spec/index.ts';
import { regressionTracePaths, specExamplePaths } from '../job/traceFilesPart.ts';
import { killAtEveryWritePoint, killInitAtEveryWritePoint, killableSteps } from '../kill/everyWritePoint.ts';
import { COMMIT_STEP, inFlightTrace, migrationTrace, reinstallAfterKillTrace } from '../kill/killFixtures.ts';
import { randomKillTraces } from '../kill/killJob.ts';
import { runKillTrace, type KillTraceResult } from '../kill/killRun.ts';
import { isCrashPoint, withKills } from '../kill/killTraces.ts';
import { divergenceStepText, explainDivergence } from '../report/divergence.ts';
import { loadCheckedTrace } from '../lockstep/traceFiles.ts';
import { KILL_MUTATION_RANDOM_RUNS, MUTATION_SEED } from './settings.ts';

const PROJECT_ROOT = join(import.meta.dirname, '..', '..');

/** The environment variable Stryker's instrumented code reads the active mutant from (INSTRUMENTER_CONSTANTS). */
const ACTIVE_MUTANT_VARIABLE = '__STRYKER_ACTIVE_MUTANT__';
/** Where the children write their coverage in Stryker's initial run (childCoverage.ts). */
const COVERAGE_DIR_VARIABLE = 'STREAMJOIN_MUTATION_COVERAGE_DIR';

/**
 * The durable parts, the files this part judges: a child's coverage counts
 * only for their mutants. The rest of impl/ runs in the children too, but is
 * judged by the in-process parts (harness.mutation.ts); counting it here
 * would run this part, minutes long, for every mutant of theirs that
 * survives them (the equivalent ones tested).
 */
const DURABLE_FILES = [
  'impl/crashSafeFile.ts',
  'impl/checkpointStore.ts',
  'impl/cluster/recovery.ts',
  'impl/cluster/fileStorage.ts',
  'impl/cluster/durableFiles.ts',
];

/** The ids of the mutants Stryker placed in the durable files (none outside a Stryker sandbox). */
function durableMutantIds(): Set<string> {
  const ids = new Set<string>();
  for (const file of DURABLE_FILES) {
    const source = readFileSync(join(PROJECT_ROOT, file), 'utf8');
    for (const m of source.matchAll(/stryMutAct_9fa48\("(\d+)"\)/g)) ids.add(m[1] as string);
  }
  return ids;
}

/** Stryker's namespace in this process: the active mutant, or in the initial run the test being run and the coverage. */
interface StrykerNamespace {
  activeMutant?: string;
  currentTestId?: string;
  mutantCoverage?: { static: Record<string, number>; perTest: Record<string, Record<string, number>> };
}
const stryker = (): StrykerNamespace | undefined => (globalThis as { __stryker__?: StrykerNamespace }).__stryker__;

const quoted = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * Runs `run` with the command of `serve --data` from the sources: the active
 * mutant in its environment, or in the initial run a directory for the
 * children's coverage, merged into this test's afterwards.
 */
async function withServe<T>(run: (command: string, env: Record<string, string | undefined>) => Promise<T>): Promise<T> {
  const ns = stryker();
  const coverageDir = ns?.currentTestId !== undefined ? mkdtempSync(join(tmpdir(), 'streamjoin-mutation-coverage-')) : undefined;
  const preload = coverageDir === undefined ? '' : ` --import ${quoted(join(import.meta.dirname, 'childCoverage.ts'))}`;
  const command = `${quoted(process.execPath)} --import tsx${preload} ${quoted(join(PROJECT_ROOT, 'cli', 'bin.ts'))} serve --data {data}`;
  const env: Record<string, string | undefined> = { ...process.env };
  delete env[ACTIVE_MUTANT_VARIABLE];
  if (ns?.activeMutant !== undefined) env[ACTIVE_MUTANT_VARIABLE] = String(ns.activeMutant);
  if (coverageDir !== undefined) env[COVERAGE_DIR_VARIABLE] = coverageDir;
  try {
    return await run(command, env);
  } finally {
    if (coverageDir !== undefined && ns?.currentTestId !== undefined) {
      mkdirSync(coverageDir, { recursive: true });
      const coverage = (ns.mutantCoverage ??= { static: {}, perTest: {} });
      const mine = (coverage.perTest[ns.currentTestId] ??= {});
      const durable = durableMutantIds();
      for (const file of readdirSync(coverageDir)) {
        const hits = JSON.parse(readFileSync(join(coverageDir, file), 'utf8')) as Record<string, number>;
        for (const [id, n] of Object.entries(hits)) if (durable.has(id)) mine[id] = (mine[id] ?? 0) + n;
      }
      rmSync(coverageDir, { recursive: true, force: true });
    }
  }
}

/** Step `at` of `trace` killed at each of its durable write points in turn; the first divergence as a message, or undefined. */
async function killAtEachWrite(trace: ClusterTrace, at: number): Promise<string | undefined> {
  const { runs } = await withServe((command, env) => killAtEveryWritePoint(trace, at, { command, process: { env, cwd: PROJECT_ROOT } }));
  const bad = runs.find((r) => r.divergence !== undefined);
  return bad?.divergence ? `killed at write ${bad.write}: ${explainDivergence(bad.divergence).summary}` : undefined;
}

/** The first `init` of `trace` killed at each of its durable write points in turn; the first divergence as a message, or undefined. */
async function killInitAtEachWrite(trace: ClusterTrace): Promise<string | undefined> {
  const { runs } = await withServe((command, env) => killInitAtEveryWritePoint(trace, { command, process: { env, cwd: PROJECT_ROOT } }));
  const bad = runs.find((r) => r.divergence !== undefined);
  return bad?.divergence ? `init killed at write ${bad.write}: ${explainDivergence(bad.divergence).summary}` : undefined;
}

/** The trace run in kill mode against `serve --data`; the first divergence as a message, or undefined. */
async function killRun(trace: ClusterTrace): Promise<string | undefined> {
  const r: KillTraceResult = await withServe((command, env) => runKillTrace(trace, { command, process: { env, cwd: PROJECT_ROOT } }));
  const d = r.divergence;
  return d ? `${divergenceStepText(d.step)}${r.killed && d.step >= 0 ? ' (killed here)' : ''}: ${explainDivergence(d).summary}` : undefined;
}

describe('kill mode against serve --data', () => {
  const examples = [...specExamplePaths(), ...regressionTracePaths()].flatMap((path) => {
    const t = loadCheckedTrace(path);
    return t.kind === 'cluster' && t.trace.steps.some((s) => isCrashPoint(s.action as ExternalAction)) ? [{ path, trace: t.trace }] : [];
  });
  for (const { path, trace } of examples) {
    it(`C10: killed after the reply at each crash point of ${basename(path)}`, async () => {
      expect(await killRun(withKills(trace))).toBeUndefined();
    });
  }
  it('C2, C11: killed with a migration installed; the install message delivered again after the restarts', async () => {
    expect(await killRun(withKills(reinstallAfterKillTrace))).toBeUndefined();
  });
  for (const [timing, write] of [['unread'], ['answered'], ['at-write', 1], ['at-write', 2], ['at-write', 4]] as const) {
    it(`C2, C3: a record killed in flight, ${timing}${write === undefined ? '' : ` at write ${write}`}`, async () => {
      expect(await killRun(inFlightTrace(timing, write))).toBeUndefined();
    });
  }
  it('C10: the first init killed at each of its durable writes: the re-attach has every node down and empty durable parts, and a migration conforms after the restarts', async () => {
    expect(await killInitAtEachWrite(migrationTrace)).toBeUndefined();
  });
  // conform --kill --exhaustive: each step of the planned migration under traffic killed in flight at
  // every durable write point it makes (inside the checkpoint store's, the journals' and the
  // coordinator's writes: the torn and half-done states of each step), a test per step.
  const plannedPath = specExamplePaths().find((path) => basename(path) === 'planned-migration-under-traffic.trace.json');
  const planned = plannedPath === undefined ? undefined : loadCheckedTrace(plannedPath);
  if (planned?.kind !== 'cluster') throw new Error('the cluster example planned-migration-under-traffic is missing');
  for (const at of killableSteps(planned.trace)) {
    const action = planned.trace.steps[at]?.action as ExternalAction;
    it(`C2, C5-C7: step ${at + 1} (${action.type}) of planned-migration-under-traffic killed at each of its durable writes`, async () => {
      expect(await killAtEachWrite(planned.trace, at)).toBeUndefined();
    });
  }
  // Random kill traces at the run's seed, as conform --kill draws them: several checkpoints of a key,
  // restores after them, kills after replies and in flight at random write points.
  for (const [n, trace] of randomKillTraces(MUTATION_SEED, KILL_MUTATION_RANDOM_RUNS).entries()) {
    it(`C2, C4, C10: random kill trace ${n + 1} of ${KILL_MUTATION_RANDOM_RUNS} (seed ${MUTATION_SEED})`, async () => {
      expect(await killRun(trace)).toBeUndefined();
    });
  }
  const plain: ClusterTrace = { ...migrationTrace, steps: migrationTrace.steps.map((s) => ({ action: s.action as ExternalAction })) };
  // A commit of serve --data makes 11 durable writes; the 12th kill point is answered instead.
  for (let write = 1; write <= 12; write++) {
    it(`C7: a commit killed at its durable write ${write}`, async () => {
      expect(await killRun(withKills(plain, [{ at: COMMIT_STEP, timing: 'at-write', write }]))).toBeUndefined();
    });
  }
});
