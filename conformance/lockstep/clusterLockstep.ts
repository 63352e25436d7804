// Lockstep at the cluster level (SPEC §7): one cluster trace fed
// to the model and to the system under test; after every step the events
// (C12, in order) and the observation are compared, and the first
// divergence is the verdict.
import { PROTOCOL_ERRORS } from '../../spec/index.ts';
import type { ClusterObservation, ClusterTrace, ExternalAction, Level, LogRecord } from '../../spec/index.ts';
import {
  applyExternal,
  observeCluster,
  initialClusterState,
  type ClusterSetup,
  type ClusterState,
  whyNotEnabled,
} from '../../model/index.ts';
import { createModelCluster } from '../sut/modelCluster.ts';
import {
  canonicalEvents,
  clusterRepliesSoFar,
  type DivergenceFacts,
  type ExpectedClusterStep,
  type StoreWrite,
} from '../sut/divergence.ts';
import { diffJson, sameJson } from '../sut/jsonDiff.ts';
import { SharedPrefix } from './sharedPrefix.ts';
import { freshInstallBehind } from './freshInstall.ts';
import type { ClusterStepReply, StderrExcerpt, SutUnavailable, SystemUnderTest } from '../sut/sut.ts';
import { clusterDeathPlace, type DeathPlace, deathThatComesBack } from './deaths.ts';
import { runPipelined } from './pipeline.ts';

/** The actions of a trace (loaders refuse `process`, SPEC §7). */
export function actionsOf(trace: ClusterTrace): ExternalAction[] {
  return trace.steps.map((s, i) => {
    if (s.action.type === 'process') throw new Error(`step ${i}: process actions are not external (SPEC §7)`);
    return s.action;
  });
}

/** The model's answer to every step of a trace (eager processing, §7). `setup` may ablate (tests only). */
export function modelClusterSteps(trace: ClusterTrace, setup: ClusterSetup = trace.config): ExpectedClusterStep[] {
  const cluster = createModelCluster(setup);
  return actionsOf(trace).map((action) => {
    const reply = cluster.apply(action);
    const observation = cluster.observe();
    return 'error' in reply ? { error: reply.error.text, observation } : { events: reply.events, observation };
  });
}

/** The trace with the model's events, errors and observations as its expectations (a golden trace). */
export function withClusterExpectations(trace: ClusterTrace): ClusterTrace {
  const model = modelClusterSteps(trace);
  return {
    ...trace,
    steps: trace.steps.map((s, i) => {
      const m = model[i] as ExpectedClusterStep;
      const expect = 'error' in m ? { error: m.error, observation: m.observation } : { events: [...m.events], observation: m.observation };
      return { ...s, expect };
    }),
  };
}

/** A step where the trace file's expectation and the model disagree (a stale or hand-edited file). */
export interface ModelDisagreement {
  /** Index of the step. */
  readonly step: number;
  /** Which part of the expectation disagrees. */
  readonly field: 'error' | 'events' | 'observation';
}

/**
 * What each step must produce: the trace's own expectation where it has one
 * (so a counterexample file replays without the harness), the model's
 * elsewhere; and where the two disagree.
 */
export function expectedClusterSteps(trace: ClusterTrace): { steps: ExpectedClusterStep[]; disagreements: ModelDisagreement[] } {
  const model = modelClusterSteps(trace);
  const disagreements: ModelDisagreement[] = [];
  const steps = model.map((m, step): ExpectedClusterStep => {
    const want = trace.steps[step]?.expect;
    if (!want) return m;
    const observation = want.observation ?? m.observation;
    if (want.observation && !sameJson(want.observation, m.observation)) disagreements.push({ step, field: 'observation' });
    if (want.error !== undefined) {
      if (!('error' in m)) disagreements.push({ step, field: 'error' });
      return { error: want.error, observation };
    }
    if (want.events) {
      if ('error' in m) disagreements.push({ step, field: 'error' });
      else if (!sameJson(canonicalEvents(want.events), canonicalEvents(m.events))) disagreements.push({ step, field: 'events' });
      return { events: want.events, observation };
    }
    return { ...m, observation };
  });
  return { steps, disagreements };
}

