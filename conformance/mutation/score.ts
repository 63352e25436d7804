// The mutation score of impl/ against the conformance harness
// (docs/mutation.md): Stryker's JSON report (mutation-testing-report-schema)
// read into counts per file, with the survivors argued equivalent
// (equivalent.ts) set apart from the open ones.
import { EQUIVALENT_MUTANTS, type EquivalentMutant } from './equivalent.ts';

/** The parts of Stryker's JSON report this reads. */
export interface StrykerReport {
  readonly files: Readonly<
    Record<
      string,
      {
        readonly source: string;
        readonly mutants: readonly {
          readonly id: string;
          readonly mutatorName: string;
          readonly replacement?: string;
          readonly status: string;
          readonly statusReason?: string;
          readonly location: {
            readonly start: { readonly line: number; readonly column: number };
            readonly end: { readonly line: number; readonly column: number };
          };
        }[];
      }
    >
  >;
}

/** The reason a `// Stryker disable` comment gives to skip mutants equivalent.ts argues one by one (sites.ts places them). */
export const EQUIVALENT_DIRECTIVE = 'equivalent, each mutant argued in conformance/mutation/equivalent.ts';

/** One mutant as the report lists it. */
export interface ScoredMutant {
  readonly file: string;
  readonly line: number;
  /** The 1-based column the mutant starts at. */
  readonly column: number;
  /** The source line the mutant starts on, and the one before it. */
  readonly lineText: string;
  readonly lineBefore: string;
  readonly mutator: string;
  /** The code the mutant replaces, and what it puts there. */
  readonly original: string;
  readonly replacement: string;
  /** Stryker's status: Killed, Survived, Timeout, NoCoverage, Ignored, CompileError, RuntimeError. */
  readonly status: string;
  /** For a Survived or NoCoverage mutant argued equivalent: why. */
  readonly equivalent?: string;
  /** For an Ignored one: the reason its `// Stryker disable` comment gives. */
  readonly ignoredBecause?: string;
}

export interface FileScore {
  readonly file: string;
  readonly generated: number;
  readonly killed: number;
  readonly timedOut: number;
  readonly survived: number;
  readonly noCoverage: number;
  /**
   * Mutants argued equivalent (conformance/mutation/equivalent.ts) that survived, were not covered, or timed out (a slowdown is
   * no kill), or that a comment skipped as equivalent.
   */
  readonly equivalent: number;
  /** Left out by a `// Stryker disable` comment for code the protocol cannot reach (docs/mutation.md), or by Stryker. */
  readonly ignored: number;
  /** Mutants that do not run (a compile or runtime error in the mutant itself). */
  readonly errors: number;
}

export interface MutationScore {
  readonly files: readonly FileScore[];
  readonly total: FileScore;
  /** Killed or timed out, over every mutant neither ignored, equivalent nor erroneous. */
  readonly score: number;
  /** The survivors and uncovered mutants not argued equivalent. */
  readonly open: readonly ScoredMutant[];
  readonly equivalent: readonly ScoredMutant[];
  readonly ignored: readonly ScoredMutant[];
  /** Mutants argued equivalent that the harness killed: the argument is wrong (score.test.ts and the report say so). */
  readonly contradicted: readonly ScoredMutant[];
}

/** The text between two 1-based positions of `source`. */
export function textAt(source: string, start: { line: number; column: number }, end: { line: number; column: number }): string {
  const lines = source.split('\n');
  if (start.line === end.line) return (lines[start.line - 1] ?? '').slice(start.column - 1, end.column - 1);
  const first = (lines[start.line - 1] ?? '').slice(start.column - 1);
  const middle = lines.slice(start.line, end.line - 1);
  const last = (lines[end.line - 1] ?? '').slice(0, end.column - 1);
  return [first, ...middle, last].join('\n');
}

/**
 * The line before the 0-based line `index`, Stryker's comments aside: an
 * argument names it only to tell two equal lines apart, and a comment that
 * skips the mutants of the line must not change which line that is.
 */
export function lineBeforeOf(lines: readonly string[], index: number): string {
  let i = index - 1;
  while (i >= 0 && /^\s*\/\/ Stryker (disable|restore)/.test(lines[i] ?? '')) i--;
  return lines[i] ?? '';
}

