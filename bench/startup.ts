// Start-up of the CLI: `streamjoin help` as the launcher ran it before the
// package was compiled (tsx registered, cli/main.ts and every command loaded
// from the TypeScript sources at every start) against the compiled package
// (bin/streamjoin.js running dist/), side by side in one run. Each round runs both, alternating which goes first, so that
// both see the same machine load; figures are medians over the rounds.
//
//   npm run bench:startup [-- --rounds N] [-- --command "help"]
//
// Measured per start: wall time from spawn to exit, and the process's peak
// resident set size (its own getrusage maxRSS, written at exit by a preload
// module, so the figure is that of the node process running the CLI).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parsedFlags } from './support.ts';

const USAGE = `usage: npm run bench:startup [-- --rounds N] [-- --command "help"]`;
const { values } = parsedFlags(USAGE, () =>
  parseArgs({
    options: { rounds: { type: 'string', default: '15' }, command: { type: 'string', default: 'help' } },
  }),
);
const ROUNDS = Number(values.rounds);
const args = values.command.split(' ').filter((w) => w !== '');
const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'streamjoin.js');

// Build first: the compiled figures are those of the sources as they are.
const build = spawnSync(
  process.execPath,
  [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')],
  {
    encoding: 'utf8',
  },
);
if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);

const dir = mkdtempSync(join(tmpdir(), 'sj-startup-'));
const rssFile = join(dir, 'rss');
// The launcher as it was: tsx's loader, then the CLI's sources.
const tsxLauncher = join(dir, 'streamjoin-tsx.mjs');
writeFileSync(
  tsxLauncher,
  `import { register } from ${JSON.stringify(join(root, 'node_modules', 'tsx', 'dist', 'esm', 'api', 'index.mjs'))};
register();
const { main } = await import(${JSON.stringify(join(root, 'cli', 'main.ts'))});
process.exitCode = await main(process.argv.slice(2), { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t), interactive: false });
`,
);
// Runs before the CLI; at exit writes the process's peak RSS (kB) to $SJ_BENCH_RSS.
const preload = `data:text/javascript,${encodeURIComponent(
  "import { writeFileSync } from 'node:fs'; process.on('exit', () => writeFileSync(process.env.SJ_BENCH_RSS, String(process.resourceUsage().maxRSS)));",
)}`;

interface Sample {
  readonly ms: number;
  readonly rssKb: number;
}

function start(throughTsx: boolean): Sample {
  const env: NodeJS.ProcessEnv = { ...process.env, SJ_BENCH_RSS: rssFile };
  delete env['STREAMJOIN_FROM_SOURCE'];
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', preload, throughTsx ? tsxLauncher : bin, ...args], { env, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`streamjoin ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, rssKb: Number(readFileSync(rssFile, 'utf8')) };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

const tsx: Sample[] = [];
const compiled: Sample[] = [];
start(true); // warm the file cache and tsx's cache for both
start(false);
for (let i = 0; i < ROUNDS; i++) {
  if (i % 2 === 0) {
    tsx.push(start(true));
    compiled.push(start(false));
  } else {
    compiled.push(start(false));
    tsx.push(start(true));
  }
}
rmSync(dir, { recursive: true, force: true });

const before = { ms: median(tsx.map((s) => s.ms)), rss: median(tsx.map((s) => s.rssKb)) / 1024 };
const after = { ms: median(compiled.map((s) => s.ms)), rss: median(compiled.map((s) => s.rssKb)) / 1024 };
console.log(`## Start-up of \`streamjoin ${args.join(' ')}\`: through tsx versus compiled`);
console.log('');
console.log(
  `${ROUNDS} rounds, medians; node ${process.version}, ${availableParallelism()} × ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
console.log('');
console.log('| | before: through tsx (sources) | after: compiled (dist/) | ratio |');
console.log('|---|---:|---:|---:|');
console.log(
  `| start-up (wall, spawn to exit) | ${before.ms.toFixed(0)} ms | ${after.ms.toFixed(0)} ms | ${(before.ms / after.ms).toFixed(1)}× faster |`,
);
console.log(`| peak RSS | ${before.rss.toFixed(1)} MB | ${after.rss.toFixed(1)} MB | ${(before.rss / after.rss).toFixed(1)}× smaller |`);
