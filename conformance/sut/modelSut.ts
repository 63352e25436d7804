// The reference model as a system under test at every level: what
// `streamjoin serve --model` serves and what `--sut model` runs in-process.
import { LEVELS, SPEC_VERSION } from '../../spec/index.ts';
import type { InProcessSut } from './sut.ts';
import { createModelCluster } from './modelCluster.ts';
import { createModelOperator } from './modelOperator.ts';

/** The reference model as an in-process system under test, at every level. */
export const modelSut: InProcessSut = {
  implementation: { name: 'streamjoin-reference-model', version: SPEC_VERSION },
  levels: LEVELS,
  operator: createModelOperator,
  cluster: (config) => createModelCluster(config),
};
