// The reference cluster model (model/cluster/stateMachine.ts) behind the harness's
// cluster interface, processing eagerly (SPEC §7).
import { PROTOCOL_ERRORS, type ClusterConfig, type ExternalAction } from '../../spec/index.ts';
import { applyExternal, observeCluster, initialClusterState, type ClusterSetup, whyNotEnabled } from '../../model/index.ts';
import type { ClusterUnderTest } from './sut.ts';

/**
 * A fresh model cluster. `setup` may switch protocol elements off
 * (`ablate`, SPEC §6): a deliberately wrong system for testing the harness.
 */
export function createModelCluster(given: ClusterConfig | ClusterSetup): ClusterUnderTest {
  // Conformance compares observations only: no ghost state for properties.
  const config: ClusterSetup = { ...given, checkProperties: false };
  let state = initialClusterState(config);
  return {
    apply(action: ExternalAction) {
      // §7: an action that is not enabled is refused and changes nothing.
      const why = whyNotEnabled(config, state, action);
      if (why !== undefined) return { error: { code: PROTOCOL_ERRORS.not_enabled, text: why } };
      const step = applyExternal(config, state, action);
      state = step.state;
      return { events: step.events };
    },
    observe: () => observeCluster(config, state),
    close() {},
  };
}
