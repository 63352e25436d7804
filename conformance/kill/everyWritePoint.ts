// Kill mode's exhaustive scenario of a request (PROTOCOL.md, "Kill mode"):
// the request killed in flight at every durable write point it makes, the
// first, the second, ... until the system answers it (it made fewer), each
// on a fresh data directory, each resolved by what the system shows after
// the restart (inFlight.ts) and the rest of the trace judged from there.
// With `serve --data` this reaches every torn state of its crash-safe
// writer, its journals and its checkpoint store that the request passes.
//
// The same for the first `init` (killInitAtEveryWritePoint): killed at each
// of its write points in turn, the re-attach must start with every node down
// and empty durable parts (C10) whatever `init` had written (nothing, a
// temporary config file, the config without its journals, ...).
import type { ClusterTrace, ExternalAction } from '../../spec/index.ts';
import type { DivergenceFacts } from '../sut/divergence.ts';
import { runKillTrace, type KillRunOptions, type KillTraceResult } from './killRun.ts';
import { withInitKill, withKills } from './killTraces.ts';

export interface WritePointRun {
  /** The write point the kill was set at (1 = the first). */
  readonly write: number;
  /** How the observation after the restart resolved it. */
  readonly resolved: 'lost' | 'applied' | 'partly' | undefined;
  readonly divergence?: DivergenceFacts;
  /** The run itself (the trace as run, its kills and restart times). */
  readonly result: KillTraceResult;
}

/** The steps of `trace` an in-flight kill can go to: enabled, and changing no node's liveness (killTraces.ts). */
export function killableSteps(trace: ClusterTrace): number[] {
  const plain: ClusterTrace = { ...trace, steps: trace.steps.map((s) => ({ action: s.action as ExternalAction })) };
  return plain.steps
    .map((_, i) => i)
    .filter((i) => withKills(plain, [{ at: i, timing: 'at-write', write: 1 }]).steps.some((s) => s.kill?.timing === 'at-write'));
}

/** One scenario of kill mode's exhaustive part: a trace's `init`, or one of its steps, killed at each write point in turn. */
export interface ExhaustiveKill {
  readonly path: string;
  readonly trace: ClusterTrace;
  readonly at: number | 'init';
}

/** The example whose `init` and every step `--exhaustive` kills at every write point (then one step of each kind it lacks). */
export const KILL_EXHAUSTIVE_EXAMPLE = 'planned-migration-under-traffic.trace.json';

/**
 * The exhaustive part's scenarios, from the cluster examples: the `init` of
 * KILL_EXHAUSTIVE_EXAMPLE and every step of it an in-flight kill can go to;
 * then, from the others in order, the first such step of each action type
 * that none before had, so that every kind of step the examples have (a
 * failover, a checkpoint, an abort, a duplicate, ...) is killed at each of
 * its write points, not only those of one migration. None without that
 * example.
 */
export function exhaustiveKills(examples: readonly { readonly path: string; readonly trace: ClusterTrace }[]): ExhaustiveKill[] {
  const main = examples.find((e) => e.path.endsWith(KILL_EXHAUSTIVE_EXAMPLE));
  if (main === undefined) return [];
  const others = examples.filter((e) => e !== main);
  const out: ExhaustiveKill[] = [{ ...main, at: 'init' }];
  const covered = new Set<string>();
  for (const at of killableSteps(main.trace)) {
    out.push({ ...main, at });
    covered.add(main.trace.steps[at]?.action.type ?? '');
  }
  for (const other of others) {
    for (const at of killableSteps(other.trace)) {
      const type = other.trace.steps[at]?.action.type ?? '';
      if (covered.has(type)) continue;
      covered.add(type);
      out.push({ ...other, at });
    }
  }
  return out;
}

/**
 * The steps of KILL_EXHAUSTIVE_EXAMPLE whose message a duplicate delivers
 * again (C11): its install and its release. Every `conform --kill` with the
 * examples kills each at every durable write point, after the examples: a
 * system that saves the step and its message in two writes keeps one
 * without the other only when a kill falls between them, which twenty
 * random traces reach about one seed in eight (`testdata/splitMessages.py`).
 */
