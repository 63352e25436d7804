// Places, and checks, the comments that let Stryker skip mutants argued
// equivalent (docs/mutation.md): an equivalent mutant survives every harness
// run, so testing it costs a whole run of the killing test and tells nothing
// new. Where every mutant of one mutator on a line is argued in
// conformance/mutation/equivalents.json, a `// Stryker disable next-line
// MUTATOR: equivalent, …` comment above the line skips them; a line where
// one mutant of a mutator is argued and another is not keeps being tested.
//
//   npx tsx scripts/mutation-equivalents.ts [REPORT]           lists the lines it would mark, and any skip without an argument
//   npx tsx scripts/mutation-equivalents.ts --write [REPORT]   marks them
//
// REPORT is a Stryker JSON report (reports/mutation/mutation.json by
// default): a line is marked only once a run has tested its mutants and
// detected none of them, so no argument is skipped before a run could
// contradict it.
//
// Exit 0 when every skip is argued, 1 when one is not (the comment hides a
// mutant nobody argued), 254 on bad arguments.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mutantSites, mutatedFiles, unarguedSkips, type MutantSite } from '../conformance/mutation/sites.ts';
import { EQUIVALENT_DIRECTIVE, equivalenceOf, type StrykerReport } from '../conformance/mutation/score.ts';

const root = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const write = args.includes('--write');
const reports = args.filter((a) => a !== '--write');
if (reports.some((a) => a.startsWith('--')) || reports.length > 1) {
  console.error(`usage: npx tsx scripts/mutation-equivalents.ts [--write] [REPORT.json] (got ${args.join(' ')})`);
  process.exit(254);
}
const reportPath = reports[0] ?? join(root, 'reports', 'mutation', 'mutation.json');
if (!existsSync(reportPath)) {
  console.error(
    `${reportPath}: no Stryker report; run \`npm run mutate\` first (a line is marked only after a run has tested its mutants)`,
  );
  process.exit(254);
}

/**
 * Where the last run killed or timed out a mutant, by file, line text and
 * mutator: an argument names a mutant by its line's text, not its column, so
 * two mutants of one line can share an entry; a line is marked only if the
 * run found none of its mutants of that mutator detected.
 */
const detected = new Set<string>();
const report = JSON.parse(readFileSync(reportPath, 'utf8')) as StrykerReport;
for (const [file, f] of Object.entries(report.files)) {
  const lines = f.source.split('\n');
  for (const m of f.mutants)
    if (m.status === 'Killed' || m.status === 'Timeout')
      detected.add(`${file}\n${(lines[m.location.start.line - 1] ?? '').trim()}\n${m.mutatorName}`);
}

const sites = await mutantSites(root, mutatedFiles(root));
const hidden = unarguedSkips(sites);
for (const m of hidden) console.log(`not argued, yet skipped: ${m.file}:${m.line} ${m.mutator} ${m.original} -> ${m.replacement}`);

// Per file and line: the mutators whose every (tested) mutant on the line is argued.
const byLine = new Map<string, MutantSite[]>();
for (const m of sites) {
  if (m.ignoredBecause !== undefined) continue;
  const at = `${m.file}:${m.line}`;
  byLine.set(at, [...(byLine.get(at) ?? []), m]);
}
const marks = new Map<string, Map<number, string[]>>();
for (const [, onLine] of byLine) {
  const first = onLine[0] as MutantSite;
  const mutators = [...new Set(onLine.map((m) => m.mutator))].filter(
    (name) =>
      onLine.filter((m) => m.mutator === name).every((m) => equivalenceOf(m) !== undefined) &&
      !detected.has(`${first.file}\n${first.lineText.trim()}\n${name}`),
  );
  // A comment above `} else {` belongs to the block it closes: Stryker would not read it for the line.
  if (mutators.length === 0 || first.lineText.trim().startsWith('}')) continue;
  const ofFile = marks.get(first.file) ?? new Map<number, string[]>();
  ofFile.set(first.line, mutators.sort());
  marks.set(first.file, ofFile);
}
let lines = 0;
for (const [file, ofFile] of marks) {
  const source = readFileSync(join(root, file), 'utf8').split('\n');
  // From the bottom, so that inserting a comment moves no line still to be marked.
  for (const [line, mutators] of [...ofFile].sort((a, b) => b[0] - a[0])) {
    lines++;
    const text = source[line - 1] ?? '';
    console.log(`${file}:${line} ${mutators.join(',')}: ${text.trim().slice(0, 100)}`);
    const indent = /^\s*/.exec(text)?.[0] ?? '';
    source.splice(line - 1, 0, `${indent}// Stryker disable next-line ${mutators.join(',')}: ${EQUIVALENT_DIRECTIVE} (docs/mutation.md)`);
  }
  if (write) writeFileSync(join(root, file), source.join('\n'));
}
console.log(`${lines} line(s) ${write ? 'marked' : 'to mark'}; ${hidden.length} skipped mutant(s) not argued`);
process.exit(hidden.length === 0 ? 0 : 1);
