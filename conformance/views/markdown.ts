// A counterexample as Markdown (`NAME.md`), to read in the repository or to
// paste into an issue or a pull request: the versions, where it came from,
// the config, expected versus actual at the divergence (or the property it
// breaks), the steps as a table, the rules with links to SPEC.md, and a
// Mermaid sequence diagram that GitHub draws.
import { showValue } from '../sut/jsonDiff.ts';
import { mermaidDiagram } from './mermaid.ts';
import { specHref, type LinkBase, type RuleLink } from '../report/specLinks.ts';
import { stderrHeading, type CounterexampleView } from './view.ts';

/** Text for a table cell: `|` escaped (GitHub splits cells on it even inside code), line breaks as spaces. */
function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** A code span that holds any text: a fence longer than any run of backticks inside it. */
export function codeSpan(s: string): string {
  const longest = Math.max(0, ...[...s.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = s.startsWith('`') || s.endsWith('`') || s === '' ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`;
}

/** Plain text outside code: Markdown's punctuation escaped, so that an id like `*a*` stays literal. */
function text(s: string): string {
  return s.replace(/([\\`*_[\]<>~])/g, '\\$1');
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function link(r: RuleLink, spec: string): string {
  const label = r.id.startsWith('§') ? `${r.id} ${r.title}` : /^[JC]\d/.test(r.id) ? `${r.id} — ${r.title}` : r.id;
  return `[${text(label)}](${spec}#${r.anchor})`;
}

/** Options of the Markdown report: where the file goes and where SPEC links point. */
export interface MarkdownOptions {
  /** The directory the file is written to: with link base `file`, SPEC.md links are relative to it. */
  readonly dir?: string;
  /** Where the links to SPEC.md point (specLinks.ts); default the published repository at this version. */
  readonly linkBase?: LinkBase;
}

/** The Markdown report of a counterexample. */
export function counterexampleMarkdown(view: CounterexampleView, options: MarkdownOptions = {}): string {
  const spec = specHref(options.linkBase, options.dir);
  const out: string[] = [];
  out.push(`# streamjoin counterexample: ${text(view.name)}`);
  out.push('');
  if (view.description) {
    out.push(`> ${text(view.description)}`);
    out.push('');
  }
  out.push(
    table(
      ['', ''],
      [
        ['streamjoin', codeSpan(view.versions.streamjoin)],
        ['spec', `${codeSpan(view.versions.spec)} ([SPEC.md](${spec}))`],
        ...view.found.map(([k, v]) => [cell(text(k)), cell(codeSpan(v))]),
      ],
    ),
  );
  out.push('');
  out.push('## Config');
  out.push('');
  out.push(
    table(
      ['setting', 'value'],
      view.config.map(([k, v]) => [cell(text(k)), cell(codeSpan(v))]),
    ),
  );
  out.push('');
  const d = view.divergence;
  const v = view.violation;
  if (d) {
    const step = view.steps[d.at];
    out.push(`## Divergence at step ${step?.number ?? d.at}`);
    out.push('');
    out.push(text(d.summary));
    out.push('');
    out.push(`Expected (the model) versus actual (the system), ${codeSpan(d.field)}, only what differs:`);
    out.push('');
    if (d.events) {
      const n = Math.max(d.events.expected.length, d.events.actual.length);
      const rows = Array.from({ length: n }, (_, i) => [
        `${i === d.events?.first ? '✗ ' : ''}${i}`,
        cell(codeSpan(d.events?.expected[i] ?? '(none)')),
        cell(codeSpan(d.events?.actual[i] ?? '(none)')),
      ]);
      out.push(table(['event', 'expected', 'actual'], rows));
    } else if (d.diff.length > 0) {
      out.push(
        table(
          ['path', 'expected', 'actual'],
          d.diff.map((x) => [cell(codeSpan(x.path)), cell(codeSpan(showValue(x.expected))), cell(codeSpan(showValue(x.actual)))]),
        ),
      );
    } else {
      out.push(
        table(
          ['', 'value'],
          [
            ['expected', cell(codeSpan(showValue(d.expected)))],
            ['actual', cell(codeSpan(showValue(d.actual)))],
          ],
        ),
      );
    }
    out.push('');
  } else if (v) {
    out.push(`## ${text(v.property)} is broken after step ${view.steps.at(-1)?.number ?? 0}`);
    out.push('');
    if (v.explanation) out.push(text(v.explanation));
    if (v.trap) {
      out.push('');
      out.push(`Then, without faults, ${v.trap.kind === 'deadlock' ? 'into a deadlock' : 'round a cycle'}:`);
      out.push('');
      v.trap.steps.forEach((s, i) => out.push(`${i + 1}. ${codeSpan(s)}`));
    }
    out.push('');
  }
  // A user's model (check --model) points at no rule of SPEC.md: no section.
  if (view.rules.length + view.properties.length > 0) {
    out.push('## Rules');
    out.push('');
    for (const r of view.rules) out.push(`- ${link(r, spec)}`);
    for (const p of view.properties) out.push(`- property ${link(p, spec)}`);
    out.push('');
  }
  const mark = d ? d.at : view.steps.length - 1;
  out.push(`## Steps (${view.steps.length}; ✗ marks ${d ? 'the divergence' : 'where the property breaks'})`);
  out.push('');
  out.push(
    table(
      ['#', 'action', 'what the model did', 'fields changed'],
      view.steps.map((s, i) => [
        `${i === mark ? '✗ ' : ''}${s.number}`,
        cell(codeSpan(s.action)),
        cell(s.refused !== undefined ? `refused: ${codeSpan(s.refused)}` : s.events.map(codeSpan).join('<br>') || '—'),
        cell(
          s.changed.length > 6
            ? `${s.changed.slice(0, 6).map(codeSpan).join(' ')} (+${s.changed.length - 6})`
            : s.changed.map(codeSpan).join(' ') || '—',
        ),
      ]),
    ),
  );
  out.push('');
  out.push('## Sequence diagram');
  out.push('');
  out.push(
    `One participant per node; the steps up to ${d ? 'the divergence' : 'the violation'} as the model runs them; the red box is where it ${d ? 'departs' : 'breaks'}.`,
  );
  out.push('');
  out.push('```mermaid');
  out.push(mermaidDiagram(view));
  out.push('```');
  if (view.stderr) {
    out.push('');
    out.push('## stderr of the system under test while this trace ran');
    out.push('');
    out.push(stderrHeading(view.stderr));
    if (view.stderr.lines.length > 0) {
      out.push('');
      out.push('```text');
      out.push(...view.stderr.lines.map((l) => l.replace(/```/g, "'''")));
      out.push('```');
    }
  }
  out.push('');
  return out.join('\n');
}
