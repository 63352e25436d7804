// The reference model's operator behind the harness's operator interface.
import type { JoinConfig } from '../../spec/index.ts';
import { initialJoinState, retainedCountsOf, stepJoin } from '../../model/index.ts';
import type { OperatorUnderTest } from './sut.ts';

export function createModelOperator(config: JoinConfig): OperatorUnderTest {
  let state = initialJoinState;
  return {
    apply(record) {
      const step = stepJoin(config, state, record);
      state = step.state;
      return { outcome: step.outcome, changes: step.changes };
    },
    retained: () => retainedCountsOf(state),
  };
}