/**
 * The log records of a trace by index, from the model's `appended` events
 * (what a `processed` event applies, for naming the rule that decides it).
 */
export function logOfTrace(actions: readonly ExternalAction[], expected: readonly ExpectedClusterStep[]): LogRecord[] {
  const log: LogRecord[] = [];
  actions.forEach((a, i) => {
    const e = expected[i];
    if (a.type !== 'record' || !e || 'error' in e) return;
    for (const ev of e.events) if (ev.type === 'appended') log[ev.index] = a.record;
  });
  return log;
}

/**
 * The step at or before `upTo` whose action last wrote `key`'s checkpoint in
 * the model (its expected store entry changed there), or undefined.
 */
export function storeWriterOf(
  actions: readonly ExternalAction[],
  expected: readonly ExpectedClusterStep[],
  key: string,
  upTo: number,
): StoreWrite | undefined {
  for (let s = Math.min(upTo, expected.length - 1); s >= 0; s--) {
    const now = expected[s]?.observation.store[key];
    const before = s > 0 ? expected[s - 1]?.observation.store[key] : undefined;
    if (now !== undefined && !sameJson(now, before)) return { step: s, action: actions[s] as ExternalAction };
  }
  return undefined;
}

/** What judging one step may look up in the rest of the trace (built only when a divergence asks). */
export interface TraceLookups {
  /** The log record at an index (`logOfTrace`): a divergence in the events carries the records its `processed` events apply. */
  readonly recordAt?: (index: number) => LogRecord | undefined;
  /** storeWriterOf over the trace: a divergence in the store carries the step that wrote each key that differs. */
  readonly storeWriter?: (key: string, upTo: number) => StoreWrite | undefined;
}

/**
 * Compares one step; undefined if it conforms. `lookups` (or, alone, the
 * log's `recordAt`) lets a divergence carry the facts around it.
 */
export function compareClusterStep(
  step: number,
  action: ExternalAction,
  expected: ExpectedClusterStep,
  actual: ClusterStepReply,
  lookups?: TraceLookups | ((index: number) => LogRecord | undefined),
): DivergenceFacts | undefined {
  const { recordAt, storeWriter } = typeof lookups === 'function' ? { recordAt: lookups, storeWriter: undefined } : (lookups ?? {});
  const reply = actual.reply;
  const facts = (
    field: DivergenceFacts['field'],
    e: unknown,
    a: unknown,
    diff: DivergenceFacts['diff'],
    records = {},
    storeWriters?: Record<string, StoreWrite>,
  ): DivergenceFacts => ({
    step,
    action,
    field,
    expected: e,
    actual: a,
    diff,
    at: { level: 'cluster', expected, actual, records, ...(storeWriters ? { storeWriters } : {}) },
  });
  if ('error' in expected) {
    // §7: an action that is not enabled is refused with not_enabled and changes nothing.
    const want = { error: { code: PROTOCOL_ERRORS.not_enabled, why: expected.error } };
    if (!('error' in reply)) return facts('reply', want, { events: reply.events }, []);
    if (reply.error.code !== PROTOCOL_ERRORS.not_enabled) return facts('reply', want, { error: reply.error }, []);
  } else {
    if ('error' in reply) return facts('reply', { events: expected.events }, { error: reply.error }, []);
    const want = canonicalEvents(expected.events);
    const got = canonicalEvents(reply.events);
    if (!sameJson(want, got)) {
      const records: Record<number, LogRecord> = {};
      for (const e of [...want, ...got]) {
        const r = e.type === 'processed' ? recordAt?.(e.index) : undefined;
        if (e.type === 'processed' && r) records[e.index] = r;
      }
      return facts('events', want, got, diffJson(want, got), records);
    }
  }
  // A step not observed (a probe followed by another probe of the same state) is judged by its reply alone.
  if (actual.observation !== undefined && !sameJson(expected.observation, actual.observation)) {
    const diff = diffJson(expected.observation, actual.observation);
    const storeKeys = new Set(diff.filter((d) => d.path.startsWith('/store/')).map((d) => decodePointer(d.path.split('/')[2] ?? '')));
    const storeWriters: Record<string, StoreWrite> = {};
    for (const key of storeKeys) {
      const w = storeWriter?.(key, step);
      if (w) storeWriters[key] = w;
    }
    return facts('observation', expected.observation, actual.observation, diff, {}, storeKeys.size > 0 ? storeWriters : undefined);
  }
  return undefined;
}

