// impl/'s fenced cluster (ImplCluster) behind the harness's cluster
// interface. ImplCluster already processes eagerly after every action
// (SPEC §7); this maps its refusals to the protocol's error codes and, with a
// data directory, gives each session a directory of its own.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PROTOCOL_ERRORS } from '../../spec/index.ts';
import type { ClusterConfig, ExternalAction } from '../../spec/index.ts';
import { SutConfigError, type ClusterUnderTest } from './sut.ts';
import { builtInImpl, type ImplModule } from './implOperator.ts';

export interface ImplClusterOptions {
  /**
   * Keep the cluster's durable parts on disk: each session gets a fresh
   * directory under this one, removed when the session ends (the protocol's
   * `init` discards the previous session and all its state).
   */
  readonly dataDir?: string;
}

/** A fresh cluster of `impl` (the built-in one by default). */
export function createImplCluster(
  config: ClusterConfig,
  options: ImplClusterOptions = {},
  impl: ImplModule = builtInImpl,
): ClusterUnderTest {
  const sessionDir = options.dataDir === undefined ? undefined : mkdtempSync(join(options.dataDir, 'session-'));
  let cluster: ReturnType<ImplModule['ImplCluster']['open']>;
  try {
    cluster = impl.ImplCluster.open(config, sessionDir === undefined ? {} : { dataDir: sessionDir });
  } catch (e) {
    if (sessionDir !== undefined) rmSync(sessionDir, { recursive: true, force: true });
    if (e instanceof impl.ConfigError) throw new SutConfigError(e.message);
    throw e;
  }
  let closed = false;
  return {
    apply(action: ExternalAction) {
      const result = cluster.apply(action);
      // §7: an action that is not enabled is refused and changes nothing.
      if ('error' in result) return { error: { code: PROTOCOL_ERRORS.not_enabled, text: result.error.text } };
      return { events: result.events };
    },
    observe: () => cluster.observe(),
    close() {
      if (closed) return;
      closed = true;
      cluster.close();
      if (sessionDir !== undefined) rmSync(sessionDir, { recursive: true, force: true });
    },
  };
}
