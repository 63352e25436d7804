import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { PROTOCOL_ERRORS, loadClusterTrace } from '../../spec/index.ts';
import type { ClusterTrace } from '../../spec/index.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { modelSut } from '../sut/modelSut.ts';
import { createModelCluster } from '../sut/modelCluster.ts';
import { wrongClusterModel as wrong } from '../testdata/wrongSystems.ts';
import { runClusterLockstep } from './explainedRuns.ts';

const clusterDir = join(import.meta.dirname, '..', '..', 'spec', 'examples', 'cluster');
const load = (name: string): ClusterTrace => loadClusterTrace(join(clusterDir, name));
const model = inProcessSystem(modelSut);

describe('§7 lockstep: the first divergence, with the step, the field and the rules', () => {
  const zombie = load('zombie-fenced.trace.json');

  it("C9: a sink that does not fence shows at the zombie's write, as an event difference", async () => {
    const noFence = inProcessSystem({ ...modelSut, cluster: (c) => createModelCluster({ ...c, ablate: ['sink-fence'] }) }, 'no-fence');
    const r = await runClusterLockstep(zombie, noFence, 'faults');
    expect(r.divergence).toMatchObject({ step: 4, field: 'events', refs: { rules: ['C9'], properties: ['Fenced'] } });
    expect(r.divergence?.summary).toBe(
      'resume w1: the events differ at [0] processed w1 k1 #1 e1 accepted +k1/a/b FENCED: fenced expected true, actual false; ' +
        'and 1 later event differs',
    );
  });

  it('an observation difference lists only the paths that differ, mapped to rules', async () => {
    const liar = wrong((inner) => ({
      ...inner,
      observe: () => {
        const o = inner.observe();
        return { ...o, sink: { ...o.sink, deduped: o.sink.deduped + (o.log >= 3 ? 1 : 0) } };
      },
    }));
    const r = await runClusterLockstep(load('failover-with-replay.trace.json'), liar, 'faults');
    expect(r.divergence).toMatchObject({ step: 4, field: 'observation', diff: [{ path: '/sink/deduped', expected: 0, actual: 1 }] });
    expect(r.divergence?.refs.rules).toContain('C9');
  });

  it('§7: carrying out an action that is not enabled is a divergence; so is refusing one that is', async () => {
    const eager = wrong((inner) => ({
      ...inner,
      apply: (a) => {
        const r = inner.apply(a);
        return 'error' in r ? { events: [] } : r;
      },
    }));
    const abort = load('abort-before-fence.trace.json');
    const r1 = await runClusterLockstep(abort, eager, 'cluster');
    expect(r1.divergence).toMatchObject({ step: 6, field: 'reply' });
    expect(r1.divergence?.summary).toContain('not enabled (no handoff of k1 awaits commit)');
    const stubborn = wrong((inner) => ({
      ...inner,
      apply: (a) => (a.type === 'persist' ? { error: { code: PROTOCOL_ERRORS.not_enabled, text: 'no' } } : inner.apply(a)),
    }));
    const r2 = await runClusterLockstep(abort, stubborn, 'cluster');
    expect(r2.divergence).toMatchObject({ step: 2, field: 'reply', refs: { rules: ['C5', '§7'] } });
  });

  it('a refusal with the wrong code is a divergence: not_enabled is the only right one (§7)', async () => {
    const wrongCode = wrong((inner) => ({
      ...inner,
      apply: (a) => {
        const r = inner.apply(a);
        return 'error' in r ? { error: { code: PROTOCOL_ERRORS.internal_error, text: r.error.text } } : r;
      },
    }));
    const r = await runClusterLockstep(load('crash-between-commit-parts.trace.json'), wrongCode, 'faults');
    expect(r.divergence).toMatchObject({ step: 6, field: 'reply' });
    expect(r.divergence?.summary).toMatch(/refused with internal_error .* expected not_enabled/);
  });

  it('a trace whose expectations disagree with the model is checked against the file, and the disagreement reported', async () => {
    const edited = structuredClone(zombie);
    const step = edited.steps[3];
    if (!step?.expect?.observation) throw new Error('example changed');
    step.expect.observation.sink.applied = 5;
    const r = await runClusterLockstep(edited, model, 'faults');
    expect(r.disagreements).toEqual([{ step: 3, field: 'observation' }]);
    expect(r.divergence).toMatchObject({ step: 3, field: 'observation', diff: [{ path: '/sink/applied', expected: 5, actual: 1 }] });
  });
});