/**
 * The divergence of a step the system died on, both times it ran up to it
 * (deaths.ts): its reply (or the observation after it) never came. A death
 * is a difference as an error reply to the step would be (PROTOCOL.md).
 */
export function clusterDeathDivergence(
  step: number,
  action: ExternalAction,
  expected: ExpectedClusterStep,
  answered: ClusterStepReply | undefined,
  missing: DeathPlace['missing'],
  died: string,
): DivergenceFacts {
  const want =
    missing === 'observation'
      ? expected.observation
      : 'error' in expected
        ? { error: { code: PROTOCOL_ERRORS.not_enabled, why: expected.error } }
        : { events: expected.events };
  const got = { died };
  return {
    step,
    action,
    field: missing,
    expected: want,
    actual: got,
    diff: [],
    at: { level: 'cluster', expected, ...(answered ? { actual: answered } : {}), records: {}, died },
  };
}

/**
 * A session whose init was refused (SutUnavailable.initRefused): the
 * trace's divergence, at its first step, which never went out in a session.
 * Every config the harness sends is valid (J0, C1), and a system takes every
 * valid one. A trace with no step has nowhere to show it: it stays unknown.
 */
export function clusterInitRefusal(
  actions: readonly ExternalAction[],
  expected: readonly ExpectedClusterStep[],
  broken: SutUnavailable,
): DivergenceFacts | undefined {
  const action = actions[0];
  const want = expected[0];
  if (broken.initRefused === undefined || action === undefined || want === undefined) return undefined;
  return {
    step: 0,
    action,
    field: 'reply',
    expected: 'error' in want ? { error: { code: PROTOCOL_ERRORS.not_enabled, why: want.error } } : { events: want.events },
    actual: { initRefused: broken.initRefused },
    diff: [],
    at: { level: 'cluster', expected: want, records: {}, initRefused: broken.reason },
  };
}

/**
 * After the replies of a trace conformed up to where `broken` cut them: a
 * death that comes back at the same step is that step's divergence; anything
 * else is thrown, the verdict unknown (deaths.ts).
 */
async function divergenceOfDeath(
  system: SystemUnderTest,
  trace: ClusterTrace,
  level: Level,
  actions: readonly ExternalAction[],
  expected: readonly ExpectedClusterStep[],
  replies: readonly ClusterStepReply[],
  broken: SutUnavailable,
  observed?: (index: number) => boolean,
): Promise<DivergenceFacts> {
  const { place, died } = await deathThatComesBack(system, broken, clusterDeathPlace(replies, actions.length, observed), async (at) => {
    const session = await system.openCluster(trace.config, level);
    const again = await clusterRepliesSoFar(session.steps(actions.slice(0, at.step + 1), observed));
    return again.broken ? { died: again.broken, place: clusterDeathPlace(again.replies, at.step + 1, observed) } : {};
  });
  const answered = place.missing === 'observation' ? replies[place.step] : undefined;
  return clusterDeathDivergence(
    place.step,
    actions[place.step] as ExternalAction,
    expected[place.step] as ExpectedClusterStep,
    answered,
    place.missing,
    died,
  );
}

/**
 * A trace judged from the replies it got: the first step whose reply differs
 * from the model's, else the step a death that comes back cut (`died`), else
 * none. Rejects with the unknown verdict for any other break (deaths.ts).
 */
