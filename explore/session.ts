// The interactive explorer's model side (`streamjoin explore`): a model (a
// preset, or the cluster of a trace) and a path of actions from its initial
// state; for the state the path reaches, the enabled actions, the refused
// ones with the reason the model gives (`whyNotEnabled`, or a budget), and the
// properties' verdicts. Stateless: every request replays its path, so a URL
// holding the model and the path is a state anyone can open again.
import type { ClusterAction, ClusterConfig, ClusterTrace, Counterexample, LogRecord } from '../spec/index.ts';
import { COORDINATOR, InputError, isItfTrace, itfKind, parseJson, documentFormat, COUNTEREXAMPLE_FORMAT } from '../spec/index.ts';
import type { ItfTrace } from '../spec/index.ts';
import {
  PRESETS,
  budgetOf,
  clusterExplorerModel,
  clusterModelConfigOf,
  describeRecord,
  evaluateProperty,
  joinModel,
  joinModelOptionsOf,
  presetNamed,
  resolveBounds,
  validityOf,
  whyNotEnabled,
} from '../model/index.ts';
import type { ClusterModelConfig, ExploredState, JoinModelState, LabelledAction, Model } from '../model/index.ts';
import { actionText } from '../conformance/report/texts.ts';
import { itfAsDocument, parseClusterTrace, parseOperatorTrace } from '../spec/index.ts';

/** Which model: a preset (its bounds, an ablated element, a part), or the cluster or operator of a trace with its log as the workload. */
export type ModelSpec =
  | {
      readonly preset: string;
      readonly bounds?: Readonly<Record<string, number>>;
      readonly ablate?: string;
      readonly part?: string;
    }
  | { readonly trace: 'cluster'; readonly config: ClusterConfig; readonly script: readonly LogRecord[] }
  | {
      readonly trace: 'operator';
      readonly join: { allowedLateness: number; maxIntervalLength: number };
      readonly script: readonly LogRecord[];
    };

export interface ActionView {
  readonly action: unknown;
  readonly text: string;
  /** Why it is refused (not enabled); absent for an enabled action. */
  readonly why?: string;
}

export interface PropertyView {
  readonly name: string;
  readonly kind: 'invariant' | 'progress' | 'goal';
  readonly verdict: 'holds' | 'violated' | 'unknown' | 'reached' | 'not reached';
  readonly explanation?: string;
}

export interface Snapshot {
  readonly model: string;
  readonly kind: 'cluster' | 'join';
  readonly spec: ModelSpec;
  /** The path as taken (up to the first action that was not enabled), described. */
  readonly path: readonly { readonly action: unknown; readonly text: string }[];
  /** Set when an action of the requested path was not enabled where it was asked for. */
  readonly stoppedAt?: { readonly index: number; readonly why: string };
  readonly state: unknown;
  readonly enabled: readonly ActionView[];
  readonly refused: readonly ActionView[];
  readonly properties: readonly PropertyView[];
  readonly config: unknown;
}

const BIG = 99;

/** A trace's cluster as a model: its log the workload, every budget large (a trace is a path to walk, not a bound to exhaust). */
function traceClusterConfig(config: ClusterConfig, script: readonly LogRecord[]): ClusterModelConfig {
  return {
    cluster: config,
    bounds: { script, migrations: BIG, failovers: BIG, crashes: BIG, pauses: BIG, duplicates: BIG, checkpoints: BIG },
  };
}

interface Built {
  readonly name: string;
  readonly kind: 'cluster' | 'join';
  readonly cluster?: ClusterModelConfig;
  readonly model: Model<unknown, unknown>;
  readonly config: unknown;
}

function build(spec: ModelSpec): Built {
  if ('preset' in spec) {
    const preset = presetNamed(spec.preset);
    if (!preset)
      throw new InputError('SJ105', 'usage', `unknown preset "${spec.preset}" (presets: ${PRESETS.map((p) => p.name).join(', ')})`);
    let bounds: Record<string, number>;
    try {
      bounds = resolveBounds(preset, spec.bounds ?? {});
    } catch (e) {
      throw new InputError('SJ105', 'usage', (e as Error).message);
    }
    if (spec.ablate !== undefined && !preset.ablations.some((a) => a.name === spec.ablate))
      throw new InputError('SJ105', 'usage', `preset ${preset.name} has no element "${spec.ablate}"`);
    const cluster = clusterModelConfigOf(preset.name, bounds, spec.ablate, spec.part);
    if (cluster) {
      const model = clusterExplorerModel(cluster) as unknown as Model<unknown, unknown>;
      return { name: model.name, kind: 'cluster', cluster, model, config: { preset: preset.name, bounds, ablate: spec.ablate ?? null } };
    }
    const options = joinModelOptionsOf(preset.name, bounds, spec.ablate);
    if (!options) throw new InputError('SJ105', 'usage', `preset ${preset.name} has no model to explore`);
    const model = joinModel(options) as unknown as Model<unknown, unknown>;
    return { name: model.name, kind: 'join', model, config: { preset: preset.name, bounds, ablate: spec.ablate ?? null } };
  }
  if (spec.trace === 'cluster') {
    const cluster = traceClusterConfig(spec.config, spec.script);
    const model = clusterExplorerModel(cluster, { name: `the cluster of a trace (${spec.config.workers.length} workers)` });
    return { name: model.name, kind: 'cluster', cluster, model: model as unknown as Model<unknown, unknown>, config: spec.config };
  }
  // An operator trace: the join model whose only action appends the trace's next record.
  const base = joinModel({
    bounds: { records: spec.script.length, keys: 1, ids: 1, maxTime: 0, ...spec.join, invalid: false },
    name: 'the operator of a trace',
  });
  const model: Model<JoinModelState, LogRecord> = {
    ...base,
    actions: (s) => (s.length < spec.script.length ? [spec.script[s.length] as LogRecord] : []),
  };
  return { name: model.name, kind: 'join', model: model as unknown as Model<unknown, unknown>, config: spec.join };
}

