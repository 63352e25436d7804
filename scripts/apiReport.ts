// The public API report (etc/streamjoin.api.md): declarations of index.ts
// emitted by tsc (reports/api/dts), then API Extractor. `npm run api` writes the
// report; `npm run api:check` (part of `npm test`) fails when the public API
// differs from the checked-in report, showing the new one in reports/api/.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
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
