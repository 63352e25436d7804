// Real counterexamples for the tests of the reports: a wrong system (the
// model with a protocol element switched off, or an operator that drops its
// retractions) run in lockstep on the spec's own examples, and a model
// counterexample from the explorer. Test support only.
import { join } from 'node:path';
import { loadAnyTrace, packagePath } from '../../spec/index.ts';
import type { AnyTrace, ClusterConfig, Counterexample, LogRecord } from '../../spec/index.ts';
import { check, clusterModelConfigOf, clusterExplorerModel, presetNamed, resolveBounds } from '../../model/index.ts';
import { createModelCluster } from '../sut/modelCluster.ts';
import { createModelOperator } from '../sut/modelOperator.ts';
import { modelSut } from '../sut/modelSut.ts';
import { inProcessSystem } from '../adapters/inProcess.ts';
import { explainDivergence } from '../report/divergence.ts';
import type { Failure } from '../report/failure.ts';
import { runTrace, withExpectations } from '../lockstep/anyTrace.ts';

const examples = packagePath('spec', 'examples');

/** The model without the sink's fence (C9): a zombie's write is applied. */
export const unfencedSystem = () =>
  inProcessSystem(
    {
      ...modelSut,
      implementation: { name: 'model-without-sink-fence', version: '0' },
      cluster: (config: ClusterConfig) => createModelCluster({ ...config, ablate: ['sink-fence'] }),
    },
    'model-without-sink-fence',
  );

/** An operator that never emits a match retraction (J6). */
export const noRetractionsSystem = () =>
  inProcessSystem(
    {
      ...modelSut,
      implementation: { name: 'operator-without-retractions', version: '0' },
      operator: (config) => {
        const op = createModelOperator(config);
        return {
          apply: (r: LogRecord) => {
            const out = op.apply(r);
            return { ...out, changes: out.changes.filter((c) => c.op !== 'retract') };
          },
          retained: () => op.retained(),
        };
      },
    },
    'operator-without-retractions',
  );

async function failureOf(
  trace: AnyTrace,
  system: ReturnType<typeof unfencedSystem>,
  level: Failure['level'],
  path: string,
): Promise<Failure> {
  try {
    const found = await runTrace(system, trace, level);
    if (!found) throw new Error(`${path} does not diverge`);
    return { level, origin: 'example', path, trace: withExpectations(trace), divergence: explainDivergence(found) };
  } finally {
    await system.close();
  }
}

/** The cluster example zombie-fenced against the model without the sink fence: diverges where the zombie writes. */
export function clusterFailure(): Promise<Failure> {
  const path = join(examples, 'cluster', 'zombie-fenced.trace.json');
  return failureOf(loadAnyTrace(path), unfencedSystem(), 'faults', path);
}

/** The operator example multi-match-retraction against an operator that drops retractions. */
export function operatorFailure(): Promise<Failure> {
  const path = join(examples, 'multi-match-retraction.trace.json');
  return failureOf(loadAnyTrace(path), noRetractionsSystem(), 'operator', path);
}

/** A `streamjoin check` counterexample: Fenced in preset smoke without the sink fence (7 steps). */
export function modelCounterexample(): Counterexample {
  const preset = presetNamed('smoke');
  if (!preset) throw new Error('no preset smoke');
  const bounds = resolveBounds(preset, {});
  const config = clusterModelConfigOf('smoke', bounds, 'sink-fence', 'k1');
  if (!config) throw new Error('smoke is not a cluster preset');
  const model = clusterExplorerModel(config);
  const report = check(model, { stopAtFirstViolation: true });
  const r = report.invariants.find((x) => x.name === 'Fenced');
  if (!r?.path) throw new Error('no Fenced counterexample');
  return {
    format: 'streamjoin/counterexample@1',
    model: model.name,
    preset: 'smoke',
    bounds,
    ablate: 'sink-fence',
    part: 'k1',
    property: { kind: 'invariant', name: 'Fenced' },
    ...(r.explanation !== undefined ? { explanation: r.explanation } : {}),
    initialState: r.path.initialIndex,
    actions: r.path.actions.map((a) => a.action),
    steps: r.path.actions.map((a) => model.describeAction(a)),
  };
}
