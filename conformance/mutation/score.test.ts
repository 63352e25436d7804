import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EQUIVALENT_MUTANTS, readEquivalents, type EquivalentMutant } from './equivalent.ts';
import { EQUIVALENT_DIRECTIVE, equivalenceOf, scoreMarkdown, scoreReport, type StrykerReport } from './score.ts';
import { mutantSites, mutatedFiles, unarguedSkips } from './sites.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';

const root = join(import.meta.dirname, '..', '..');
const squash = (code: string): string => code.replace(/\s+/g, ' ').trim();
const tmp = useTemporaryDirectories('sj-equivalents-');

describe('the mutation score (docs/mutation.md)', () => {
  it('counts per file, sets survivors argued equivalent apart from the open ones, and scores killed or timed out over the rest', () => {
    const source = 'const a = 1;\nif (a > 0) f();\nif (a > 0) g();\n';
    const at = (line: number, from: number, to: number) => ({ start: { line, column: from }, end: { line, column: to } });
    const report: StrykerReport = {
      files: {
        'impl/x.ts': {
          source,
          mutants: [
            { id: '1', mutatorName: 'EqualityOperator', replacement: 'a >= 0', status: 'Survived', location: at(2, 5, 10) },
            { id: '2', mutatorName: 'EqualityOperator', replacement: 'a >= 0', status: 'Survived', location: at(3, 5, 10) },
            { id: '3', mutatorName: 'ConditionalExpression', replacement: 'true', status: 'Killed', location: at(2, 5, 10) },
            { id: '4', mutatorName: 'ConditionalExpression', replacement: 'false', status: 'Timeout', location: at(2, 5, 10) },
            { id: '5', mutatorName: 'NumericLiteral', replacement: '0', status: 'NoCoverage', location: at(1, 11, 12) },
            { id: '7', mutatorName: 'ConditionalExpression', replacement: 'true', status: 'Timeout', location: at(3, 5, 10) },
            { id: '8', mutatorName: 'ConditionalExpression', replacement: 'false', status: 'Killed', location: at(3, 5, 10) },
            {
              id: '9',
              mutatorName: 'EqualityOperator',
              replacement: 'a >= 0',
              status: 'Ignored',
              statusReason: `${EQUIVALENT_DIRECTIVE} (docs/mutation.md)`,
              location: at(2, 5, 10),
            },
            {
              id: '10',
              mutatorName: 'EqualityOperator',
              replacement: 'a < 0',
              status: 'Ignored',
              statusReason: `${EQUIVALENT_DIRECTIVE} (docs/mutation.md)`,
              location: at(2, 5, 10),
            },
            {
              id: '6',
              mutatorName: 'BlockStatement',
              replacement: '{}',
              status: 'Ignored',
              statusReason: 'text only',
              location: at(1, 1, 13),
            },
          ],
        },
      },
    };
    const list: EquivalentMutant[] = [
      {
        reason: 'f tolerates it',
        mutants: [
          { file: 'impl/x.ts', line: 'if (a > 0)   f();', mutator: 'EqualityOperator', original: 'a > 0', replacement: 'a >= 0' },
          { file: 'impl/x.ts', line: 'if (a > 0) g();', mutator: 'ConditionalExpression', original: 'a > 0', replacement: 'true' },
          { file: 'impl/x.ts', line: 'if (a > 0) g();', mutator: 'ConditionalExpression', original: 'a > 0', replacement: 'false' },
        ],
      },
    ];
    const s = scoreReport(report, list);
    expect(s.files).toEqual([
      { file: 'impl/x.ts', generated: 10, killed: 2, timedOut: 1, survived: 1, noCoverage: 2, equivalent: 3, ignored: 1, errors: 0 },
    ]);
    expect(s.score).toBe(3 / 6);
    // A timeout of an argued mutant is no kill; a kill of one says the argument is wrong.
    // A mutant skipped as equivalent counts as argued only when it is: the second skip hides a mutant nobody argued.
    expect(s.equivalent.map((m) => [m.line, m.status, m.equivalent])).toEqual([
      [2, 'Survived', 'f tolerates it'],
      [3, 'Timeout', 'f tolerates it'],
      [2, 'Ignored', 'f tolerates it'],
    ]);
    expect(s.contradicted.map((m) => [m.line, m.replacement])).toEqual([[3, 'false']]);
    expect(s.open.map((m) => [m.line, m.status, m.replacement])).toEqual([
      [3, 'Survived', 'a >= 0'],
      [1, 'NoCoverage', '0'],
      [2, 'Ignored', 'a < 0'],
    ]);
    expect(s.ignored[0]?.ignoredBecause).toBe('text only');
    const md = scoreMarkdown(s);
    expect(md).toContain('| impl/x.ts | 10 | 2 | 1 | 1 | 2 | 3 | 1 | 0 |');
    expect(md).toContain('Mutation score: 50.0 %');
    expect(md).toContain('Argued equivalent, yet killed');
    expect(md).toContain('| impl/x.ts | 3 | EqualityOperator | `a > 0` | `a >= 0` | Survived |');
  });

  it(
    'every mutant argued equivalent is still in impl/ as argued: its line is in its file and holds the code the mutant replaces ' +
      '(a stale argument fails here, not silently)',
    () => {
      for (const group of EQUIVALENT_MUTANTS) {
        expect(group.reason.length, group.reason).toBeGreaterThan(40);
        for (const m of group.mutants) {
          const lines = readFileSync(join(root, m.file), 'utf8').split('\n').map(squash);
          const line = squash(m.line);
          expect(lines, `${m.file}: ${m.line}`).toContain(line);
          expect(line, `${m.file}: ${m.mutator} ${m.original}`).toContain(squash(m.original.split('\n')[0] ?? ''));
        }
      }
    },
  );

  it('every Stryker disable comment in impl/ gives its reason, and docs/mutation.md argues that reason (nothing is left out silently)', () => {
    const docs = squash(readFileSync(join(root, 'docs', 'mutation.md'), 'utf8'));
    const files = readdirSync(join(root, 'impl'), { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
    );
    let comments = 0;
    for (const f of files) {
      for (const line of readFileSync(join(root, 'impl', f), 'utf8').split('\n')) {
        const directive = /\/\/ Stryker disable(?: next-line)? [A-Za-z, ]+(?:: (.*))?$/.exec(line);
        if (!directive) continue;
        comments++;
        const reason = (directive[1] ?? '').replace(/\s*\(docs\/mutation\.md\)$/, '');
        expect(reason.length, `impl/${f}: ${line.trim()}`).toBeGreaterThan(20);
        expect(docs, `impl/${f}: the reason "${reason}" is not in docs/mutation.md`).toContain(squash(reason));
      }
    }
    expect(comments).toBeGreaterThan(0);
  });

  it('a comment that skips mutants as equivalent skips only mutants equivalent.ts argues, and every argument is for a mutant Stryker makes', async () => {
    const sites = await mutantSites(root, mutatedFiles(root));
    // An argument for a mutant that code left out (or a file not mutated) no longer argues anything.
    const argued = sites.filter((m) => m.ignoredBecause === undefined || m.ignoredBecause.startsWith(EQUIVALENT_DIRECTIVE));
    const unused = EQUIVALENT_MUTANTS.flatMap((e) =>
      e.mutants.filter((site) => !argued.some((m) => equivalenceOf(m, [{ reason: e.reason, mutants: [site] }]) !== undefined)),
    );
    expect(unused.map((m) => `${m.file}: ${m.line} ${m.mutator} ${m.replacement}`)).toEqual([]);
    const skipped = sites.filter((m) => m.ignoredBecause?.startsWith(EQUIVALENT_DIRECTIVE));
    expect(skipped.length).toBeGreaterThan(0);
    expect(unarguedSkips(sites).map((m) => `${m.file}:${m.line} ${m.mutator} ${m.replacement}`)).toEqual([]);
  });

  it('every argument in equivalents.json is argued in docs/mutation.md, word for word and with the number of mutants it covers', () => {
    const docs = squash(readFileSync(join(root, 'docs', 'mutation.md'), 'utf8'));
    expect(EQUIVALENT_MUTANTS.length).toBeGreaterThan(30);
    for (const e of EQUIVALENT_MUTANTS) {
      const n = e.mutants.length;
      expect(docs, `${e.name}: not argued in docs/mutation.md as listed by mutation-report.ts --reasons`).toContain(
        squash(`- (${n} mutant${n === 1 ? '' : 's'}) ${e.reason}`),
      );
    }
  });

  it('a malformed equivalents file is refused with the file and the JSON pointer of the first thing wrong', () => {
    const file = join(tmp(), 'equivalents.json');
    const refused = (data: unknown): string => {
      writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data));
      try {
        readEquivalents(file);
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    const site = { file: 'impl/x.ts', line: 'f();', mutator: 'BlockStatement', original: 'f()', replacement: '{}' };
    expect(refused('{')).toMatch(new RegExp(`^${file}: : not JSON`));
    expect(refused({ arguments: {} })).toBe(`${file}: /arguments: expected an array of arguments`);
    expect(refused({ arguments: [{ name: 'a', reason: 'r', mutants: [{ ...site, line: 7 }] }] })).toBe(
      `${file}: /arguments/0/mutants/0/line: expected a non-empty string`,
    );
    expect(refused({ arguments: [{ name: 'a', reason: 'r', mutants: [{ ...site, column: 0 }] }] })).toBe(
      `${file}: /arguments/0/mutants/0/column: expected a positive integer`,
    );
    const a = { name: 'a', reason: 'r', mutants: [site] };
    expect(refused({ arguments: [a, a] })).toBe(`${file}: /arguments/1/name: "a" names two arguments`);
    expect(refused({ arguments: [{ ...a, mutants: [] }] })).toBe(`${file}: /arguments/0/mutants: expected a non-empty array of mutants`);
    writeFileSync(file, JSON.stringify({ arguments: [a] }));
    expect(readEquivalents(file)).toEqual([a]);
  });
});
