// `streamjoin audit --example DIR`: a recorded history to audit, from one
// command. The implementation's cluster runs a random trace under faults
// (clusterHistory.ts) with the recorder on, is brought back to quiescence,
// and leaves DIR/log.jsonl, DIR/sink.jsonl and DIR/config.json; optionally in
// another format, gzip-compressed, or with one kind of damage in its sink.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { LogRecord } from '../../spec/index.ts';
import { exampleTrace, recordClusterHistory } from './clusterHistory.ts';
import { damageSink, type Damage, type DamageKind } from './damage.ts';
import { logLineAs, sinkLineAs, type HistoryFormat, type SinkChange } from './formats.ts';
import { CONFIG_FILE, LOG_FILE, SINK_FILE } from '../adapters/recorder.ts';
import { seededRandom } from '../generate/seededRandom.ts';

/** Options of the example history (`audit --example DIR`). */
export interface ExampleOptions {
  /** The directory the files are written to. */
  readonly dir: string;
  /** Seed of the generated cluster run; the same seed writes the same files. */
  readonly seed: number;
  /** How many records the workload has. */
  readonly records: number;
  /** The history format the files are written in. */
  readonly format: HistoryFormat;
  /** Write the files gzipped. */
  readonly gzip: boolean;
  /** Damage the recorded sink with this kind. */
  readonly damage?: DamageKind;
}

/** An example history as written: the files and their counts. */
export interface ExampleHistory {
  /** Path of the log file. */
  readonly log: string;
  /** Path of the sink file. */
  readonly sink: string;
  /** Path of the cluster config file. */
  readonly config: string;
  /** Cluster actions run, recovery included. */
  readonly actions: number;
  /** Records in the log. */
  readonly records: number;
  /** Changes in the sink. */
  readonly changes: number;
  /** Why the cluster did not reach quiescence, if it did not. */
  readonly incomplete?: string;
  /** The damage done, when asked for. */
  readonly damage?: Damage;
}

/** Writes an example history into `options.dir`; throws if the damage has no place in this history (try another seed). */
export function writeExampleHistory(options: ExampleOptions): ExampleHistory {
  const recorded = recordClusterHistory(exampleTrace(options.seed, options.records), options.dir);
  const logPath = join(options.dir, LOG_FILE);
  const sinkPath = join(options.dir, SINK_FILE);
  let sinkText = readFileSync(sinkPath, 'utf8');
  let damage: Damage | undefined;
  if (options.damage !== undefined) {
    damage = damageSink(sinkText, options.damage, seededRandom(options.seed ^ 0x5bd1e995)); // its own stream: not the trace's;
    if (damage === undefined) throw new Error(`this history has no place for damage "${options.damage}": try another --seed`);
    sinkText = damage.text;
  }
  let logText = readFileSync(logPath, 'utf8');
  if (options.format !== 'streamjoin') {
    // Other formats have no header: the config is in config.json (audit --config).
    logText = convert(logText, (v) => ('format' in v ? undefined : logLineAs(options.format, v as unknown as LogRecord)));
    sinkText = convert(sinkText, (v) => ('end' in v ? JSON.stringify(v) : sinkLineAs(options.format, v as unknown as SinkChange)));
  }
  const out = (path: string, text: string): string => {
    if (!options.gzip) {
      writeFileSync(path, text);
      return path;
    }
    rmSync(path, { force: true });
    writeFileSync(`${path}.gz`, gzipSync(text));
    return `${path}.gz`;
  };
  const log = out(logPath, logText);
  const sink = out(sinkPath, sinkText);
  const configPath = join(options.dir, CONFIG_FILE);
  const records = logText.split('\n').filter((l) => l !== '').length - (options.format === 'streamjoin' ? 1 : 0);
  const changes = sinkText.split('\n').filter((l) => l !== '' && !l.startsWith('{"end"')).length;
  const base = { log, sink, config: configPath, actions: recorded.actions + recorded.recovery, records, changes };
  return {
    ...base,
    ...(recorded.incomplete === undefined ? {} : { incomplete: recorded.incomplete }),
    ...(damage === undefined ? {} : { damage }),
  };
}

/** Each line (but a cut last one, which stays as it is) through `f`; a line `f` drops is left out. */
function convert(text: string, f: (value: Record<string, unknown>) => string | undefined): string {
  const lines = text.split('\n');
  const last = lines.pop() as string;
  const out: string[] = [];
  for (const line of lines) {
    if (line === '') continue;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(line) as Record<string, unknown>;
    } catch {
      out.push(line); // a malformed line (damage) stays malformed
      continue;
    }
    const converted = f(value);
    if (converted !== undefined) out.push(converted);
  }
  return `${out.map((l) => `${l}\n`).join('')}${last}`;
}