async function divergenceOfReplies(
  system: SystemUnderTest,
  trace: ClusterTrace,
  level: Level,
  actions: readonly ExternalAction[],
  expected: readonly ExpectedClusterStep[],
  { replies, broken }: { readonly replies: readonly ClusterStepReply[]; readonly broken?: SutUnavailable | undefined },
  observed?: (index: number) => boolean,
): Promise<{ readonly divergence?: DivergenceFacts; readonly died: boolean }> {
  const recordAt = lazyLog(actions, expected);
  for (let i = 0; i < replies.length; i++) {
    const d = compareClusterStep(
      i,
      actions[i] as ExternalAction,
      expected[i] as ExpectedClusterStep,
      replies[i] as ClusterStepReply,
      recordAt,
    );
    if (d) return { divergence: withHistory(d, trace.config, actions, expected), died: false };
  }
  if (!broken) return { died: false };
  const refused = clusterInitRefusal(actions, expected, broken);
  if (refused) return { divergence: refused, died: false };
  return { divergence: await divergenceOfDeath(system, trace, level, actions, expected, replies, broken, observed), died: true };
}

/** A JSON pointer segment as the key it names (sut/jsonDiff.ts escapes `~` and `/`). */
const decodePointer = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** The lookups for compareClusterStep: the log is built only if a divergence asks for it. */
function lazyLog(actions: readonly ExternalAction[], expected: readonly ExpectedClusterStep[]): TraceLookups {
  let log: LogRecord[] | undefined;
  return {
    recordAt: (index) => (log ??= logOfTrace(actions, expected))[index],
    storeWriter: (key, upTo) => storeWriterOf(actions, expected, key, upTo),
  };
}

/** A divergence with what the rest of the trace tells of it: an install behind it that ignored its checkpoint (freshInstall.ts). */
function withHistory(
  d: DivergenceFacts,
  config: ClusterTrace['config'],
  actions: readonly ExternalAction[],
  expected: readonly ExpectedClusterStep[],
): DivergenceFacts {
  if (d.at.level !== 'cluster' || d.field === 'reply' || d.at.actual === undefined || d.at.died !== undefined) return d;
  const freshInstall = freshInstallBehind(config, actions, expected, d.step, d.at.actual);
  return freshInstall ? { ...d, at: { ...d.at, freshInstall } } : d;
}

/** A cluster trace judged: views/explainedRuns.ts explains its divergence for the public API (ClusterRunResult). */
export interface ClusterJudgement {
  /** The first divergence; absent if the system conforms on this trace. */
  readonly divergence?: DivergenceFacts;
  /** What the system answered, step by step. */
  readonly replies: readonly ClusterStepReply[];
  /** Steps where the trace's own expectations disagree with the model. */
  readonly disagreements: readonly ModelDisagreement[];
  /** Steps the model refuses (§7): refusal probes sent. */
  readonly probes: number;
  /** The system's stderr while this trace ran (a process); read it late, it may trail the replies. */
  readonly stderr?: () => StderrExcerpt;
}

/**
 * Runs a cluster trace against a system at `level` (`cluster` or `faults`)
 * and judges it step by step. Rejects with SutUnavailable if the system
 * cannot be judged.
 */
export async function judgeClusterTrace(trace: ClusterTrace, system: SystemUnderTest, level: Level): Promise<ClusterJudgement> {
  const actions = actionsOf(trace);
  const session = await system.openCluster(trace.config, level);
  // The requests go out first; the model runs while the system answers.
  const answered = session.steps(actions);
  const { steps: expected, disagreements } = expectedClusterSteps(trace);
  const answers = await clusterRepliesSoFar(answered);
  const probes = expected.filter((e) => 'error' in e).length;
  const stderr = session.stderr ? { stderr: () => (session.stderr as () => StderrExcerpt)() } : {};
  const { divergence } = await divergenceOfReplies(system, trace, level, actions, expected, answers);
  return { ...(divergence ? { divergence } : {}), replies: answers.replies, disagreements, probes, ...stderr };
}

