// Deliberately wrong systems under test, in-process, for the tests that show
// what the harness catches (conformance/power.test.ts). They are not
// catalogue mutants (conformance/mutants/): each stands for a class of bug
// an independent implementation might have, built on the reference model so
// that it is wrong in that one way only.
import { PROTOCOL_ERRORS, parseMatchId } from '../../spec/index.ts';
import type { Change, ClusterConfig, ClusterObservation, ExternalAction, JoinConfig, Level, LogRecord } from '../../spec/index.ts';
import { initialJoinState, retainedCountsOf, stepJoin } from '../../model/index.ts';
import { initialClusterState, type ClusterSetup, type ClusterState, type HandoffPhase } from '../../model/cluster/clusterState.ts';
import { whyNotEnabled } from '../../model/cluster/guards.ts';
import { observeCluster, settle, transition } from '../../model/cluster/stateMachine.ts';
import { naiveMatchId } from '../generate/edges.ts';
import type { ClusterUnderTest, InProcessSut } from '../sut/sut.ts';
import type { OperatorUnderTest } from '../sut/sut.ts';
import { modelSut } from '../sut/modelSut.ts';
import { createModelCluster } from '../sut/modelCluster.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';

/**
 * An operator whose matches are identified by the naive concatenation of
 * key, left id and right id with `separator` (not J3's escaped encoding):
 * two pairs that concatenate to the same string are one match to it, so
 * the second is never inserted (it looks like a re-insert) and a retraction
 * retracts whichever pair holds the id. Ids it reports are the spec's, so
 * it is wrong only where names collide.
 */
function naiveOperator(config: JoinConfig, separator: string): OperatorUnderTest {
  let state = initialJoinState;
  const active = new Map<string, Change>();
  return {
    apply(record: LogRecord) {
      const step = stepJoin(config, state, record);
      state = step.state;
      const changes: Change[] = [];
      for (const c of step.changes) {
        const id = naiveMatchId(separator, c.key, c.left, c.right);
        const held = active.get(id);
        if (c.op === 'insert') {
          if (held) continue;
          active.set(id, c);
          changes.push(c);
        } else if (held) {
          active.delete(id);
          changes.push({ ...held, op: 'retract' });
        }
      }
      return { outcome: step.outcome, changes };
    },
    retained() {
      const counts = retainedCountsOf(state);
      const ids = new Set(state.matches.map((m) => naiveMatchId(separator, m.key, m.left, m.right)));
      return { ...counts, matches: ids.size };
    },
  };
}

/** The sink's matches as a sink keyed by the naive concatenation holds them: one entry per naive id (the first written, in id order). */
function naiveSink(observation: ClusterObservation, separator: string): ClusterObservation {
  const kept: [string, 'inserted' | 'retracted'][] = [];
  const seen = new Set<string>();
  for (const [id, status] of Object.entries(observation.sink.matches)) {
    const triple = parseMatchId(id);
    const naive = triple ? naiveMatchId(separator, triple.key, triple.left, triple.right) : id;
    if (seen.has(naive)) continue;
    seen.add(naive);
    kept.push([id, status]);
  }
  return { ...observation, sink: { ...observation.sink, matches: Object.fromEntries(kept) } };
}

/** A whole system (every level) whose match identity is the naive concatenation with `separator` (J3). */
export function naiveMatchIdSystem(separator: string): InProcessSut {
  return {
    implementation: { name: `naive-match-ids-${JSON.stringify(separator)}`, version: '0' },
    levels: ['operator', 'cluster', 'faults'],
    operator: (config) => naiveOperator(config, separator),
    cluster: (config) => {
      const inner = createModelCluster(config);
      return { ...inner, observe: () => naiveSink(inner.observe(), separator) };
    },
  };
}

/**
 * A cluster that carries out some actions its guard refuses (SPEC §5):
 * `accepts(state, action)` says which; everything else is the model's.
 */
function lenientCluster(config: ClusterConfig, accepts: (state: ClusterState, action: ExternalAction) => boolean): ClusterUnderTest {
  const setup: ClusterSetup = { ...config, checkProperties: false };
  let state = initialClusterState(setup);
  return {
    apply(action) {
      const why = whyNotEnabled(setup, state, action);
      if (why !== undefined && !accepts(state, action)) return { error: { code: PROTOCOL_ERRORS.not_enabled, text: why } };
      const first = transition(setup, state, action);
      const rest = settle(setup, first.state);
      state = rest.state;
      return { events: [...first.events, ...rest.events] };
    },
    observe: () => observeCluster(setup, state),
    close() {},
  };
}

/**
 * A system that carries out `type` (a handoff step of a migration) also
 * in `phase`, one phase later than its guard allows (SPEC C5–C7): e.g. an
 * abort in phase `fenced`, after the fence is raised, or an install in
 * phase `committed`. Everything else is the model's.
 */
export function onePhaseLate(type: 'abort' | 'install' | 'persist' | 'commit', phase: HandoffPhase): InProcessSut {
  return {
    implementation: { name: `${type}-one-phase-late`, version: '0' },
    levels: ['operator', 'cluster', 'faults'],
    ...(modelSut.operator ? { operator: modelSut.operator } : {}),
    cluster: (config) =>
      lenientCluster(config, (state, a) => {
        const h = state.coordinator.handoff;
        return a.type === type && state.coordinator.up && h?.key === a.key && h.kind === 'migrate' && h.phase === phase;
      }),
  };
}

/** `sut` restricted to some levels: what an implementation that supports only those says in its handshake. */
export function onlyLevels(sut: InProcessSut, levels: readonly Level[]): InProcessSut {
  return { ...sut, implementation: { ...sut.implementation, name: `${sut.implementation.name} (${levels.join(', ')} only)` }, levels };
}

/** The model with `change` applied to every cluster it builds: a deliberately wrong system. */
export function wrongClusterModel(change: (inner: ClusterUnderTest) => ClusterUnderTest): ReturnType<typeof inProcessSystem> {
  const sut: InProcessSut = { ...modelSut, implementation: { name: 'wrong', version: '0' }, cluster: (c) => change(createModelCluster(c)) };
  return inProcessSystem(sut, 'wrong');
}
