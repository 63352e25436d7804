// A mutant (mutants/catalogue.ts) as a system under test: impl/ copied
// under a temporary directory next to a symlink of spec/ (so impl's
// relative imports of spec/ keep working and resolve to the very same
// modules), the mutant's patches applied to the copy, and the copy loaded
// in-process with a dynamic import (tsx, or vitest, is the TypeScript
// loader). The temporary directories are removed when the process exits.
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ImplModule } from './implOperator.ts';
import { implSutOf } from './implSut.ts';
import type { InProcessSut } from '../sut/sut.ts';
import { PACKAGE_ROOT, SPEC_VERSION } from '../../spec/index.ts';
import type { Mutant, SourcePatch } from '../mutants/catalogue.ts';

/** The project's root: impl/ and spec/ are found here. */
export const PROJECT_ROOT = PACKAGE_ROOT;

/** A patch that no longer applies: its snippet is missing from the file, or occurs more than once. */
export class MutantPatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MutantPatchError';
  }
}

/** A marker line: `// mutant: NAME` alone on its line (indentation aside). */
const MARKER = /^[ \t]*\/\/ mutant: ([^\s]+)[ \t]*$/;

/** Every marker of a file: the mutant it names and its line (0-based), in file order. */
export function markersOf(text: string): { readonly mutant: string; readonly line: number }[] {
  const out: { mutant: string; line: number }[] = [];
  text.split('\n').forEach((l, line) => {
    const m = MARKER.exec(l);
    if (m) out.push({ mutant: m[1] as string, line });
  });
  return out;
}

/**
 * Applies a mutant's patches to one file's text. The mutant's markers in the
 * file are matched with its patches for that file in order; each patch
 * replaces the `lines` lines that follow its marker (and any markers of
 * other mutants stacked right under it), or, with `lines: 0`, inserts its
 * text there. Throws MutantPatchError when the markers and the patches do
 * not pair up one to one, or a marked site runs past the end of the file.
 */
export function applyPatches(mutant: string, file: string, text: string, patches: readonly SourcePatch[]): string {
  const marker = patches[0]?.marker ?? mutant;
  const lines = text.split('\n');
  const markers = markersOf(text).filter((m) => m.mutant === marker);
  if (markers.length !== patches.length) {
    throw new MutantPatchError(
      `mutant ${mutant}: impl/${file} has ${markers.length} ` +
        `marker${markers.length === 1 ? '' : 's'} "// mutant: ${marker}", the catalogue has ` +
        `${patches.length} patch${patches.length === 1 ? '' : 'es'} for it there: impl/ changed; ` +
        `put the markers back or update the catalogue (conformance/mutants/catalogue.ts)`,
    );
  }
  // From the last site up, so that earlier line numbers stay valid.
  for (let i = markers.length - 1; i >= 0; i--) {
    const patch = patches[i] as SourcePatch;
    let at = (markers[i] as { line: number }).line + 1;
    while (at < lines.length && MARKER.test(lines[at] as string)) at++;
    if (at + patch.lines > lines.length) {
      throw new MutantPatchError(`mutant ${mutant}: the site marked in impl/${file} runs past the end of the file`);
    }
    lines.splice(at, patch.lines, ...patch.replace.split('\n'));
  }
  return lines.join('\n');
}

/** The patched text of every file a mutant touches, from the sources under `root` (checks every patch). */
export function patchedFiles(mutant: Mutant, root: string = PROJECT_ROOT): Map<string, string> {
  const files = new Map<string, string>();
  for (const file of new Set(mutant.patches.map((p) => p.file))) {
    const text = readFileSync(join(root, 'impl', ...file.split('/')), 'utf8');
    files.set(
      file,
      applyPatches(
        mutant.name,
        file,
        text,
        mutant.patches.filter((p) => p.file === file),
      ),
    );
  }
  return files;
}

/**
 * Why mutants cannot be built by this copy of streamjoin, or undefined. A
 * mutant is a patch of the implementation's TypeScript sources, loaded
 * through a TypeScript loader (tsx, vitest): the compiled package has
 * neither, a checkout has both (its launcher runs `mutants` and
 * `serve --mutant` from the sources).
 */
export function mutantBuildProblem(): string | undefined {
  if (import.meta.url.endsWith('.ts')) return undefined;
  return (
    "mutants patch the implementation's TypeScript sources (impl/*.ts) and load them through " +
    'tsx, which only a checkout of streamjoin has: run `node bin/streamjoin.js mutants` in a ' +
    'checkout after `npm ci` (this is the compiled package)'
  );
}

const made: string[] = [];
let cleanupHooked = false;

function removeAll(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * Writes the mutant's copy of impl/ (tests and test helpers left out) next
 * to a symlink of spec/ in a new temporary directory; returns the directory,
 * which the caller removes (`removeDir`; whatever is left goes at exit).
 */
export function materializeMutant(mutant: Mutant, root: string = PROJECT_ROOT): string {
  const files = patchedFiles(mutant, root);
  const dir = mkdtempSync(join(tmpdir(), `streamjoin-mutant-${mutant.name}-`));
  made.push(dir);
  if (!cleanupHooked) {
    cleanupHooked = true;
    process.on('exit', removeAll);
  }
  cpSync(join(root, 'impl'), join(dir, 'impl'), {
    recursive: true,
    filter: (src) => !src.endsWith('.test.ts') && !src.endsWith('.crashChild.ts'),
  });
  symlinkSync(join(root, 'spec'), join(dir, 'spec'), 'dir');
  // ESM, as in the project: without it the loader would take the copied .ts files for CommonJS.
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ private: true, type: 'module' })}\n`);
  for (const [file, text] of files) writeFileSync(join(dir, 'impl', ...file.split('/')), text);
  return dir;
}

const loaded = new Map<string, Promise<ImplModule>>();

/**
 * The mutant's impl module, built and imported once per process. Its
 * directory is removed as soon as the import settles: by then every module
 * of the copy is loaded (impl/ imports nothing lazily), and no exit hook is
 * needed, which a test worker that is killed would never run.
 */
export function loadMutantImpl(mutant: Mutant, root: string = PROJECT_ROOT): Promise<ImplModule> {
  let p = loaded.get(mutant.name);
  if (!p) {
    const dir = materializeMutant(mutant, root);
    p = import(pathToFileURL(join(dir, 'impl', 'index.ts')).href).then((m: unknown) => m as ImplModule).finally(() => removeDir(dir));
    loaded.set(mutant.name, p);
  }
  return p;
}

/** Removes one directory this process made. */
export function removeDir(dir: string): void {
  const i = made.indexOf(dir);
  if (i >= 0) made.splice(i, 1);
  rmSync(dir, { recursive: true, force: true });
}

/** The mutant as a system under test at every level, named `streamjoin-impl-mutant-NAME`. */
export async function mutantSut(
  mutant: Mutant,
  options: { readonly dataDir?: string; readonly recordDir?: string } = {},
): Promise<InProcessSut> {
  const impl = await loadMutantImpl(mutant);
  return implSutOf(impl, {
    implementation: { name: `streamjoin-impl-mutant-${mutant.name}`, version: SPEC_VERSION },
    ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
    ...(options.recordDir !== undefined ? { recordDir: options.recordDir } : {}),
  });
}
