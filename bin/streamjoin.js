#!/usr/bin/env node
// Launcher of the streamjoin command. It runs the compiled CLI (dist/, built
// by `npm run build`; `npm pack` runs it through `prepack`, so the published
// package has it), else, in a checkout not built yet, the TypeScript sources.
//
// Mutation testing (`mutants`, `serve --mutant`) patches the implementation's
// TypeScript sources and loads them through tsx, which only a checkout has:
// there those commands run from the sources. STREAMJOIN_FROM_SOURCE=1 runs
// every command from the sources (development without a build; the start-up
// benchmark's "before").
import { existsSync } from 'node:fs';

const args = process.argv.slice(2);
const compiled = new URL('../dist/cli/bin.js', import.meta.url);
const source = new URL('../cli/bin.ts', import.meta.url);

const needsSources = args[0] === 'mutants' || (args[0] === 'serve' && args.some((a) => a === '--mutant' || a.startsWith('--mutant=')));
const wantsSources = process.env.STREAMJOIN_FROM_SOURCE === '1' || needsSources || !existsSync(compiled);

/** tsx's loader, when this is a checkout with its development dependencies; else undefined. */
async function tsxLoader() {
  if (!existsSync(source)) return undefined;
  try {
    return await import('tsx/esm/api');
  } catch {
    return undefined;
  }
}

const tsx = wantsSources ? await tsxLoader() : undefined;
if (tsx) {
  tsx.register();
  await import(source.href);
} else if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  process.stderr.write('streamjoin: internal error: dist/ is missing; run `npm run build` in the package directory\n');
  process.exitCode = 255;
}
