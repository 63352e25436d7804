// The optimized implementation (impl/) as a system under test at every
// level: what `streamjoin serve` serves and what `--sut impl` runs
// in-process. `implSutOf` builds the same for any impl module, e.g. a
// mutant's patched copy (conformance/mutants/).
import { LEVELS, SPEC_VERSION } from '../../spec/index.ts';
import type { ImplementationInfo } from '../../spec/index.ts';
import type { InProcessSut } from '../sut/sut.ts';
import { createImplCluster, type ImplClusterOptions } from './implCluster.ts';
import { builtInImpl, implOperatorFactory, type ImplModule } from './implOperator.ts';

export const IMPL_INFO: ImplementationInfo = { name: 'streamjoin-impl', version: SPEC_VERSION };

export interface ImplSutOptions extends ImplClusterOptions {
  /** How the system names itself in `init_ok` (default IMPL_INFO). */
  readonly implementation?: ImplementationInfo;
}

/** `impl` at every level (operator, cluster, faults). */
export function implSutOf(impl: ImplModule, options: ImplSutOptions = {}): InProcessSut {
  const clusterOptions: ImplClusterOptions = {
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    ...(options.recordDir === undefined ? {} : { recordDir: options.recordDir }),
    ...(options.onWritePoint === undefined ? {} : { onWritePoint: options.onWritePoint }),
  };
  return {
    implementation: options.implementation ?? IMPL_INFO,
    levels: LEVELS,
    operator: implOperatorFactory(impl),
    cluster: (config, _level, open) =>
      createImplCluster(config, { ...clusterOptions, ...(open?.recover === true ? { recover: true } : {}) }, impl),
  };
}

/** The built-in implementation, durable parts in memory. */
export const implSut: InProcessSut = implSutOf(builtInImpl);
