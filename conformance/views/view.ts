// One description of a counterexample that every rendering reads: the
// terminal explanation (explain.ts), the Markdown with its Mermaid diagram
// (markdown.ts), the self-contained HTML viewer (html.ts). It holds the
// config and versions, where the counterexample came from, the nodes (the
// columns of the sequence diagram), and per step: the action, what the model
// did (diagram rows, events), the state after it and which of its fields the
// step changed; then expected versus actual at the divergence (a conformance
// counterexample) or the property broken (a model counterexample), with the
// rules and properties it points at.
import type { StderrExcerpt } from '../sut/sut.ts';
import type {
  ClusterAction,
  ClusterEvent,
  ClusterObservation,
  ClusterTrace,
  Counterexample,
  LogRecord,
  OperatorTrace,
  Outcome,
} from '../../spec/index.ts';
import {
  clusterModelConfigOf,
  describeRecord,
  initialExplored,
  joinModel,
  joinModelOptionsOf,
  nextExplored,
  observeCluster,
  stepJoin,
  transition,
  whyNotEnabled,
} from '../../model/index.ts';
import type { ExploredState, JoinModelState } from '../../model/index.ts';
import { expectedClusterSteps } from '../lockstep/clusterLockstep.ts';
import type { ExpectedClusterStep } from '../sut/divergence.ts';
import { expectedOperatorSteps } from '../lockstep/operatorLockstep.ts';
import type { Divergence } from '../report/divergence.ts';
import { mergeRefs, rulesOfAction, rulesOfOutcome, type RuleRefs } from '../report/rules.ts';
import { ruleLink, type RuleLink } from '../report/specLinks.ts';
import { actionText, changesText, eventText, outcomeText, recordText } from '../report/texts.ts';
import { VERSIONS } from '../report/versions.ts';
import type { CounterexampleView, RowKind, ViewDivergence, ViewRow, ViewStep, ViewViolation } from './viewTypes.ts';

// The view's types live in viewTypes.ts; its users import them from here.
export type { CounterexampleView, RowKind, ViewDiff, ViewDivergence, ViewRow, ViewStep, ViewViolation } from './viewTypes.ts';

/** The sentence that introduces a trace's stderr lines (or says there were none). */
export function stderrHeading(stderr: StderrExcerpt): string {
  if (stderr.lines.length === 0) return 'The system under test wrote nothing to stderr while this trace ran.';
  const n = stderr.lines.length;
  const kept =
    stderr.earlier > 0
      ? ` (the last ${n === 1 ? 'line' : `${n} lines`}; ${stderr.earlier} before ${n === 1 ? 'it' : 'them'} not kept)`
      : '';
  return `What the system under test wrote to stderr while this trace ran${kept}:`;
}

