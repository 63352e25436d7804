import fc from 'fast-check';
import { clusterTraceArbitrary } from '../conformance/clusterArbitraries.ts';
import { actionsOf } from '../conformance/clusterLockstep.ts';
import { inProcessSystem } from '../conformance/adapters/inProcess.ts';
import { implSut } from '../conformance/adapters/implSut.ts';
const level = (process.argv[2] ?? 'cluster') as 'cluster' | 'faults';
const traces = fc.sample(clusterTraceArbitrary(level), { seed: 42, numRuns: 300 });
const system = inProcessSystem(implSut, 'impl');
const requests = traces.reduce((n, t) => n + 1 + 2 * t.steps.length, 0);
for (let round = 0; round < 30; round++) {
  const t0 = performance.now();
  for (const t of traces) await (await system.openCluster(t.config, level)).steps(actionsOf(t));
  if (round % 10 === 9) console.log(level, Math.round(requests / (performance.now() - t0) * 1000), 'req/s');
}
