// One trace in kill mode (PROTOCOL.md, "Kill mode"): the system under test
// runs as a command with a fresh data directory of its own (`{data}` in the
// command), and at each kill step of the trace (killTraces.ts) its whole
// process group gets SIGKILL; the command is started again on the same
// directory, re-attaches (`init` with `recover: true`), and its observation
// is compared with the model's after a crash of every node (C10). Between
// kills, steps are judged as in any lockstep run (clusterLockstep.ts).
//
// An in-flight kill (the request sent, the process killed before its reply
// is read) is resolved by the observation after the restart: it must be the
// model's state before the request or after it (or a model state in between,
// inFlight.ts), after the crash of every node; the run follows whichever it
// is and writes it into the trace (`kill.resolved`). Where the observation
// cannot tell (two such states differ only in the last install or release
// message, C11, which it does not show), the run follows every state it
// shows, and the steps after (a duplicate delivering that message) tell them
// apart: a step any of them explains is no divergence.
//
// A kill inside `init` (the trace's `initKill`): the first incarnation is
// started with the write hook set to `init`'s write point N; it dies there,
// or answers `init` (it makes fewer write points) and is killed then. The
// re-attach must show every node down and empty durable parts, the model's
// crash of every node of the initial state (C10), whatever `init` had
// written; a difference is a divergence at step -1 (reports: "init, killed
// here"). The restarts that follow are the trace's first steps.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COORDINATOR } from '../../spec/index.ts';
import type { ClusterInitKill, ClusterKill, ClusterObservation, ClusterStep, ClusterTrace, ExternalAction } from '../../spec/index.ts';
import {
  initialClusterState,
  observeCluster,
  whyNotEnabled,
  applyExternal,
  type ClusterSetup,
  type ClusterState,
} from '../../model/index.ts';
import { spawnSystem, type ProcessOptions } from '../adapters/process.ts';
import { isDeath, SutUnavailable, type ClusterSession, type ClusterStepReply, type StderrExcerpt } from '../sut/sut.ts';
import { clusterDeathDivergence, clusterInitRefusal, compareClusterStep } from '../lockstep/clusterLockstep.ts';
import { deathNotBack } from '../lockstep/deaths.ts';
import { diedBeforeInit, type DivergenceFacts, type ExpectedClusterStep } from '../sut/divergence.ts';
import { type Candidate, inFlightCandidates, resolveInFlight, type InFlightResolution } from './inFlight.ts';
import { crashAll, initKillNote, killNote } from './killTraces.ts';

/** Where the data directory goes in the command (PROTOCOL.md, "Kill mode"). */
export const DATA_PLACEHOLDER = '{data}';

/** The command with every `{data}` replaced by `dir`, quoted for the shell. */
export function commandWithData(command: string, dir: string): string {
  const quoted = `'${dir.replaceAll("'", "'\\''")}'`;
  return command.replaceAll(DATA_PLACEHOLDER, quoted);
}

/** Kills of one run, by kind and outcome. */
export interface KillCounts {
  /** Kills after a step's reply (at the crash points). */
  readonly afterReply: number;
  /** In-flight kills the observation resolved as lost (the state before the request) and as applied (after it). */
  readonly inFlightLost: number;
  readonly inFlightApplied: number;
  /** In-flight kills that left a model state in between: the action's own effect and part of its processing (inFlight.ts). */
  readonly inFlightPartly: number;
  /** Kills inside a trace's first `init`, at one of its durable write points (the trace's `initKill`). */
  readonly inInit: number;
}

export const NO_KILLS: KillCounts = { afterReply: 0, inFlightLost: 0, inFlightApplied: 0, inFlightPartly: 0, inInit: 0 };

export function addKills(a: KillCounts, b: KillCounts): KillCounts {
  return {
    afterReply: a.afterReply + b.afterReply,
    inFlightLost: a.inFlightLost + b.inFlightLost,
    inFlightApplied: a.inFlightApplied + b.inFlightApplied,
    inFlightPartly: a.inFlightPartly + b.inFlightPartly,
    inInit: a.inInit + b.inInit,
  };
}

export const totalKills = (k: KillCounts): number => k.afterReply + k.inFlightLost + k.inFlightApplied + k.inFlightPartly + k.inInit;

/** One trace run in kill mode. */
export interface KillTraceResult {
  /** The trace as run: in-flight kills carry how they resolved. */
  readonly trace: ClusterTrace;
  /** The first divergence; `killed` when it is the observation right after a restart. */
  readonly divergence?: DivergenceFacts;
  readonly killed?: boolean;
  readonly kills: KillCounts;
  /** Kills timed at a write where the system answered instead: the request had fewer durable write points (or no hook). */
  readonly answeredAtWrite: number;
  /** Per kill, ms from the SIGKILL to the re-attached system's first observation (the restart included). */
  readonly restartMs: readonly number[];
  /** The stderr of the system's last incarnation while it ran this trace. */
  readonly stderr?: () => StderrExcerpt;
}

