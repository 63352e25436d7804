// One measured run for bench/explorer.ts, in a process of its own (so that
// its peak RSS is its own): check a cluster preset key by key, or simulate
// one, with the explorer of the source tree at --root (this checkout, or a
// worktree of an older commit), and print one JSON line of figures.
//
//   node --import tsx bench/explorerRun.ts --root DIR --preset NAME [--bound N=V ...]
//        [--workers N] [--simulate --seconds S --seed S] [--dist]
//
// With --dist it loads the tree's build (DIR/dist, JavaScript), as
// `streamjoin check` runs: then it is itself run as JavaScript (transpiled by
// bench/explorer.ts), so that the process's memory and CPU time are those of
// the explorer and Node, without a TypeScript loader.
//
// An older tree has `check(model)` and no sessions: its parts are checked one
// after the other on one thread, as its `streamjoin check` did.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parsedFlags } from './support.ts';

const USAGE = `usage: node --import tsx bench/explorerRun.ts --root DIR --preset NAME [--bound N=V ...]
         [--workers N] [--simulate --seconds S --seed S] [--dist]`;
const { values } = parsedFlags(USAGE, () =>
  parseArgs({
    options: {
      root: { type: 'string' },
      preset: { type: 'string' },
      bound: { type: 'string', multiple: true },
      workers: { type: 'string', default: '1' },
      simulate: { type: 'boolean', default: false },
      seconds: { type: 'string', default: '10' },
      seed: { type: 'string', default: '1' },
      dist: { type: 'boolean', default: false },
    },
  }),
);
const root = values.root ?? process.cwd();
const presetName = values.preset ?? 'ci';
const workers = Number(values.workers);
const overrides = Object.fromEntries((values.bound ?? []).map((b) => b.split('=')).map(([k, v]) => [k as string, Number(v)]));

interface Report {
  readonly distinct: number;
  readonly generated: number;
  readonly exhausted: boolean;
  readonly passed: boolean;
  readonly workers?: number;
}
interface Part {
  readonly label: string;
  readonly model: { use<R>(f: (model: unknown) => R): R };
}
interface Preset {
  readonly name: string;
  parts?(bounds: Record<string, number>, ablate: undefined): Part[];
  build(bounds: Record<string, number>, ablate: undefined): { use<R>(f: (model: unknown) => R): R };
}

/** A module of the tree by its source path (`model/presets.ts`): the source, or with --dist its build. */
const modulePath = (path: string): string => (values.dist ? join(root, 'dist', path.replace(/\.ts$/, '.js')) : join(root, path));
const load = async (path: string): Promise<Record<string, unknown>> =>
  (await import(pathToFileURL(modulePath(path)).href)) as Record<string, unknown>;

// The process's heap as `streamjoin check` sets it (cli/bin.ts), where the tree has that setting.
if (existsSync(modulePath('cli/searchHeap.ts'))) ((await load('cli/searchHeap.ts'))['keepNurserySmall'] as () => void)();
const presets = await load('model/presets.ts');
const preset = (presets['presetNamed'] as (name: string) => Preset | undefined)(presetName);
if (!preset) throw new Error(`no preset ${presetName} in ${root}`);
const bounds = (presets['resolveBounds'] as (p: Preset, o: Record<string, number>) => Record<string, number>)(preset, overrides);
const sessions = existsSync(modulePath('model/explorer/session.ts'));

/**
 * CPU milliseconds of each thread of this process (Linux: /proc/self/task; empty elsewhere), by
 * thread id. Node 20 names every thread `node`, so the threads are told apart by when they
 * appeared: this one (the process id), the threads present before the search (V8's platform
 * threads: garbage collection and compilation helpers, shared by every isolate), and the
 * threads the search started (the explorer's worker threads; from the
 * sources, also the threads of tsx's module loader that they start).
 */
function threadCpu(): Map<string, number> {
  const cpu = new Map<string, number>();
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return cpu;
  }
  for (const tid of tasks) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime, in clock ticks (100 per second on Linux).
      cpu.set(tid, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return cpu;
}

