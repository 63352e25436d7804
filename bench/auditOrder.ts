// `streamjoin audit` whatever the order of the sink: the same history with
// its sink in log order and grouped by key (the part files of a sink
// partitioned by key, concatenated, each part in log order), each audited by
// `streamjoin audit` itself in its own process, with no flag: seconds, CPU
// seconds, records per CPU second and peak RSS (GNU time's, which counts the
// audit's thread and every process it starts), side by side. With
// `--before DIR` (a checkout of an earlier streamjoin, e.g. `git worktree
// add DIR COMMIT`), the same files are audited by it too, alternating, so
// the machine's load touches both alike. With `--shards 2,4`, shard 1 of N
// (`--shard 1/N`) of the largest history in log order: one shard's rate and
// memory (the shards are alike: keys spread by hash).
//
//   node --import tsx bench/auditOrder.ts [--seed N] [--sizes 100000,1000000] [--keys K] [--window ROWS]
//        [--max-interval D] [--parts P] [--data DIR] [--before DIR] [--shards 2,4]
//
// --data DIR keeps the generated histories (log-N.jsonl, sink-N.jsonl,
// grouped-N.jsonl) and reuses them on the next run: 10^7 records take
// minutes to write. Prints Markdown tables and the machine's load. Needs GNU
// time (/usr/bin/time).
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parsedFlags, seedFlag } from './support.ts';
import { JoinOperator } from '../impl/index.ts';
import { shardOfKey } from '../conformance/audit/keyShard.ts';
import { slidingLogConfig, writeSlidingHistory } from '../conformance/generate/slidingLogs.ts';

const USAGE = `usage: node --import tsx bench/auditOrder.ts [--seed N] [--sizes 100000,1000000] [--keys K] [--window ROWS]
         [--max-interval D] [--parts P] [--data DIR] [--before DIR] [--shards 2,4]`;
const { values: flags } = parsedFlags(USAGE, () =>
  parseArgs({
    options: {
      seed: { type: 'string' },
      sizes: { type: 'string' },
      keys: { type: 'string' },
      window: { type: 'string' },
      parts: { type: 'string' },
      'max-interval': { type: 'string' },
      data: { type: 'string' },
      before: { type: 'string' },
      shards: { type: 'string' },
    },
  }),
);
const seed = seedFlag(flags.seed);
const SIZES = (flags.sizes ?? '100000,1000000').split(',').map(Number);
// The dense profile: about 1.7 sink changes per log record.
const KEYS = Number(flags.keys ?? 1000);
const WINDOW = Number(flags.window ?? 30);
const MAX_INTERVAL = Number(flags['max-interval'] ?? 12_000);
const PARTS = Number(flags.parts ?? 8);
const SHARDS = flags.shards === undefined ? [] : flags.shards.split(',').map(Number);
const n = (x: number): string => Math.round(x).toLocaleString('en-US');
const TIME = '/usr/bin/time';

interface Measured {
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly peakRssMb: number;
  readonly verdict: string;
  readonly records: number;
  readonly changes: number;
  readonly partitions: number;
}

/** The sink grouped by key: its lines split into `parts` files by key hash (each in log order), concatenated. */
function groupByKey(sink: string, out: string, parts: number): void {
  const fds = Array.from({ length: parts }, (_, i) => openSync(`${out}.part${i}`, 'w'));
  const buffers: string[][] = fds.map(() => []);
  const flush = (i: number): void => {
    const b = buffers[i] as string[];
    if (b.length > 0) writeSync(fds[i] as number, `${b.join('\n')}\n`);
    b.length = 0;
  };
  // Read in slices so that a 10^7-record sink is never held whole.
  const fd = openSync(sink, 'r');
  const chunk = Buffer.alloc(1 << 22);
  let rest = '';
  for (;;) {
    const got = readSync(fd, chunk, 0, chunk.length, null);
    if (got === 0) break;
    const lines = (rest + chunk.subarray(0, got).toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') continue;
      const p = shardOfKey((JSON.parse(line) as { key: string }).key, parts) - 1;
      (buffers[p] as string[]).push(line);
      if ((buffers[p] as string[]).length >= 4096) flush(p);
    }
  }
  closeSync(fd);
  const outFd = openSync(`${out}.tmp`, 'w');
  for (let i = 0; i < parts; i++) {
    flush(i);
    closeSync(fds[i] as number);
    writeSync(outFd, readFileSync(`${out}.part${i}`));
    rmSync(`${out}.part${i}`);
  }
  closeSync(outFd);
  renameSync(`${out}.tmp`, out);
}