// ---------------------------------------------------------------------------
// Changed fields

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const escapePointer = (k: string): string => k.replace(/~/g, '~0').replace(/\//g, '~1');

/** JSON pointers of every leaf (or whole value, where the shapes differ) that differs between two JSON values. */
export function changedPaths(before: unknown, after: unknown, at = ''): string[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((k) => changedPaths(before[k], after[k], `${at}/${escapePointer(k)}`));
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return before.flatMap((x, i) => changedPaths(x, after[i], `${at}/${i}`));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [at === '' ? '/' : at];
}

// ---------------------------------------------------------------------------
// Cluster rows (from the model's view of each step)

/** The observation before any step (C1). */
export function initialObservation(config: ClusterTrace['config']): ClusterObservation {
  return observeCluster(config, initialExplored({ cluster: config, bounds: NO_BOUNDS }).cluster);
}

const NO_BOUNDS = { script: [], migrations: 0, failovers: 0, crashes: 0, pauses: 0, duplicates: 0, checkpoints: 0 };

/** The rows of one cluster step: the action's messages and notes, then one per event. */
export function clusterStepRows(
  action: ClusterAction,
  before: ClusterObservation,
  expected: ExpectedClusterStep,
  col: (node: string) => number,
): ViewRow[] {
  const rows: ViewRow[] = [];
  const coordinator = col('coordinator');
  const sink = col('sink');
  const h = before.coordinator.handoff;
  const note = (node: string, text: string, kind: RowKind = 'note'): void => void rows.push({ from: col(node), text, kind });
  const send = (from: number, to: number, text: string, kind: RowKind = 'message'): void => void rows.push({ from, to, text, kind });
  if ('error' in expected) {
    const where = action.type === 'record' ? 'log' : action.type === 'process' ? action.worker : 'coordinator';
    note(where, `${actionText(action)}: refused (${expected.error})`, 'refused');
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
    case 'process':
      break;
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
      if (fenceFirst) send(coordinator, sink, `fence ${action.key}=e${from + 1}`, 'fence');
      if (action.crashAfterFence) note('coordinator', 'CRASH after the fence', 'crash');
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
      note(action.node, 'CRASH', 'crash');
      break;
    case 'restart':
      note(action.node, 'restart', 'restart');
      break;
    case 'pause':
      note(action.worker, 'pause', 'pause');
      break;
    case 'resume':
      note(action.worker, 'resume', 'restart');
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
        // A fenced write is refused by the sink (C9): every diagram draws it so, its label leading with the word.
        else if (e.fenced) send(col(e.worker), sink, `FENCED, refused: ${head} ${changesText(e.changes)}`, 'fenced');
        else send(col(e.worker), sink, `${head} ${changesText(e.changes)}`, 'message');
        break;
      }
      case 'dropped':
        note(e.worker, `drop ${e.key} (${e.reason})`, e.reason === 'fenced' ? 'fence' : 'note');
        break;
      case 'refused':
        note(e.worker, `refuse ${e.key} (stale epoch)`, 'refused');
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

const clusterNodes = (config: ClusterTrace['config']): string[] => ['log', 'coordinator', ...config.workers, 'sink'];

function columnsOf(nodes: readonly string[]): (node: string) => number {
  return (node) => Math.max(0, nodes.indexOf(node));
}

// ---------------------------------------------------------------------------
// Conformance counterexamples

export interface ConformanceContext {
  /** How the system under test was named on the command line. */
  readonly sut: string;
  readonly implementation?: string;
  readonly level: string;
  /** Where the trace came from, one line. */
  readonly origin: string;
  /** The one command that replays the counterexample. */
  readonly replay: string;
  /** The command that finds it again (random traces). */
  readonly search?: string;
  readonly seed?: number;
  readonly fcPath?: string;
  /** The stderr of this trace's run (a process system; in-process systems have none). */
  readonly stderr?: StderrExcerpt;
}

export type AnyTraceOf = { kind: 'operator'; trace: OperatorTrace } | { kind: 'cluster'; trace: ClusterTrace };

function joinConfigLines(join: { allowedLateness: number; maxIntervalLength: number }): [string, string][] {
  return [
    ['L (allowed lateness, J0)', String(join.allowedLateness)],
    ['D (maximum interval length, J0)', String(join.maxIntervalLength)],
  ];
}

function clusterConfigLines(config: ClusterTrace['config']): [string, string][] {
  return [
    ...joinConfigLines(config.join),
    ['workers (C1)', config.workers.join(', ')],
    ['keys and initial owners (C1)', config.keys.map((k) => `${k.key} → ${k.owner}`).join(', ')],
  ];
}

function foundLines(ctx: ConformanceContext): [string, string][] {
  const lines: [string, string][] = [
    ['system under test', `${ctx.sut}${ctx.implementation ? ` (${ctx.implementation})` : ''}`],
    ['level', ctx.level],
    ['found by', ctx.origin],
  ];
  if (ctx.seed !== undefined) lines.push(['seed', String(ctx.seed)]);
  if (ctx.fcPath !== undefined) lines.push(['fast-check path', ctx.fcPath]);
  lines.push(['replay', ctx.replay]);
  if (ctx.search !== undefined) lines.push(['find it again', ctx.search]);
  return lines;
}

function linksOf(refs: RuleRefs): { rules: RuleLink[]; properties: RuleLink[] } {
  return { rules: refs.rules.map(ruleLink), properties: refs.properties.map(ruleLink) };
}

function divergenceOf(d: Divergence, at: number): ViewDivergence {
  const diff = d.diff.map((x) => ({ path: x.path, expected: x.expected, actual: x.actual }));
  const base = { at, field: d.field, summary: d.summary, diff, expected: d.expected, actual: d.actual };
  if (d.field === 'events' && Array.isArray(d.expected) && Array.isArray(d.actual)) {
    const first = Number(d.diff[0]?.path.split('/')[1] ?? 0);
    return {
      ...base,
      events: { expected: (d.expected as ClusterEvent[]).map(eventText), actual: (d.actual as ClusterEvent[]).map(eventText), first },
    };
  }
  // A death before the inspect's answer (lockstep/deaths.ts) has no state to show.
  const died = typeof d.actual === 'object' && d.actual !== null && 'died' in d.actual;
  if (d.field === 'observation' && !died) return { ...base, actualState: d.actual };
  return base;
}

/** The view of a conformance counterexample: the trace as the model runs it, and the divergence (none: a trace shown as the model runs it). */
export function conformanceView(trace: AnyTraceOf, d: Divergence | undefined, ctx: ConformanceContext): CounterexampleView {
  const common = {
    kind: 'conformance' as const,
    name: trace.trace.name,
    ...(trace.trace.description !== undefined ? { description: trace.trace.description } : {}),
    versions: VERSIONS,
    configJson: trace.trace.config,
    found: foundLines(ctx),
    ...linksOf(d?.refs ?? { rules: [], properties: [] }),
    ...(ctx.stderr ? { stderr: ctx.stderr } : {}),
  };
  if (trace.kind === 'cluster') {
    const t = trace.trace;
    const nodes = clusterNodes(t.config);
    const col = columnsOf(nodes);
    const expected = expectedClusterSteps(t).steps;
    const initialState = initialObservation(t.config);
    let before = initialState;
    const steps = t.steps.map((s, i): ViewStep => {
      const e = expected[i] as ExpectedClusterStep;
      const action = s.action;
      const rows = clusterStepRows(action, before, e, col);
      const step: ViewStep = {
        number: i + 1,
        action: actionText(action),
        actionJson: action,
        events: 'error' in e ? [] : e.events.map(eventText),
        clusterEvents: 'error' in e ? [] : e.events,
        ...('error' in e ? { refused: e.error } : {}),
        rows: d?.step === i ? [...rows, { from: 0, text: `✗ the system departs here: ${d.field}`, kind: 'divergence' }] : rows,
        state: e.observation,
        changed: changedPaths(before, e.observation),
      };
      before = e.observation;
      return step;
    });
    return {
      ...common,
      config: clusterConfigLines(t.config),
      nodes,
      initialState,
      steps,
      ...(d ? { divergence: divergenceOf(d, d.step) } : {}),
    };
  }
  const t = trace.trace;
  const expected = expectedOperatorSteps(t).steps;
  const initialState = { outcome: null, changes: [], retained: { live: 0, tombstones: 0, matches: 0 } };
  let before: unknown = initialState;
  const steps = t.steps.map((s, i): ViewStep => {
    const m = expected[i];
    const rows: ViewRow[] = [{ from: 0, to: 1, text: recordText(s.record), kind: 'message' }];
    if (m) {
      if (m.changes.length === 0) rows.push({ from: 1, text: outcomeText(m.outcome), kind: 'note' });
      else rows.push({ from: 1, to: 2, text: `${outcomeText(m.outcome)} ${changesText(m.changes)}`, kind: 'message' });
    }
    if (d?.step === i) rows.push({ from: 0, text: `✗ the system departs here: ${d.field}`, kind: 'divergence' });
    const state = m ? { outcome: m.outcome, changes: m.changes.map((c) => `${c.op} ${c.match}`), retained: m.retained } : before;
    const step: ViewStep = {
      number: i + 1,
      action: `record ${recordText(s.record)}`,
      actionJson: s.record,
      events: m ? [`${outcomeText(m.outcome)}${m.changes.length ? ` ${changesText(m.changes)}` : ''}`] : [],
      rows,
      state,
      changed: changedPaths(before, state),
    };
    before = state;
    return step;
  });
  return {
    ...common,
    config: joinConfigLines(t.config),
    nodes: ['log', 'operator', 'result'],
    initialState,
    steps,
    ...(d ? { divergence: divergenceOf(d, d.step) } : {}),
  };
}

// ---------------------------------------------------------------------------
// Model counterexamples (streamjoin check)

function modelFound(cx: Counterexample, file: string | undefined): [string, string][] {
  const lines: [string, string][] = [
    ['model', cx.model],
    ['preset', cx.preset],
    [
      'bounds',
      Object.entries(cx.bounds)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
    ],
  ];
  if (cx.ablate !== undefined) lines.push(['protocol element switched off', cx.ablate]);
  if (cx.part !== undefined) lines.push(['part (SPEC §6, key independence)', cx.part]);
  lines.push(['found by', `streamjoin check: a shortest path to a state that breaks ${cx.property.name}`]);
  if (file !== undefined) lines.push(['replay', `npx streamjoin check --replay ${file}`]);
  return lines;
}

/** The property a model counterexample breaks, as a view shows it. */
export function violationOf(cx: Counterexample): ViewViolation {
  return {
    property: cx.property.name,
    kind: cx.property.kind,
    ...(cx.explanation !== undefined ? { explanation: cx.explanation } : {}),
    ...(cx.trap ? { trap: { kind: cx.trap.kind, steps: cx.trap.steps ?? cx.trap.actions.map((a) => JSON.stringify(a)) } } : {}),
  };
}

/** The rules behind a model property (SPEC §6). */
function propertyRefs(property: string, actions: readonly ClusterAction[]): RuleRefs {
  const byProperty: Record<string, string[]> = {
    ExactlyOnce: ['C9', 'C3', 'C4'],
    Fenced: ['C9', 'C7', 'C8'],
    BoundedState: ['J8'],
    Progress: ['C5', 'C6', 'C7', 'C8', 'C10'],
    JoinCorrect: ['J7'],
  };
  const fromActions = mergeRefs(...actions.map((a) => ({ rules: a.type === 'process' ? ['C3'] : rulesOfAction(a), properties: [] })));
  return { rules: [...new Set([...(byProperty[property] ?? []), ...fromActions.rules])], properties: [property] };
}

/**
 * The view of a `streamjoin check` counterexample: its path replayed through
 * the preset's model, with each step's events. Undefined when the preset is
 * not one this streamjoin has (the file came from elsewhere).
 */
export function modelCounterexampleView(cx: Counterexample, file?: string): CounterexampleView | undefined {
  const cluster = clusterModelConfigOf(cx.preset, cx.bounds, cx.ablate, cx.part);
  const common = {
    kind: 'model' as const,
    name: `${cx.preset}${cx.ablate ? `-${cx.ablate}` : ''}${cx.part ? `-${cx.part}` : ''}-${cx.property.name}`,
    description: `A counterexample to ${cx.property.name} (${cx.property.kind}) in the model ${cx.model}.`,
    versions: VERSIONS,
    found: modelFound(cx, file),
    violation: violationOf(cx),
  };
  if (cluster) {
    const setup = cluster.cluster;
    const nodes = clusterNodes(setup);
    const col = columnsOf(nodes);
    let s: ExploredState = initialExplored(cluster);
    const stateOf = (x: ExploredState): unknown => ({
      ...observeCluster(setup, x.cluster),
      budgetsUsed: x.used,
      ...(x.cluster.ghost.violation ? { violation: x.cluster.ghost.violation } : {}),
    });
    const initialState = stateOf(s);
    let before = initialState;
    const actions = cx.actions as ClusterAction[];
    const steps: ViewStep[] = [];
    for (const [i, action] of actions.entries()) {
      const why = whyNotEnabled(setup, s.cluster, action);
      const observationBefore = observeCluster(setup, s.cluster);
      let expected: ExpectedClusterStep;
      if (why !== undefined) expected = { error: why, observation: observationBefore };
      else {
        const events = transition(setup, s.cluster, action).events;
        s = nextExplored(cluster, s, action);
        expected = { events, observation: observeCluster(setup, s.cluster) };
      }
      const rows = clusterStepRows(action, observationBefore, expected, col);
      const last = i === actions.length - 1;
      const state = stateOf(s);
      steps.push({
        number: i + 1,
        action: actionText(action),
        actionJson: action,
        events: 'error' in expected ? [] : expected.events.map(eventText),
        clusterEvents: 'error' in expected ? [] : expected.events,
        ...(why !== undefined ? { refused: why } : {}),
        rows: last ? [...rows, { from: 0, text: `✗ ${cx.property.name} is broken here`, kind: 'divergence' }] : rows,
        state,
        changed: changedPaths(before, state),
      });
      before = state;
    }
    return {
      ...common,
      config: [
        ...clusterConfigLines(setup),
        ['workload (the script, appended in order)', cluster.bounds.script.map(recordText).join('; ') || '(none)'],
        [
          'budgets',
          (['migrations', 'failovers', 'crashes', 'pauses', 'duplicates', 'checkpoints'] as const)
            .map((kind) => `${kind} ${cluster.bounds[kind]}`)
            .join(', '),
        ],
        ...(setup.ablate?.length ? ([['switched off', setup.ablate.join(', ')]] as [string, string][]) : []),
      ],
      configJson: { cluster: setup, bounds: cluster.bounds },
      nodes,
      initialState,
      steps,
      ...linksOf(propertyRefs(cx.property.name, actions)),
    };
  }
  const options = joinModelOptionsOf(cx.preset, cx.bounds, cx.ablate);
  if (!options) return undefined;
  const model = joinModel(options);
  const join = { allowedLateness: options.bounds.allowedLateness, maxIntervalLength: options.bounds.maxIntervalLength };
  let s = model.initialStates()[cx.initialState] as JoinModelState;
  const initialState = model.stateToJson?.(s);
  let before = initialState;
  const records = cx.actions as LogRecord[];
  const outcomeRules = new Set<string>();
  const steps = records.map((record, i): ViewStep => {
    const step = (options.operator ?? stepJoin)(join, s.op, record);
    for (const r of rulesOfOutcome(step.outcome as Outcome)) outcomeRules.add(r);
    s = model.next(s, record);
    const state = model.stateToJson?.(s);
    const rows: ViewRow[] = [{ from: 0, to: 1, text: recordText(record), kind: 'message' }];
    const head = outcomeText(step.outcome as Outcome);
    if (step.changes.length === 0) rows.push({ from: 1, text: head, kind: 'note' });
    else rows.push({ from: 1, to: 2, text: `${head} ${changesText(step.changes)}`, kind: 'message' });
    if (i === records.length - 1) rows.push({ from: 0, text: `✗ ${cx.property.name} is broken here`, kind: 'divergence' });
    const out: ViewStep = {
      number: i + 1,
      action: describeRecord(record),
      actionJson: record,
      events: [`${head}${step.changes.length ? ` ${changesText(step.changes)}` : ''}`],
      rows,
      state,
      changed: changedPaths(before, state),
    };
    before = state;
    return out;
  });
  const refs = { rules: [...new Set(['J7', ...outcomeRules])], properties: [cx.property.name] };
  return {
    ...common,
    config: [
      ...joinConfigLines(join),
      [
        'record domain',
        `${options.bounds.keys} key(s), ${options.bounds.ids} id(s) per key and side, times 0..${options.bounds.maxTime}, logs of at most ${options.bounds.records} records`,
      ],
      ...(cx.ablate !== undefined ? ([['switched off', cx.ablate]] as [string, string][]) : []),
    ],
    configJson: { join, bounds: options.bounds },
    nodes: ['log', 'operator', 'result'],
    initialState,
    steps,
    ...linksOf(cx.property.name === 'BoundedState' ? { rules: ['J8'], properties: ['BoundedState'] } : refs),
  };
}
