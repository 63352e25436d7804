// `streamjoin audit` whatever the order of the sink: the same history with
// its sink in log order and grouped by key (the part files of a sink
// partitioned by key, concatenated, each part in log order), each audited by
// its own child process exactly as `streamjoin audit` runs it: seconds, CPU
// seconds, records per CPU second and peak RSS, side by side.
//
//   node --import tsx bench/auditOrder.ts [--seed N] [--sizes 100000,1000000] [--keys K] [--window ROWS]
//                                         [--max-interval D] [--parts P] [--heap MB]
//
// Prints a Markdown table and the machine's load.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { JoinOperator } from '../impl/index.ts';
import { auditHistory } from '../conformance/audit/audit.ts';
import { shardOfKey } from '../conformance/audit/keyShard.ts';
import { slidingLogConfig, writeSlidingHistory } from '../conformance/generate/slidingLogs.ts';

const { values: flags } = parseArgs({
  options: {
    seed: { type: 'string' },
    sizes: { type: 'string' },
    keys: { type: 'string' },
    window: { type: 'string' },
    parts: { type: 'string' },
    'max-interval': { type: 'string' },
    heap: { type: 'string' },
    child: { type: 'string' },
    sink: { type: 'string' },
  },
});
const seed = flags.seed !== undefined ? Number(flags.seed) : (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
const SIZES = (flags.sizes ?? '100000,1000000').split(',').map(Number);
// The dense profile: about 1.7 sink changes per log record.
const KEYS = Number(flags.keys ?? 1000);
const WINDOW = Number(flags.window ?? 30);
const MAX_INTERVAL = Number(flags['max-interval'] ?? 12_000);
const PARTS = Number(flags.parts ?? 8);
/** --heap MB: the children's V8 old-space limit (node's --max-old-space-size); by default node's own. */
const HEAP = flags.heap === undefined ? [] : [`--max-old-space-size=${Number(flags.heap)}`];
const n = (x: number): string => Math.round(x).toLocaleString('en-US');

interface ChildResult {
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly peakRssMb: number;
  readonly verdict: string;
  readonly records: number;
  readonly changes: number;
  readonly partitions: number;
}

async function child(log: string, sink: string): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await auditHistory({ log, sink });
  const u = process.cpuUsage(cpu0);
  const result: ChildResult = {
    seconds: (performance.now() - t0) / 1000,
    cpuSeconds: (u.user + u.system) / 1e6,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    verdict: r.verdict,
    records: r.log.records,
    changes: r.sink.changes,
    partitions: r.stats.partitions,
  };
  console.log(JSON.stringify(result));
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
    const got = readSyncInto(fd, chunk);
    if (got === 0) break;
    const text = rest + chunk.subarray(0, got).toString('utf8');
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') continue;
      const key = (JSON.parse(line) as { key: string }).key;
      const p = shardOfKey(key, parts) - 1;
      (buffers[p] as string[]).push(line);
      if ((buffers[p] as string[]).length >= 4096) flush(p);
    }
  }
  closeSync(fd);
  const outFd = openSync(out, 'w');
  for (let i = 0; i < parts; i++) {
    flush(i);
    closeSync(fds[i] as number);
    writeSync(outFd, readFileSync(`${out}.part${i}`));
    rmSync(`${out}.part${i}`);
  }
  closeSync(outFd);
}

const readSyncInto = (fd: number, buffer: Buffer): number => readSync(fd, buffer, 0, buffer.length, null);

function audit(log: string, sink: string): ChildResult {
  const c = spawnSync(
    process.execPath,
    [...HEAP, '--import', 'tsx', join(import.meta.dirname, 'auditOrder.ts'), '--child', log, '--sink', sink],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    },
  );
  if (c.status !== 0) throw new Error(`audit failed: ${c.stderr}`);
  const r = JSON.parse(c.stdout.trim().split('\n').at(-1) ?? '') as ChildResult;
  if (r.verdict !== 'valid') throw new Error(`the history audits ${r.verdict}: the benchmark needs valid histories`);
  return r;
}

if (flags.child !== undefined) {
  await child(flags.child, flags.sink as string);
} else {
  const load0 = loadavg()[0] ?? 0;
  console.log(
    `streamjoin audit by sink order: seed ${seed}; node ${process.version}, ${availableParallelism()} cores ` +
      `(${cpus()[0]?.model ?? '?'}), load average ${load0.toFixed(1)} at the start\n`,
  );
  const header = [
    'records',
    'sink order',
    'sink changes',
    'log + sink MB',
    'seconds',
    'CPU seconds',
    'records per CPU second',
    'peak RSS MB',
    'partitions',
    'load after',
  ];
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map((_, i) => (i < 2 ? ':---' : '---:')).join('|')}|`);
  const dir = mkdtempSync(join(tmpdir(), 'sj-bench-order-'));
  const rows: string[][] = [];
  try {
    for (const size of SIZES) {
      const options = { records: size, keys: KEYS, window: WINDOW, seed, maxIntervalLength: MAX_INTERVAL };
      const log = join(dir, 'log.jsonl');
      const sink = join(dir, 'sink.jsonl');
      const grouped = join(dir, 'sink-grouped.jsonl');
      const changes = writeSlidingHistory(log, sink, options, new JoinOperator(slidingLogConfig(options)));
      groupByKey(sink, grouped, PARTS);
      for (const [order, file] of [
        ['log order', sink],
        [`grouped by key (${PARTS} parts)`, grouped],
      ] as const) {
        const r = audit(log, file);
        rows.push([
          n(size),
          order,
          n(changes),
          `${((statSync(log).size + statSync(file).size) / 2 ** 20).toFixed(0)}`,
          r.seconds.toFixed(1),
          r.cpuSeconds.toFixed(1),
          n(size / r.cpuSeconds),
          r.peakRssMb.toFixed(0),
          String(r.partitions),
          (loadavg()[0] ?? 0).toFixed(1),
        ]);
        // Each row as it is measured: a long run shows what it has.
        console.log(`| ${(rows.at(-1) as string[]).join(' | ')} |`);
      }
      rmSync(log, { force: true });
      rmSync(sink, { force: true });
      rmSync(grouped, { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `\nSliding histories over ${n(KEYS)} keys, about ${WINDOW} live rows per key; the sink with key, epoch and sequence numbers.`,
  );
}