/** Code compared without its layout and Stryker's comments: a formatter may move it, a comment may skip a mutant inside it; the mutant is the same. */
const squash = (code: string): string =>
  code
    .replace(/\/\/ Stryker (disable|restore)[^\n]*\n/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** The argument that a mutant is equivalent, if one names it (same file, source line, mutator, code and replacement). */
export function equivalenceOf(m: Omit<ScoredMutant, 'status'>, list: readonly EquivalentMutant[] = EQUIVALENT_MUTANTS): string | undefined {
  for (const e of list) {
    for (const site of e.mutants) {
      if (
        site.file === m.file &&
        site.mutator === m.mutator &&
        squash(site.line) === squash(m.lineText) &&
        (site.before === undefined || squash(site.before) === squash(m.lineBefore)) &&
        (site.column === undefined || site.column === m.column) &&
        squash(site.original) === squash(m.original) &&
        squash(site.replacement) === squash(m.replacement)
      )
        return e.reason;
    }
  }
  return undefined;
}

const emptyScore = (file: string): FileScore => ({
  file,
  generated: 0,
  killed: 0,
  timedOut: 0,
  survived: 0,
  noCoverage: 0,
  equivalent: 0,
  ignored: 0,
  errors: 0,
});

/** Reads a Stryker JSON report into counts per file, the open survivors, and the equivalent ones. */
export function scoreReport(report: StrykerReport, list: readonly EquivalentMutant[] = EQUIVALENT_MUTANTS): MutationScore {
  const files: FileScore[] = [];
  const open: ScoredMutant[] = [];
  const equivalent: ScoredMutant[] = [];
  const ignored: ScoredMutant[] = [];
  const contradicted: ScoredMutant[] = [];
  for (const file of Object.keys(report.files).sort()) {
    const f = report.files[file] as StrykerReport['files'][string];
    const s = { ...emptyScore(file) };
    for (const m of f.mutants) {
      const base = {
        file,
        line: m.location.start.line,
        column: m.location.start.column,
        lineText: f.source.split('\n')[m.location.start.line - 1] ?? '',
        lineBefore: lineBeforeOf(f.source.split('\n'), m.location.start.line - 1),
        mutator: m.mutatorName,
        original: textAt(f.source, m.location.start, m.location.end),
        replacement: m.replacement ?? '',
      };
      s.generated++;
      // Skipped by a comment as equivalent (sites.ts): counted as argued only if equivalent.ts argues it; else never tested, so open.
      const skipped = m.status === 'Ignored' && (m.statusReason ?? '').startsWith(EQUIVALENT_DIRECTIVE);
      const why = m.status === 'Ignored' && !skipped ? undefined : equivalenceOf(base, list);
      if (skipped) {
        if (why !== undefined) {
          s.equivalent++;
          equivalent.push({ ...base, status: m.status, equivalent: why });
        } else {
          s.noCoverage++;
          open.push({ ...base, status: m.status });
        }
        continue;
      }
      if (why !== undefined && m.status === 'Killed') {
        // The harness told it apart: the argument is wrong.
        s.killed++;
        contradicted.push({ ...base, status: m.status, equivalent: why });
        continue;
      }
      if (why !== undefined && (m.status === 'Survived' || m.status === 'NoCoverage' || m.status === 'Timeout')) {
        // A timeout of an equivalent mutant is a slowdown (or a loaded machine), not a kill.
        s.equivalent++;
        equivalent.push({ ...base, status: m.status, equivalent: why });
        continue;
      }
      switch (m.status) {
        case 'Killed':
          s.killed++;
          break;
        case 'Timeout':
          s.timedOut++;
          break;
        case 'Ignored':
          s.ignored++;
          ignored.push({ ...base, status: m.status, ...(m.statusReason ? { ignoredBecause: m.statusReason } : {}) });
          break;
        case 'Survived':
          s.survived++;
          open.push({ ...base, status: m.status });
          break;
        case 'NoCoverage':
          s.noCoverage++;
          open.push({ ...base, status: m.status });
          break;
        default:
          s.errors++;
      }
    }
    files.push(s);
  }
  const total = files.reduce(
    (t, f) => ({
      file: 'all files',
      generated: t.generated + f.generated,
      killed: t.killed + f.killed,
      timedOut: t.timedOut + f.timedOut,
      survived: t.survived + f.survived,
      noCoverage: t.noCoverage + f.noCoverage,
      equivalent: t.equivalent + f.equivalent,
      ignored: t.ignored + f.ignored,
      errors: t.errors + f.errors,
    }),
    emptyScore('all files'),
  );
  const judged = total.killed + total.timedOut + total.survived + total.noCoverage;
  return { files, total, score: judged === 0 ? 1 : (total.killed + total.timedOut) / judged, open, equivalent, ignored, contradicted };
}

/** The Markdown tables of docs/mutation.md: counts per file, then every survivor not argued equivalent. */
export function scoreMarkdown(s: MutationScore): string {
  const row = (f: FileScore): string =>
    `| ${f.file} | ${f.generated} | ${f.killed} | ${f.timedOut} | ${f.survived} | ${f.noCoverage} | ${f.equivalent} | ${f.ignored} | ${f.errors} |`;
  const lines = [
    '| file | generated | killed | timed out | survived | no coverage | equivalent | ignored | errors |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...s.files.map(row),
    row(s.total).replace('| all files |', '| **all files** |'),
    '',
    `Mutation score: ${(100 * s.score).toFixed(1)} % of the non-equivalent mutants killed (killed or timed out, over killed, timed out, survived and no coverage).`,
  ];
  if (s.contradicted.length > 0) {
    lines.push('', 'Argued equivalent, yet killed (the argument is wrong; fix equivalents.json):', '');
    for (const m of s.contradicted)
      lines.push(`- ${m.file}:${m.line} ${m.mutator} \`${squash(m.original)}\` → \`${squash(m.replacement)}\``);
  }
  if (s.open.length > 0) {
    lines.push(
      '',
      'Survivors not argued equivalent:',
      '',
      '| file | line | mutator | code | mutant | status |',
      '|---|--:|---|---|---|---|',
    );
    const code = (c: string): string => `\`${squash(c).replace(/\|/g, '\\|').slice(0, 80)}\``;
    for (const m of s.open)
      lines.push(`| ${m.file} | ${m.line} | ${m.mutator} | ${code(m.original)} | ${code(m.replacement)} | ${m.status} |`);
  }
  return lines.join('\n');
}
