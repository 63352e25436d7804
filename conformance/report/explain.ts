// Plain-text explanations of a divergence: the steps, expected versus actual
// at the divergence (only the paths that differ), the rules and properties
// it breaks, and a sequence diagram with one column per node.
import type {
  ClusterEvent,
  ClusterObservation,
  ExternalAction,
  LogRecord,
  OperatorTrace,
  ClusterTrace,
  Change,
  Outcome,
} from '../../spec/index.ts';
import { describeClusterAction } from '../../spec/index.ts';
import type { Divergence } from '../lockstep/divergence.ts';
import { showValue } from '../lockstep/jsonDiff.ts';
import { describeRules } from './rules.ts';
import { modelClusterSteps, type ExpectedClusterStep } from '../lockstep/clusterLockstep.ts';
import { modelOperatorSteps } from '../lockstep/operatorLockstep.ts';

// ---------------------------------------------------------------------------
// Sequence diagrams

/** One row: a note at a column, or a message from one column to another. */
export interface DiagramRow {
  readonly step?: number;
  readonly from: number;
  readonly to?: number;
  readonly text: string;
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
      line[center(row.to)] = row.to > row.from ? '▶' : '◀';
      const room = center(hi) - center(lo) - 3;
      if (row.text.length <= room) put(line, center(lo) + 2, ` ${row.text} `.slice(0, room + 1));
      else put(line, center(hi) + 2, row.text);
    }
    out.push(line.join('').trimEnd());
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------
// Cluster traces

function recordText(r: LogRecord): string {
  return r.kind === 'watermark'
    ? `wm ${r.side}=${r.wm}`
    : `${r.kind === 'insert' ? 'ins' : 'ret'} ${r.key}/${r.side}/${r.id} ${r.ts}[${r.start},${r.end}]`;
}

function outcomeText(o: Outcome): string {
  return o.code === 'rejected' ? `rejected:${o.reason}` : o.code;
}

function changesText(cs: readonly Change[]): string {
  return cs.map((c) => `${c.op === 'insert' ? '+' : '-'}${c.match}`).join(' ');
}

/** The rows of one cluster step, from the model's view of it. */
function clusterStepRows(
  step: number,
  action: ExternalAction,
  before: ClusterObservation,
  expected: ExpectedClusterStep,
  col: (node: string) => number,
): DiagramRow[] {
  const rows: DiagramRow[] = [];
  const coordinator = col('coordinator');
  const sink = col('sink');
  const h = before.coordinator.handoff;
  const note = (node: string, text: string): void => void rows.push({ step, from: col(node), text });
  const send = (from: number, to: number, text: string): void => void rows.push({ step, from, to, text });
  if ('error' in expected) {
    const where = action.type === 'record' ? 'log' : 'coordinator';
    note(where, `${describeClusterAction(action)}: refused (${expected.error})`);
    return rows;
  }
  const events = expected.events;
  switch (action.type) {
    case 'record': {
      const first = events[0];
      if (first?.type === 'appended') note('log', `#${first.index} ${recordText(action.record)}`);
      else if (first?.type === 'rejected') note('log', `${recordText(action.record)}: ${outcomeText(first.outcome)}`);
      break;
    }
    case 'freeze':
      send(coordinator, col(before.coordinator.keys[action.key]?.owner ?? 'coordinator'), `freeze ${action.key} (to ${action.to})`);
      break;
    case 'persist':
      send(coordinator, col(h?.src ?? 'coordinator'), `persist ${action.key}`);
      break;
    case 'install':
      send(coordinator, col(h?.dst ?? 'coordinator'), `install ${action.key} e${(h?.from ?? 0) + 1}`);
      break;
    case 'commit':
    case 'failover': {
      const from = h?.from ?? before.coordinator.keys[action.key]?.epoch ?? 0;
      const fenceFirst = action.type === 'failover' || h?.phase === 'installed';
      if (fenceFirst) send(coordinator, sink, `fence ${action.key}=e${from + 1}`);
      if (action.crashAfterFence) note('coordinator', 'crashes after the fence');
      else {
        const dst = action.type === 'failover' ? action.to : (h?.dst ?? '?');
        send(coordinator, col(dst), `owner ${action.key}=${dst} e${from + 1}`);
      }
      break;
    }
    case 'release':
      send(coordinator, col(h?.src ?? 'coordinator'), `release ${action.key} e${h?.from ?? '?'}`);
      break;
    case 'abort':
      note('coordinator', `abort ${action.key}`);
      break;
    case 'checkpoint':
      note(action.worker, `checkpoint ${action.key}`);
      break;
    case 'crash':
      note(action.node, 'CRASH');
      break;
    case 'restart':
      note(action.node, 'restart');
      break;
    case 'pause':
      note(action.worker, 'pause');
      break;
    case 'resume':
      note(action.worker, 'resume');
      break;
    case 'duplicateInstall':
    case 'duplicateRelease': {
      const target = events.find((e): e is Extract<ClusterEvent, { worker: string }> => 'worker' in e)?.worker;
      const what = action.type === 'duplicateInstall' ? 'install' : 'release';
      if (target) send(coordinator, col(target), `${what} ${action.key} again`);
      else note('coordinator', `${what} ${action.key} again: no effect`);
      break;
    }
  }
  for (const e of events) {
    switch (e.type) {
      case 'processed': {
        const head = `#${e.index} e${e.epoch} ${outcomeText(e.outcome)}`;
        if (e.changes.length === 0) note(e.worker, head);
        else send(col(e.worker), sink, `${head} ${changesText(e.changes)}${e.fenced ? ' FENCED' : ''}`);
        break;
      }
      case 'dropped':
        note(e.worker, `drop ${e.key} (${e.reason})`);
        break;
      case 'refused':
        note(e.worker, `refuse ${e.key} (stale epoch)`);
        break;
      case 'restored':
        note(e.worker, `restore ${e.key} @${e.cursor} e${e.epoch}`);
        break;
      default:
        break;
    }
  }
  return rows;
}

