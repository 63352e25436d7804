// Named model configurations for `streamjoin check`: a preset maps a name to
// a model factory, its bound parameters (with defaults and ranges) and the
// protocol elements it can ablate. Add a preset by appending to `PRESETS`.
import type { Model, ModelSource } from './explorer/index.ts';
import { stepJoin } from './join/join.ts';
import { JOIN_ABLATIONS, joinModel, type JoinModelBounds, type JoinModelOptions } from './join/joinModel.ts';
import { PROTOCOL_ELEMENTS, PROTOCOL_ELEMENT_DESCRIPTIONS, type ProtocolElement } from './cluster/clusterState.ts';
import type { Budget, ClusterBounds, ClusterModelConfig } from './cluster/boundedHistories.ts';
import { clusterExplorerModel } from './cluster/explorerModel.ts';
import { CLUSTER_PRESETS, projectOntoKey, SIMULATION_PRESETS, withAblation, type ClusterPreset } from './cluster/presets.ts';

/** One bound parameter of a preset (`--bound NAME=VALUE`). */
export interface BoundParameter {
  /** Parameter name. */
  readonly name: string;
  /** What it bounds, for people. */
  readonly description: string;
  /** Value when not given. */
  readonly default: number;
  /** Smallest value accepted. */
  readonly min: number;
  /** Largest value accepted. */
  readonly max: number;
}

/** A protocol element the preset's model can switch off (`--ablate NAME`). */
export interface AblationElement {
  /** Element name, as `--ablate` takes it. */
  readonly name: string;
  /** What the element is and which rule it implements. */
  readonly description: string;
}

/**
 * A built model whose state and action types are hidden: `use` hands the
 * model to a function generic in both, so callers stay type-safe without
 * knowing them.
 */
export interface PresetModel {
  /** Calls `f` with the model. */
  use<R>(f: <S, A>(model: Model<S, A>) => R): R;
}

/** Wraps a model as a `PresetModel`, hiding its state and action types. */
export function presetModel<S, A>(model: Model<S, A>): PresetModel {
  return { use: (f) => f(model) };
}

/** A named model configuration for `streamjoin check`: its bound parameters, its ablations and how to build it. */
export interface ModelPreset {
  /** Name given to `--preset`. */
  readonly name: string;
  /** What the preset checks, for people. */
  readonly description: string;
  /**
   * A bound far beyond exhaustion: the preset is checked by random walks
   * only (`check --simulate`), each at most `depth` steps by default.
   */
  readonly simulation?: { readonly depth: number };
  /** Its bound parameters (`--bound NAME=VALUE`). */
  readonly bounds: readonly BoundParameter[];
  /** The protocol elements it can switch off (`--ablate`). */
  readonly ablations: readonly AblationElement[];
  /**
   * Builds the model. `bounds` holds every parameter (defaults filled in and
   * checked against the ranges by `resolveBounds`); `ablate` is one of
   * `ablations` or undefined.
   */
  build(bounds: Readonly<Record<string, number>>, ablate: string | undefined): PresetModel;
  /**
   * Decomposition (SPEC §6, key independence): when present, `check` checks
   * these parts one after the other instead of `build`'s joint model (which
   * `--joint` still checks), and the preset passes iff every part does.
   */
  parts?(bounds: Readonly<Record<string, number>>, ablate: string | undefined): readonly PresetPart[];
}

/** One part of a decomposed preset, e.g. the single-key model of `k1`. */
export interface PresetPart {
  /** Name of the part, e.g. `k1`. */
  readonly label: string;
  /** The part's model. */
  readonly model: PresetModel;
}

const joinBoundParameters = (defaults: JoinModelBounds): BoundParameter[] => [
  { name: 'records', description: 'N: logs of at most N records', default: defaults.records, min: 0, max: 12 },
  { name: 'keys', description: 'number of keys (k1, k2, ...)', default: defaults.keys, min: 1, max: 3 },
  { name: 'ids', description: 'row ids per key and side (a, b, ...)', default: defaults.ids, min: 1, max: 4 },
  { name: 'maxTime', description: 'row times in [0, maxTime]', default: defaults.maxTime, min: 0, max: 8 },
  { name: 'lateness', description: 'L, allowed lateness (J0)', default: defaults.allowedLateness, min: 0, max: 4 },
  { name: 'length', description: 'D, maximum interval length (J0)', default: defaults.maxIntervalLength, min: 0, max: 4 },
  { name: 'invalid', description: '1: include one invalid record per kind of J1 check', default: defaults.invalid ? 1 : 0, min: 0, max: 1 },
];

