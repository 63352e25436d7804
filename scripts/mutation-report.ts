// Prints the mutation score of the last `npm run mutate` (Stryker's JSON
// report, reports/mutation/mutation.json, or the reports given: several are
// merged, e.g. runs of one file each) as the Markdown tables of
// docs/mutation.md: counts per file, the score over the non-equivalent
// mutants, and every survivor not argued equivalent
// (conformance/mutation/equivalents.json). `--open` prints those survivors as
// JSON lines instead, to argue or kill; `--reasons` lists the arguments for
// equivalence with how many mutants each covers.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scoreMarkdown, scoreReport, type StrykerReport } from '../conformance/mutation/score.ts';
import { EQUIVALENT_MUTANTS } from '../conformance/mutation/equivalent.ts';

const args = process.argv.slice(2);
if (args.includes('--reasons')) {
  for (const e of EQUIVALENT_MUTANTS) console.log(`- (${e.mutants.length} mutant${e.mutants.length === 1 ? '' : 's'}) ${e.reason}`);
  process.exit(0);
}
const open = args.includes('--open');
const paths = args.filter((a) => !a.startsWith('--'));
if (paths.length === 0) paths.push(join(import.meta.dirname, '..', 'reports', 'mutation', 'mutation.json'));
// A later report of the same file replaces an earlier one.
const files: Record<string, StrykerReport['files'][string]> = {};
for (const p of paths) Object.assign(files, (JSON.parse(readFileSync(p, 'utf8')) as StrykerReport).files);
const score = scoreReport({ files });
if (open) {
  for (const m of score.open) {
    console.log(
      JSON.stringify({
        at: m.line,
        file: m.file,
        line: m.lineText.trim(),
        mutator: m.mutator,
        original: m.original,
        replacement: m.replacement,
        status: m.status,
      }),
    );
  }
} else {
  console.log(scoreMarkdown(score));
}
