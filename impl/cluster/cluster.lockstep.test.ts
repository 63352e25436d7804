// Lockstep: impl's cluster and the reference model (model/cluster/stateMachine.ts) fed the
// same external actions show the same events, in order, and the same
// observation after every step (SPEC §7), over the cluster example traces
// (spec/examples/cluster, the scenarios the model's tests check rule by rule)
// and over random traces, with the in-memory and the on-disk backends, across
// whole-cluster crashes.
import { describe, expect, it } from 'vitest';
import { clusterExamples, rulesOfExample, twoKeyCluster, useTemporaryDirectories } from '../../conformance/testFixtures.ts';
import fc from 'fast-check';
import type { ClusterEvent, ClusterObservation, ClusterTrace } from '../../spec/index.ts';
import { applyExternal, observeCluster } from '../../model/cluster/stateMachine.ts';
import { initialClusterState, type ClusterSetup } from '../../model/cluster/clusterState.ts';
import { whyNotEnabled } from '../../model/cluster/guards.ts';
import { clusterStepsArbitrary, type ChoiceStep } from '../../conformance/generate/clusterTraces.ts';
import { longClusterDomain, oddClusterDomain, type ClusterDomain } from '../../conformance/generate/clusterDomains.ts';
import { ImplCluster } from './cluster.ts';
import { MemoryStorage } from './storage.ts';

const setup: ClusterSetup = twoKeyCluster;

const freshDirectory = useTemporaryDirectories('streamjoin-cluster-');

/** A cluster under test that can be crashed whole and reopened over the same durable parts. */
interface Subject {
  cluster: ImplCluster;
  reopen(): void;
  close(): void;
}

function memorySubject(config: ClusterSetup = setup): Subject {
  let storage = new MemoryStorage();
  const s: Subject = {
    cluster: ImplCluster.openStorage(config, storage),
    reopen() {
      s.cluster.close();
      storage = storage.reopen();
      s.cluster = ImplCluster.openStorage(config, storage);
    },
    close: () => s.cluster.close(),
  };
  return s;
}

function diskSubject(config: ClusterSetup = setup): Subject {
  const dataDir = freshDirectory();
  const s: Subject = {
    cluster: ImplCluster.open(config, { dataDir }),
    reopen() {
      s.cluster.close();
      s.cluster = ImplCluster.open(config, { dataDir });
      expect(s.cluster.problems()).toEqual([]);
    },
    close: () => s.cluster.close(),
  };
  return s;
}

const describeSteps = (steps: readonly ChoiceStep[], upTo: number): string =>
  steps
    .slice(0, upTo + 1)
    .map((s, i) => `  ${i}: ${s.kind === 'reopen' ? 'crash every node (reopen)' : JSON.stringify(s.action)}`)
    .join('\n');

/** Runs the steps on a subject, comparing with the model's events and observation after each, and probing one refused action per step. */
function runLockstep(subject: Subject, steps: readonly ChoiceStep[]): void {
  let before: ClusterObservation = subject.cluster.observe();
  steps.forEach((step, i) => {
    try {
      if (step.kind === 'reopen') {
        subject.reopen();
      } else {
        // Not enabled: refused with a reason, and nothing changes.
        const refused = subject.cluster.apply(step.refused);
        expect(refused).toEqual({ error: { kind: 'not-enabled', text: expect.any(String) } });
        expect(subject.cluster.observe()).toEqual(before);
        const result = subject.cluster.apply(step.action);
        if ('events' in step.expected) expect(result).toEqual({ events: step.expected.events });
        else {
          // Picked on purpose where the model refuses it: refused, and nothing changes.
          expect(result).toEqual({ error: { kind: 'not-enabled', text: expect.any(String) } });
          expect(subject.cluster.observe()).toEqual(before);
        }
      }
      before = subject.cluster.observe();
      expect(before).toEqual(step.observation);
    } catch (e) {
      const refused = step.kind === 'action' ? `\n  (refused probe at step ${i}: ${JSON.stringify(step.refused)})` : '';
      throw new Error(
        `impl departs from the model at step ${i} of\n${describeSteps(steps, i)}${refused}\n${e instanceof Error ? e.message : String(e)}`,
      );
    }
  });
}