export function messageKills(examples: readonly { readonly path: string; readonly trace: ClusterTrace }[]): ExhaustiveKill[] {
  return exhaustiveKills(examples).filter(
    (k) =>
      k.path.endsWith(KILL_EXHAUSTIVE_EXAMPLE) &&
      k.at !== 'init' &&
      ['install', 'release'].includes(k.trace.steps[k.at]?.action.type ?? ''),
  );
}

/**
 * Step `at` of `trace` (an enabled action that changes no node's liveness)
 * killed at each of its durable write points in turn, up to `maxWrites`;
 * stops at the first divergence, or once the system answered (no write
 * point left). Each run ends with a kill after its last step (`finalKill`,
 * as `conform --kill --exhaustive` runs it), unless told otherwise: a test
 * of how one step's write points resolve can spare that restart per run.
 * Rejects with SutUnavailable.
 */
export async function killAtEveryWritePoint(
  trace: ClusterTrace,
  at: number,
  options: KillRunOptions,
  { maxWrites = 32, finalKill = true }: { readonly maxWrites?: number; readonly finalKill?: boolean } = {},
): Promise<{ runs: WritePointRun[]; complete: boolean }> {
  const plain: ClusterTrace = { ...trace, steps: trace.steps.map((s) => ({ action: s.action as ExternalAction })) };
  return eachWritePoint(maxWrites, async (write) => {
    const killed = withKills(plain, [{ at, timing: 'at-write', write }], { finalKill });
    if (!killed.steps.some((s) => s.kill?.timing === 'at-write'))
      throw new Error(`step ${at} cannot be killed in flight (refused, or it changes a node's liveness)`);
    const r = await runKillTrace(killed, options);
    const step = r.trace.steps.find((s) => s.kill?.timing === 'at-write');
    const run = { write, resolved: step?.kill?.resolved, ...(r.divergence ? { divergence: r.divergence } : {}), result: r };
    return { run, answered: r.answeredAtWrite > 0 };
  });
}

/**
 * The kill at write point 1, 2, ... up to `maxWrites` (`runAt`), until a run
 * diverges or the system answered before the write point (none left: then the
 * scenario is `complete`).
 */
async function eachWritePoint<R extends { readonly divergence?: DivergenceFacts }>(
  maxWrites: number,
  runAt: (write: number) => Promise<{ run: R; answered: boolean }>,
): Promise<{ runs: R[]; complete: boolean }> {
  const runs: R[] = [];
  for (let write = 1; write <= maxWrites; write++) {
    const { run, answered } = await runAt(write);
    runs.push(run);
    if (run.divergence || answered) return { runs, complete: run.divergence === undefined };
  }
  return { runs, complete: false };
}

export interface InitWritePointRun {
  /** The write point of `init` the kill was set at (1 = the first). */
  readonly write: number;
  /** The system answered `init` before reaching that write point (no write point left). */
  readonly answered: boolean;
  readonly divergence?: DivergenceFacts;
  /** The run itself (the trace as run, its kills and restart times). */
  readonly result: KillTraceResult;
}

/**
 * `trace`'s first `init` killed at each of its durable write points in turn,
 * up to `maxWrites`, each on a fresh data directory, followed by restarts of
 * every node and the trace's steps (their kill marks dropped, killed at
 * every crash point and at the end: killTraces.ts `withKills`);
 * stops at the first divergence, or once the system answered `init` (no write
 * point left: `complete`). Rejects with SutUnavailable.
 */
export async function killInitAtEveryWritePoint(
  trace: ClusterTrace,
  options: KillRunOptions,
  maxWrites = 32,
): Promise<{ runs: InitWritePointRun[]; complete: boolean }> {
  const { initKill: _initKill, ...rest } = trace;
  const plain: ClusterTrace = { ...rest, steps: trace.steps.map((s) => ({ action: s.action as ExternalAction })) };
  return eachWritePoint(maxWrites, async (write) => {
    const r = await runKillTrace(withKills(withInitKill(plain, write), [], { finalKill: true }), options);
    const answered = r.trace.initKill?.answered === true;
    return { run: { write, answered, ...(r.divergence ? { divergence: r.divergence } : {}), result: r }, answered };
  });
}

/** The durable write points of `init` a run found (the runs that died inside it): the count before the first that answered. */
export const initWritePoints = (runs: readonly InitWritePointRun[]): number => runs.filter((r) => !r.answered).length;
