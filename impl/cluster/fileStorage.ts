// The on-disk backend of the cluster's durable parts (storage.ts), in one
// directory:
//
//   config.json        the cluster config the directory was made for (a document)
//   log.jsonl          the input log: one record a line (a journal)
//   coordinator.json   owner and epoch per key, the handoff record, the last release messages, and
//                      while a persist step writes the store, the checkpoint it writes (a document)
//   install/<k…>.json  the last install message sent per key, with its checkpoint (a document each)
//   sink.jsonl         the sink's writes and fence raises (a journal)
//   checkpoints/       the checkpoint store (FileCheckpointStore)
//
// durableFiles.ts describes journals and documents. Opening checks every
// file against the config: a record the cluster would not have appended, a
// sink entry for an undeclared key, a table that does not fit the config —
// each is refused with its path (and line), never loaded. A torn journal
// tail and a left-over temporary file are dropped and reported.
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterConfig, LogRecord } from '../../spec/index.ts';
import { FileCheckpointStore } from '../checkpointStore.ts';
import { fileStemOf } from '../crashSafeFile.ts';
import type { Checkpoint, CheckpointStore } from '../checkpointStore.ts';
import { CheckpointStoreError, DurableStateError, SnapshotError } from '../errors.ts';
import { readSnapshot } from '../snapshot.ts';
import { recordValidity } from '../validity.ts';
import { clearLeftover, JournalFile, readDocument, writeDocument } from './durableFiles.ts';
import type { JournalEntry, RecoveryProblem, WritePointHook } from './durableFiles.ts';
import type {
  ClusterStorage,
  CoordinatorRecord,
  CoordinatorStore,
  HandoffRecord,
  InputLog,
  InstallMessage,
  ReleaseMessage,
  SinkEntry,
  SinkJournal,
  StoragePart,
} from './storage.ts';

export const CLUSTER_CONFIG_FORMAT = 'streamjoin/cluster-config@1';
export const COORDINATOR_FORMAT = 'streamjoin/coordinator@1';
export const INSTALL_MESSAGE_FORMAT = 'streamjoin/install-message@1';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInteger = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);
const isEpoch = (v: unknown): v is number => isInteger(v) && v >= 1;
const hasExactly = (v: Json, fields: readonly string[]): boolean =>
  Object.keys(v).length === fields.length && fields.every((f) => Object.hasOwn(v, f));

/** The canonical JSON of a config, to compare the one a directory was made for with the one given. */
function canonicalConfig(c: ClusterConfig): string {
  return JSON.stringify({
    join: { allowedLateness: c.join.allowedLateness, maxIntervalLength: c.join.maxIntervalLength },
    workers: [...c.workers],
    keys: c.keys.map(({ key, owner }) => ({ key, owner })),
  });
}

/** Why `value` is not a record the cluster appends (valid, of a declared key), or undefined. */
function recordProblem(value: unknown, config: ClusterConfig, declared: ReadonlySet<string>): string | undefined {
  if (!isObject(value)) return 'not an object';
  if (value['kind'] === 'watermark') {
    if (!hasExactly(value, ['kind', 'side', 'wm'])) return 'a watermark has exactly kind, side, wm';
    if (typeof value['side'] !== 'string' || !isInteger(value['wm'])) return 'watermark fields have the wrong types';
  } else if (value['kind'] === 'insert' || value['kind'] === 'retract') {
    if (!hasExactly(value, ['kind', 'key', 'side', 'id', 'ts', 'start', 'end']))
      return 'a row record has exactly kind, key, side, id, ts, start, end';
    for (const f of ['key', 'side', 'id']) if (typeof value[f] !== 'string') return `${f} must be a string`;
    for (const f of ['ts', 'start', 'end']) if (!isInteger(value[f])) return `${f} must be an integer`;
    if (!declared.has(value['key'] as string)) return `key ${JSON.stringify(value['key'])} is not declared (C3)`;
  } else return 'kind must be insert, retract or watermark';
  const reason = recordValidity(value as unknown as LogRecord, config.join.maxIntervalLength);
  return reason === undefined ? undefined : `the record is invalid (${reason}, J1)`;
}

