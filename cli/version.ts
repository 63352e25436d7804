// streamjoin's own version (from its package.json) and the header every
// `--json` report starts with: what the report is, and which streamjoin and
// which spec produced it, so a CI dashboard can tell reports apart.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SPEC_VERSION } from '../spec/index.ts';

/** The nearest package.json above this module that is streamjoin's (the checkout, or the installed package). */
function packageVersion(): string {
  for (let dir = import.meta.dirname; ; ) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'streamjoin' && typeof pkg.version === 'string') return pkg.version;
    }
    const up = dirname(dir);
    if (up === dir) return '0.0.0-unknown';
    dir = up;
  }
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
