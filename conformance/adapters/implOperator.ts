// impl/'s optimized operator behind the harness's operator interface.
import type { JoinConfig } from '../../spec/index.ts';
import { JoinOperator } from '../../impl/index.ts';
import type { OperatorUnderTest } from '../operatorTrace.ts';

export function createImplOperator(config: JoinConfig): OperatorUnderTest {
  const operator = new JoinOperator(config);
  return {
    apply: (record) => operator.apply(record),
    retained: () => operator.retained(),
  };
}
