// GitHub Actions: an error annotation per failed or unknown case (pointing at
// its counterexample file when there is one) and a Markdown summary for the
// job's page ($GITHUB_STEP_SUMMARY).
import { countCases, type CiResult } from './testCases.ts';

/** Workflow-command escaping: data (%, CR, LF) and, in properties, also `:` and `,`. */
const escapeData = (s: string): string => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string): string => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** `::error file=…,title=…::message` lines, one per failed or unknown case. */
export function githubAnnotations(results: readonly CiResult[]): string {
  const lines: string[] = [];
  for (const r of results)
    for (const s of r.suites)
      for (const c of s.cases) {
        if (c.status !== 'fail' && c.status !== 'unknown') continue;
        const props = [
          ...(c.file ? [`file=${escapeProperty(c.file)}`] : []),
          `title=${escapeProperty(`${c.status === 'fail' ? 'streamjoin' : 'streamjoin (unknown)'}: ${s.name}: ${c.name}`)}`,
        ];
        const text = [c.message ?? '', c.details ?? ''].filter((x) => x !== '').join('\n');
        lines.push(`::error ${props.join(',')}::${escapeData(text)}`);
      }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const VERDICT: Record<CiResult['verdict'], string> = { pass: '✅ pass', fail: '❌ FAIL', unknown: '⚠️ UNKNOWN (not a pass)' };

/** The Markdown summary: per result its verdict and counts, then every failed or unknown case with its details. */
export function githubSummary(results: readonly CiResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    const n = countCases(r.suites.flatMap((s) => s.cases));
    lines.push(`### ${r.title}: ${VERDICT[r.verdict]}`, '');
    lines.push('| suite | cases | passed | failed | unknown | skipped |', '|---|---:|---:|---:|---:|---:|');
    for (const s of r.suites) {
      const c = countCases(s.cases);
      lines.push(
        `| ${cell(s.name)} | ${c.tests} | ${c.tests - c.failures - c.errors - c.skipped} | ${c.failures} | ${c.errors} | ${c.skipped} |`,
      );
    }
    lines.push(
      `| **all** | ${n.tests} | ${n.tests - n.failures - n.errors - n.skipped} | ${n.failures} | ${n.errors} | ${n.skipped} |`,
      '',
    );
    for (const s of r.suites)
      for (const c of s.cases) {
        if (c.status !== 'fail' && c.status !== 'unknown') continue;
        lines.push(
          `<details><summary>${c.status === 'fail' ? '❌' : '⚠️'} ${cell(`${s.name}: ${c.name}`)}: ${cell(c.message ?? '')}</summary>`,
          '',
        );
        lines.push('```text', c.details ?? '', '```', '</details>', '');
      }
  }
  return `${lines.join('\n')}\n`;
}
