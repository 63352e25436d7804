// streamjoin's own version (from its package.json) and the spec version it
// implements: what every report and every counterexample file names, so a
// reader can tell which tool and which rules produced it. Library code reads
// it here; cli/version.ts builds the JSON report header from it.
import { readFileSync } from 'node:fs';
// Direct imports (not spec/index.ts, which loads ajv): the CLI's help and --version read this.
import { SPEC_VERSION } from '../../spec/constants.ts';
import { packagePath } from '../../spec/packageFiles.ts';

const pkg = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version?: unknown; repository?: unknown };

/** The version in streamjoin's package.json (the checkout's, or the installed package's). */
export const STREAMJOIN_VERSION: string = typeof pkg.version === 'string' ? pkg.version : '0.0.0-unknown';

/** The published repository (package.json `repository`) as a web address, without `git+` and `.git`. */
export const REPOSITORY_URL: string = repositoryUrl(pkg.repository);

function repositoryUrl(repository: unknown): string {
  const url = typeof repository === 'string' ? repository : (repository as { url?: unknown } | undefined)?.url;
  if (typeof url !== 'string') return 'https://github.com/streamjoin/streamjoin';
  return url.replace(/^git\+/, '').replace(/\.git$/, '');
}

/** The versions a counterexample names. */
export interface Versions {
  /** The streamjoin package version. */
  readonly streamjoin: string;
  /** The spec version (SPEC_VERSION). */
  readonly spec: string;
}

export const VERSIONS: Versions = { streamjoin: STREAMJOIN_VERSION, spec: SPEC_VERSION };
