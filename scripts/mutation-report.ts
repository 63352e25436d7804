// Prints the mutation score of the last `npm run mutate` (Stryker's JSON
// report, reports/mutation/mutation.json, or the file given) as the Markdown
// tables of docs/mutation.md: counts per file, the score over the
// non-equivalent mutants, and every survivor not argued equivalent
// (conformance/mutation/equivalent.ts). `--open` prints those survivors as
// entries to argue or kill instead.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scoreMarkdown, scoreReport, type StrykerReport } from '../conformance/mutation/score.ts';

const args = process.argv.slice(2);
const open = args.includes('--open');
const path = args.find((a) => !a.startsWith('--')) ?? join(import.meta.dirname, '..', 'reports', 'mutation', 'mutation.json');
const score = scoreReport(JSON.parse(readFileSync(path, 'utf8')) as StrykerReport);
if (open) {
  for (const m of score.open)
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
} else {
  console.log(scoreMarkdown(score));
}