/** How each preset turns its bound values into a model's configuration (for reports and the interactive explorer). */
const joinOptions = new Map<string, (b: Readonly<Record<string, number>>, ablate: string | undefined) => JoinModelOptions>();
const clusterConfigs = new Map<string, (b: Readonly<Record<string, number>>, ablate: string | undefined) => ClusterModelConfig>();

function joinPreset(name: string, description: string, defaults: JoinModelBounds): ModelPreset {
  const options = (b: Readonly<Record<string, number>>, ablate: string | undefined): JoinModelOptions => {
    const bounds: JoinModelBounds = {
      records: b['records'] ?? defaults.records,
      keys: b['keys'] ?? defaults.keys,
      ids: b['ids'] ?? defaults.ids,
      maxTime: b['maxTime'] ?? defaults.maxTime,
      allowedLateness: b['lateness'] ?? defaults.allowedLateness,
      maxIntervalLength: b['length'] ?? defaults.maxIntervalLength,
      invalid: (b['invalid'] ?? (defaults.invalid ? 1 : 0)) === 1,
    };
    const ablation = ablate === undefined ? undefined : JOIN_ABLATIONS[ablate];
    if (ablate !== undefined && ablation === undefined) throw new Error(`unknown ablation ${ablate}`);
    return { bounds, ...(ablation ? { operator: ablation.wrap(stepJoin), name: `join without ${ablate}` } : {}) };
  };
  joinOptions.set(name, options);
  return {
    name,
    description,
    bounds: joinBoundParameters(defaults),
    ablations: Object.entries(JOIN_ABLATIONS).map(([element, a]) => ({ name: element, description: a.description })),
    build: (b, ablate) => presetModel(joinModel(options(b, ablate))),
  };
}

const clusterBoundParameters = (preset: ClusterPreset): BoundParameter[] => {
  const b = preset.config.bounds;
  const budget = (name: keyof Budget, description: string): BoundParameter => ({
    name,
    description,
    default: b[name],
    min: 0,
    // Exhaustive presets grow fast with every budget; simulation presets take any size.
    max: preset.simulation ? 10_000 : 4,
  });
  return [
    {
      name: 'records',
      description: `the first N records of the workload (${b.script.length} in all)`,
      default: b.script.length,
      min: 0,
      max: b.script.length,
    },
    budget('migrations', 'migrations begun (freeze)'),
    budget('failovers', 'failovers'),
    budget('crashes', 'crashes of a worker or the coordinator, the crash points inside commit and failover included'),
    budget('pauses', 'pauses (a paused owner resumes as a zombie after a failover)'),
    budget('duplicates', 'duplicated install or release messages'),
    budget('checkpoints', 'periodic checkpoints'),
  ];
};

function clusterPresetModel(preset: ClusterPreset): ModelPreset {
  const configured = (b: Readonly<Record<string, number>>, ablate: string | undefined): ClusterModelConfig => {
    if (ablate !== undefined && !(PROTOCOL_ELEMENTS as readonly string[]).includes(ablate)) throw new Error(`unknown ablation ${ablate}`);
    const d = preset.config.bounds;
    const bounds: ClusterBounds = {
      script: d.script.slice(0, b['records'] ?? d.script.length),
      migrations: b['migrations'] ?? d.migrations,
      failovers: b['failovers'] ?? d.failovers,
      crashes: b['crashes'] ?? d.crashes,
      pauses: b['pauses'] ?? d.pauses,
      duplicates: b['duplicates'] ?? d.duplicates,
      checkpoints: b['checkpoints'] ?? d.checkpoints,
    };
    const config: ClusterModelConfig = { ...preset.config, bounds };
    return ablate === undefined ? config : withAblation(config, [ablate as ProtocolElement]);
  };
  clusterConfigs.set(preset.name, configured);
  return {
    name: preset.name,
    description: preset.description,
    ...(preset.simulation ? { simulation: preset.simulation } : {}),
    bounds: clusterBoundParameters(preset),
    ablations: PROTOCOL_ELEMENTS.map((name) => ({ name, description: PROTOCOL_ELEMENT_DESCRIPTIONS[name] })),
    build: (b, ablate) => presetModel(clusterExplorerModel(configured(b, ablate))),
    parts: (b, ablate) => {
      const config = configured(b, ablate);
      return config.cluster.keys.map(({ key }) => ({ label: key, model: presetModel(clusterExplorerModel(projectOntoKey(config, key))) }));
    },
  };
}