const rssAtStart = process.memoryUsage().rss;
const cpu = process.cpuUsage();
/** From the models built to the reports built: the search alone (the checks, on every thread). */
let searchCpu = cpu;
let threadsBefore = threadCpu();
/** Per thread, the search's CPU milliseconds: read before the session closes its threads. */
let threadsAfter = new Map<string, number>();
const started = performance.now();
let figures: Record<string, unknown>;
if (values.simulate) {
  const explorer = await load('model/explorer/session.ts');
  const Session = explorer['CheckSession'] as new (
    o: object,
  ) => {
    simulate(m: unknown, s: unknown, o: object): Promise<{ walks: number; steps: number }>;
    prepare?(sources: unknown[]): Promise<void>;
    close(): Promise<void>;
  };
  const session = new Session({ workers, maxSeconds: Number(values.seconds) });
  const source = (presets['presetSource'] as (...a: unknown[]) => unknown)(presetName, bounds, undefined, undefined);
  // As `streamjoin check` does: the session's threads build the model while this thread builds its own (a tree without it has none).
  void session.prepare?.([source]);
  const r = await preset.build(bounds, undefined).use((m) => session.simulate(m, source, { seed: Number(values.seed), depth: 20_000 }));
  threadsAfter = threadCpu();
  await session.close();
  figures = { walks: r.walks, steps: r.steps };
} else {
  const parts = preset.parts ? preset.parts(bounds, undefined) : [{ label: presetName, model: preset.build(bounds, undefined) }];
  searchCpu = process.cpuUsage();
  threadsBefore = threadCpu();
  let reports: Report[];
  if (sessions) {
    const explorer = await load('model/explorer/session.ts');
    const Session = explorer['CheckSession'] as new (
      o: object,
    ) => {
      check(m: unknown, s: unknown): Promise<Report>;
      prepare?(sources: unknown[]): Promise<void>;
      close(): Promise<void>;
    };
    const session = new Session({ workers });
    const sourceOf = presets['presetSource'] as (...a: unknown[]) => unknown;
    const sources = parts.map((p) => sourceOf(presetName, bounds, undefined, p.label));
    void session.prepare?.(sources);
    reports = await Promise.all(parts.map((p, i) => p.model.use((m) => session.check(m, sources[i]))));
    threadsAfter = threadCpu();
    await session.close();
  } else {
    const explorer = await load('model/explorer/index.ts');
    const check = explorer['check'] as (m: unknown) => Report;
    reports = parts.map((p) => p.model.use((m) => check(m)));
    threadsAfter = threadCpu();
  }
  figures = {
    distinct: reports.reduce((n, r) => n + r.distinct, 0),
    generated: reports.reduce((n, r) => n + r.generated, 0),
    exhausted: reports.every((r) => r.exhausted),
    passed: reports.every((r) => r.passed),
    threads: Math.max(...reports.map((r) => r.workers ?? 1)),
  };
}
const main = String(process.pid);
const explorerThreads: number[] = [];
let helpersMs = 0;
for (const [tid, ms] of threadsAfter) {
  const before = threadsBefore.get(tid);
  if (tid === main) continue;
  if (before === undefined) explorerThreads.push(ms);
  else helpersMs += ms - before;
}
const threads =
  threadsAfter.size === 0
    ? undefined
    : {
        mainMs: (threadsAfter.get(main) ?? 0) - (threadsBefore.get(main) ?? 0),
        // Threads that did not run the search (a thread the pool started but gave nothing) are left out.
        explorerMs: explorerThreads.filter((ms) => ms >= 20).sort((a, b) => b - a),
        helpersMs,
      };
const used = process.cpuUsage(cpu);
const searched = process.cpuUsage(searchCpu);
const whole = process.cpuUsage();
console.log(
  JSON.stringify({
    ...figures,
    cpuMs: (used.user + used.system) / 1000,
    searchCpuMs: (searched.user + searched.system) / 1000,
    processCpuMs: (whole.user + whole.system) / 1000,
    wallMs: performance.now() - started,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    rssAtStartBytes: rssAtStart,
    ...(threads ? { threads } : {}),
  }),
);
