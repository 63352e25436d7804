// Which steps kill mode's exhaustive scenario kills in flight
// (everyWritePoint.ts): the enabled ones that change no node's liveness, so
// that the nodes to restart after the kill do not depend on its outcome.
import { describe, expect, it } from 'vitest';
import { CLUSTER_TRACE_FORMAT } from '../../spec/index.ts';
import type { ClusterTrace, ExternalAction } from '../../spec/index.ts';
import { insertRow } from '../testFixtures.ts';
import { killableSteps } from './everyWritePoint.ts';

describe('killableSteps', () => {
  it('every enabled step but crashes, restarts, pauses and resumes (C10); a refused step (§7) is not killed', () => {
    const actions: ExternalAction[] = [
      { type: 'record', record: insertRow('k1', 'L', 'a', 1, 2) },
      { type: 'checkpoint', worker: 'w1', key: 'k1' },
      { type: 'persist', key: 'k1' },
      { type: 'crash', node: 'w2' },
      { type: 'restart', node: 'w2' },
      { type: 'pause', worker: 'w2' },
      { type: 'resume', worker: 'w2' },
      { type: 'freeze', key: 'k1', to: 'w2' },
    ];
    const trace: ClusterTrace = {
      format: CLUSTER_TRACE_FORMAT,
      name: 't',
      config: { join: { allowedLateness: 1, maxIntervalLength: 2 }, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] },
      steps: actions.map((action) => ({ action })),
    };
    // persist (2) is refused: no migration in flight.
    expect(killableSteps(trace)).toEqual([0, 1, 7]);
  });
});
