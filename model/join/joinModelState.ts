// The state of the join model (joinModel.ts) as the explorer holds it and
// the codec writes it (codec.ts): both import it from here, so neither
// imports the other.
import type { JoinState } from './join.ts';
import type { OracleState } from './oracle.ts';

/** A state of the join model: the operator's and the oracle's state after the same records. */
export interface JoinModelState {
  /** The operator under check's state. */
  readonly op: JoinState;
  /** The oracle's state. */
  readonly oracle: OracleState;
  /** Records appended so far. */
  readonly length: number;
  /** `kind:outcome[:reason]` of the last record ('' before the first): what the goals look at. */
  readonly last: string;
  /**
   * JoinCorrect: the first record whose outcome or changes differed between
   * operator and oracle. Only whether it is set belongs to the state (the
   * encoding); the text, for people, is that of the first path found, and a
   * counterexample's replay recomputes it for its own path.
   */
  readonly mismatch?: string;
  /** The last record broke the input contract (J9): the state is outside the model and not expanded. */
  readonly outOfContract: boolean;
}
