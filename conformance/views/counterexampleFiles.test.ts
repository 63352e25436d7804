// Counterexample files travel: attached to an issue, read on another
// machine. Nothing in them names the machine they were written on (no
// absolute path: the example is named from the package root, the links go
// to the published repository), and the replay command is the installed
// form with the trace path as given.
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../spec/packageFiles.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';
import { clusterFailure, operatorFailure } from './counterexampleFixtures.ts';
import { portablePath, writeCounterexample } from './counterexampleFiles.ts';

const tmp = useTemporaryDirectories('sj-cx-files-');

describe('counterexample files name nothing of the machine', () => {
  it('no absolute path in any file (trace, explanation, Markdown, HTML, ITF); the replay command is npx streamjoin with the path as given', async () => {
    for (const failure of [await operatorFailure(), await clusterFailure()]) {
      const outDir = tmp();
      const w = writeCounterexample(failure, {
        outDir,
        name: 'cx',
        invocation: ['npx', 'streamjoin'],
        sutCommand: 'python3 join.py',
        sut: 'python3 join.py',
        itf: true,
      });
      expect(w.replayArgv.slice(0, 4)).toEqual(['npx', 'streamjoin', 'replay', join(outDir, 'cx.trace.json')]);
      for (const file of readdirSync(outDir)) {
        // The trace path as given (absolute here, as the --out given was) is the one path allowed: in the replay command.
        const text = readFileSync(join(outDir, file), 'utf8').replaceAll(w.tracePath, 'TRACE');
        for (const machine of [PACKAGE_ROOT, tmpdir(), homedir(), process.cwd()])
          expect(text, `${file} names ${machine}`).not.toContain(machine);
        if (file.endsWith('.md')) expect(text).toContain(`the example ${portablePath(failure.path ?? '')}`);
      }
    }
  });

  it('portablePath: a built-in file from the package root, a file under the working directory from there, any other as given', () => {
    expect(portablePath(join(PACKAGE_ROOT, 'spec', 'examples', 'x.trace.json'), '/elsewhere')).toBe('spec/examples/x.trace.json');
    expect(portablePath('/work/p/out/x.trace.json', '/work/p')).toBe('out/x.trace.json');
    expect(portablePath('/elsewhere/x.trace.json', '/work/p')).toBe('/elsewhere/x.trace.json');
  });
});