function sinkEntryProblem(value: unknown, declared: ReadonlySet<string>): string | undefined {
  if (!isObject(value)) return 'not an object';
  const kind = value['kind'];
  if (kind === 'fence') {
    if (!hasExactly(value, ['kind', 'key', 'epoch'])) return 'a fence entry has exactly kind, key, epoch';
  } else if (kind === 'write') {
    if (!hasExactly(value, ['kind', 'key', 'epoch', 'changes'])) return 'a write entry has exactly kind, key, epoch, changes';
    const changes = value['changes'];
    if (!Array.isArray(changes) || changes.length === 0) return 'changes must be a non-empty array';
    for (const c of changes as unknown[]) {
      if (
        !isObject(c) ||
        !hasExactly(c, ['op', 'match']) ||
        (c['op'] !== 'insert' && c['op'] !== 'retract') ||
        typeof c['match'] !== 'string'
      ) {
        return 'each change is exactly {op: insert|retract, match}';
      }
    }
  } else return 'kind must be write or fence';
  if (typeof value['key'] !== 'string' || !declared.has(value['key'])) return `key ${JSON.stringify(value['key'])} is not declared`;
  if (!isEpoch(value['epoch'])) return 'epoch must be an integer >= 1';
  return undefined;
}

function readHandoff(v: unknown, config: ClusterConfig, declared: ReadonlySet<string>): HandoffRecord | string {
  if (!isObject(v) || !hasExactly(v, ['kind', 'key', 'src', 'dst', 'from', 'phase']))
    return 'handoff must be null or {kind, key, src, dst, from, phase}';
  const { kind, key, src, dst, from, phase } = v;
  if (kind !== 'migrate' && kind !== 'failover') return 'handoff.kind must be migrate or failover';
  if (typeof key !== 'string' || !declared.has(key)) return 'handoff.key is not a declared key';
  if (typeof src !== 'string' || !config.workers.includes(src)) return 'handoff.src is not a worker';
  if (typeof dst !== 'string' || !config.workers.includes(dst) || dst === src) return 'handoff.dst is not a worker other than src';
  if (!isEpoch(from)) return 'handoff.from must be an integer >= 1';
  const phases = kind === 'migrate' ? ['frozen', 'persisted', 'installed', 'fenced', 'committed'] : ['fenced'];
  if (typeof phase !== 'string' || !phases.includes(phase)) return `handoff.phase ${JSON.stringify(phase)} is not a phase of a ${kind}`;
  return { kind, key, src, dst, from, phase: phase as HandoffRecord['phase'] };
}

