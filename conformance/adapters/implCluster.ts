// impl/'s fenced cluster (ImplCluster) behind the harness's cluster
// interface. ImplCluster already processes eagerly after every action
// (SPEC §7); this maps its refusals to the protocol's error codes and, with a
// data directory, gives each session a directory of its own; with a record
// directory, each session's history (the two files `streamjoin audit` reads).
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PROTOCOL_ERRORS } from '../../spec/index.ts';
import type { ClusterConfig, ExternalAction } from '../../spec/index.ts';
import { SutConfigError, type ClusterUnderTest } from '../sut/sut.ts';
import { builtInImpl, type ImplModule } from './implOperator.ts';
import { HistoryFiles, nextSessionDir, quiesce } from './recorder.ts';

export interface ImplClusterOptions {
  /**
   * Keep the cluster's durable parts on disk: each session gets a fresh
   * directory under this one, removed when the session ends (the protocol's
   * `init` discards the previous session and all its state).
   */
  readonly dataDir?: string;
  /**
   * Record each session's history into a numbered directory under this one
   * (`log.jsonl`, `sink.jsonl`, `config.json`; docs/audit.md). When the
   * session ends the cluster is first brought back to quiescence, so that
   * the history is complete and its final relation can be judged.
   */
  readonly recordDir?: string;
  /**
   * Kill mode's re-attach (PROTOCOL.md, "Kill mode"): with a data directory,
   * reopen the session directory a killed process left there (the newest),
   * as after a crash of every node; with none left, an empty one, crashed
   * too. Without a data directory there is nothing to recover: a fresh session.
   */
  readonly recover?: boolean;
  /** Called at every point of every durable write (impl's crash-injection hook): `serve`'s kill-at-write hook for kill mode. */
  readonly onWritePoint?: (point: string, path: string) => void;
}

/** The session directory a killed process left under `dataDir` (the newest), or undefined. */
function leftSessionDir(dataDir: string): string | undefined {
  let newest: { path: string; ms: number } | undefined;
  for (const name of readdirSync(dataDir)) {
    if (!name.startsWith('session-')) continue;
    const path = join(dataDir, name);
    const ms = statSync(path).mtimeMs;
    if (newest === undefined || ms > newest.ms) newest = { path, ms };
  }
  return newest?.path;
}

/** A fresh cluster of `impl` (the built-in one by default). */
export function createImplCluster(
  config: ClusterConfig,
  options: ImplClusterOptions = {},
  impl: ImplModule = builtInImpl,
): ClusterUnderTest {
  const recovering = options.recover === true && options.dataDir !== undefined;
  const sessionDir =
    options.dataDir === undefined
      ? undefined
      : ((recovering ? leftSessionDir(options.dataDir) : undefined) ?? mkdtempSync(join(options.dataDir, 'session-')));
  let cluster: ReturnType<ImplModule['ImplCluster']['open']>;
  let recorder: HistoryFiles | undefined;
  try {
    recorder = options.recordDir === undefined ? undefined : new HistoryFiles(nextSessionDir(options.recordDir), config);
    cluster = impl.ImplCluster.open(config, {
      ...(sessionDir === undefined ? {} : { dataDir: sessionDir }),
      ...(recorder === undefined ? {} : { recorder }),
      ...(recovering ? { crashed: true } : {}),
      ...(sessionDir !== undefined && options.onWritePoint !== undefined ? { onWritePoint: options.onWritePoint } : {}),
    });
  } catch (e) {
    recorder?.end(undefined);
    if (sessionDir !== undefined) rmSync(sessionDir, { recursive: true, force: true });
    if (e instanceof impl.ConfigError) throw new SutConfigError(e.message);
    throw e;
  }
  let closed = false;
  /** Brings the cluster back to quiescence and ends the recording (complete iff it got there). */
  const endRecording = (files: HistoryFiles): void => {
    try {
      quiesce(
        () => cluster.observe(),
        (a) => !('error' in cluster.apply(a)),
        () => files.relevant(),
      );
      files.end(cluster.observe());
    } catch {
      // A cluster stopped part-way cannot be observed: the recording says it is incomplete.
      files.end(undefined);
    }
  };
  return {
    apply(action: ExternalAction) {
      const result = cluster.apply(action);
      recorder?.flush();
      // §7: an action that is not enabled is refused and changes nothing.
      if ('error' in result) return { error: { code: PROTOCOL_ERRORS.not_enabled, text: result.error.text } };
      return { events: result.events };
    },
    observe: () => cluster.observe(),
    close() {
      if (closed) return;
      closed = true;
      if (recorder !== undefined) endRecording(recorder);
      cluster.close();
      if (sessionDir !== undefined) rmSync(sessionDir, { recursive: true, force: true });
    },
  };
}