/** Every preset, by name: the cluster presets (SPEC §6), then the join presets. */
export const PRESETS: readonly ModelPreset[] = [
  ...CLUSTER_PRESETS.map(clusterPresetModel),
  ...SIMULATION_PRESETS.map(clusterPresetModel),
  joinPreset('join-small', 'the reference join, every log of <= 4 records over 1 key, 1 id, times 0..1 (seconds)', {
    records: 4,
    keys: 1,
    ids: 1,
    maxTime: 1,
    allowedLateness: 0,
    maxIntervalLength: 1,
    invalid: true,
  }),
  joinPreset('join-medium', 'the reference join, every log of <= 4 records over 1 key, 2 ids, times 0..2, L = 1 (a minute)', {
    records: 4,
    keys: 1,
    ids: 2,
    maxTime: 2,
    allowedLateness: 1,
    maxIntervalLength: 1,
    invalid: false,
  }),
  joinPreset('join-keys', 'the reference join, every log of <= 4 records over 2 keys, 1 id, times 0..1 (key symmetry)', {
    records: 4,
    keys: 2,
    ids: 1,
    maxTime: 1,
    allowedLateness: 0,
    maxIntervalLength: 1,
    invalid: false,
  }),
];

/**
 * The configuration of a cluster preset's model for these bounds (and, for a
 * part of a decomposed preset, the key's projection, SPEC §6); undefined for
 * a preset that is not a cluster preset. `bounds` as `resolveBounds` gives them.
 */
export function clusterModelConfigOf(
  preset: string,
  bounds: Readonly<Record<string, number>>,
  ablate: string | undefined,
  part?: string,
): ClusterModelConfig | undefined {
  const configured = clusterConfigs.get(preset);
  if (!configured) return undefined;
  const config = configured(bounds, ablate);
  return part === undefined ? config : projectOntoKey(config, part);
}

/** The options of a join preset's model for these bounds; undefined for a preset that is not a join preset. */
export function joinModelOptionsOf(
  preset: string,
  bounds: Readonly<Record<string, number>>,
  ablate: string | undefined,
): JoinModelOptions | undefined {
  return joinOptions.get(preset)?.(bounds, ablate);
}

/** The preset of that name, if any. */
export function presetNamed(name: string): ModelPreset | undefined {
  return PRESETS.find((p) => p.name === name);
}

/**
 * The model of preset `name` (or of its part `part`) at `bounds`, with
 * `ablate` switched off: what a worker thread builds (`presetSource`).
 */
export function presetPartModel(
  name: string,
  bounds: Readonly<Record<string, number>>,
  ablate: string | null,
  part: string | null,
): PresetModel {
  const preset = presetNamed(name);
  if (!preset) throw new Error(`unknown preset ${name}`);
  const element = ablate ?? undefined;
  if (part === null) return preset.build(bounds, element);
  const found = preset.parts?.(bounds, element).find((p) => p.label === part);
  if (!found) throw new Error(`preset ${name} has no part ${part}`);
  return found.model;
}

/** How a worker thread builds the model of a preset's part (see `presetPartModel`). */
export function presetSource(
  name: string,
  bounds: Readonly<Record<string, number>>,
  ablate: string | undefined,
  part: string | undefined,
): ModelSource {
  return { module: import.meta.url, export: 'presetPartModel', args: [name, bounds, ablate ?? null, part ?? null] };
}

/**
 * Fills in defaults and checks every override names a parameter of the
 * preset and lies in its range. Throws an Error whose message says which.
 */
export function resolveBounds(preset: ModelPreset, overrides: Readonly<Record<string, number>>): Record<string, number> {
  const resolved: Record<string, number> = {};
  for (const p of preset.bounds) resolved[p.name] = p.default;
  for (const [name, value] of Object.entries(overrides)) {
    const p = preset.bounds.find((b) => b.name === name);
    if (!p) throw new Error(`preset ${preset.name} has no bound "${name}" (its bounds: ${preset.bounds.map((b) => b.name).join(', ')})`);
    if (!Number.isInteger(value) || value < p.min || value > p.max) {
      throw new Error(`bound ${name} of preset ${preset.name} must be an integer in [${p.min}, ${p.max}], got ${value}`);
    }
    resolved[name] = value;
  }
  return resolved;
}