export interface KillRunOptions {
  /** The command, with `{data}` where the data directory goes. */
  readonly command: string;
  /** How each incarnation is run (timeouts, abort signal). */
  readonly process?: ProcessOptions;
  /** Where the per-trace data directories are made (default the OS's temporary directory). */
  readonly dataRoot?: string;
}

/** The model's answer to an action in `state`: what the step must produce, and the state after it. */
function modelStep(
  setup: ClusterSetup,
  state: ClusterState,
  action: ExternalAction,
): { expected: ExpectedClusterStep; next: ClusterState } {
  const why = whyNotEnabled(setup, state, action);
  if (why !== undefined) return { expected: { error: why, observation: observeCluster(setup, state) }, next: state };
  const t = applyExternal(setup, state, action);
  return { expected: { events: t.events, observation: observeCluster(setup, t.state) }, next: t.state };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The environment variable of kill mode's write hook (PROTOCOL.md, "Kill mode"): `LINE:WRITE`. */
export const KILL_AT_WRITE_VARIABLE = 'STREAMJOIN_KILL_AT_WRITE';

/** What a divergence at a failed re-attach expected of the system (PROTOCOL.md, "Kill mode", "Re-attach"). */
const REATTACH_EXPECTED =
  'init_ok to the re-attach (init with recover: true), then the observation of the session its directory holds after a crash of every node (C2, C10)';

/** The step index of a divergence at a kill inside `init`, before any step (reports say "init"). */
export const INIT_STEP = -1;

/**
 * The action a divergence at a kill inside `init` names: the kill is a crash
 * of every node (C10), the coordinator first (killTraces.ts `crashAll`).
 */
export const INIT_KILL_ACTION: ExternalAction = { type: 'crash', node: COORDINATOR };

/**
 * The in-flight candidates a kill leaves, given whether the request was
 * answered first: answered, only its whole effect (the applied state, or for
 * a refused request the unchanged one), since an acknowledged request is
 * durable (C2).
 */
function acknowledgedOnly(candidates: readonly Candidate[], acknowledged: boolean): readonly Candidate[] {
  if (!acknowledged) return candidates;
  const applied = candidates.filter((c) => c.resolved === 'applied');
  return applied.length > 0 ? applied : candidates.filter((c) => c.resolved === 'lost');
}

/**
 * A system killed at a write by its own hook dies by SIGKILL; run by a shell
 * that outlives it (a compound command, `cd DIR && ...`, or one the shell
 * does not exec), the shell exits with 128 + 9 = 137 for it. Anything else
 * is a system that cannot be judged.
 */
function expectedDeath(e: unknown): false {
  if (e instanceof SutUnavailable && /^dead: the process (was killed by SIGKILL|exited with code 137\b)/.test(e.reason)) return false;
  throw e;
}

/**
 * Why a re-attach after a kill failed, where that is the system's failure to
 * recover (PROTOCOL.md, "Kill mode": it resumes the session its directory
 * holds): its `init` or the `inspect` after it refused, or the process dead
 * before the observation. The same command ran this trace until the kill, so
 * it is what the kill left on disk that the system cannot read back (a torn
 * file, say): a divergence at the kill, never "cannot be judged". A hang, a
 * babbling process or an interrupt stays unjudged (undefined).
 */
function recoveryFailure(e: unknown): string | undefined {
  if (!(e instanceof SutUnavailable)) return undefined;
  return /^(init at level \S+ refused with |protocol: inspect refused |dead: )/.test(e.reason) ? e.reason : undefined;
}

/** A model state the system may be in, and how each in-flight kill so far resolved to reach it. */
interface Branch {
  readonly state: ClusterState;
  readonly resolutions: readonly InFlightResolution[];
}

/**
 * The most model states followed at once. An in-flight kill adds a state
 * only where two differ in a last message alone (C11), and the duplicates
 * after its restarts mostly tell them apart; the traces kill mode makes have
 * one or two such kills. Past the bound the run stops with an internal error
 * (exit 255), never drops a state silently.
 */
const MAX_BRANCHES = 64;

/**
 * Runs one trace in kill mode. Rejects with SutUnavailable when the system
 * cannot be judged (it died on its own between kills, hung, babbled, ...);
 * a re-attach it refused or died in is a divergence (`recoveryFailure`).
 */
export async function runKillTrace(trace: ClusterTrace, options: KillRunOptions): Promise<KillTraceResult> {
  const setup: ClusterSetup = { ...trace.config, checkProperties: false };
  const dir = mkdtempSync(join(options.dataRoot ?? tmpdir(), 'streamjoin-kill-'));
  const command = commandWithData(options.command, dir);
  const steps: ClusterStep[] = trace.steps.map((s) => ({ ...s }));
  let initKill: ClusterInitKill | undefined = trace.initKill;
  const base = options.process ?? {};
  /** An incarnation whose write hook kills it at write point `write` of its request line `line`. */
  const killedAtWrite = (line: number, write: number): ReturnType<typeof spawnSystem> =>
    spawnSystem(command, { ...base, env: { ...(base.env ?? process.env), [KILL_AT_WRITE_VARIABLE]: `${line}:${write}` } });
  /**
   * An incarnation of the system from step `from` on. When the next kill is
   * at a write, its environment names the request line to die in: an
   * incarnation reads its `init` (and after a kill an `inspect`), then each
   * step and its `inspect`, up to the kill step's request.
   */
  const incarnation = (from: number, recovering: boolean): ReturnType<typeof spawnSystem> => {
    let next = from;
    while (next < steps.length && steps[next]?.kill === undefined) next++;
    const kill = steps[next]?.kill;
    if (kill?.timing !== 'at-write') return spawnSystem(command, base);
    const line = (recovering ? 2 : 1) + 2 * (next - from) + 1;
    return killedAtWrite(line, kill.write ?? 1);
  };
  // With a kill inside init, the first incarnation dies in (or right after) its first request line.
  let system = initKill === undefined ? incarnation(0, false) : killedAtWrite(1, initKill.write);
  let kills = NO_KILLS;
  const restartMs: number[] = [];
  let answeredAtWrite = 0;
  // The model states the system may be in: one, unless an in-flight kill left states its observation cannot tell apart.
  let branches: Branch[] = [{ state: initialClusterState(setup), resolutions: [] }];
  /** The steps killed in flight so far, in order: a branch's resolutions are theirs. */
  const inFlightSteps: number[] = [];
  const result = (divergence?: DivergenceFacts, killed?: boolean): KillTraceResult => {
    const last = session;
    // The first branch still standing says how each in-flight kill resolved.
    const resolutions = branches[0]?.resolutions ?? [];
    let counted = kills;
    for (const [n, at] of inFlightSteps.entries()) {
      const step = steps[at] as ClusterStep;
      const resolved = resolutions[n];
      if (resolved === undefined) continue;
      const resolvedKill: ClusterKill = { ...(step.kill as ClusterKill), resolved };
      steps[at] = { ...step, kill: resolvedKill, note: killNote(resolvedKill) };
      counted = addKills(counted, {
        ...NO_KILLS,
        ...(resolved === 'lost' ? { inFlightLost: 1 } : resolved === 'applied' ? { inFlightApplied: 1 } : { inFlightPartly: 1 }),
      });
    }
    return {
      trace: { ...trace, ...(initKill ? { initKill } : {}), steps },
      ...(divergence ? { divergence } : {}),
      ...(killed ? { killed } : {}),
      kills: counted,
      answeredAtWrite,
      restartMs,
      ...(last.stderr ? { stderr: () => (last.stderr as () => StderrExcerpt)() } : {}),
    };
  };
  /**
   * Keeps the branches whose state explains what the system did (`judge`:
   * the divergence from that state, or none, and the state after); with none
   * left, the divergence from the first branch (the one the report shows).
   */
  const follow = (
    judge: (state: ClusterState) => { divergence: DivergenceFacts | undefined; next: ClusterState },
  ): DivergenceFacts | undefined => {
    const judged = branches.map((b) => ({ ...judge(b.state), resolutions: b.resolutions }));
    const kept = judged.filter((j) => j.divergence === undefined);
    if (kept.length === 0) return judged[0]?.divergence;
    branches = kept.map((j) => ({ state: j.next, resolutions: j.resolutions }));
    return undefined;
  };
  /** `follow` for a step the system answered: its reply against the model's from each state. */
  const followReply = (step: number, action: ExternalAction, reply: ClusterStepReply): DivergenceFacts | undefined =>
    follow((state) => {
      const m = modelStep(setup, state, action);
      return { divergence: compareClusterStep(step, action, m.expected, reply), next: m.next };
    });
  let session!: ClusterSession;
  /**
   * The restarted system re-attached (`init` with `recover`) and its first
   * observation; or, where it could not recover (`recoveryFailure`), the
   * divergence at the kill step `step` (INIT_STEP: the kill inside init).
   */
  const reattach = async (
    step: number,
    action: ExternalAction,
  ): Promise<{ observation: ClusterObservation } | { divergence: DivergenceFacts }> => {
    try {
      session = await system.openCluster(trace.config, 'faults', { recover: true });
      return { observation: await session.observe() };
    } catch (e) {
      const why = recoveryFailure(e);
      if (why === undefined) throw e;
      // For the record only (the explanation does not show it): after an in-flight kill, the state had the request been lost.
      const want: ExpectedClusterStep = { events: [], observation: observeCluster(setup, crashAll(setup, (branches[0] as Branch).state)) };
      const divergence: DivergenceFacts = {
        step,
        action,
        field: 'reply',
        expected: REATTACH_EXPECTED,
        actual: why,
        diff: [{ path: '', expected: REATTACH_EXPECTED, actual: why }],
        at: { level: 'cluster', expected: want, actual: { reply: { events: [] } }, records: {}, reattachFailed: why },
      };
      return { divergence };
    }
  };
  /**
   * The first step's divergence when a fresh process, on an empty data
   * directory, dies again before answering the trace's init; else rejects
   * with the verdict unknown, saying what the rerun did instead.
   */
  const deathBeforeInitAgain = async (
    first: ExternalAction,
    want: ExpectedClusterStep,
    broken: SutUnavailable,
  ): Promise<DivergenceFacts> => {
    const againDir = mkdtempSync(join(options.dataRoot ?? tmpdir(), 'streamjoin-kill-'));
    const again = spawnSystem(commandWithData(options.command, againDir), base);
    let died: SutUnavailable | undefined;
    try {
      const s = await again.openCluster(trace.config, 'faults');
      await s.steps([first]);
    } catch (e) {
      if (!(e instanceof SutUnavailable)) throw e;
      if (e.reason.startsWith('interrupted: ')) throw e;
      if (isDeath(e) && diedBeforeInit(e.reason)) return clusterDeathDivergence(0, first, want, undefined, 'reply', e.reason);
      died = e;
    } finally {
      await again.close();
      rmSync(againDir, { recursive: true, force: true });
    }
    throw deathNotBack(broken, 0, died, 'it answered the step');
  };
  /**
   * The trace's first session refused its init (a valid config, J0, C1), or
   * died before answering it and dies so again in a fresh process: the
   * divergence at its first step (as outside kill mode, deaths.ts). Anything
   * else, or any later step, is rethrown.
   */
  const firstStepBroke = async (i: number, first: ExternalAction, e: unknown): Promise<DivergenceFacts> => {
    if (i > 0 || !(e instanceof SutUnavailable)) throw e;
    const want = modelStep(setup, (branches[0] as Branch).state, first).expected;
    const refused = clusterInitRefusal([first], [want], e);
    if (refused !== undefined) return refused;
    if (!isDeath(e) || !diedBeforeInit(e.reason)) throw e;
    return deathBeforeInitAgain(first, want, e);
  };
  try {
    if (initKill === undefined) session = await system.openCluster(trace.config, 'faults');
    else {
      // Killed inside init's writes by its own hook, or init answered (fewer write points) and the kill then.
      // A session sends its init with its first request: an inspect here (line 2, past the hook's line).
      const answered = await system
        .openCluster(trace.config, 'faults')
        .then(async (s) => {
          session = s;
          await s.observe();
          return true;
        })
        .catch((e: unknown) => expectedDeath(e));
      if (answered) answeredAtWrite++;
      initKill = { write: initKill.write, ...(answered ? { answered } : {}) };
      initKill = { ...initKill, note: initKillNote(initKill) };
      const startedAt = performance.now();
      await system.kill();
      system = incarnation(0, true);
      const back = await reattach(INIT_STEP, INIT_KILL_ACTION);
      if ('divergence' in back) return result(back.divergence, true);
      const { observation } = back;
      restartMs.push(performance.now() - startedAt);
      kills = addKills(kills, { ...NO_KILLS, inInit: 1 });
      // C10: whatever init wrote, the re-attach holds no acknowledged state: every node down, empty durable parts.
      branches = branches.map((b) => ({ ...b, state: crashAll(setup, b.state) }));
      const want: ExpectedClusterStep = { events: [], observation: observeCluster(setup, (branches[0] as Branch).state) };
      const d = compareClusterStep(INIT_STEP, INIT_KILL_ACTION, want, { reply: { events: [] }, observation });
      if (d) return result(d, true);
    }
    let i = 0;
    while (i < steps.length) {
      // The steps up to the next kill go out pipelined, each observed.
      let j = i;
      while (j < steps.length && steps[j]?.kill === undefined) j++;
      if (j > i) {
        const actions = steps.slice(i, j).map((s) => s.action as ExternalAction);
        let replies: ClusterStepReply[];
        try {
          replies = await session.steps(actions);
        } catch (e) {
          return result(await firstStepBroke(i, actions[0] as ExternalAction, e));
        }
        for (const [k, action] of actions.entries()) {
          const d = followReply(i + k, action, replies[k] as ClusterStepReply);
          if (d) return result(d);
        }
      }
      i = j;
      const step = steps[i];
      if (step === undefined) break;
      const kill = step.kill as NonNullable<ClusterStep['kill']>;
      const action = step.action as ExternalAction;
      let startedAt: number;
      // In flight: whether the system answered the request before it died (then it was acknowledged, and must be recovered).
      let acknowledged = false;
      if (kill.when === 'after-reply') {
        // The reply is judged (events, or the refusal), then the kill; with `observed` (a trace's last step) the
        // observation too: no later step would show it. Otherwise nothing goes between the reply and the kill.
        const observed = kill.observed === true;
        let answered: ClusterStepReply | undefined;
        try {
          [answered] = await session.steps([action], () => observed);
        } catch (e) {
          return result(await firstStepBroke(i, action, e));
        }
        const reply = answered as ClusterStepReply;
        const d = followReply(i, action, observed ? reply : { reply: reply.reply });
        if (d) return result(d);
        startedAt = performance.now();
        await system.kill();
      } else {
        if (kill.timing === 'unread') system.freeze();
        const sent = session.apply(action);
        sent.catch(() => undefined);
        // 'answered': the reply comes in and is not looked at; 'unread': the stopped group never reads the request;
        // 'at-write': the system kills itself inside the request's writes (its death is the point), or answers.
        try {
          if (kill.timing === 'answered') {
            await sent;
            acknowledged = true;
          } else if (kill.timing === 'at-write') {
            acknowledged = await sent.then(
              () => true,
              (e: unknown) => expectedDeath(e),
            );
            if (acknowledged) answeredAtWrite++;
          } else await turn();
        } catch (e) {
          return result(await firstStepBroke(i, action, e));
        }
        startedAt = performance.now();
        await system.kill();
      }
      system = incarnation(i + 1, true);
      const back = await reattach(i, action);
      if ('divergence' in back) return result(back.divergence, true);
      const { observation } = back;
      restartMs.push(performance.now() - startedAt);
      if (kill.when === 'after-reply') {
        kills = addKills(kills, { ...NO_KILLS, afterReply: 1 });
        const d = follow((state) => {
          const applied = crashAll(setup, state);
          const want: ExpectedClusterStep = { events: [], observation: observeCluster(setup, applied) };
          return { divergence: compareClusterStep(i, action, want, { reply: { events: [] }, observation }), next: applied };
        });
        if (d) return result(d, true);
      } else {
        // Resolved by observation (inFlight.ts): the state before the request, after it, or a model state in
        // between; every one the observation shows, from every branch, is followed.
        // A request the system answered was acknowledged: nothing of it may be lost (PROTOCOL.md, "What must be
        // recovered"; C2), so only the state after all of it explains what the restarted system shows. A system that
        // answers before it writes is caught here, at a kill inside its writes or right after its reply.
        const candidates = branches.flatMap((b) =>
          acknowledgedOnly(inFlightCandidates(setup, b.state, action), acknowledged).map((c) => ({
            ...c,
            resolutions: [...b.resolutions, c.resolved],
          })),
        );
        const shown = resolveInFlight(setup, candidates, observation);
        // Never a silent drop: the one dropped might be the system's, and the run would call it wrong.
        if (shown.length > MAX_BRANCHES)
          throw new Error(`kill mode: more than ${MAX_BRANCHES} model states fit what the system shows after the kill at step ${i}`);
        inFlightSteps.push(i);
        if (shown.length > 0) branches = shown.map(({ state, resolutions }) => ({ state, resolutions }));
        else {
          // None: the difference shown is the one from the first branch's state after the request.
          const first = branches[0] as Branch;
          const applied = crashAll(setup, modelStep(setup, first.state, action).next);
          branches = [{ state: applied, resolutions: [...first.resolutions, 'applied'] }];
          const want: ExpectedClusterStep = { events: [], observation: observeCluster(setup, applied) };
          const d = compareClusterStep(i, action, want, { reply: { events: [] }, observation });
          if (d) return result(d, true);
        }
      }
      i++;
    }
    return result();
  } finally {
    await system.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
