// Explorer benchmark (a script, not a test):
//
//   npm run bench:explorer -- [--preset ci --preset deep] [--workers 1,2] [--baseline REV | --baseline-dir DIR]
//                             [--repeat N] [--simulate-seconds S] [--deep-migrations] [--dist] [--json]
//
// The scaling table: for each preset (default ci and deep), the explorer as
// it was at the baseline commit (default: main when the work on issue 13
// began; one thread, its parts one after the other) and as it is now with
// each number of workers, side by side in one run: distinct states, CPU
// seconds (user + system, every thread of the process) of the search alone
// (from the models built to the reports built) and of the whole process
// (from its start: Node, module loading, the models), wall seconds,
// distinct states per CPU second of each and per wall second, the process's peak RSS
// per distinct state, and its growth above the RSS before exploring (what the
// states cost, without Node's own). On Linux the search's CPU is also split by
// thread: the main thread, each explorer worker thread, and V8's helper
// threads (garbage collection, compilation) together (without --dist, the
// threads of tsx's module loader, one per thread that registers it, are
// counted among the explorer threads: read that column from --dist runs).
// Then the ratios: throughput against the baseline, and the speed-up and
// per-worker efficiency of N workers, beside the machine's own ceiling for
// it: N one-worker runs side by side, each a process of its own, sharing
// nothing but the machine (`sideBySide`). Then simulation steps per second on
// sim-large. Each run is a process of its own (bench/explorerRun.ts), so its
// peak RSS is its own.
//
// The baseline is extracted with `git archive` into a temporary directory
// (or given with --baseline-dir). With --dist both trees are built first
// (tsconfig.build.json) and each run loads the build with plain Node, as
// `streamjoin check` does; without it, the sources through tsx, whose
// loader adds to every run's memory and CPU time. The machine this runs on may be shared:
// the load average is printed with the figures; CPU time is what other
// processes' load disturbs least, wall time (and so the parallel speed-up)
// the most.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parsedFlags } from './support.ts';

/** main when the work on the explorer at scale (issue 13) began: one thread, the object frontier. */
const DEFAULT_BASELINE = 'ced0a99';

const USAGE = `usage: npm run bench:explorer -- [--preset ci --preset deep] [--workers 1,2] [--baseline REV | --baseline-dir DIR]
         [--repeat N] [--simulate-seconds S] [--deep-migrations] [--dist] [--json]`;
