// Plain-text explanations of a divergence (the terminal view): the config
// and versions, the steps, expected versus actual at the divergence (only
// the paths that differ), the rules and properties it breaks, and a sequence
// diagram with one column per node. Everything comes from the counterexample's
// view (view.ts), which the Markdown and HTML renderings read too.
import type { ClusterTrace, OperatorTrace } from '../../spec/index.ts';
import { divergenceStepText, type Divergence } from '../report/divergence.ts';
import { showValue } from '../sut/jsonDiff.ts';
import { describeRules } from '../report/rules.ts';
import { conformanceView, stderrHeading, type ConformanceContext, type CounterexampleView } from './view.ts';
import { eventText } from '../report/texts.ts';

export { eventText };

// ---------------------------------------------------------------------------
// Sequence diagrams

/** One row: a note at a column, or a message from one column to another. */
export interface DiagramRow {
  readonly step?: number;
  readonly from: number;
  readonly to?: number;
  readonly text: string;
  /** A message refused where it arrives (a write the sink's fence refuses, C9): its head is ✗. */
  readonly refused?: boolean;
}

const COLUMN_WIDTH = 24;
const GUTTER = 6;

/**
 * Renders rows under column headers. Every column has a lifeline (`│`); a
 * message is an arrow between two lifelines with its text on it (or after
 * its head when it does not fit); a note is `●` and its text.
 */
