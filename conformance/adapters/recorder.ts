// Records a cluster's history as the two files `streamjoin audit` reads
// (docs/audit.md): `log.jsonl`, a header with the join config and then every
// record the log appends (C3), in order; `sink.jsonl`, every change the sink
// applies (C9: not the deduplicated or fenced ones) with the writer's key,
// epoch and a per-key write sequence number, and at the end a line saying
// whether the cluster had consumed the whole log (quiescent, SPEC §6) when
// the recording stopped. Lines go to disk after every action, so a session
// that dies leaves a recording cut at most mid-line, which audit judges as
// an incomplete history.
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { makeDirectories, notWritten } from '../streams/atomicFiles.ts';
import { join } from 'node:path';
import { COORDINATOR } from '../../spec/index.ts';
import type { ClusterConfig, ClusterObservation, ExternalAction, LogRecord } from '../../spec/index.ts';
import type { HistoryRecorder, SinkChange } from '../../impl/index.ts';

/** `format` of the optional first line of a streamjoin log (the header this recorder writes; audit's formats.ts reads it). */
export const HISTORY_LOG_FORMAT = 'streamjoin/history-log@1';

export const LOG_FILE = 'log.jsonl';
export const SINK_FILE = 'sink.jsonl';
export const CONFIG_FILE = 'config.json';

/** Why the cluster is not quiescent (SPEC §6), if it is not: given where each key's last relevant record is (C3). */
function whyNotQuiescent(o: ClusterObservation, lastRelevant: ReadonlyMap<string, number>): string | undefined {
  if (!o.coordinator.up) return 'the coordinator is down';
  if (o.coordinator.handoff !== null) return `a handoff of key ${o.coordinator.handoff.key} is in flight`;
  for (const [id, w] of Object.entries(o.workers)) if (w.status !== 'up') return `worker ${id} is ${w.status}`;
  for (const [key, { owner, epoch }] of Object.entries(o.coordinator.keys)) {
    const copy = o.workers[owner]?.keys[key];
    if (copy === undefined || copy.epoch !== epoch || copy.frozen) return `the owner of key ${key} holds no active copy at its epoch`;
    const last = lastRelevant.get(key);
    if (last !== undefined && copy.cursor <= last) return `the owner of key ${key} has not read the log to its end`;
  }
  return undefined;
}

/** A history recorder writing the two files into `dir` (created). */
export class HistoryFiles implements HistoryRecorder {
  private readonly logFd: number;
  private readonly sinkFd: number;
  private logLines: string[] = [];
  private sinkLines: string[] = [];
  private readonly seq = new Map<string, number>();
  /** Per key, the log index of its last relevant record (its own, or a watermark; C3). */
  private readonly lastRelevant = new Map<string, number>();
  private lastWatermark = -1;
  private appendedCount = 0;
  private closed = false;

  /**
   * Creates `dir` and writes the config file; opens the log and sink files.
   * All three or none: a file that cannot be opened (a directory of that
   * name) leaves none of the others behind (SJ113).
   */
  constructor(
    /** The directory the files are written to. */
    readonly dir: string,
    private readonly config: ClusterConfig,
  ) {
    const opened: { path: string; fd: number; made: boolean }[] = [];
    /** Where the write that failed was: the directory, then each file. */
    let at = dir;
    const open = (name: string): number => {
      at = join(dir, name);
      const made = !existsSync(at);
      const fd = openSync(at, 'w');
      opened.push({ path: at, fd, made });
      return fd;
    };
    let configFd: number;
    let logFd: number;
    let sinkFd: number;
    try {
      makeDirectories(dir);
      [configFd, logFd, sinkFd] = [open(CONFIG_FILE), open(LOG_FILE), open(SINK_FILE)];
      at = join(dir, CONFIG_FILE);
      writeSync(configFd, `${JSON.stringify(config, null, 2)}\n`);
    } catch (e) {
      // Only what this made goes: a file that was there before stays (truncated, as it would have been written over).
      for (const { path, fd, made } of opened) {
        closeSync(fd);
        if (made) rmSync(path, { force: true });
      }
      throw notWritten(at, e);
    }
    closeSync(configFd);
    this.logFd = logFd;
    this.sinkFd = sinkFd;
    this.logLines.push(JSON.stringify({ format: HISTORY_LOG_FORMAT, config: config.join }));
  }

