// The README's library example runs as written: its one TypeScript block,
// with 'streamjoin' pointing at this checkout's index.ts, run by Node with
// tsx from the checkout's root (the Python starter and the spec's example
// are found there), prints what its comments say, and exits on its own.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';

const root = join(import.meta.dirname, '..');
const tmp = useTemporaryDirectories('sj-readme-');

describe("the README's library example", () => {
  it('runConform({ system: implSut, ...builtInTraces() }) passes; a spawned system with a trace as loaded passes and is closed; the process exits by itself', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## As a library'));
    const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    if (code === undefined) throw new Error('no ts block under "As a library"');
    const file = join(tmp(), 'example.mts');
    writeFileSync(file, code.replace("from 'streamjoin'", `from '${pathToFileURL(join(root, 'index.ts')).href}'`));
    const r = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8', timeout: 300_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter((l) => l !== '')).toEqual(['pass 0', 'pass']);
  });
});
