// Where streamjoin's own files are at run time: the package root (the
// checkout, or node_modules/streamjoin when installed), found from this
// module whether it runs as TypeScript (spec/) or compiled (dist/spec/). The
// code reads the schemas, the examples and the regression traces from there.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findPackageRoot(): string {
  for (let dir = import.meta.dirname; ; ) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown };
      if (pkg.name === 'streamjoin') return dir;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`streamjoin: no package.json of streamjoin above ${import.meta.dirname}`);
    dir = up;
  }
}

/** The directory of streamjoin's package.json. */
export const PACKAGE_ROOT: string = findPackageRoot();

/** A path inside the package (`packagePath('spec', 'examples')`). */
export function packagePath(...segments: string[]): string {
  return join(PACKAGE_ROOT, ...segments);
}
