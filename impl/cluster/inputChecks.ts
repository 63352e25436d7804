// What the cluster checks of its inputs before any rule applies: the config
// (C1 and the cluster-config schema's checks a schema cannot express) and the
// shape of a record action's record.
import { COORDINATOR, type ClusterConfig, type LogRecord } from '../../spec/index.ts';
import { ConfigError } from '../errors.ts';
import { JoinOperator } from '../operator.ts';

// Stryker disable all: config validation, unreachable through the protocol (docs/mutation.md)
/** C1 / cluster-config schema: the checks a schema cannot express. Throws ConfigError naming the field. */
export function checkConfig(config: ClusterConfig): void {
  if (!Array.isArray(config.workers) || config.workers.length === 0) throw new ConfigError('config.workers must list at least one worker');
  const workers = new Set<string>();
  config.workers.forEach((w, i) => {
    if (typeof w !== 'string' || w === '') throw new ConfigError(`config.workers[${i}] must be a non-empty string`);
    if (w === COORDINATOR) throw new ConfigError(`config.workers[${i}] must not be "${COORDINATOR}", the coordinator's node id`);
    if (workers.has(w)) throw new ConfigError(`config.workers[${i}] repeats worker ${JSON.stringify(w)}`);
    workers.add(w);
  });
  if (!Array.isArray(config.keys) || config.keys.length === 0) throw new ConfigError('config.keys must declare at least one key');
  const keys = new Set<string>();
  config.keys.forEach(({ key, owner }, i) => {
    if (typeof key !== 'string' || key === '') throw new ConfigError(`config.keys[${i}].key must be a non-empty string`);
    if (keys.has(key)) throw new ConfigError(`config.keys[${i}] repeats key ${JSON.stringify(key)}`);
    if (!workers.has(owner)) throw new ConfigError(`config.keys[${i}].owner ${JSON.stringify(owner)} is not a listed worker`);
    keys.add(key);
  });
  // J0, by the operator's own check.
  new JoinOperator(config.join);
}
// Stryker restore all

/** A copy of the record with exactly its fields, so the log never aliases the caller's object. */
export function copyOfRecord(record: LogRecord): LogRecord {
  // Stryker disable next-line all: record validation, unreachable through the protocol (docs/mutation.md)
  if (typeof record !== 'object' || record === null) throw new TypeError('a record action needs a record object');
  switch (record.kind) {
    case 'watermark':
      return { kind: 'watermark', side: record.side, wm: record.wm };
    case 'insert':
    case 'retract':
      // mutant: reversed-interval-swapped
      return { kind: record.kind, key: record.key, side: record.side, id: record.id, ts: record.ts, start: record.start, end: record.end };
    // Stryker disable all: record validation, unreachable through the protocol (docs/mutation.md)
    default:
      throw new TypeError(
        `record.kind must be insert, retract or watermark, got ${JSON.stringify((record as { kind?: unknown } | undefined)?.kind)}`,
      );
  }
}
// Stryker restore all