/** The model's steps for an example trace's actions (its refused actions refused, changing nothing). */
function modelSteps(trace: ClusterTrace): ChoiceStep[] {
  const config = trace.config;
  let state = initialClusterState(config);
  return trace.steps.map(({ action }) => {
    if (action.type === 'process') throw new Error('process is not an external action (SPEC §7)');
    const why = whyNotEnabled(config, state, action);
    let expected: { events: ClusterEvent[] } | { error: string } = { error: why ?? '' };
    if (why === undefined) {
      const t = applyExternal(config, state, action);
      state = t.state;
      expected = { events: t.events };
    }
    return {
      kind: 'action',
      action,
      expected,
      observation: observeCluster(config, state),
      refused: { type: 'process', worker: config.workers[0], key: config.keys[0].key },
    };
  });
}

describe('impl cluster in lockstep with the model: the cluster example traces (spec/examples/cluster, SPEC §7)', () => {
  for (const trace of clusterExamples()) {
    const title = `${rulesOfExample(trace)}: ${trace.name}`;
    it(`${title} (memory)`, () => runLockstep(memorySubject(trace.config), modelSteps(trace)));
    it(`${title} (disk)`, () => {
      const subject = diskSubject(trace.config);
      runLockstep(subject, modelSteps(trace));
      subject.close();
    });
  }
});

describe('impl cluster in lockstep with the model: random traces (SPEC §5, §7; C1–C12)', () => {
  it('same events and observation after every step, and every refused action changes nothing (memory backend, with whole-cluster crashes)', () => {
    fc.assert(
      fc.property(clusterStepsArbitrary(setup, { reopen: true }), (steps) => {
        runLockstep(memorySubject(), steps);
      }),
    );
  });

  it(
    'the same under other configs: L = D = 0 with two keys on one worker; one key among four workers; odd ' +
      'names (__proto__, constructor, /, %, |R:) for workers, keys and ids (memory backend)',
    () => {
      const others: [ClusterSetup, ClusterDomain][] = [
        [
          {
            join: { allowedLateness: 0, maxIntervalLength: 0 },
            workers: ['a', 'b'],
            keys: [
              { key: 'x', owner: 'a' },
              { key: 'y', owner: 'a' },
              { key: 'z', owner: 'b' },
            ],
          },
          longClusterDomain,
        ],
        [
          { join: { allowedLateness: 3, maxIntervalLength: 1 }, workers: ['w1', 'w2', 'w3', 'w4'], keys: [{ key: 'k/1', owner: 'w2' }] },
          longClusterDomain,
        ],
        [
          {
            join: { allowedLateness: 1, maxIntervalLength: 1 },
            workers: ['__proto__', 'constructor', 'w/1%2F'],
            keys: [
              { key: '__proto__', owner: 'constructor' },
              { key: 'k|R:1/%', owner: '__proto__' },
            ],
          },
          { ...longClusterDomain, workers: oddClusterDomain.workers, ids: oddClusterDomain.ids },
        ],
      ];
      fc.assert(
        fc.property(
          fc
            .constantFrom(...others)
            .chain(([config, domain]) => clusterStepsArbitrary(config, { reopen: true, domain }).map((steps) => ({ config, steps }))),
          ({ config, steps }) => {
            runLockstep(memorySubject(config), steps);
          },
        ),
        { numRuns: 100 },
      );
    },
  );

  it('same events and observation after every step, and every refused action changes nothing (disk backend, with whole-cluster crashes)', () => {
    fc.assert(
      fc.property(clusterStepsArbitrary(setup, { reopen: true }), (steps) => {
        const subject = diskSubject();
        try {
          runLockstep(subject, steps);
        } finally {
          subject.close();
        }
      }),
      { numRuns: 15 },
    );
  });
});
