// Mutants of impl/ that no conforming behaviour can tell from the
// implementation, each under its argument (docs/mutation.md): the harness
// cannot kill them because there is nothing to observe. The arguments and
// the mutants each covers are data (equivalents.json), read here. A
// survivor counts as equivalent only under an argument; score.ts matches a
// report's mutants to the entries by file, source line, mutator, the code
// replaced and its replacement (layout aside), so an entry goes stale, and
// its mutant counts as an open survivor again, as soon as the code it
// argues about changes (score.test.ts fails on a stale entry).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One mutant: its file and source line (the code on it), which mutator, the code it replaces and its replacement (as Stryker reports them). */
export interface EquivalentSite {
  readonly file: string;
  readonly line: string;
  /** The line before it, when the same line occurs more than once in the file. */
  readonly before?: string;
  /** The 1-based column the mutant starts at, when its line holds two mutants of the same code and replacement. */
  readonly column?: number;
  readonly mutator: string;
  readonly original: string;
  readonly replacement: string;
}

/** Mutants equivalent for one reason (an argument of docs/mutation.md). */
export interface EquivalentMutant {
  readonly reason: string;
  readonly mutants: readonly EquivalentSite[];
}

/** An argument as equivalents.json holds it: a short name, the argument, the mutants it covers. */
export interface EquivalentArgument extends EquivalentMutant {
  readonly name: string;
}

export const EQUIVALENTS_FILE = join(import.meta.dirname, 'equivalents.json');

/** The arguments of a file shaped as equivalents.json; throws an Error naming the file and the JSON pointer of the first thing wrong. */
export function readEquivalents(path: string): EquivalentArgument[] {
  const fail = (pointer: string, what: string): never => {
    throw new Error(`${path}: ${pointer}: ${what}`);
  };
  const text = (value: unknown, pointer: string): string =>
    typeof value === 'string' && value !== '' ? value : fail(pointer, 'expected a non-empty string');
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    return fail('', `not JSON: ${(e as Error).message}`);
  }
  const list = (data as { arguments?: unknown } | null)?.arguments;
  if (!Array.isArray(list)) return fail('/arguments', 'expected an array of arguments');
  const names = new Set<string>();
  return list.map((a: Record<string, unknown>, i): EquivalentArgument => {
    const at = `/arguments/${i}`;
    const name = text(a?.['name'], `${at}/name`);
    if (names.has(name)) fail(`${at}/name`, `"${name}" names two arguments`);
    names.add(name);
    const mutants = a['mutants'];
    if (!Array.isArray(mutants) || mutants.length === 0) return fail(`${at}/mutants`, 'expected a non-empty array of mutants');
    return {
      name,
      reason: text(a['reason'], `${at}/reason`),
      mutants: mutants.map((m: Record<string, unknown>, j): EquivalentSite => {
        const site = `${at}/mutants/${j}`;
        const column = m?.['column'];
        if (column !== undefined && !(Number.isInteger(column) && (column as number) > 0))
          fail(`${site}/column`, 'expected a positive integer');
        return {
          file: text(m?.['file'], `${site}/file`),
          line: text(m['line'], `${site}/line`),
          ...(m['before'] !== undefined ? { before: text(m['before'], `${site}/before`) } : {}),
          ...(column !== undefined ? { column: column as number } : {}),
          mutator: text(m['mutator'], `${site}/mutator`),
          original: text(m['original'], `${site}/original`),
          replacement: typeof m['replacement'] === 'string' ? m['replacement'] : fail(`${site}/replacement`, 'expected a string'),
        };
      }),
    };
  });
}

/** Every argument, with the mutants it covers, in the order docs/mutation.md lists them. */
export const EQUIVALENT_MUTANTS: readonly EquivalentArgument[] = readEquivalents(EQUIVALENTS_FILE);
