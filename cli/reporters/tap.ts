// TAP version 13: one test point per case, a YAML block under each failure
// (message, details, the counterexample file), `# SKIP` for skipped cases;
// an unknown case is `not ok` (it is never a pass) marked as such.
import type { CiResult } from './testCases.ts';

/** A YAML block scalar, indented. */
function yamlBlock(key: string, text: string, indent: string): string[] {
  return [`${indent}${key}: |-`, ...text.split('\n').map((l) => `${indent}  ${l}`)];
}

const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ').replace(/#/g, '\\#');

export function tapText(results: readonly CiResult[]): string {
  const cases = results.flatMap((r) => r.suites.flatMap((s) => s.cases.map((c) => ({ suite: s.name, c }))));
  const lines = ['TAP version 13', `1..${cases.length}`];
  cases.forEach(({ suite, c }, i) => {
    const title = oneLine(`${suite}: ${c.name}`);
    if (c.status === 'pass') lines.push(`ok ${i + 1} - ${title}`);
    else if (c.status === 'skipped') lines.push(`ok ${i + 1} - ${title} # SKIP ${oneLine(c.message ?? '')}`.trimEnd());
    else {
      lines.push(`not ok ${i + 1} - ${title}${c.status === 'unknown' ? ' (unknown: not judged)' : ''}`);
      lines.push('  ---');
      lines.push(`  severity: ${c.status === 'fail' ? 'fail' : 'unknown'}`);
      if (c.message) lines.push(...yamlBlock('message', c.message, '  '));
      if (c.file) lines.push(`  file: ${JSON.stringify(c.file)}`);
      if (c.details) lines.push(...yamlBlock('details', c.details, '  '));
      lines.push('  ...');
    }
  });
  const verdicts = results.map((r) => `${r.title}: ${r.verdict}`).join('; ');
  lines.push(`# ${verdicts}`);
  return `${lines.join('\n')}\n`;
}