/** `streamjoin audit` of a checkout, as a user runs it (no flag but --json), under GNU time. */
function audit(checkout: string, log: string, sink: string, extra: string[] = []): Measured {
  const timing = join(tmpdir(), `sj-bench-time-${process.pid}`);
  const c = spawnSync(
    TIME,
    [
      '-f',
      '%e %U %S %M',
      '-o',
      timing,
      process.execPath,
      join(checkout, 'bin', 'streamjoin.js'),
      'audit',
      '--log',
      log,
      '--sink',
      sink,
      '--json',
      '--quiet',
      ...extra,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  const [wall, user, sys, rssKb] = readFileSync(timing, 'utf8').trim().split('\n').at(-1)?.split(' ').map(Number) ?? [];
  rmSync(timing, { force: true });
  if (c.status !== 0) throw new Error(`audit by ${checkout} failed (exit ${c.status}): ${c.stderr.slice(-2000)}`);
  const r = JSON.parse(c.stdout) as { verdict: string; log: { records: number }; sink: { changes: number }; stats: { partitions: number } };
  if (r.verdict !== 'valid') throw new Error(`the history audits ${r.verdict}: the benchmark needs valid histories`);
  return {
    seconds: wall ?? 0,
    cpuSeconds: (user ?? 0) + (sys ?? 0),
    peakRssMb: (rssKb ?? 0) / 1024,
    verdict: r.verdict,
    records: r.log.records,
    changes: r.sink.changes,
    partitions: r.stats.partitions,
  };
}

/**
 * The floor of any audit that parses every line with JSON.parse: a child
 * process that reads the log and the sink in 1 MiB chunks, as the audit's
 * reader does, and parses each line, nothing else; under GNU time like the
 * audit, its start-up included.
 */
const PARSE_ONLY = `
const { openSync, readSync, closeSync } = require('node:fs');
let lines = 0;
for (const path of process.argv.slice(1)) {
  const fd = openSync(path, 'r');
  const chunk = Buffer.alloc(1 << 20);
  let rest = '';
  for (let got = readSync(fd, chunk); got > 0; got = readSync(fd, chunk)) {
    const parts = (rest + chunk.toString('utf8', 0, got)).split('\\n');
    rest = parts.pop();
    for (const line of parts) if (line !== '' && JSON.parse(line) !== undefined) lines++;
  }
  if (rest !== '' && JSON.parse(rest) !== undefined) lines++;
  closeSync(fd);
}
process.stdout.write(String(lines));
`;

function parseOnly(log: string, sink: string): { seconds: number; cpuSeconds: number; peakRssMb: number } {
  const timing = join(tmpdir(), `sj-bench-time-${process.pid}`);
  const c = spawnSync(TIME, ['-f', '%e %U %S %M', '-o', timing, process.execPath, '-e', PARSE_ONLY, log, sink], {
    encoding: 'utf8',
  });
  const [wall, user, sys, rssKb] = readFileSync(timing, 'utf8').trim().split('\n').at(-1)?.split(' ').map(Number) ?? [];
  rmSync(timing, { force: true });
  if (c.status !== 0) throw new Error(`the parse-only reader failed (exit ${c.status}): ${c.stderr.slice(-2000)}`);
  return { seconds: wall ?? 0, cpuSeconds: (user ?? 0) + (sys ?? 0), peakRssMb: (rssKb ?? 0) / 1024 };
}

function row(cells: string[]): void {
  console.log(`| ${cells.join(' | ')} |`);
}
function header(cells: string[], left: number): void {
  row(cells);
  console.log(`|${cells.map((_, i) => (i < left ? ':---' : '---:')).join('|')}|`);
}

const here = resolve(import.meta.dirname, '..');
const checkouts: [string, string][] =
  flags.before === undefined
    ? [['this', here]]
    : [
        ['before', resolve(flags.before)],
        ['this', here],
      ];
const load0 = loadavg()[0] ?? 0;
console.log(
  `streamjoin audit by sink order: seed ${seed}; node ${process.version}, ${availableParallelism()} cores ` +
    `(${cpus()[0]?.model ?? '?'}), load average ${load0.toFixed(1)} at the start\n`,
);
const dir = flags.data ?? mkdtempSync(join(tmpdir(), 'sj-bench-order-'));
mkdirSync(dir, { recursive: true });
const files = (size: number): { log: string; sink: string; grouped: string } => ({
  log: join(dir, `log-${size}.jsonl`),
  sink: join(dir, `sink-${size}.jsonl`),
  grouped: join(dir, `grouped-${size}.jsonl`),
});
try {
  header(
    [
      'records',
      'sink order',
      'audit',
      'log + sink MB',
      'seconds',
      'CPU seconds',
      'records per CPU second',
      'peak RSS MB',
      'partitions',
      'load after',
    ],
    3,
  );
  for (const size of SIZES) {
    const { log, sink, grouped } = files(size);
    if (!existsSync(sink)) {
      const options = { records: size, keys: KEYS, window: WINDOW, seed, maxIntervalLength: MAX_INTERVAL };
      writeSlidingHistory(log, `${sink}.tmp`, options, new JoinOperator(slidingLogConfig(options)));
      renameSync(`${sink}.tmp`, sink);
    }
    if (!existsSync(grouped)) groupByKey(sink, grouped, PARTS);
    const floor = parseOnly(log, sink);
    row([
      n(size),
      'log order',
      'JSON.parse of each line alone',
      `${((statSync(log).size + statSync(sink).size) / 2 ** 20).toFixed(0)}`,
      floor.seconds.toFixed(1),
      floor.cpuSeconds.toFixed(1),
      n(size / floor.cpuSeconds),
      floor.peakRssMb.toFixed(0),
      '—',
      (loadavg()[0] ?? 0).toFixed(1),
    ]);
    for (const [order, file] of [
      ['log order', sink],
      [`grouped by key (${PARTS} parts)`, grouped],
    ] as const) {
      for (const [name, checkout] of checkouts) {
        const r = audit(checkout, log, file);
        // Each row as it is measured: a long run shows what it has.
        row([
          n(size),
          order,
          name,
          `${((statSync(log).size + statSync(file).size) / 2 ** 20).toFixed(0)}`,
          r.seconds.toFixed(1),
          r.cpuSeconds.toFixed(1),
          n(size / r.cpuSeconds),
          r.peakRssMb.toFixed(0),
          String(r.partitions),
          (loadavg()[0] ?? 0).toFixed(1),
        ]);
      }
    }
  }
  const largest = Math.max(...SIZES);
  if (SHARDS.length > 0) {
    console.log(
      `\nOne shard of the ${n(largest)}-record history, sink in log order (\`--shard 1/N\`; each shard reads both files whole):\n`,
    );
    header(['shards N', 'seconds', 'CPU seconds', 'records per CPU second (of the whole log)', 'peak RSS MB', 'load after'], 1);
    const { log, sink } = files(largest);
    for (const count of SHARDS) {
      const r = audit(here, log, sink, count > 1 ? ['--shard', `1/${count}`] : []);
      row([
        String(count),
        r.seconds.toFixed(1),
        r.cpuSeconds.toFixed(1),
        n(largest / r.cpuSeconds),
        r.peakRssMb.toFixed(0),
        (loadavg()[0] ?? 0).toFixed(1),
      ]);
    }
  }
} finally {
  if (flags.data === undefined) rmSync(dir, { recursive: true, force: true });
}
console.log(`\nSliding histories over ${n(KEYS)} keys, about ${WINDOW} live rows per key; the sink with key, epoch and sequence numbers.`);