const key = (json: unknown): string => JSON.stringify(json);

/** Every action of a cluster one could ask for here, enabled or not: each kind, for each worker, key and node. */
function clusterCandidates(config: ClusterModelConfig, s: ExploredState): ClusterAction[] {
  const { workers, keys } = config.cluster;
  const out: ClusterAction[] = [];
  const record = config.bounds.script[s.cluster.log.length];
  if (record) out.push({ type: 'record', record });
  for (const w of workers) for (const { key: k } of keys) out.push({ type: 'process', worker: w, key: k });
  for (const { key: k } of keys) {
    for (const to of workers) out.push({ type: 'freeze', key: k, to });
    out.push(
      { type: 'persist', key: k },
      { type: 'install', key: k },
      { type: 'commit', key: k },
      { type: 'commit', key: k, crashAfterFence: true },
    );
    out.push({ type: 'release', key: k }, { type: 'abort', key: k });
    for (const to of workers) out.push({ type: 'failover', key: k, to }, { type: 'failover', key: k, to, crashAfterFence: true });
    out.push({ type: 'duplicateInstall', key: k }, { type: 'duplicateRelease', key: k });
  }
  for (const w of workers) for (const { key: k } of keys) out.push({ type: 'checkpoint', worker: w, key: k });
  for (const n of [...workers, COORDINATOR]) out.push({ type: 'crash', node: n }, { type: 'restart', node: n });
  for (const w of workers) out.push({ type: 'pause', worker: w }, { type: 'resume', worker: w });
  return out;
}

/** Why the bounded model does not offer an action the cluster itself would take: a budget spent, or the workload consumed. */
function boundReason(config: ClusterModelConfig, s: ExploredState, a: ClusterAction): string | undefined {
  for (const b of budgetOf(a)) {
    if (s.used[b] >= config.bounds[b]) return `the budget of ${b} is spent (${s.used[b]} of ${config.bounds[b]})`;
  }
  return undefined;
}

function properties(b: Built, state: unknown): PropertyView[] {
  const out: PropertyView[] = [];
  for (const inv of b.model.invariants) {
    const why = inv.check(state);
    out.push({
      name: inv.name,
      kind: 'invariant',
      verdict: why === undefined ? 'holds' : 'violated',
      ...(why !== undefined ? { explanation: why } : {}),
    });
  }
  if (b.model.progress) {
    const e = evaluateProperty(b.model, 'progress', b.model.progress.name, state, { maxStates: 20_000, maxSeconds: 2 });
    if (e.found)
      out.push({
        name: b.model.progress.name,
        kind: 'progress',
        verdict: e.verdict,
        ...(e.explanation ? { explanation: e.explanation } : {}),
      });
  }
  for (const g of b.model.goals ?? []) out.push({ name: g.name, kind: 'goal', verdict: g.reached(state) ? 'reached' : 'not reached' });
  return out;
}