/** The sequence diagram of a cluster trace as the model runs it, up to and including step `until`. */
export function clusterDiagram(trace: ClusterTrace, until: number, divergence?: Divergence): string {
  const columns = ['log', 'coordinator', ...trace.config.workers, 'sink'];
  const col = (node: string): number => Math.max(0, columns.indexOf(node));
  const expected = modelClusterSteps({ ...trace, steps: trace.steps.slice(0, until + 1) });
  const rows: DiagramRow[] = [];
  let before = initialObservation(trace);
  trace.steps.slice(0, until + 1).forEach((s, i) => {
    const e = expected[i] as ExpectedClusterStep;
    rows.push(...clusterStepRows(i, s.action as ExternalAction, before, e, col));
    if (divergence && divergence.step === i) rows.push({ step: i, from: 0, text: `✗ the system departs here: ${divergence.field}` });
    before = e.observation;
  });
  return renderDiagram(columns, rows);
}

/** The observation before any step (C1). */
function initialObservation(trace: ClusterTrace): ClusterObservation {
  // Only the coordinator's table is read (owners for freeze); the rest is C1's empty state.
  const keys: ClusterObservation['coordinator']['keys'] = {};
  for (const { key, owner } of trace.config.keys) keys[key] = { owner, epoch: 1 };
  return {
    log: 0,
    coordinator: { up: true, handoff: null, keys },
    workers: {},
    store: {},
    sink: { fence: {}, matches: {}, applied: 0, deduped: 0, fenced: 0 },
  };
}

// ---------------------------------------------------------------------------
// Operator traces

/** The sequence diagram of an operator trace: the log, the operator, the result. */
export function operatorDiagram(trace: OperatorTrace, until: number, divergence?: Divergence): string {
  const model = modelOperatorSteps({ ...trace, steps: trace.steps.slice(0, until + 1) });
  const rows: DiagramRow[] = [];
  trace.steps.slice(0, until + 1).forEach((s, i) => {
    const m = model[i];
    if (!m) return;
    rows.push({ step: i, from: 0, to: 1, text: recordText(s.record) });
    if (m.changes.length === 0) rows.push({ step: i, from: 1, text: outcomeText(m.outcome) });
    else rows.push({ step: i, from: 1, to: 2, text: `${outcomeText(m.outcome)} ${changesText(m.changes)}` });
    if (divergence && divergence.step === i) rows.push({ step: i, from: 0, text: `✗ the system departs here: ${divergence.field}` });
  });
  return renderDiagram(['log', 'operator', 'result'], rows);
}

// ---------------------------------------------------------------------------
// The explanation

export interface ExplainContext {
  /** How the system under test was named on the command line. */
  readonly sut: string;
  readonly implementation?: string;
  readonly level: string;
  /** Where the trace came from, one line. */
  readonly origin: string;
  /** The one command that replays the counterexample. */
  readonly replay: string;
  /** What the system wrote to stderr while this very trace ran (its last lines), and how many lines went before them. */
  readonly stderrTail?: readonly string[];
  readonly stderrEarlier?: number;
}