/** The coordinator record, checked against the config; a string says what is wrong. */
function readCoordinatorRecord(v: unknown, config: ClusterConfig): CoordinatorRecord | string {
  // `persisting` is there only while a persist step writes the store, `installing` from an install
  // step until the next record (storage.ts).
  if (
    !isObject(v) ||
    !(
      hasExactly(v, ['keys', 'handoff', 'lastRelease']) ||
      hasExactly(v, ['keys', 'handoff', 'lastRelease', 'persisting']) ||
      hasExactly(v, ['keys', 'handoff', 'lastRelease', 'installing'])
    )
  )
    return 'must be {keys, handoff, lastRelease}, with persisting or installing or neither';
  const declared = new Set(config.keys.map((k) => k.key));
  const keys = v['keys'];
  if (!Array.isArray(keys) || keys.length !== config.keys.length) return `keys must list the ${config.keys.length} declared keys`;
  const table: { key: string; owner: string; epoch: number }[] = [];
  for (const [i, entry] of (keys as unknown[]).entries()) {
    if (!isObject(entry) || !hasExactly(entry, ['key', 'owner', 'epoch'])) return `keys[${i}] must be {key, owner, epoch}`;
    if (entry['key'] !== config.keys[i]?.key) return `keys[${i}] must be key ${JSON.stringify(config.keys[i]?.key)} (config order)`;
    if (typeof entry['owner'] !== 'string' || !config.workers.includes(entry['owner'])) return `keys[${i}].owner is not a worker`;
    if (!isEpoch(entry['epoch'])) return `keys[${i}].epoch must be an integer >= 1`;
    table.push({ key: entry['key'] as string, owner: entry['owner'], epoch: entry['epoch'] });
  }
  let handoff: HandoffRecord | null = null;
  if (v['handoff'] !== null) {
    const h = readHandoff(v['handoff'], config, declared);
    if (typeof h === 'string') return h;
    const row = table.find((t) => t.key === h.key) as { owner: string; epoch: number };
    // Before the ownership part the table still has the source at `from`; after it (committed), the destination at from + 1.
    const expected = h.phase === 'committed' ? { owner: h.dst, epoch: h.from + 1 } : { owner: h.src, epoch: h.from };
    if (row.owner !== expected.owner || row.epoch !== expected.epoch) {
      return `the handoff (${h.kind} ${h.key}, phase ${h.phase}, from ${h.from}) does not fit the table (owner ${row.owner}, epoch ${row.epoch})`;
    }
    handoff = h;
  }
  const releases = v['lastRelease'];
  if (!Array.isArray(releases)) return 'lastRelease must be an array';
  const lastRelease: ReleaseMessage[] = [];
  const seen = new Set<string>();
  for (const [i, m] of (releases as unknown[]).entries()) {
    if (!isObject(m) || !hasExactly(m, ['key', 'src', 'epoch'])) return `lastRelease[${i}] must be {key, src, epoch}`;
    if (typeof m['key'] !== 'string' || !declared.has(m['key']) || seen.has(m['key']))
      return `lastRelease[${i}].key is not a declared key listed once`;
    if (typeof m['src'] !== 'string' || !config.workers.includes(m['src'])) return `lastRelease[${i}].src is not a worker`;
    if (!isEpoch(m['epoch'])) return `lastRelease[${i}].epoch must be an integer >= 1`;
    seen.add(m['key']);
    lastRelease.push({ key: m['key'], src: m['src'], epoch: m['epoch'] });
  }
  if (v['installing'] !== undefined) {
    if (handoff === null || handoff.kind !== 'migrate' || (handoff.phase !== 'installed' && handoff.phase !== 'fenced'))
      return 'installing is only written with a migration installed or fenced (its install step)';
    const installing = readInstallMessage(v['installing'], config, fileStemOf(handoff.key));
    if (typeof installing === 'string') return `installing: ${installing}`;
    if (installing.key !== handoff.key || installing.dst !== handoff.dst || installing.epoch !== handoff.from + 1)
      return `installing is not the install message of the handoff (${handoff.key} to ${handoff.dst} at epoch ${handoff.from + 1})`;
    return { keys: table, handoff, lastRelease, installing };
  }
  if (v['persisting'] === undefined) return { keys: table, handoff, lastRelease };
  if (handoff === null || handoff.kind !== 'migrate' || handoff.phase !== 'frozen')
    return 'persisting is only written while a migration is frozen (its persist step)';
  const persisting = readCheckpoint(v['persisting'], config, handoff.key);
  if (typeof persisting === 'string') return `persisting: ${persisting}`;
  return { keys: table, handoff, lastRelease, persisting };
}

function readCheckpoint(v: unknown, config: ClusterConfig, key: string): Checkpoint | string {
  if (!isObject(v) || !hasExactly(v, ['key', 'epoch', 'cursor', 'state'])) return 'checkpoint must be {key, epoch, cursor, state}';
  if (v['key'] !== key) return `checkpoint is for key ${JSON.stringify(v['key'])}`;
  if (!isEpoch(v['epoch']) || !isInteger(v['cursor']) || v['cursor'] < 0) return 'checkpoint epoch and cursor must be integers';
  try {
    readSnapshot(config.join, v['state']);
  } catch (e) {
    if (e instanceof SnapshotError) return `checkpoint state ${e.message}`;
    throw e;
  }
  return v as unknown as Checkpoint;
}

function readInstallMessage(v: unknown, config: ClusterConfig, stem: string): InstallMessage | string {
  if (!isObject(v) || !hasExactly(v, ['key', 'dst', 'epoch', 'checkpoint'])) return 'must be {key, dst, epoch, checkpoint}';
  const key = v['key'];
  if (typeof key !== 'string' || !config.keys.some((k) => k.key === key)) return 'key is not a declared key';
  if (fileStemOf(key) !== stem) return `the message is for key ${JSON.stringify(key)}, not the key of the file name`;
  if (typeof v['dst'] !== 'string' || !config.workers.includes(v['dst'])) return 'dst is not a worker';
  if (!isEpoch(v['epoch']) || v['epoch'] < 2) return 'epoch must be an integer >= 2 (a handoff commits from + 1)';
  let checkpoint: Checkpoint | null = null;
  if (v['checkpoint'] !== null) {
    const c = readCheckpoint(v['checkpoint'], config, key);
    if (typeof c === 'string') return c;
    checkpoint = c;
  }
  return { key, dst: v['dst'], epoch: v['epoch'], checkpoint };
}

