// The public API report (etc/streamjoin.api.md): declarations of index.ts
// emitted by tsc (reports/api/dts), then API Extractor. `npm run api` writes the
// report; `npm run api:check` (part of `npm test`) fails when the public API
// differs from the checked-in report, showing the new one in reports/api/.
// Both fail when a declaration of the API has no doc comment: the report marks
// it `(undocumented)`, and every member of the API says what it is.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = join(import.meta.dirname, '..');
const update = process.argv.includes('--update');

rmSync(join(root, 'reports', 'api', 'dts'), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.api.json')], {
  stdio: 'inherit',
});
const result = Extractor.invoke(ExtractorConfig.loadFileAndPrepare(join(root, 'api-extractor.json')), {
  localBuild: update,
  // In check mode a changed API prints the difference to the report.
  printApiReportDiff: !update,
});
if (!result.succeeded) {
  if (result.apiReportChanged && !update) {
    console.error(
      'The public API (index.ts) differs from etc/streamjoin.api.md (the difference is above).\n' +
        'If the change is meant, run `npm run api` and commit etc/streamjoin.api.md.',
    );
  }
  process.exitCode = 1;
}

// The report as just generated (API Extractor writes it to reports/api/ in
// both modes): each `// (undocumented)` comment precedes the declaration it is about.
const reportLines = readFileSync(join(root, 'reports', 'api', 'streamjoin.api.md'), 'utf8').split('\n');
const topLevel = /^(?:export )?(?:declare )?(?:abstract )?(?:interface|class|type|const|function|enum|namespace) ([\w$]+)/;
let enclosing = '';
const undocumented = reportLines.flatMap((line, i) => {
  enclosing = topLevel.exec(line)?.[1] ?? enclosing;
  if (!line.includes('(undocumented)')) return [];
  const declaration = (reportLines.slice(i + 1).find((l) => l.trim() !== '' && !l.trim().startsWith('//')) ?? '?').trimEnd();
  // A member (indented) is named with its interface or class.
  return [declaration.startsWith(' ') ? `${enclosing}: ${declaration.trim()}` : declaration];
});
if (undocumented.length > 0) {
  console.error(
    `${undocumented.length} declaration(s) of the public API have no doc comment (marked "(undocumented)" in the report):\n` +
      undocumented.map((d) => `  ${d}`).join('\n') +
      '\nGive each a one-line /** ... */ comment saying what it is (with the SPEC rule id where it implements one).\n' +
      'Types generated from spec/schemas take the schema\'s "description" (then run `npm run gen:types`).',
  );
  process.exitCode = 1;
}
