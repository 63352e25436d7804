// A system whose install gives the destination an empty copy at the
// checkpoint's cursor and epoch, ignoring the checkpoint's join state (a
// C6 bug): the reference model otherwise. What it lost shows at the
// install when the key held rows (the copy's retained counts), and only
// later when it held watermarks alone (an insert late under them is
// accepted). conformance/report/earliestRule.test.ts pins which rule the
// report names for each.
import { PROTOCOL_ERRORS } from '../../spec/index.ts';
import type { ClusterConfig, ExternalAction } from '../../spec/index.ts';
import {
  applyExternal,
  initialClusterState,
  initialJoinState,
  observeCluster,
  whyNotEnabled,
  withCopy,
  type ClusterSetup,
} from '../../model/index.ts';
import type { ClusterUnderTest, InProcessSut } from '../sut/sut.ts';
import { modelSut } from '../sut/modelSut.ts';

function freshInstallCluster(given: ClusterConfig, lost: 'state' | 'watermarks'): ClusterUnderTest {
  const setup: ClusterSetup = { ...given, checkProperties: false };
  let state = initialClusterState(setup);
  return {
    apply(action: ExternalAction) {
      const why = whyNotEnabled(setup, state, action);
      if (why !== undefined) return { error: { code: PROTOCOL_ERRORS.not_enabled, text: why } };
      const step = applyExternal(setup, state, action);
      state = step.state;
      if (action.type === 'install') {
        for (const e of step.events) {
          // The model's maps have no prototype: a worker or key named `__proto__` reads as its entry.
          const copy = e.type === 'restored' ? state.workers[e.worker]?.keys[e.key] : undefined;
          if (e.type !== 'restored' || !copy) continue;
          // The bug: the copy is installed frozen at the message's epoch and the checkpoint's cursor, but empty (or without its watermarks).
          const join = lost === 'state' ? initialJoinState : { ...copy.join, wm: initialJoinState.wm };
          state = withCopy(state, e.worker, e.key, { ...copy, join });
        }
      }
      return { events: step.events };
    },
    observe: () => observeCluster(setup, state),
    close() {},
  };
}

/** The model, but an install ignores the checkpoint's join state, or only its watermarks (C6). */
export function installsWithout(lost: 'state' | 'watermarks'): InProcessSut {
  return {
    ...modelSut,
    implementation: { name: `installs-without-${lost}`, version: '0' },
    cluster: (config) => freshInstallCluster(config, lost),
  };
}

/** An install that restores an empty copy (at the checkpoint's cursor and epoch). */
export const installsFresh: InProcessSut = installsWithout('state');