export function renderDiagram(columns: readonly string[], rows: readonly DiagramRow[], width = COLUMN_WIDTH): string {
  const center = (c: number): number => GUTTER + c * width + Math.floor(width / 2);
  const total = GUTTER + columns.length * width;
  const lifelines = (): string[] => {
    const line = Array<string>(total).fill(' ');
    for (let c = 0; c < columns.length; c++) line[center(c)] = '│';
    return line;
  };
  const put = (line: string[], at: number, text: string): void => {
    for (let i = 0; i < text.length; i++) {
      if (at + i >= line.length) line.push(text[i] as string);
      else line[at + i] = text[i] as string;
    }
  };
  const out: string[] = [];
  const header = Array<string>(total).fill(' ');
  columns.forEach((name, c) => put(header, Math.max(GUTTER, center(c) - Math.floor(name.length / 2)), name));
  out.push(header.join('').trimEnd());
  let lastStep: number | undefined;
  for (const row of rows) {
    const line = lifelines();
    if (row.step !== undefined && row.step !== lastStep) {
      put(line, 0, String(row.step).padStart(GUTTER - 2));
      lastStep = row.step;
    }
    if (row.to === undefined || row.to === row.from) {
      put(line, center(row.from), `● ${row.text}`);
    } else {
      const lo = Math.min(row.from, row.to);
      const hi = Math.max(row.from, row.to);
      for (let x = center(lo); x <= center(hi); x++) line[x] = '─';
      line[center(row.from)] = '●';
      line[center(row.to)] = row.refused ? '✗' : row.to > row.from ? '▶' : '◀';
      const room = center(hi) - center(lo) - 3;
      if (row.text.length <= room) put(line, center(lo) + 2, ` ${row.text} `.slice(0, room + 1));
      else put(line, center(hi) + 2, row.text);
    }
    out.push(line.join('').trimEnd());
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------
// From the view

/** The text diagram of a view's steps up to and including the one at index `until`. */
export function viewDiagram(view: CounterexampleView, until: number): string {
  const rows: DiagramRow[] = [];
  for (const s of view.steps.slice(0, until + 1))
    for (const r of s.rows)
      rows.push({
        step: s.number,
        from: r.from,
        ...(r.to !== undefined ? { to: r.to, ...(r.kind === 'fenced' ? { refused: true } : {}) } : {}),
        text: r.text,
      });
  return renderDiagram(view.nodes, rows);
}

const NO_DIVERGENCE_CONTEXT: ConformanceContext = { sut: 'model', level: '', origin: '', replay: '' };

/** The sequence diagram of a cluster trace as the model runs it, up to and including step `until`. */
export function clusterDiagram(trace: ClusterTrace, until: number, divergence?: Divergence): string {
  const t = { ...trace, steps: trace.steps.slice(0, until + 1) };
  return viewDiagram(conformanceView({ kind: 'cluster', trace: t }, divergence, NO_DIVERGENCE_CONTEXT), until);
}

// ---------------------------------------------------------------------------
// The explanation

/** How a conformance counterexample was found and is replayed (see view.ts). */
export type ExplainContext = ConformanceContext;

function eventLines(label: string, events: readonly string[], from: number): string[] {
  if (events.length === 0) return [`  ${label}: (none)`];
  return [`  ${label}:`, ...events.map((e, i) => `    ${i === from ? '✗' : ' '} [${i}] ${e}`)];
}

/** The divergence alone: summary, rules, and expected versus actual at each differing path. */
export function describeDivergence(d: Divergence): string {
  const lines: string[] = [];
  lines.push(`Divergence at ${divergenceStepText(d.step)}: ${d.summary}`);
  const checks = d.refs.checks?.length ? `; ${d.refs.checks.join(', ')}` : '';
  lines.push(
    `Breaks: ${describeRules(d.refs.rules)}${checks}${d.refs.properties.length ? `; property ${d.refs.properties.join(', ')}` : ''}`,
  );
  lines.push('');
  lines.push(`Expected versus actual at ${divergenceStepText(d.step)} (${d.field}; only what differs):`);
  if (d.field === 'events' && Array.isArray(d.expected) && Array.isArray(d.actual)) {
    // Events are a sequence (C12): show both, marking the first that differs.
    const first = Number(d.diff[0]?.path.split('/')[1] ?? 0);
    lines.push(
      ...eventLines('expected', (d.expected as Parameters<typeof eventText>[0][]).map(eventText), first),
      ...eventLines('actual', (d.actual as Parameters<typeof eventText>[0][]).map(eventText), first),
    );
  } else if (d.diff.length > 0) {
    const width = Math.min(48, Math.max(...d.diff.map((x) => x.path.length)));
    for (const x of d.diff) lines.push(`  ${x.path.padEnd(width)}  expected ${showValue(x.expected)}  actual ${showValue(x.actual)}`);
  } else {
    lines.push(`  expected ${showValue(d.expected)}`);
    lines.push(`  actual   ${showValue(d.actual)}`);
  }
  return lines.join('\n');
}

function stepList(view: CounterexampleView, mark: number): string {
  return view.steps
    .map(
      (s, i) =>
        `  ${String(s.number).padStart(3)}${i === mark ? ' ✗' : '  '} ${s.action}${s.refused !== undefined ? ` (refused: ${s.refused})` : ''}`,
    )
    .join('\n');
}

/** The terminal explanation of any counterexample's view. */
export function explainView(view: CounterexampleView, divergence?: Divergence): string {
  const parts: string[] = [];
  parts.push(`streamjoin counterexample: ${view.name}`);
  parts.push(`streamjoin ${view.versions.streamjoin}, spec ${view.versions.spec}`);
  parts.push('');
  for (const [label, value] of view.found) parts.push(`${`${label[0]?.toUpperCase() ?? ''}${label.slice(1)}:`.padEnd(20)} ${value}`);
  parts.push('');
  parts.push('Config:');
  for (const [label, value] of view.config) parts.push(`  ${label}: ${value}`);
  parts.push('');
  const mark = view.divergence?.at ?? view.steps.length - 1;
  if (divergence) parts.push(describeDivergence(divergence));
  else if (view.violation) {
    const v = view.violation;
    parts.push(
      `${v.property} (${v.kind}) is broken after step ${view.steps.at(-1)?.number ?? 0}${v.explanation ? `: ${v.explanation}` : ''}`,
    );
    parts.push(`Rules: ${describeRules(view.rules.map((r) => r.id))}`);
    if (v.trap)
      parts.push(`Then, without faults, ${v.trap.kind === 'deadlock' ? 'into a deadlock' : 'round a cycle'}: ${v.trap.steps.join('; ')}`);
  }
  parts.push('');
  parts.push(`Steps (${view.steps.length}; ✗ marks ${view.divergence ? 'the divergence' : 'where the property breaks'}):`);
  parts.push(stepList(view, view.divergence ? view.divergence.at : mark));
  parts.push('');
  const until = view.divergence ? view.divergence.at : view.steps.length - 1;
  parts.push(
    `Sequence diagram of steps ${view.steps[0]?.number ?? 0}..${view.steps[until]?.number ?? 0} as the model runs them (● a note, ─▶ a message):`,
  );
  parts.push(viewDiagram(view, until));
  if (view.stderr) {
    parts.push('');
    parts.push(stderrHeading(view.stderr));
    for (const l of view.stderr.lines) parts.push(`  | ${l}`);
  }
  return `${parts.join('\n')}\n`;
}

/** The full plain-text explanation written next to a conformance counterexample file. */
export function explainCounterexample(
  trace: { kind: 'operator'; trace: OperatorTrace } | { kind: 'cluster'; trace: ClusterTrace },
  d: Divergence,
  ctx: ExplainContext,
): string {
  return explainView(conformanceView(trace, d, ctx), d);
}
