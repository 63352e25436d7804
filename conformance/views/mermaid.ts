// A counterexample's sequence diagram in Mermaid (`sequenceDiagram`), as
// GitHub renders it in issues, pull requests and Markdown files: one
// participant per node (log, coordinator, workers, sink), a message per
// write or control message, notes for crashes, pauses, fences and refusals,
// and the divergence in a red box.
import type { CounterexampleView, ViewRow } from './view.ts';

/**
 * Text safe inside a Mermaid sequence diagram: every character outside a
 * small safe set becomes a numeric entity (`#59;` for `;`), which Mermaid
 * decodes when it draws. Statement separators (`;`, newline), comments
 * (`%%`), entity starts (`#`), arrows and HTML (`<`, `>`) therefore cannot
 * break out of a label, whatever a key or id holds.
 */
export function mermaidText(s: string): string {
  let out = '';
  for (const ch of s) {
    if (/^[A-Za-z0-9 _.,/+=@|()[\]*!?'$-]$/.test(ch)) out += ch;
    else out += `#${ch.codePointAt(0)};`;
  }
  // Mermaid trims labels; a label that is empty after trimming is a syntax error.
  return out.trim() === '' ? '#160;' : out.replace(/ {2,}/g, (m) => ` ${'#160;'.repeat(m.length - 1)}`);
}

const participant = (i: number): string => `N${i}`;

/** Past this many characters GitHub's Mermaid refuses a diagram (its default maxTextSize is 50,000). */
export const MERMAID_MAX_CHARS = 40_000;

function rowLine(r: ViewRow, label: string, nodes: number): string {
  const text = mermaidText(label);
  const from = participant(Math.min(r.from, nodes - 1));
  if (r.to === undefined || r.to === r.from) {
    if (r.kind === 'divergence') return `  Note over ${participant(0)},${participant(nodes - 1)}: ${text}`;
    return `  Note over ${from}: ${text}`;
  }
  const to = participant(Math.min(r.to, nodes - 1));
  // A fenced write is refused by the sink (C9): a dotted line ending in a cross, as the viewer draws it.
  const arrow = r.kind === 'fenced' ? '--x' : '->>';
  return `  ${from}${arrow}${to}: ${text}`;
}

/**
 * The `sequenceDiagram` of a view's steps up to `until` (the divergence, or
 * the last step). Each step's first row carries its number, `[3]`. If the
 * diagram would be too large for GitHub, the earliest steps are left out
 * and a note says so.
 */
export function mermaidDiagram(view: CounterexampleView, until = view.divergence?.at ?? view.steps.length - 1): string {
  const nodes = view.nodes.length;
  const head = ['sequenceDiagram', ...view.nodes.map((n, i) => `  participant ${participant(i)} as ${mermaidText(n)}`)];
  const blocks: string[][] = view.steps.slice(0, until + 1).map((s, i) => {
    const lines: string[] = [];
    const highlight = s.rows.some((r) => r.kind === 'divergence') || (view.divergence === undefined && i === until);
    if (highlight) lines.push('  rect rgb(255, 228, 228)');
    const rows: ViewRow[] = s.rows.length > 0 ? [...s.rows] : [{ from: 0, text: s.action, kind: 'note' }];
    rows.forEach((r, j) => lines.push(rowLine(r, j === 0 ? `[${s.number}] ${r.text}` : r.text, nodes)));
    if (highlight) lines.push('  end');
    return lines;
  });
  let first = 0;
  const size = (from: number): number => [...head, ...blocks.slice(from).flat()].join('\n').length;
  while (first < blocks.length - 1 && size(first) > MERMAID_MAX_CHARS) first++;
  const elided =
    first > 0
      ? [
          `  Note over ${participant(0)},${participant(nodes - 1)}: ${mermaidText(`steps before ${view.steps[first]?.number ?? ''} left out (too long to draw)`)}`,
        ]
      : [];
  return [...head, ...elided, ...blocks.slice(first).flat()].join('\n');
}