/** One event on one line (C12). */
export function eventText(e: ClusterEvent): string {
  switch (e.type) {
    case 'appended':
      return `appended #${e.index}`;
    case 'rejected':
      return `rejected ${outcomeText(e.outcome)}`;
    case 'processed':
      return `processed ${e.worker} ${e.key} #${e.index} e${e.epoch} ${outcomeText(e.outcome)}${e.changes.length ? ` ${changesText(e.changes)}` : ''}${e.fenced ? ' FENCED' : ''}`;
    case 'dropped':
      return `dropped ${e.worker} ${e.key} (${e.reason})`;
    case 'refused':
      return `refused ${e.worker} ${e.key} (${e.reason})`;
    case 'restored':
      return `restored ${e.worker} ${e.key} @${e.cursor} e${e.epoch}`;
  }
}

function eventLines(label: string, events: readonly ClusterEvent[], from: number): string[] {
  if (events.length === 0) return [`  ${label}: (none)`];
  return [`  ${label}:`, ...events.map((e, i) => `    ${i === from ? '✗' : ' '} [${i}] ${eventText(e)}`)];
}

/** The divergence alone: summary, rules, and expected versus actual at each differing path. */
export function describeDivergence(d: Divergence): string {
  const lines: string[] = [];
  lines.push(`Divergence at step ${d.step}: ${d.summary}`);
  lines.push(`Breaks: ${describeRules(d.refs.rules)}${d.refs.properties.length ? `; property ${d.refs.properties.join(', ')}` : ''}`);
  lines.push('');
  lines.push(`Expected versus actual at step ${d.step} (${d.field}; only what differs):`);
  if (d.field === 'events' && Array.isArray(d.expected) && Array.isArray(d.actual)) {
    // Events are a sequence (C12): show both, marking the first that differs.
    const first = Number(d.diff[0]?.path.split('/')[1] ?? 0);
    lines.push(...eventLines('expected', d.expected as ClusterEvent[], first), ...eventLines('actual', d.actual as ClusterEvent[], first));
  } else if (d.diff.length > 0) {
    const width = Math.min(48, Math.max(...d.diff.map((x) => x.path.length)));
    for (const x of d.diff) lines.push(`  ${x.path.padEnd(width)}  expected ${showValue(x.expected)}  actual ${showValue(x.actual)}`);
  } else {
    lines.push(`  expected ${showValue(d.expected)}`);
    lines.push(`  actual   ${showValue(d.actual)}`);
  }
  return lines.join('\n');
}

function stepList(actions: readonly string[], divergenceStep: number): string {
  return actions.map((a, i) => `  ${String(i).padStart(3)}${i === divergenceStep ? ' ✗' : '  '} ${a}`).join('\n');
}

/** The full plain-text explanation written next to a counterexample file. */
export function explainCounterexample(
  trace: { kind: 'operator'; trace: OperatorTrace } | { kind: 'cluster'; trace: ClusterTrace },
  d: Divergence,
  ctx: ExplainContext,
): string {
  const parts: string[] = [];
  parts.push(`streamjoin counterexample: ${trace.trace.name}`);
  parts.push('');
  parts.push(`System under test: ${ctx.sut}${ctx.implementation ? ` (${ctx.implementation})` : ''}`);
  parts.push(`Level: ${ctx.level}`);
  parts.push(`Found by: ${ctx.origin}`);
  parts.push(`Replay: ${ctx.replay}`);
  parts.push('');
  parts.push(describeDivergence(d));
  parts.push('');
  parts.push(`Steps (${trace.trace.steps.length}; ✗ marks the divergence):`);
  const actions =
    trace.kind === 'cluster'
      ? trace.trace.steps.map((s) => describeClusterAction(s.action))
      : trace.trace.steps.map((s) => `record ${recordText(s.record)}`);
  parts.push(stepList(actions, d.step));
  parts.push('');
  parts.push(`Sequence diagram of steps 0..${d.step} as the model runs them (● a note, ─▶ a message):`);
  parts.push(trace.kind === 'cluster' ? clusterDiagram(trace.trace, d.step, d) : operatorDiagram(trace.trace, d.step, d));
  if (ctx.stderrTail !== undefined) {
    parts.push('');
    const earlier = ctx.stderrEarlier ?? 0;
    if (ctx.stderrTail.length === 0) parts.push('The system under test wrote nothing to stderr while this trace ran.');
    else {
      parts.push(
        `What the system under test wrote to stderr while this trace ran${earlier > 0 ? ` (the last ${ctx.stderrTail.length} lines; ${earlier} before them not kept)` : ''}:`,
      );
      for (const l of ctx.stderrTail) parts.push(`  | ${l}`);
    }
  }
  return `${parts.join('\n')}\n`;
}
