// What conform's summary says, in numbers a reader can follow: an example's
// divergence in both numberings (the example's step, and the minimized
// counterexample's), the same in the progress line and the summary; and the
// levels checked, which after a stopped run are only those fully checked.
import { describe, expect, inject, it } from 'vitest';
import { join } from 'node:path';
import { runConform } from '../conformance/job/conform.ts';
import type { TraceSource } from '../conformance/job/conformTypes.ts';
import { loadCheckedTrace } from '../conformance/lockstep/traceFiles.ts';
import { noRetractionsSystem } from '../conformance/views/counterexampleFixtures.ts';
import { inProcessSystem } from '../conformance/adapters/inProcess.ts';
import { modelSut } from '../conformance/sut/modelSut.ts';
import { SutUnavailable, type SystemUnderTest } from '../conformance/sut/sut.ts';
import { conformSummary } from './conformReport.ts';
import { portablePath } from '../conformance/views/counterexampleFiles.ts';

const seed = inject('fcSeed');
const example = join(import.meta.dirname, '..', 'spec', 'examples', 'multi-match-retraction.trace.json');

describe("an example's divergence: the example's step and the counterexample's, named alike in the progress and the summary", () => {
  it('J6: an operator that drops retractions, on an example of six steps', async () => {
    const progress: string[] = [];
    const examples: TraceSource[] = [{ path: example, trace: loadCheckedTrace(example) }];
    const report = await runConform({
      system: noRetractionsSystem(),
      seed,
      runs: 0,
      examples,
      levels: ['operator'],
      progress: (l) => progress.push(l),
    });
    const f = report.failures[0];
    if (!f) throw new Error('no failure');
    expect(f.exampleStep).toBeDefined();
    const both = `step ${(f.exampleStep ?? 0) + 1} of the example (step ${f.divergence.step + 1} of the ${f.trace.trace.steps.length}-step counterexample)`;
    expect(progress).toContain(`FAIL operator multi-match-retraction: ${both}: ${f.divergence.summary}`);
    const summary = conformSummary(report, [
      { failure: f, tracePath: 'T', explainPath: 'E', markdownPath: 'M', htmlPath: 'H', replay: 'R', replayArgv: ['R'] },
    ]);
    expect(summary).toContain(`FAIL at level operator: example ${portablePath(example)}: ${both}`);
    expect(summary).toContain(`Divergence at step ${f.divergence.step + 1}:`);
  });
});

/** A system that answers the handshake, then dies on the first trace. */
function diesAfterHandshake(): SystemUnderTest {
  const model = inProcessSystem(modelSut, 'dies');
  const dead = (): Promise<never> => Promise.reject(new SutUnavailable('dead: the process exited with code 3'));
  return { ...model, openOperator: dead, openCluster: dead };
}

describe('levels checked: only those fully checked when the run stopped', () => {
  it('dead during the handshake: none, and why', async () => {
    const system: SystemUnderTest = {
      ...inProcessSystem(modelSut, 'x'),
      info: () => Promise.reject(new SutUnavailable('dead: the process exited with code 3')),
    };
    const report = await runConform({ system, seed, runs: 1, examples: [] });
    expect(conformSummary(report, [])).toContain('levels checked: none (the system could not be judged during the handshake); seed');
  });

  it('dead on the first trace after the handshake: none checked, every level named as not checked', async () => {
    const examples: TraceSource[] = [{ path: example, trace: loadCheckedTrace(example) }];
    const report = await runConform({ system: diesAfterHandshake(), seed, runs: 1, examples });
    const summary = conformSummary(report, []);
    expect(summary).toContain(
      'levels checked: none; not checked: operator, cluster, faults (the run stopped, see UNKNOWN below) (supported: operator, cluster, faults)',
    );
    expect(summary).not.toContain('levels checked: operator, cluster, faults');
  });

  it('a run that completes: every level asked for', async () => {
    const report = await runConform({ system: inProcessSystem(modelSut, 'model'), seed, runs: 1, examples: [] });
    expect(conformSummary(report, [])).toContain('levels checked: operator, cluster, faults (supported: operator, cluster, faults)');
  });
});
