// The harness's layout, read from its imports: what may import what inside
// conformance/ (README.md, "What is where"). The rules about arrows count
// every .ts file, tests too; the floors count the library's files (a test
// sits on top of what it tests).
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const HARNESS = join(ROOT, 'conformance');

/** Every relative import of every .ts file under conformance/, as paths from the project root. */
function imports(): { from: string; to: string }[] {
  const files = readdirSync(HARNESS, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const out: { from: string; to: string }[] = [];
  // `import ... from '...'`, `export ... from '...'`, `import('...')`, `import '...'`.
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (const f of files) {
    const from = join(HARNESS, f);
    for (const m of readFileSync(from, 'utf8').matchAll(pattern)) {
      out.push({ from: relative(ROOT, from), to: relative(ROOT, resolve(dirname(from), m[1] as string)) });
    }
  }
  return out;
}

const all = imports();
const crossing = (fromDir: string, toDir: string): string[] =>
  all.filter((i) => i.from.startsWith(fromDir) && i.to.startsWith(toDir)).map((i) => `${i.from} imports ${i.to}`);

describe('the harness layout', () => {
  it('the scan sees the imports it checks (a scan that finds nothing would pass anything)', () => {
    expect(crossing('conformance/report/', 'conformance/lockstep/').length).toBeGreaterThan(0);
    expect(crossing('conformance/job/', 'conformance/report/').length).toBeGreaterThan(0);
    expect(all.filter((i) => i.to.startsWith('spec/')).length).toBeGreaterThan(20);
  });

  it('lockstep/ imports nothing from report/ or views/: lockstep judges (the facts of a divergence), report/ explains (the rules it breaks), views/ shows', () => {
    expect(crossing('conformance/lockstep/', 'conformance/report/')).toEqual([]);
    expect(crossing('conformance/lockstep/', 'conformance/views/')).toEqual([]);
  });

  it('nothing under conformance/ imports cli/: the command line is built on the harness, never the other way', () => {
    expect(crossing('conformance/', 'cli/')).toEqual([]);
  });

  it('the folders of conformance/ import each other without a cycle, at most three floors deep (README.md says how floors are counted)', () => {
    // A folder's floor: 1 if it imports no other folder of conformance/, else one more than the highest floor it imports.
    // The top-level files of conformance/ (test support only) are a folder of their own, `.`.
    const folderOf = (path: string): string => dirname(relative('conformance', path)).split('/')[0] as string;
    const library = all.filter((i) => !/\.(test|e2e\.test|mutation)\.ts$/.test(i.from) && i.to.startsWith('conformance/'));
    const edges = new Map<string, Set<string>>();
    for (const { from, to } of library) {
      const [a, b] = [folderOf(from), folderOf(to)];
      if (a !== b) edges.set(a, (edges.get(a) ?? new Set()).add(b));
    }
    const floors = new Map<string, number>();
    const floorOf = (folder: string, path: readonly string[] = []): number => {
      if (path.includes(folder)) throw new Error(`a cycle: ${[...path, folder].join(' -> ')}`);
      const known = floors.get(folder);
      if (known !== undefined) return known;
      const floor = 1 + Math.max(0, ...[...(edges.get(folder) ?? [])].map((to) => floorOf(to, [...path, folder])));
      floors.set(folder, floor);
      return floor;
    };
    for (const folder of edges.keys()) floorOf(folder);
    expect(floors.get('job'), 'the job sits on the folders it composes').toBeGreaterThan(floors.get('lockstep') ?? 0);
    expect(Object.fromEntries([...floors].filter(([, floor]) => floor > 3))).toEqual({});
  });
});