/** One trace of a pipelined run, as it is judged. */
export interface PipelinedResult {
  /** Position of the trace in the list. */
  readonly index: number;
  readonly trace: ClusterTrace;
  readonly level: Level;
  readonly divergence?: DivergenceFacts;
}

/** One trace to run in a pipeline: at a level, and which steps to observe (default every step). */
export interface PipelinedTrace {
  readonly trace: ClusterTrace;
  readonly level: Level;
  /** False for a step whose observation is not asked for: a probe followed by another probe of the same state. */
  readonly observed?: (index: number) => boolean;
}

export interface PipelineOptions {
  /** Traces in flight at once (default 32): their requests are written before the first replies are read. */
  readonly window?: number;
  /** Called for each trace in list order; returning false stops the run (the traces in flight are still answered, and ignored). */
  readonly onResult: (result: PipelinedResult) => boolean | undefined;
}

/**
 * Runs many cluster traces in lockstep, pipelined across traces: each
 * trace's session opens and its requests go out while earlier traces are
 * still being answered, and the model's expectations of a trace are
 * computed while later ones are in flight. The system handles requests in
 * the order it receives them (PROTOCOL.md), so the sessions cannot
 * interfere. Rejects with SutUnavailable if the system cannot be judged.
 */
export async function runClusterLockstepPipelined(
  traces: readonly PipelinedTrace[],
  system: SystemUnderTest,
  options: PipelineOptions,
): Promise<void> {
  const model = new PrefixSharingModel();
  await runPipelined(traces, {
    ...(options.window === undefined ? {} : { window: options.window }),
    send: async ({ trace, level, observed }) => ({
      answered: (await system.openCluster(trace.config, level)).steps(actionsOf(trace), observed),
    }),
    judge: async ({ trace, level, observed }, answered) => {
      const actions = actionsOf(trace);
      const expected = trace.steps.some((st) => st.expect) ? expectedClusterSteps(trace).steps : model.stepsOf(trace.config, actions);
      return divergenceOfReplies(system, trace, level, actions, expected, await clusterRepliesSoFar(answered), observed);
    },
    onResult: (index, { trace, level }, divergence) => options.onResult({ index, trace, level, ...(divergence ? { divergence } : {}) }),
  });
}

/** The model's expected steps for cluster traces that share prefixes (sharedPrefix.ts). */
export class PrefixSharingModel {
  private configKey = '';
  private setup: ClusterSetup | undefined;
  private initial: { state: ClusterState; observation: ClusterObservation } | undefined;
  private readonly prefix = new SharedPrefix<ClusterState, ExpectedClusterStep>();

  stepsOf(config: ClusterTrace['config'], actions: readonly ExternalAction[]): ExpectedClusterStep[] {
    const key = JSON.stringify(config);
    if (key !== this.configKey || !this.setup || !this.initial) {
      this.configKey = key;
      // Conformance compares observations only: no ghost state for properties.
      this.setup = { ...config, checkProperties: false };
      const state = initialClusterState(this.setup);
      this.initial = { state, observation: observeCluster(this.setup, state) };
      this.prefix.clear();
    }
    const setup = this.setup;
    const initial = this.initial;
    return this.prefix.stepsOf(actions, initial.state, (state, action, last) => {
      const observation = last?.observation ?? initial.observation;
      // §7: an action that is not enabled is refused and changes nothing.
      const why = whyNotEnabled(setup, state, action);
      if (why !== undefined) return { expected: { error: why, observation } };
      const t = applyExternal(setup, state, action);
      // Changed nothing (a rejected record): no departure from the shared prefix.
      if (t.state === state) return { expected: { events: t.events, observation } };
      return { expected: { events: t.events, observation: observeCluster(setup, t.state) }, next: t.state };
    });
  }
}
