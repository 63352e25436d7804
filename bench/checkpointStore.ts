// Checkpoint store benchmark: cost of one durable `put` per backend, side by
// side in one run, for small and large operator states.
//
//   node --import tsx bench/checkpointStore.ts
//
// The SQLite row is the alternative the file backend was chosen over. It
// runs only when better-sqlite3 is installed (it is not a dependency:
// `npm install --no-save better-sqlite3@12` to include it), and stores the
// same bytes with the same checksum in one WAL transaction with
// synchronous=FULL, keeping two generations like the file backend, after the
// same snapshot validation.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FileCheckpointStore, JoinOperator, MemoryCheckpointStore } from '../impl/index.ts';
import type { Checkpoint, CheckpointStore } from '../impl/index.ts';
import { readSnapshot, type OperatorSnapshot } from '../impl/snapshot.ts';
import { parsedFlags } from './support.ts';

// It takes no flags: anything given is a mistake, said so (exit 254).
parsedFlags('usage: node --import tsx bench/checkpointStore.ts', () => parseArgs({ options: {} }));

interface SqliteStatement {
  run(...params: unknown[]): unknown;
}
interface SqliteDatabase {
  pragma(text: string): unknown;
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatement;
  transaction<A extends unknown[]>(f: (...args: A) => void): (...args: A) => void;
  close(): void;
}
type SqliteConstructor = new (path: string) => SqliteDatabase;

async function loadSqlite(): Promise<SqliteConstructor | undefined> {
  const name = 'better-sqlite3';
  try {
    const module = (await import(name)) as { default: SqliteConstructor };
    return module.default;
  } catch {
    return undefined;
  }
}

/** A put-only SQLite store with the file backend's guarantees: checksum, two generations, durable on return. */
function sqliteStore(Database: SqliteConstructor, path: string): { put(c: Checkpoint): void; close(): void } {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE checkpoint (key TEXT, generation INTEGER, body TEXT, sha256 TEXT, PRIMARY KEY (key, generation))');
  const insert = db.prepare('INSERT INTO checkpoint VALUES (?, ?, ?, ?)');
  const prune = db.prepare('DELETE FROM checkpoint WHERE key = ? AND generation < ?');
  const generations = new Map<string, number>();
  const write = db.transaction((key: string, generation: number, body: string) => {
    insert.run(key, generation, body, createHash('sha256').update(body).digest('hex'));
    prune.run(key, generation - 1);
  });
  return {
    put(c) {
      // The same validation the other backends run, so the rows compare storage cost only.
      readSnapshot(c.state.config, c.state);
      const generation = (generations.get(c.key) ?? 0) + 1;
      generations.set(c.key, generation);
      write(c.key, generation, JSON.stringify({ key: c.key, epoch: c.epoch, cursor: c.cursor, state: c.state }));
    },
    close: () => db.close(),
  };
}

function stateOf(rows: number): OperatorSnapshot {
  const op = new JoinOperator({ allowedLateness: 5, maxIntervalLength: 8 });
  for (let i = 0; i < rows; i++) op.apply({ kind: 'insert', key: 'k', side: i % 2 ? 'L' : 'R', id: `r${i}`, ts: i, start: i, end: i + 3 });
  return op.snapshot();
}

function microsPerPut(store: { put(c: Checkpoint): void }, state: OperatorSnapshot, puts: number): number {
  for (let i = 0; i < 20; i++) store.put({ key: `w${i % 4}`, epoch: i, cursor: i, state });
  const t = performance.now();
  for (let i = 0; i < puts; i++) store.put({ key: `k${i % 10}`, epoch: i, cursor: i, state });
  return ((performance.now() - t) * 1000) / puts;
}

const Database = await loadSqlite();
const scratch = mkdtempSync(join(os.tmpdir(), 'streamjoin-store-bench-'));
console.log('# checkpoint store: microseconds per durable put');
console.log();
console.log(
  `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}; directory ${scratch}`,
);
console.log();
console.log('| rows in state | JSON bytes | memory µs | file µs | SQLite µs | file / SQLite |');
console.log('|---:|---:|---:|---:|---:|---:|');
try {
  for (const rows of [10, 1_000, 10_000]) {
    const state = stateOf(rows);
    const puts = rows >= 10_000 ? 40 : 300;
    const memory: CheckpointStore = new MemoryCheckpointStore();
    const m = microsPerPut(memory, state, puts);
    const file = FileCheckpointStore.open(join(scratch, `file-${rows}`));
    const f = microsPerPut(file, state, puts);
    file.close();
    let sq: number | undefined;
    if (Database !== undefined) {
      const store = sqliteStore(Database, join(scratch, `sqlite-${rows}.db`));
      sq = microsPerPut(store, state, puts);
      store.close();
    }
    const bytes = JSON.stringify(state).length;
    const s = sq === undefined ? 'not installed' : sq.toFixed(0);
    console.log(
      `| ${rows.toLocaleString('en')} | ${bytes.toLocaleString('en')} | ${m.toFixed(0)} | ${f.toFixed(0)} | ${s} | ${sq === undefined ? '—' : `${(f / sq).toFixed(1)}×`} |`,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
console.log();
console.log(
  'Every backend validates the snapshot on put (as restore would); memory is that validation plus serialization, so file − memory and SQLite − memory are the storage costs.',
);
