// The full measurement behind docs/independent-systems.md: every independent
// system, correct and with each injected bug, against each part of conform
// alone (the examples; the random traces at every level; every exhaustive
// scenario), each part a process of its own with the others off. Prints the
// Markdown table of which part catches each bug, where, and at which step;
// --json FILE also keeps every result.
//
// Usage: npx tsx conformance/independent/measure.ts [--seed N] [--runs N] [--jobs N]
//                                                    [--system NAME] [--bug NAME,...] [--json FILE]
// The standing test (cli/independentSystems.e2e.test.ts) pins a bounded part of this;
// run this after changing the harness's generators or scenarios, and update
// the test's table (expectations.ts) and the doc from what it prints.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { conformArguments, type PartName, type PartResult, readReport, summarise } from './measurement.ts';
import { type IndependentSystem, independentSystems, repositoryRoot } from './systems.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    runs: { type: 'string', default: '1000' },
    jobs: { type: 'string', default: '2' },
    system: { type: 'string' },
    bug: { type: 'string' },
    json: { type: 'string' },
  },
});
const seed = Number(values.seed);
const runs = Number(values.runs);
const jobs = Math.max(1, Number(values.jobs));
if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(runs) || runs < 1) {
  process.stderr.write('usage: SJ105 --seed and --runs take integers (--runs at least 1)\n');
  process.exit(254);
}
const systems = independentSystems.filter((s) => values.system === undefined || s.name === values.system);
const onlyBugs = values.bug?.split(',');

interface Job {
  readonly system: IndependentSystem;
  readonly bug: string | null;
  readonly part: PartName;
}

const parts: readonly PartName[] = ['examples', 'random', 'exhaustive'];
const work: Job[] = [];
for (const system of systems) {
  const bugs = [null, ...system.bugs.map((b) => b.name)].filter((b) => onlyBugs === undefined || (b !== null && onlyBugs.includes(b)));
  for (const bug of bugs) for (const part of parts) work.push({ system, bug, part });
}

const scratch = mkdtempSync(join(tmpdir(), 'sj-independent-'));

function runJob(job: Job): Promise<PartResult> {
  const out = join(scratch, `${job.system.name}-${job.bug ?? 'correct'}-${job.part}`);
  const argv = conformArguments(job.system, job.bug, { part: job.part, seed, runs }, out);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repositoryRoot, 'bin', 'streamjoin.js'), ...argv], { cwd: repositoryRoot });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve(summarise(job.part, readReport(stdout)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

const results = new Map<Job, PartResult>();
let next = 0;
const started = Date.now();
async function worker(): Promise<void> {
  for (let i = next++; i < work.length; i = next++) {
    const job = work[i] as Job;
    const result = await runJob(job);
    results.set(job, result);
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    process.stderr.write(
      `[${seconds} s] ${job.system.name} ${job.bug ?? '(correct)'} ${job.part}: ${result.verdict}, ${result.catches.length} caught\n`,
    );
  }
}
await Promise.all(Array.from({ length: jobs }, worker));
rmSync(scratch, { recursive: true, force: true });

const cell = (text: string): string => text.replace(/\|/g, '\\|');
const resultOf = (system: IndependentSystem, bug: string | null, part: PartName): PartResult | undefined =>
  results.get(work.find((j) => j.system === system && j.bug === bug && j.part === part) as Job);

/** `4 of 43: a (3), b (5), …; outcome, events; J5` (an example has no trace number; random and exhaustive ones do). */
function describePart(result: PartResult | undefined, part: PartName, correct: boolean): string {
  if (result === undefined) return '';
  if (result.unknown !== null) return `**unknown** (${cell(result.unknown)})`;
  const ran = result.catches.length + result.passed.length;
  if (result.catches.length === 0 && result.verdict === 'pass') {
    const what = part === 'random' ? `at ${result.passed.join(', ')}` : `by all ${ran}`;
    return correct ? `conforms ${what}, in ${(result.ms / 1000).toFixed(0)} s` : `missed ${what}`;
  }
  if (result.catches.length === 0) return result.verdict;
  if (part === 'random') {
    const levels = result.catches.map((c) => `${c.where} #${c.trace} (${c.steps} steps; ${c.field}; ${cell(c.rules.join(' '))})`);
    return `**caught**: ${[...levels, ...result.passed.map((l) => `${l} missed`)].join(' · ')}`;
  }
  const shown = part === 'examples' ? result.catches.slice(0, 3) : result.catches;
  const items = shown.map((c) => `${c.where}${c.trace === null ? '' : ` #${c.trace}`} (${c.steps})`);
  if (shown.length < result.catches.length) items.push(`${result.catches.length - shown.length} more`);
  const fields = [...new Set(result.catches.map((c) => c.field))].join(', ');
  const rules = [...new Set(result.catches.flatMap((c) => c.rules))].join(' ');
  return `**${result.catches.length} of ${ran}**: ${items.join(', ')}; ${fields}; ${cell(rules)}`;
}

const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repositoryRoot, encoding: 'utf8' }).stdout.trim();
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
const load = loadavg()
  .map((l) => l.toFixed(1))
  .join(', ');
console.log(`Measured at ${commit} in ${minutes} min, ${jobs} jobs at a time, load average at the end ${load}.`);
console.log(`Seed ${seed}; random: ${runs} traces per level; exhaustive: every scenario; each part alone (the others off).\n`);
console.log('| system | bug | rule | examples | random | exhaustive |');
console.log('|---|---|---|---|---|---|');
for (const system of systems) {
  for (const bug of [null, ...system.bugs]) {
    if (onlyBugs !== undefined && (bug === null || !onlyBugs.includes(bug.name))) continue;
    const name = bug?.name ?? null;
    const label = bug === null ? '(correct)' : `\`${bug.name}\``;
    const cells = parts.map((part) => describePart(resultOf(system, name, part), part, bug === null));
    console.log(`| ${system.name} | ${label} | ${bug?.rule ?? ''} | ${cells.join(' | ')} |`);
  }
}
if (values.json !== undefined) {
  const rows = work.map((job) => ({ system: job.system.name, bug: job.bug, part: job.part, result: results.get(job) }));
  writeFileSync(values.json, `${JSON.stringify({ seed, runs, rows }, null, 2)}\n`);
}