const { values } = parsedFlags(USAGE, () =>
  parseArgs({
    options: {
      preset: { type: 'string', multiple: true },
      workers: { type: 'string', default: `1,${Math.max(2, availableParallelism())}` },
      baseline: { type: 'string', default: DEFAULT_BASELINE },
      'baseline-dir': { type: 'string' },
      repeat: { type: 'string', default: '1' },
      'simulate-seconds': { type: 'string', default: '10' },
      'deep-migrations': { type: 'boolean', default: false },
      dist: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  }),
);
const here = join(import.meta.dirname, '..');
const presets = values.preset ?? ['ci', 'deep'];
const workerCounts = values.workers.split(',').map(Number);
const repeat = Number(values.repeat);

interface Run {
  readonly label: string;
  readonly preset: string;
  readonly workers: number;
  readonly distinct: number;
  readonly exhausted: boolean;
  readonly cpuMs: number;
  /** The search alone (the models built), and the whole process from its start (Node and module loading included). */
  readonly searchCpuMs: number;
  readonly processCpuMs: number;
  readonly wallMs: number;
  readonly peakRssBytes: number;
  readonly rssAtStartBytes: number;
  readonly walks?: number;
  readonly steps?: number;
  /** The search's CPU per thread (Linux): the main thread, each explorer thread, V8's helper threads together. */
  readonly threads?: { readonly mainMs: number; readonly explorerMs: readonly number[]; readonly helpersMs: number };
}

const lines: string[] = [];
const out = (line: string): void => {
  lines.push(line);
  if (!values.json) console.log(line);
};
const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

/** The baseline's sources, with this checkout's node_modules. */
function baselineRoot(): { root: string; cleanup: () => void } {
  if (values['baseline-dir']) return { root: values['baseline-dir'], cleanup: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'streamjoin-baseline-'));
  const archive = execFileSync('git', ['-C', here, 'archive', '--format=tar', values.baseline], { maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  symlinkSync(join(here, 'node_modules'), join(dir, 'node_modules'));
  return { root: dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Builds `root`'s dist/ with this checkout's TypeScript. A baseline from before the compiled package
 * (the default, ced0a99) has no tsconfig.build.json: it is given this checkout's, over the folders it has.
 */
function build(root: string): void {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const config = join(root, 'tsconfig.build.json');
  if (!existsSync(config)) {
    const ours = JSON.parse(readFileSync(join(here, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
    writeFileSync(config, JSON.stringify({ ...ours, include: ours.include.filter((p) => existsSync(join(root, p))) }, null, 2));
  }
  execFileSync(process.execPath, [join(here, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', config], {
    cwd: root,
    stdio: 'inherit',
  });
}

/** With --dist: the runner as JavaScript (in a temporary directory), else how Node runs its source. */
function runnerCommand(): { args: readonly string[]; cleanup: () => void } {
  const source = join(here, 'bench', 'explorerRun.ts');
  if (!values.dist) return { args: ['--import', 'tsx', source], cleanup: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'streamjoin-runner-'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  const tsc = join(here, 'node_modules', 'typescript', 'bin', 'tsc');
  // The runner and what it imports (bench/support.ts and its own imports), laid out as in the checkout, with `.ts` imports rewritten to `.js`.
  const flags = [
    '--ignoreConfig',
    '--outDir',
    dir,
    '--rootDir',
    here,
    '--module',
    'nodenext',
    '--target',
    'es2022',
    '--types',
    'node',
    '--skipLibCheck',
    '--rewriteRelativeImportExtensions',
  ];
  execFileSync(process.execPath, [tsc, ...flags, source], { cwd: here, stdio: 'inherit' });
  return { args: [join(dir, 'bench', 'explorerRun.js'), '--dist'], cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
const runner = runnerCommand();

type Figures = Omit<Run, 'label' | 'preset' | 'workers'>;

/** The runner's figures: the last line it prints. */
function figuresOf(stdout: string): Figures {
  return JSON.parse(stdout.trim().split('\n').pop() as string) as Figures;
}

function measure(label: string, root: string, preset: string, workers: number, extra: readonly string[] = []): Run {
  let best: Run | undefined;
  for (let i = 0; i < repeat; i++) {
    const args = [...runner.args, '--root', root, '--preset', preset, '--workers', String(workers), ...extra];
    const r = spawnSync(process.execPath, args, { cwd: here, encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status !== 0) throw new Error(`${label} ${preset}: ${r.stderr}`);
    const run: Run = { label, preset, workers, ...figuresOf(r.stdout) };
    if (!best || run.cpuMs < best.cpuMs) best = run;
  }
  return best as Run;
}

/** One run of the runner, without waiting for it (for runs side by side). */
function runAsync(root: string, preset: string, workers: number): Promise<Figures> {
  const args = [...runner.args, '--root', root, '--preset', preset, '--workers', String(workers)];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: here, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`side by side ${preset}: ${stderr}`));
      else resolve(figuresOf(stdout));
    });
  });
}

/**
 * The machine's own ceiling for `n` threads on this search: `n` one-thread runs of the whole preset
 * started together, each a process of its own sharing nothing, so whatever slows them is the
 * machine's (shared caches, memory, the host's scheduling of its virtual cores). Their throughput
 * against one run alone, `n` × its wall over the slowest run's, bounds what `n` threads sharing one
 * search can reach here. The best of `--repeat` attempts (the slowest run's wall).
 */
async function sideBySide(preset: string, n: number): Promise<{ wallMs: number; cpuMs: number[] }> {
  let best: { wallMs: number; cpuMs: number[] } | undefined;
  for (let i = 0; i < repeat; i++) {
    const runs = await Promise.all(Array.from({ length: n }, () => runAsync(here, preset, 1)));
    const wallMs = Math.max(...runs.map((r) => r.wallMs));
    if (!best || wallMs < best.wallMs) best = { wallMs, cpuMs: runs.map((r) => r.searchCpuMs) };
  }
  return best as { wallMs: number; cpuMs: number[] };
}

const perState = (bytes: number, states: number): string => (states > 0 ? fmt(bytes / states) : '–');
/** Steps per CPU second of the threads that walk (this thread and the explorer threads; V8's helpers left out). */
const walkerRate = (r: Run, steps: number): string => {
  const t = r.threads;
  if (!t) return '–';
  const ms = t.mainMs + t.explorerMs.reduce((a, b) => a + b, 0);
  return ms > 0 ? fmt((steps * 1000) / ms) : '–';
};
/** The search's CPU seconds by thread: main thread + explorer threads (each) + V8's helper threads. */
const byThread = (r: Run): string => {
  const t = r.threads;
  if (!t) return '–';
  const explorer = t.explorerMs.length > 0 ? ` + ${t.explorerMs.map((ms) => fmt(ms / 1000, 2)).join(' + ')}` : '';
  return `${fmt(t.mainMs / 1000, 2)}${explorer} + (${fmt(t.helpersMs / 1000, 2)})`;
};
const row = (r: Run): string =>
  `| ${r.preset} | ${r.label} | ${r.workers} | ` +
  `${fmt(r.distinct)}${r.exhausted ? '' : ' (not exhausted)'} | ${fmt(r.searchCpuMs / 1000, 1)} | ${byThread(r)} | ` +
  `${fmt(r.processCpuMs / 1000, 1)} | ${fmt(r.wallMs / 1000, 1)} | ${fmt((r.distinct * 1000) / r.searchCpuMs)} | ` +
  `${fmt((r.distinct * 1000) / r.processCpuMs)} | ${fmt((r.distinct * 1000) / r.wallMs)} | ${fmt(r.peakRssBytes / 1048576)} | ` +
  `${perState(r.peakRssBytes, r.distinct)} | ` +
  `${perState(r.peakRssBytes - r.rssAtStartBytes, r.distinct)} |`;
const header =
  '| preset | explorer | workers | distinct states | search CPU s | by thread: main + explorer threads + (V8 helpers) | process CPU s | ' +
  'wall s | distinct / search CPU s | distinct / process CPU s | distinct / wall s | peak RSS MB | peak RSS / state (B) | ' +
  'RSS growth / state (B) |\n' +
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|';

const results: Record<string, unknown> = { load: loadavg(), cores: availableParallelism() };
const { root: before, cleanup } = baselineRoot();
try {
  if (values.dist) {
    build(before);
    build(here);
  }
  out(
    `# explorer benchmark (node ${process.version}, ${availableParallelism()} cores, ` +
      `${values.dist ? 'the builds (dist/) on plain Node' : 'the sources through tsx'}, load average ${load()} at the start)`,
  );
  out(`\n## scaling: the explorer at ${values.baseline} (before) and now (after), side by side\n`);
  out(header);
  const scaling: Run[] = [];
  const summaries: string[] = [];
  for (const preset of presets) {
    const old = measure('before', before, preset, 1);
    scaling.push(old);
    out(row(old));
    const now = workerCounts.map((w) => {
      const r = measure('after', here, preset, w);
      scaling.push(r);
      out(row(r));
      return r;
    });
    const one = now.find((r) => r.workers === 1) ?? (now[0] as Run);
    const rate = (r: Run, ms: number): number => r.distinct / ms;
    summaries.push(
      `${preset}: distinct states per search CPU second ×${fmt(rate(one, one.searchCpuMs) / rate(old, old.searchCpuMs), 2)}, ` +
        `per process CPU second ×${fmt(rate(one, one.processCpuMs) / rate(old, old.processCpuMs), 2)} (after, 1 worker, against before` +
        `${one.distinct === old.distinct ? '' : '; the two count different states'}), ` +
        `peak RSS per state ×${fmt(old.peakRssBytes / old.distinct / (one.peakRssBytes / one.distinct), 2)} smaller`,
    );
    for (const r of now) {
      if (r.workers === 1) continue;
      const speedup = one.wallMs / r.wallMs;
      const pair = await sideBySide(preset, r.workers);
      const ceiling = (r.workers * one.wallMs) / pair.wallMs;
      summaries.push(
        `${preset}: ${r.workers} workers against 1: wall ×${fmt(speedup, 2)} faster, ${fmt(1 / speedup, 2)} of one worker's wall (efficiency ` +
          `${fmt((100 * speedup) / r.workers)} % per worker), search CPU ×${fmt(r.searchCpuMs / one.searchCpuMs, 2)}`,
        `${preset}: the machine's ceiling for ${r.workers}: ${r.workers} one-worker runs side by side, each a process of its own, ` +
          `took ${fmt(pair.wallMs / 1000, 1)} s (search CPU ${pair.cpuMs.map((ms) => fmt(ms / 1000, 1)).join(' and ')} s, ` +
          `against ${fmt(one.searchCpuMs / 1000, 1)} alone): throughput ×${fmt(ceiling, 2)} of one run alone; ` +
          `the ${r.workers} workers on one search reach ${fmt((100 * speedup) / ceiling)} % of that`,
      );
      results[`ceiling-${preset}-${r.workers}`] = { ...pair, throughput: ceiling };
    }
  }
  out('');
  for (const s of summaries) out(`- ${s}`);
  results['scaling'] = scaling;

  const seconds = values['simulate-seconds'];
  out(`\n## simulation: random walks on sim-large for ${seconds} s (seed 1)\n`);
  out(
    '| workers | walks | steps | CPU s | by thread: main + explorer threads + (V8 helpers) | wall s | steps / CPU s | ' +
      'steps / wall s | steps / s per worker | steps / CPU s of the walkers |\n|---|---|---|---|---|---|---|---|---|---|',
  );
  const simulation: Run[] = [];
  for (const w of workerCounts) {
    const r = measure('after', here, 'sim-large', w, ['--simulate', '--seconds', seconds, '--seed', '1']);
    simulation.push(r);
    const steps = r.steps ?? 0;
    out(
      `| ${w} | ${fmt(r.walks ?? 0)} | ${fmt(steps)} | ${fmt(r.cpuMs / 1000, 1)} | ${byThread(r)} | ` +
        `${fmt(r.wallMs / 1000, 1)} | ${fmt((steps * 1000) / r.cpuMs)} | ` +
        `${fmt((steps * 1000) / r.wallMs)} | ${fmt((steps * 1000) / r.wallMs / w)} | ${walkerRate(r, steps)} |`,
    );
  }
  const alone = simulation.find((r) => r.workers === 1);
  for (const r of simulation) {
    if (!alone || r.workers === 1 || !alone.walks || !alone.steps) continue;
    const perWall = (x: number, run: Run): number => (x * 1000) / run.wallMs;
    out(
      `\n- ${r.workers} workers against 1: walks per wall second ×${fmt(perWall(r.walks ?? 0, r) / perWall(alone.walks, alone), 2)}, ` +
        `steps per wall second ×${fmt(perWall(r.steps ?? 0, r) / perWall(alone.steps, alone), 2)}`,
    );
  }
  out('\n(The first walks of a process also build the oracle timelines of a 1,000-record log: a one-time cost inside these figures.)');
  results['simulation'] = simulation;

  if (values['deep-migrations']) {
    out('\n## deep with migrations=2 (all workers)\n');
    const w = Math.max(...workerCounts);
    const r = measure('after', here, 'deep', w, ['--bound', 'migrations=2']);
    out(header);
    out(row({ ...r, preset: 'deep migrations=2' }));
    results['deepMigrations2'] = r;
  }
} finally {
  cleanup();
  runner.cleanup();
}
out(`\nload average at the end: ${load()}`);
if (values.json) console.log(JSON.stringify(results, null, 2));