/** The state a path reaches in a model, and what can be done there. */
export function snapshot(spec: ModelSpec, path: readonly unknown[]): Snapshot {
  const b = build(spec);
  const { model } = b;
  const toJson = (a: unknown): unknown => (model.actionToJson ? model.actionToJson(a) : model.describeAction(a));
  let state = model.initialStates()[0];
  const taken: { action: unknown; text: string }[] = [];
  let stoppedAt: Snapshot['stoppedAt'];
  for (const [i, wanted] of path.entries()) {
    const a = model.actions(state).find((x) => key(toJson(x)) === key(wanted));
    if (a === undefined) {
      const why =
        b.cluster && typeof wanted === 'object' && wanted !== null && 'type' in wanted
          ? (whyNotEnabled(b.cluster.cluster, (state as ExploredState).cluster, wanted as ClusterAction) ??
            boundReason(b.cluster, state as ExploredState, wanted as ClusterAction) ??
            'not an action of this model')
          : 'not an action of this model';
      stoppedAt = { index: i, why };
      break;
    }
    taken.push({ action: toJson(a), text: describe(b, a) });
    state = model.next(state, a);
  }
  const enabledActions = model.actions(state);
  const enabled: ActionView[] = enabledActions.map((a) => ({ action: toJson(a), text: describe(b, a) }));
  const refused: ActionView[] = [];
  if (b.cluster) {
    const s = state as ExploredState;
    const on = new Set(enabled.map((e) => key(e.action)));
    if (!s.cluster.log.length && b.cluster.bounds.script.length === 0)
      refused.push({ action: null, text: 'record', why: 'the workload is empty' });
    else if (s.cluster.log.length >= b.cluster.bounds.script.length)
      refused.push({ action: null, text: 'record', why: 'the workload is consumed' });
    for (const a of clusterCandidates(b.cluster, s)) {
      if (on.has(key(a))) continue;
      const why = whyNotEnabled(b.cluster.cluster, s.cluster, a) ?? boundReason(b.cluster, s, a) ?? 'not offered by the bounded model';
      refused.push({ action: a, text: actionText(a), why });
    }
  } else if (enabled.length === 0) {
    refused.push({ action: null, text: 'append a record', why: `the log holds ${(state as JoinModelState).length} records, the bound` });
  }
  return {
    model: b.name,
    kind: b.kind,
    spec,
    path: taken,
    ...(stoppedAt ? { stoppedAt } : {}),
    state: model.stateToJson ? model.stateToJson(state) : model.encode(state),
    enabled,
    refused,
    properties: properties(b, state),
    config: b.config,
  };
}

function describe(b: Built, a: unknown): string {
  if (b.kind === 'cluster') return actionText((a as LabelledAction).action);
  return describeRecord(a as LogRecord);
}

// ---------------------------------------------------------------------------
// Loading a counterexample file into the explorer

/** The model and path a counterexample (or trace) holds, streamjoin's or ITF. `where` names it in errors. */
export function loadIntoExplorer(text: string, where: string): { spec: ModelSpec; path: unknown[] } {
  const value = parseJson(text, where);
  const itf = isItfTrace(value) ? (value as ItfTrace) : undefined;
  if (documentFormat(value) === COUNTEREXAMPLE_FORMAT || (itf && itfKind(itf) === 'counterexample')) {
    const cx = JSON.parse(itfAsDocument(text, where, 'counterexample')) as Counterexample;
    return {
      spec: {
        preset: cx.preset,
        bounds: cx.bounds,
        ...(cx.ablate !== undefined ? { ablate: cx.ablate } : {}),
        ...(cx.part !== undefined ? { part: cx.part } : {}),
      },
      path: cx.actions,
    };
  }
  const doc = itfAsDocument(text, where, 'trace');
  const format = documentFormat(JSON.parse(doc));
  if (format === 'streamjoin/operator-trace@1') {
    const t = parseOperatorTrace(doc, where);
    const script = t.steps.map((s) => s.record);
    return { spec: { trace: 'operator', join: t.config, script }, path: script };
  }
  const t: ClusterTrace = parseClusterTrace(doc, where);
  return clusterTraceIntoExplorer(t);
}

/**
 * A conformance trace as a path of the explorer's model: its records are the
 * workload, and after each of its actions come the processing steps the
 * conformance semantics runs eagerly (§7: worker order, then key order),
 * each one a `process` action of the model.
 */
export function clusterTraceIntoExplorer(t: ClusterTrace): { spec: ModelSpec; path: unknown[] } {
  // The records the cluster appends (C3): valid, and of a declared key.
  const declared = new Set(t.config.keys.map((k) => k.key));
  const script = t.steps.flatMap((s) =>
    s.action.type === 'record' &&
    validityOf(s.action.record, t.config.join) === undefined &&
    (s.action.record.kind === 'watermark' || declared.has(s.action.record.key))
      ? [s.action.record]
      : [],
  );
  const config = traceClusterConfig(t.config, script);
  const model = clusterExplorerModel(config);
  let state = model.initialStates()[0] as ExploredState;
  const path: unknown[] = [];
  const take = (a: ClusterAction): boolean => {
    const found = model.actions(state).find((x) => key(x.action) === key(a));
    if (!found) return false;
    path.push(a);
    state = model.next(state, found);
    return true;
  };
  for (const s of t.steps) {
    // A refused action changes nothing (§7); the explorer's path leaves it out.
    if (!take(s.action)) continue;
    for (let progressed = true; progressed; ) {
      progressed = false;
      for (const w of t.config.workers) {
        for (const { key: k } of t.config.keys) {
          while (take({ type: 'process', worker: w, key: k })) progressed = true;
        }
      }
    }
  }
  return { spec: { trace: 'cluster', config: t.config, script }, path };
}
