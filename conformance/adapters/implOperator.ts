// impl/'s optimized operator behind the harness's operator interface. The
// impl module is a parameter so that a mutant's patched copy of impl/
// (conformance/mutants/) runs behind the very same adapter.
import type { JoinConfig } from '../../spec/index.ts';
import * as builtIn from '../../impl/index.ts';
import type { OperatorFactory, OperatorUnderTest } from '../sut/sut.ts';
import { SutConfigError } from '../sut/sut.ts';

/** What the adapters need of an impl module: the built-in `impl/index.ts`, or a mutant's copy of it. */
export type ImplModule = Pick<typeof builtIn, 'JoinOperator' | 'ImplCluster' | 'ConfigError'>;

/** The built-in implementation. */
export const builtInImpl: ImplModule = builtIn;

/** An operator factory over `impl`; a config the operator refuses (J0) is the protocol's `bad_config`. */
export function implOperatorFactory(impl: ImplModule): OperatorFactory {
  return (config: JoinConfig): OperatorUnderTest => {
    let operator: InstanceType<ImplModule['JoinOperator']>;
    try {
      operator = new impl.JoinOperator(config);
    } catch (e) {
      if (e instanceof impl.ConfigError) throw new SutConfigError(e.message);
      throw e;
    }
    return {
      apply: (record) => operator.apply(record),
      retained: () => operator.retained(),
    };
  };
}

/** The built-in operator. */
export const createImplOperator: OperatorFactory = implOperatorFactory(builtInImpl);