/** Checks every entry of a journal with `problem`; throws naming the path and line of the first bad one. */
function checkedEntries<T>(path: string, entries: readonly JournalEntry[], problem: (v: unknown) => string | undefined): T[] {
  return entries.map(({ line, value }) => {
    const p = problem(value);
    if (p !== undefined) throw new DurableStateError(`${path}:${line}`, `${p}; the file is not loaded`);
    return value as T;
  });
}

const nonEmptyFile = (path: string): boolean => existsSync(path) && statSync(path).size > 0;
const nonEmptyDirectory = (path: string): boolean => existsSync(path) && readdirSync(path).length > 0;

export interface FileStorageOptions {
  /** Crash injection for tests: called at every point of every durable write (see durableFiles.ts). */
  readonly onWritePoint?: WritePointHook;
}

/** The on-disk backend; see the file comment. One process owns a directory at a time. */
export class FileStorage implements ClusterStorage {
  readonly directory: string;
  readonly recovered: boolean;
  readonly log: InputLog;
  readonly coordinator: CoordinatorStore;
  readonly checkpoints: CheckpointStore;
  readonly sink: SinkJournal;
  private readonly found: RecoveryProblem[];
  private readonly journals: JournalFile[];

  private constructor(
    directory: string,
    recovered: boolean,
    parts: { log: InputLog; coordinator: CoordinatorStore; checkpoints: CheckpointStore; sink: SinkJournal },
    found: RecoveryProblem[],
    journals: JournalFile[],
  ) {
    this.directory = directory;
    this.recovered = recovered;
    this.log = parts.log;
    this.coordinator = parts.coordinator;
    this.checkpoints = parts.checkpoints;
    this.sink = parts.sink;
    this.found = found;
    this.journals = journals;
  }

