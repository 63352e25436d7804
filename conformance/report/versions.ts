// streamjoin's own version (from its package.json) and the spec version it
// implements: what every report and every counterexample file names, so a
// reader can tell which tool and which rules produced it. Library code reads
// it here; cli/version.ts builds the JSON report header from it.
import { readFileSync } from 'node:fs';
// Direct imports (not spec/index.ts, which loads ajv): the CLI's help and --version read this.
import { SPEC_VERSION } from '../../spec/constants.ts';
import { packagePath } from '../../spec/packageFiles.ts';

/** The version in streamjoin's package.json (the checkout's, or the installed package's). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : '0.0.0-unknown';
}

export const STREAMJOIN_VERSION: string = packageVersion();

/** The versions a counterexample names. */
export interface Versions {
  readonly streamjoin: string;
  readonly spec: string;
}

export const VERSIONS: Versions = { streamjoin: STREAMJOIN_VERSION, spec: SPEC_VERSION };
