// The full measurement behind docs/independent-systems.md: every independent
// system, correct and with each injected bug, against each part of conform
// alone (the examples; the random traces at every level; every exhaustive
// scenario), each part a process of its own with the others off. Prints the
// Markdown table of which part catches each bug, where, and at which step;
// --json FILE also keeps every result.
//
// Usage: npx tsx conformance/independent/measure.ts [--seed N] [--runs N] [--jobs N]
//                                                    [--system NAME] [--bug NAME,...] [--json FILE]
// The standing test (independent.e2e.test.ts) pins a bounded part of this;
// run this after changing the harness's generators or scenarios, and update
// the test's table (expectations.ts) and the doc from what it prints.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { conformArguments, describeCatch, type PartName, type PartResult, readReport, summarise } from './measurement.ts';
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

function describePart(result: PartResult | undefined, part: PartName): string {
  if (result === undefined) return '';
  if (result.unknown !== null) return `**unknown** (${cell(result.unknown)})`;
  if (result.catches.length === 0) return result.verdict === 'pass' ? 'missed' : result.verdict;
  const shown = part === 'examples' ? result.catches.slice(0, 2) : result.catches;
  const more = result.catches.length - shown.length;
  return `**caught** by ${result.catches.length}: ${shown.map((c) => cell(describeCatch(c))).join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

console.log(`Seed ${seed}; random: ${runs} traces per level; exhaustive: every scenario; each part alone (the others off).\n`);
console.log('| system | bug | rule | examples | random | exhaustive |');
console.log('|---|---|---|---|---|---|');
for (const system of systems) {
  for (const bug of [null, ...system.bugs]) {
    if (onlyBugs !== undefined && (bug === null || !onlyBugs.includes(bug.name))) continue;
    const name = bug?.name ?? null;
    const label = bug === null ? '(correct)' : `\`${bug.name}\``;
    const cells = parts.map((part) => describePart(resultOf(system, name, part), part));
    console.log(`| ${system.name} | ${label} | ${bug?.rule ?? ''} | ${cells.join(' | ')} |`);
  }
}
if (values.json !== undefined) {
  const rows = work.map((job) => ({ system: job.system.name, bug: job.bug, part: job.part, result: results.get(job) }));
  writeFileSync(values.json, `${JSON.stringify({ seed, runs, rows }, null, 2)}\n`);
}
