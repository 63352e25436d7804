// The mutants Stryker makes of impl/, without running any test: its own
// instrumenter over the files, with their `// Stryker disable` comments. The
// tests use it to check that a comment which skips mutants as equivalent skips
// only mutants equivalent.ts argues (score.test.ts), and
// scripts/mutation-equivalents.ts to place those comments.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import type { Logger } from '@stryker-mutator/api/logging';
import { EQUIVALENT_DIRECTIVE, equivalenceOf, lineBeforeOf, textAt, type ScoredMutant } from './score.ts';

/** One mutant Stryker would test (or skip, with the reason of the comment that disables it). */
export type MutantSite = Omit<ScoredMutant, 'status'> & { readonly ignoredBecause?: string };

const quiet = (): boolean => false;
const silent = (): void => undefined;
const logger: Logger = {
  isTraceEnabled: quiet,
  isDebugEnabled: quiet,
  isInfoEnabled: quiet,
  isWarnEnabled: quiet,
  isErrorEnabled: quiet,
  isFatalEnabled: quiet,
  trace: silent,
  debug: silent,
  info: silent,
  warn: silent,
  error: silent,
  fatal: silent,
};

/** The mutants of `files` (paths relative to `root`), as Stryker generates them. */
export async function mutantSites(root: string, files: readonly string[]): Promise<MutantSite[]> {
  const sources = new Map(files.map((f) => [f, readFileSync(join(root, f), 'utf8')]));
  const result = await new Instrumenter(logger).instrument(
    files.map((name) => ({ name, content: sources.get(name) as string, mutate: true })),
    { plugins: null, excludedMutations: [], ignorers: [], noHeader: true },
  );
  return result.mutants.map((m) => {
    const source = sources.get(m.fileName) as string;
    const lines = source.split('\n');
    const { start, end } = m.location;
    // The instrumenter counts lines from 0 and columns from 0; reports count both from 1.
    const at = { start: { line: start.line + 1, column: start.column + 1 }, end: { line: end.line + 1, column: end.column + 1 } };
    return {
      file: m.fileName,
      line: at.start.line,
      column: at.start.column,
      lineText: lines[start.line] ?? '',
      lineBefore: lineBeforeOf(lines, start.line),
      mutator: m.mutatorName,
      original: textAt(source, at.start, at.end),
      replacement: m.replacement,
      ...(m.status === 'Ignored' && m.statusReason !== undefined ? { ignoredBecause: m.statusReason } : {}),
    };
  });
}

/** The files Stryker mutates (stryker.config.json's `mutate`: impl/ without tests, crash children and left-out files). */
export function mutatedFiles(root: string): string[] {
  const config = JSON.parse(readFileSync(join(root, 'stryker.config.json'), 'utf8')) as { mutate: string[] };
  const excluded = new Set(config.mutate.filter((p) => p.startsWith('!') && !p.includes('*')).map((p) => p.slice(1)));
  return readdirSync(join(root, 'impl'), { recursive: true, encoding: 'utf8' })
    .map((f) => `impl/${f}`)
    .filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.crashChild.ts') && f !== 'impl/index.ts' && !excluded.has(f),
    )
    .sort();
}

/** The mutants a comment skips as equivalent that equivalent.ts does not argue (none, when the comments are right). */
export function unarguedSkips(sites: readonly MutantSite[]): MutantSite[] {
  return sites.filter((m) => m.ignoredBecause?.startsWith(EQUIVALENT_DIRECTIVE) === true && equivalenceOf(m) === undefined);
}
