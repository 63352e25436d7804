// Systems under test that break part-way through a session, in-process, for
// the tests that pin what the harness makes of them
// (conformance/job/breaksMidAction.test.ts). Each is the implementation
// until the first request whose processing writes a match; what happens
// then is the system's fault:
//
// - `breaksAtFirstMatch(code)`: that request is answered with error `code`
//   (1003, internal_error, by default), although the model carries it out;
//   from then on every inspect is refused and every request answered with
//   the same error. PROTOCOL.md: an error reply to a valid request is a
//   difference, so the verdict is fail, at that step.
// - `refusesInspectAtFirstMatch()`: that request is answered correctly, and
//   the inspect after it refused (and every one after). A system that
//   breaks the protocol where its replies conform cannot be judged: unknown.
import { PROTOCOL_ERRORS } from '../../spec/index.ts';
import type { ActionReply, ClusterUnderTest, InProcessSut, OperatorUnderTest } from '../sut/sut.ts';
import { implSut } from '../adapters/implSut.ts';

type Breaking = 'reply' | 'inspect';

/** Whether a reply carries a processed event that writes a change. */
const writesAMatch = (reply: ActionReply): boolean =>
  'events' in reply && reply.events.some((e) => e.type === 'processed' && e.changes.length > 0);

function breakingCluster(inner: ClusterUnderTest, breaking: Breaking, code: number): ClusterUnderTest {
  let broken = false;
  const error = { error: { code, text: 'internal error: the state store went away' } };
  return {
    apply(action) {
      if (broken) return error;
      const reply = inner.apply(action);
      if (!writesAMatch(reply)) return reply;
      broken = true;
      return breaking === 'reply' ? error : reply;
    },
    observe() {
      if (broken) throw new Error('internal error: the state store went away');
      return inner.observe();
    },
    close: () => inner.close(),
  };
}

/** At level operator there is no inspect: the record that makes the first match, and every later one, fail (`internal_error`). */
function breakingOperator(inner: OperatorUnderTest, breaking: Breaking): OperatorUnderTest {
  let broken = false;
  return {
    apply(record) {
      if (broken) throw new Error('internal error: the state store went away');
      const step = inner.apply(record);
      if (breaking === 'reply' && step.changes.length > 0) {
        broken = true;
        throw new Error('internal error: the state store went away');
      }
      return step;
    },
    retained: () => inner.retained(),
  };
}

function breaking(breaking: Breaking, code: number, inner: InProcessSut): InProcessSut {
  const { operator, cluster } = inner;
  return {
    implementation: { name: `${inner.implementation.name}-breaks-at-first-match`, version: inner.implementation.version },
    levels: inner.levels,
    ...(operator ? { operator: (config) => breakingOperator(operator(config), breaking) } : {}),
    ...(cluster ? { cluster: (config, level) => breakingCluster(cluster(config, level), breaking, code) } : {}),
  };
}

/** Answers the first request that writes a match with error `code`, then refuses every inspect and request. */
export function breaksAtFirstMatch(code: number = PROTOCOL_ERRORS.internal_error, inner: InProcessSut = implSut): InProcessSut {
  return breaking('reply', code, inner);
}

/** Answers the first request that writes a match correctly, then refuses every inspect (cluster levels; operator is the implementation). */
export function refusesInspectAtFirstMatch(inner: InProcessSut = implSut): InProcessSut {
  return breaking('inspect', PROTOCOL_ERRORS.internal_error, inner);
}
