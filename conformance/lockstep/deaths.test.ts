// A death that comes back at the same step when the trace is run again up
// to it, in a system started afresh, is that step's divergence (fail); any
// other death, or a system that cannot be started again, stays unknown
// (PROTOCOL.md, "What the harness checks"). The systems are the model made
// to die as a process does (testdata/dying.ts).
import { describe, expect, it } from 'vitest';
import type { ClusterTrace, LogRecord, OperatorTrace } from '../../spec/index.ts';
import { SutUnavailable } from '../sut/sut.ts';
import { DEAD, dyingSystem, type Fate } from '../testdata/dying.ts';
import { runClusterLockstepPipelined } from './clusterLockstep.ts';
import { runTrace } from './anyTrace.ts';
import { runOperatorLockstepPipelined } from './operatorLockstep.ts';

const row = (kind: 'insert' | 'retract', side: 'L' | 'R', id: string): LogRecord => ({ kind, key: 'k', side, id, ts: 5, start: 5, end: 6 });
const RECORDS = [row('insert', 'L', 'a'), row('insert', 'R', 'b'), row('retract', 'L', 'a'), row('insert', 'R', 'c')];

const operatorTrace: OperatorTrace = {
  format: 'streamjoin/operator-trace@1',
  name: 'retract-a-match',
  config: { allowedLateness: 10, maxIntervalLength: 5 },
  steps: RECORDS.map((record) => ({ record })),
};
const clusterTrace: ClusterTrace = {
  format: 'streamjoin/cluster-trace@1',
  name: 'retract-a-match',
  config: { join: { allowedLateness: 10, maxIntervalLength: 5 }, workers: ['w1'], keys: [{ key: 'k', owner: 'w1' }] },
  steps: RECORDS.map((record) => ({ action: { type: 'record', record } })),
};

describe('a death that comes back at its step is a divergence there; any other stays unknown', () => {
  for (const level of ['operator', 'cluster'] as const) {
    const trace =
      level === 'operator' ? { kind: 'operator' as const, trace: operatorTrace } : { kind: 'cluster' as const, trace: clusterTrace };

    it(`${level}: dies at the retract twice: the retract's reply diverges, with the second death; the rerun sends the trace up to it`, async () => {
      const system = dyingSystem(['at-retract']);
      const d = await runTrace(system, trace, level);
      expect(d?.step).toBe(2);
      expect(d?.field).toBe('reply');
      expect(d?.actual).toEqual({ died: DEAD });
      expect(d?.at.level === level && 'died' in d.at ? d.at.died : undefined).toBe(DEAD);
      // Started afresh for the rerun, and again after it for what runs next.
      expect([system.sessions, system.revived]).toEqual([2, 2]);
    });

    it(`${level}: dies once, then answers every step: unknown, the reason saying the death did not come back`, async () => {
      const run = runTrace(dyingSystem(['at-retract', 'lives']), trace, level);
      await expect(run).rejects.toThrow(SutUnavailable);
      await expect(run).rejects.toThrow(
        `${DEAD}; run again up to step 3 in a fresh process, it answered every step: the death did not come back at that step`,
      );
    });

    it(`${level}: dies at the retract, then a step earlier: unknown (not the same place)`, async () => {
      await expect(runTrace(dyingSystem(['at-retract', 'earlier']), trace, level)).rejects.toThrow(/it died elsewhere: the process exited/);
    });

    it(`${level}: a system that cannot be started again, or that hung, is unknown at once, with its own reason, and no rerun`, async () => {
      const cannot = dyingSystem(['at-retract'], false);
      await expect(runTrace(cannot, trace, level)).rejects.toThrow(new RegExp(`^${DEAD}$`));
      expect(cannot.sessions).toBe(1);
      const hung = dyingSystem(['hangs']);
      await expect(runTrace(hung, trace, level)).rejects.toThrow(/^hung: /);
      expect([hung.sessions, hung.revived]).toEqual([1, 0]);
    });
  }

  it('cluster: the reply came and the inspect after it did not, twice: the observation diverges', async () => {
    const d = await runTrace(dyingSystem(['after-reply']), { kind: 'cluster', trace: clusterTrace }, 'cluster');
    expect([d?.step, d?.field, d?.actual]).toEqual([2, 'observation', { died: DEAD }]);
  });

  for (const noticed of ['at-write', 'late'] as const) {
    it(`pipelined (the exhaustive scenarios), the death seen ${noticed === 'at-write' ? 'as the next trace opens' : 'once the next trace was sent to the dead process'}: the trace it cut diverges at its step, those before conform, the next is sent again and conforms`, async () => {
      const quiet: ClusterTrace = { ...clusterTrace, name: 'no-retract', steps: clusterTrace.steps.slice(0, 2) };
      const results: { index: number; step?: number }[] = [];
      // Sessions: the quiet trace, the dying one, the next (if opened before the death is seen), the rerun; then quiet.
      const fates: Fate[] = noticed === 'late' ? ['lives', 'at-retract', 'lives', 'at-retract'] : ['lives', 'at-retract'];
      await runClusterLockstepPipelined(
        [quiet, clusterTrace, quiet].map((trace) => ({ trace, level: 'cluster' as const })),
        dyingSystem(fates, true, noticed),
        {
          onResult: (r) => {
            results.push({ index: r.index, ...(r.divergence ? { step: r.divergence.step } : {}) });
            return true;
          },
        },
      );
      expect(results).toEqual([{ index: 0 }, { index: 1, step: 2 }, { index: 2 }]);
      const quietOperator: OperatorTrace = { ...operatorTrace, name: 'no-retract', steps: operatorTrace.steps.slice(0, 2) };
      const operatorResults: { index: number; step?: number }[] = [];
      await runOperatorLockstepPipelined([quietOperator, operatorTrace, quietOperator], dyingSystem(fates, true, noticed), {
        onResult: (r) => {
          operatorResults.push({ index: r.index, ...(r.divergence ? { step: r.divergence.step } : {}) });
          return true;
        },
      });
      expect(operatorResults).toEqual([{ index: 0 }, { index: 1, step: 2 }, { index: 2 }]);
    });
  }
});
