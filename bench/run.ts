// `streamjoin run` at scale: operator traces of 10^4, 10^5 and 10^6 records
// (a sliding window, with every step's expectations), each run by a fresh
// child process exactly as `streamjoin run FILE` runs it, so its time and
// its peak RSS are its own. Each size runs twice, side by side: with both
// watermarks moving (rows are evicted as they age) and with the right one
// stalled (it never reports: every row is held to the end, J8), the model's
// worst case. Growth per decade of records shows the run is linear either
// way (a ratio near 10 for time); the model's own share is the time its
// operator (IndexedJoin, what `run` uses) takes over the same records,
// measured in the same child after the run.
//
//   node --import tsx bench/run.ts [--seed N] [--quick] [--window ROWS]
//
// Prints a Markdown table of what was measured side by side in this run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parsedFlags, seedFlag } from './support.ts';
import type { LogRecord } from '../spec/index.ts';
import { IndexedJoin } from '../model/index.ts';
import { JoinOperator } from '../impl/index.ts';
import { runTraces } from '../cli/run.ts';
import { slidingLog, slidingLogConfig, writeSlidingTrace, type SlidingLogOptions } from '../conformance/generate/slidingLogs.ts';

const USAGE = `usage: node --import tsx bench/run.ts [--seed N] [--quick] [--window ROWS]`;
const { values: flags } = parsedFlags(USAGE, () =>
  parseArgs({
    options: {
      seed: { type: 'string' },
      quick: { type: 'boolean', default: false },
      window: { type: 'string' },
      child: { type: 'string' },
      records: { type: 'string' },
      stalled: { type: 'boolean', default: false },
    },
  }),
);
const seed = seedFlag(flags.seed);
const KEYS = 4;
const window = flags.window !== undefined ? Number(flags.window) : 50;
const logOptions = (records: number, stalled: boolean): SlidingLogOptions => ({
  records,
  keys: KEYS,
  window,
  seed,
  ...(stalled ? { stalled: 'R' as const } : {}),
});

interface ChildResult {
  readonly exit: number;
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly peakRssMb: number;
  readonly modelSeconds: number;
  readonly modelCpuSeconds: number;
}

/** In the child: `streamjoin run FILE`, timed; then the model alone over the same records. */
async function child(file: string, records: number, stalled: boolean): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let printed = '';
  const exit = await runTraces(
    [file],
    { stdout: (t) => (printed += t), stderr: (t) => (printed += t), interactive: false },
    { json: false },
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  if (exit !== 0) throw new Error(`run exited ${exit}: ${printed}`);
  // The model's share: its operator over the same records, generated in batches outside the timing.
  const config = slidingLogConfig(logOptions(records, stalled));
  const model = new IndexedJoin(config);
  let modelMs = 0;
  let modelCpu = 0;
  let batch: LogRecord[] = [];
  const runBatch = (): void => {
    const t = performance.now();
    const c = process.cpuUsage();
    for (const r of batch) model.apply(r);
    const used = process.cpuUsage(c);
    modelCpu += (used.user + used.system) / 1e6;
    modelMs += performance.now() - t;
    batch = [];
  };
  for (const r of slidingLog(logOptions(records, stalled))) {
    batch.push(r);
    if (batch.length === 10_000) runBatch();
  }
  runBatch();
  const result: ChildResult = {
    exit,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssMb,
    modelSeconds: modelMs / 1000,
    modelCpuSeconds: modelCpu,
  };
  console.log(JSON.stringify(result));
}

if (flags.child !== undefined) {
  await child(flags.child, Number(flags.records), flags.stalled);
} else {
  const sizes = flags.quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
  const dir = mkdtempSync(join(tmpdir(), 'sj-bench-run-'));
  const load = loadavg()[0] ?? 0;
  const rows: { records: number; stalled: boolean; mb: number; r: ChildResult }[] = [];
  try {
    for (const records of sizes) {
      // Side by side: the same size with both watermarks moving, then with the right one stalled.
      for (const stalled of [false, true]) {
        const file = join(dir, `sliding-${records}${stalled ? '-stalled' : ''}.trace.json`);
        const options = logOptions(records, stalled);
        const operator = new JoinOperator(slidingLogConfig(options));
        writeSlidingTrace(file, options, (record) => {
          const { outcome, changes } = operator.apply(record);
          return { outcome, changes, retained: operator.retained() };
        });
        const child = spawnSync(
          process.execPath,
          [
            '--import',
            'tsx',
            join(import.meta.dirname, 'run.ts'),
            '--child',
            file,
            '--records',
            String(records),
            '--seed',
            String(seed),
            '--window',
            String(window),
            ...(stalled ? ['--stalled'] : []),
          ],
          { encoding: 'utf8', maxBuffer: 1 << 24 },
        );
        if (child.status !== 0) throw new Error(`child for ${records} records failed: ${child.stderr}`);
        const r = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '') as ChildResult;
        rows.push({ records, stalled, mb: statSync(file).size / 2 ** 20, r });
        rmSync(file, { force: true });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `streamjoin run benchmark: seed ${seed}, sliding window of ~${window} live rows per key ` +
      `over ${KEYS} keys, every step with expectations; node ${process.version}, ` +
      `${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), load average ` +
      `${load.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end\n`,
  );
  console.log(
    '| records | watermarks | trace MB | seconds | CPU seconds | records/s | peak RSS MB | CPU time ratio per decade | stalled / moving CPU | model CPU seconds | model share |',
  );
  console.log('|---:|:--|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const { records, stalled, mb, r } of rows) {
    const prev = rows.find((x) => x.stalled === stalled && x.records * 10 === records);
    const moving = rows.find((x) => !x.stalled && x.records === records);
    console.log(
      `| ${records.toLocaleString('en-US')} | ${stalled ? 'right stalled' : 'both moving'} | ${mb.toFixed(1)} | ${r.seconds.toFixed(2)} | ` +
        `${r.cpuSeconds.toFixed(2)} | ${Math.round(records / r.seconds).toLocaleString('en-US')} | ` +
        `${r.peakRssMb.toFixed(0)} | ${prev ? `${(r.cpuSeconds / prev.r.cpuSeconds).toFixed(1)}×` : '—'} | ` +
        `${stalled && moving ? `${(r.cpuSeconds / moving.r.cpuSeconds).toFixed(2)}×` : '—'} | ${r.modelCpuSeconds.toFixed(2)} | ` +
        `${((100 * r.modelCpuSeconds) / r.cpuSeconds).toFixed(0)}% |`,
    );
  }
  console.log(
    '\nEach size runs in its own process (`streamjoin run FILE` in-process there), so seconds ' +
      'and peak RSS are that run alone. A CPU time ratio near 10 per decade is linear growth. With ' +
      'the right watermark stalled every row is held to the end, so memory grows with the trace ' +
      '(it is the retained state, J8); with both moving it does not. The model share is the CPU ' +
      'time the model operator alone (IndexedJoin) takes over the same records (no parsing, no ' +
      'checks), measured in the same process after the run, over the CPU time of the run (CPU ' +
      'time, not wall time, so that a loaded machine skews it less).',
  );
}
