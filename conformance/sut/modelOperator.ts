// The reference model's operator behind the harness's operator interface:
// the rules of model/join over indexed rows (IndexedJoin), so that a trace
// of any length runs in time linear in its length, whatever it holds.
import type { JoinConfig } from '../../spec/index.ts';
import { IndexedJoin } from '../../model/index.ts';
import type { OperatorUnderTest } from './sut.ts';

/** The reference model's operator (model/join's rules over indexed rows) as an `OperatorUnderTest`. */
export function createModelOperator(config: JoinConfig): OperatorUnderTest {
  const join = new IndexedJoin(config);
  return { apply: (record) => join.apply(record), retained: () => join.retained() };
}