  /** Records a record appended to the input log (C3). */
  appended(record: LogRecord): void {
    const index = this.appendedCount++;
    if (record.kind === 'watermark') this.lastWatermark = index;
    else this.lastRelevant.set(record.key, index);
    this.logLines.push(JSON.stringify(record));
  }

  /** Records one write the sink applied: its key, epoch and changes, under the key's next sequence number. */
  applied(key: string, epoch: number, changes: readonly SinkChange[]): void {
    const seq = (this.seq.get(key) ?? 0) + 1;
    this.seq.set(key, seq);
    for (const c of changes) this.sinkLines.push(JSON.stringify({ op: c.op, match: c.match, key, epoch, seq }));
  }

  /** Writes what came since the last flush. */
  flush(): void {
    if (this.closed) return;
    if (this.logLines.length > 0) writeSync(this.logFd, `${this.logLines.join('\n')}\n`);
    if (this.sinkLines.length > 0) writeSync(this.sinkFd, `${this.sinkLines.join('\n')}\n`);
    this.logLines = [];
    this.sinkLines = [];
  }

  /** Each key's last relevant log index (C3). */
  relevant(): Map<string, number> {
    const out = new Map<string, number>();
    for (const { key } of this.config.keys) {
      const last = Math.max(this.lastRelevant.get(key) ?? -1, this.lastWatermark);
      if (last >= 0) out.set(key, last);
    }
    return out;
  }

  /** Ends the recording with the cluster as it is now: complete iff quiescent. */
  end(observation: ClusterObservation | undefined): void {
    if (this.closed) return;
    const why = observation === undefined ? 'the cluster could not be observed' : whyNotQuiescent(observation, this.relevant());
    this.sinkLines.push(JSON.stringify(why === undefined ? { end: { complete: true } } : { end: { complete: false, why } }));
    this.flush();
    this.closed = true;
    closeSync(this.logFd);
    closeSync(this.sinkFd);
  }
}

/** A fresh numbered directory `session-NNNN` under `root` for one recorded session. */
export function nextSessionDir(root: string): string {
  try {
    makeDirectories(root);
  } catch (e) {
    throw notWritten(root, e);
  }
  for (;;) {
    const taken = readdirSync(root)
      .map((f) => /^session-(\d+)$/.exec(f)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number);
    const dir = join(root, `session-${String(Math.max(0, ...taken) + 1).padStart(4, '0')}`);
    try {
      mkdirSync(dir);
      return dir;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

/**
 * The recovery actions that bring a cluster back to quiescence (SPEC §6 P7:
 * one is always reachable without faults), one round at a time: the
 * coordinator and every worker back up, then the handoff in flight driven
 * forward (or aborted). `apply` returns whether the action was enabled.
 */
export function quiesce(
  observe: () => ClusterObservation,
  apply: (action: ExternalAction) => boolean,
  lastRelevant: () => ReadonlyMap<string, number>,
  rounds = 32,
): string | undefined {
  let installed = false;
  for (let round = 0; round < rounds; round++) {
    const o = observe();
    const why = whyNotQuiescent(o, lastRelevant());
    if (why === undefined) return undefined;
    if (!o.coordinator.up) apply({ type: 'restart', node: COORDINATOR });
    for (const [id, w] of Object.entries(o.workers)) {
      if (w.status === 'down') apply({ type: 'restart', node: id });
      else if (w.status === 'paused') apply({ type: 'resume', worker: id });
    }
    const h = observe().coordinator.handoff;
    if (h === null) continue;
    // The furthest step first; an install is retried once, then the migration is aborted (C5, C6).
    const key = h.key;
    if ((['release', 'commit', 'persist'] as const).some((type) => apply({ type, key }))) continue;
    if (!installed && apply({ type: 'install', key })) {
      installed = true;
      continue;
    }
    installed = false;
    apply({ type: 'abort', key });
  }
  return whyNotQuiescent(observe(), lastRelevant());
}
