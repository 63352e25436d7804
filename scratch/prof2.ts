import fc from 'fast-check';
import { clusterTraceArbitrary } from '../conformance/clusterArbitraries.ts';
import { runTrace } from '../conformance/conform.ts';
import { inProcessSystem } from '../conformance/adapters/inProcess.ts';
import { implSut } from '../conformance/adapters/implSut.ts';
const traces = fc.sample(clusterTraceArbitrary('faults'), { seed: 42, numRuns: 300 });
const system = inProcessSystem(implSut, 'impl');
for (let round = 0; round < 15; round++) {
  for (const trace of traces) if (await runTrace(system, { kind: 'cluster', trace }, 'faults')) throw new Error('diverged');
}
