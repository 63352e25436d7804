// streamjoin's own version (from its package.json) and the spec version it
// implements: what every report and every counterexample file names, so a
// reader can tell which tool and which rules produced it. Library code reads
// it here; cli/version.ts builds the JSON report header from it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SPEC_VERSION } from '../../spec/index.ts';

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

/** The versions a counterexample names. */
export interface Versions {
  readonly streamjoin: string;
  readonly spec: string;
}

export const VERSIONS: Versions = { streamjoin: STREAMJOIN_VERSION, spec: SPEC_VERSION };