  /**
   * Opens `directory` for a cluster with `config`, creating it if needed.
   * Throws DurableStateError (naming the path) when a file is corrupt or the
   * directory was made for another config; nothing is loaded then.
   */
  static open(directory: string, config: ClusterConfig, options: FileStorageOptions = {}): FileStorage {
    const hook = options.onWritePoint;
    const paths = {
      config: join(directory, 'config.json'),
      log: join(directory, 'log.jsonl'),
      coordinator: join(directory, 'coordinator.json'),
      install: join(directory, 'install'),
      sink: join(directory, 'sink.jsonl'),
      checkpoints: join(directory, 'checkpoints'),
    };
    try {
      mkdirSync(paths.install, { recursive: true });
    } catch (e) {
      throw new DurableStateError(directory, `cannot create the data directory (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
    const found: RecoveryProblem[] = [];
    const journals: JournalFile[] = [];
    try {
      for (const p of [paths.config, paths.coordinator]) {
        const leftover = clearLeftover(p);
        if (leftover) found.push(leftover);
      }
      const declared = new Set(config.keys.map((k) => k.key));

      const storedConfig = readDocument(paths.config, CLUSTER_CONFIG_FORMAT);
      const recovered = storedConfig !== undefined;
      if (recovered) {
        if (!isObject(storedConfig) || canonicalConfig(storedConfig as unknown as ClusterConfig) !== canonicalConfig(config)) {
          throw new DurableStateError(
            paths.config,
            `the directory holds a cluster with another config (${JSON.stringify(storedConfig)}); refusing to open it with ${canonicalConfig(config)}`,
          );
        }
      } else {
        // A directory without config.json holds no cluster; state files there are someone else's.
        for (const p of [paths.log, paths.sink, paths.coordinator]) {
          if (nonEmptyFile(p))
            throw new DurableStateError(
              p,
              'found in a data directory without config.json: not state this cluster wrote; refusing to use it',
            );
        }
        for (const p of [paths.install, paths.checkpoints]) {
          if (nonEmptyDirectory(p))
            throw new DurableStateError(
              p,
              'found in a data directory without config.json: not state this cluster wrote; refusing to use it',
            );
        }
        writeDocument(paths.config, CLUSTER_CONFIG_FORMAT, JSON.parse(canonicalConfig(config)), hook);
      }

      // The input log.
      const logFile = JournalFile.open(paths.log, hook);
      journals.push(logFile.journal);
      found.push(...logFile.problems);
      const records = checkedEntries<LogRecord>(paths.log, logFile.entries, (v) => recordProblem(v, config, declared));
      const logJournal = logFile.journal;
      const log: InputLog = {
        get length() {
          return records.length;
        },
        at: (index) => records[index] as LogRecord,
        append: (record) => {
          logJournal.append(record);
          records.push(record);
        },
      };

      // The coordinator's record and install messages.
      const rawCoordinator = readDocument(paths.coordinator, COORDINATOR_FORMAT);
      let coordinatorRecord: CoordinatorRecord | undefined;
      if (rawCoordinator !== undefined) {
        const r = readCoordinatorRecord(rawCoordinator, config);
        if (typeof r === 'string') throw new DurableStateError(paths.coordinator, `${r}; the file is not loaded`);
        coordinatorRecord = r;
      }
      const installs: InstallMessage[] = [];
      for (const name of readdirSync(paths.install).sort()) {
        const path = join(paths.install, name);
        if (name.endsWith('.json.tmp')) {
          const leftover = clearLeftover(path.slice(0, -'.tmp'.length));
          if (leftover) found.push(leftover);
          continue;
        }
        const m = /^([kh][0-9a-f]+)\.json$/.exec(name);
        if (m === null) throw new DurableStateError(path, 'not an install message file name; refusing to guess what it is');
        const message = readInstallMessage(readDocument(path, INSTALL_MESSAGE_FORMAT), config, m[1] as string);
        if (typeof message === 'string') throw new DurableStateError(path, `${message}; the file is not loaded`);
        installs.push(message);
      }
      const coordinator: CoordinatorStore = {
        load: () => coordinatorRecord,
        save: (record) => {
          writeDocument(paths.coordinator, COORDINATOR_FORMAT, record, hook);
          coordinatorRecord = record;
        },
        installMessages: () => [...installs],
        saveInstall: (message) =>
          writeDocument(join(paths.install, `${fileStemOf(message.key)}.json`), INSTALL_MESSAGE_FORMAT, message, hook),
      };

      // The sink's journal.
      const sinkFile = JournalFile.open(paths.sink, hook);
      journals.push(sinkFile.journal);
      found.push(...sinkFile.problems);
      const sinkEntries = checkedEntries<SinkEntry>(paths.sink, sinkFile.entries, (v) => sinkEntryProblem(v, declared));
      const sinkJournal = sinkFile.journal;
      const sink: SinkJournal = {
        recovered: () => sinkEntries,
        append: (entry) => sinkJournal.append(entry),
      };

      // The checkpoint store.
      const checkpoints = FileCheckpointStore.open(
        paths.checkpoints,
        hook === undefined ? {} : { onWritePoint: (point, path) => hook(`checkpoint-${point}`, path) },
      );
      for (const p of checkpoints.problems()) found.push({ path: p.path, detail: `checkpoint ${p.kind}: ${p.detail}` });

      return new FileStorage(directory, recovered, { log, coordinator, checkpoints, sink }, found, journals);
    } catch (e) {
      for (const j of journals) j.close();
      if (e instanceof DurableStateError) throw e;
      // Whatever else failed (a directory that cannot be listed, a checkpoint store that cannot open) is reported, not a crash.
      const where = e instanceof CheckpointStoreError && e.path !== undefined ? e.path : directory;
      throw new DurableStateError(
        where,
        `cannot open (${(e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e))})`,
      );
    }
  }

  problems(): RecoveryProblem[] {
    return this.found.map((p) => ({ ...p }));
  }

  where(part: StoragePart): string {
    const names: Record<StoragePart, string> = {
      log: 'log.jsonl',
      coordinator: 'coordinator.json',
      install: 'install',
      checkpoints: 'checkpoints',
      sink: 'sink.jsonl',
    };
    return join(this.directory, names[part]);
  }

  close(): void {
    for (const j of this.journals) j.close();
    this.checkpoints.close();
  }
}
