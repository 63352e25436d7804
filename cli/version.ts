// streamjoin's own version (from its package.json) and the header every
// `--json` report starts with: what the report is, and which streamjoin and
// which spec produced it, so a CI dashboard can tell reports apart.
import { readFileSync } from 'node:fs';
import { SPEC_VERSION } from '../spec/constants.ts';
import { packagePath } from '../spec/packageFiles.ts';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0-unknown';
}

export const STREAMJOIN_VERSION: string = packageVersion();

/** The fields every JSON report begins with. `format` is `streamjoin/<kind>-report@<n>`. */
export interface ReportHeader {
  readonly format: string;
  readonly streamjoin: string;
  readonly spec: string;
}

export function reportHeader(format: string): ReportHeader {
  return { format, streamjoin: STREAMJOIN_VERSION, spec: SPEC_VERSION };
}
