// An in-process system under test behind the asynchronous interface the
// lockstep runner drives. Everything runs synchronously on this thread; a
// trace costs one promise, not one per request. Since nothing else returns
// to the event loop while in-process traces run one after another, each
// request paces itself (spec/pacing.ts): every few milliseconds of work the
// event loop turns, so SIGINT and SIGTERM are heard, and once `signal` is
// aborted every call rejects with SutUnavailable `interrupted: ...`, as a
// process system's does.
import { Interrupted, PROTOCOL_ERRORS, clusterConfigProblem, pace, paceDue } from '../../spec/index.ts';
import type { ClusterConfig, ClusterObservation, ExternalAction, JoinConfig, Level } from '../../spec/index.ts';
import {
  SutConfigError,
  SutUnavailable,
  type ActionReply,
  type ClusterOpenOptions,
  type ClusterSession,
  type ClusterStepReply,
  type ClusterUnderTest,
  type InProcessSut,
  type OperatorSession,
  type RecordReply,
  type SystemUnderTest,
} from '../sut/sut.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

const internalError = (e: unknown) => ({
  error: { code: PROTOCOL_ERRORS.internal_error, text: e instanceof Error ? e.message : String(e) },
});

/** One action; an exception in the system is its `internal_error` reply, as over the protocol. */
function applyGuarded(cluster: ClusterUnderTest, action: ExternalAction): ActionReply {
  try {
    return cluster.apply(action);
  } catch (e) {
    return internalError(e);
  }
}

/**
 * The system's observation (§7). A system that gives none where one is asked
 * for breaks the protocol, as an `inspect` without `inspect_ok` does over the
 * process: it cannot be judged, and it must not pass unjudged.
 */
function observationOf(cluster: ClusterUnderTest, name: string): ClusterObservation {
  let observation: unknown;
  try {
    observation = cluster.observe();
  } catch (e) {
    // Over the protocol: an inspect answered with internal_error.
    throw new SutUnavailable(
      `protocol: inspect refused (internal_error: ${e instanceof Error ? e.message : String(e)}); inspect never fails at levels cluster and faults`,
    );
  }
  if (typeof observation !== 'object' || observation === null || Array.isArray(observation))
    throw new SutUnavailable(
      `protocol: ${name} gave no observation (observe() returned ${String(observation)}); inspect never fails at levels cluster and faults`,
    );
  return observation as ClusterObservation;
}

/**
 * Wraps an in-process system; `label` names it in messages and replay
 * commands. Aborting `signal` interrupts it (its calls reject).
 */
export function inProcessSystem(sut: InProcessSut, label = 'model', signal?: AbortSignalLike): SystemUnderTest {
  const unsupported = (level: Level) => new SutUnavailable(`${sut.implementation.name} does not support level ${level}`);
  /** A turn of the event loop now and then; SutUnavailable once interrupted. */
  const paced = async (): Promise<void> => {
    try {
      await pace(signal);
    } catch (e) {
      throw e instanceof Interrupted ? new SutUnavailable(e.message) : e;
    }
  };
  // Requests are carried out one at a time, in the order they were made, as over the protocol: a
  // request that takes a turn of the event loop (pacing) is finished before the next one begins, so a
  // pipelined runner that opens the next session before the last one's replies are in cannot end it early.
  let queue: Promise<unknown> = Promise.resolve();
  const inOrder = <T>(request: () => Promise<T>): Promise<T> => {
    const done = queue.then(request);
    queue = done.catch(() => undefined);
    return done;
  };
  // One session at a time, as over the protocol: opening one ends the last.
  let current: ClusterUnderTest | undefined;
  const endSession = (): void => {
    current?.close();
    current = undefined;
  };
  return {
    label,
    info: () =>
      inOrder(async () => {
        await paced();
        return { implementation: sut.implementation, levels: sut.levels };
      }),
    openOperator: (config: JoinConfig): Promise<OperatorSession> => inOrder(() => openOperator(config)),
    openCluster: (config: ClusterConfig, level: Level, options?: ClusterOpenOptions): Promise<ClusterSession> =>
      inOrder(() => openCluster(config, level, options)),
    close: () => inOrder(async () => endSession()),
  };

  async function openOperator(config: JoinConfig): Promise<OperatorSession> {
    await paced();
    endSession();
    if (!sut.operator || !sut.levels.includes('operator')) throw unsupported('operator');
    const operator = sut.operator(config);
    return {
      records: (records) =>
        inOrder(async () => {
          const out: RecordReply[] = [];
          for (const record of records) {
            if (paceDue(signal)) await paced();
            try {
              const { outcome, changes } = operator.apply(record);
              out.push({ outcome, changes, retained: operator.retained() });
            } catch (e) {
              out.push(internalError(e));
            }
          }
          return out;
        }),
    };
  }

  async function openCluster(config: ClusterConfig, level: Level, options: ClusterOpenOptions = {}): Promise<ClusterSession> {
    await paced();
    endSession();
    if (!sut.cluster || !sut.levels.includes(level) || level === 'operator') throw unsupported(level);
    const problem = clusterConfigProblem(config);
    if (problem) throw new SutUnavailable(`bad config: ${problem}`);
    let cluster: ClusterUnderTest;
    try {
      cluster = sut.cluster(config, level, options);
    } catch (e) {
      if (e instanceof SutConfigError) throw new SutUnavailable(`${sut.implementation.name} refused the config: ${e.message}`);
      throw e;
    }
    current = cluster;
    return {
      apply: (action) =>
        inOrder(async () => {
          await paced();
          return applyGuarded(cluster, action);
        }),
      observe: () =>
        inOrder(async () => {
          await paced();
          return observationOf(cluster, sut.implementation.name);
        }),
      steps: (actions, observed) =>
        inOrder(async () => {
          const out: ClusterStepReply[] = [];
          for (const [i, action] of actions.entries()) {
            if (paceDue(signal)) await paced();
            const reply = applyGuarded(cluster, action);
            if (observed && !observed(i)) {
              out.push({ reply });
              continue;
            }
            try {
              out.push({ reply, observation: observationOf(cluster, sut.implementation.name) });
            } catch (e) {
              // The replies so far, this one included, are judged before the verdict is unknown (SutUnavailable.answered).
              if (e instanceof SutUnavailable)
                throw new SutUnavailable(e.reason, e.stderrTail, { level: 'cluster', steps: [...out, { reply }] });
              throw e;
            }
          }
          return out;
        }),
    };
  }
}
