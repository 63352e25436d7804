// `check --model FILE`: a user's own model, loaded from a module (JavaScript,
// or TypeScript where tsx is installed), checked like a preset without
// bounds: every option of `check` applies, and worker threads load the same
// module (docs/check.md, "Your own model").
import { existsSync, statSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { InputError } from '../spec/index.ts';
import { guardModel, importModule, presetModel, type Model, type ModelPreset, type ModelSource } from '../model/index.ts';

/** A loaded user model: as a preset of one part, and where a worker thread finds it. */
export interface UserModel {
  readonly file: string;
  readonly exportName: string;
  readonly preset: ModelPreset;
  readonly source: ModelSource;
}

const REQUIRED_FUNCTIONS = ['initialStates', 'actions', 'next', 'encode', 'actionKind', 'describeAction'] as const;
const OPTIONAL_FUNCTIONS = [
  'fingerprint',
  'representative',
  'withinBoundary',
  'weight',
  'substitute',
  'actionToJson',
  'actionFromJson',
  'stateToJson',
] as const;

/** Why `value` is not a `Model` (the first member that is missing or of the wrong kind), or undefined. */
export function modelShapeError(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return `is ${value === null ? 'null' : typeof value}, not a model object`;
  const m = value as Record<string, unknown>;
  if (typeof m['name'] !== 'string' || m['name'] === '') return 'has no name (a non-empty string)';
  for (const f of REQUIRED_FUNCTIONS) if (typeof m[f] !== 'function') return `has no function ${f}`;
  for (const f of OPTIONAL_FUNCTIONS) if (m[f] !== undefined && typeof m[f] !== 'function') return `has ${f}, but it is not a function`;
  if (!Array.isArray(m['invariants'])) return 'has no invariants array (it may be empty)';
  for (const [i, inv] of (m['invariants'] as unknown[]).entries()) {
    const x = inv as { name?: unknown; check?: unknown } | null;
    if (typeof x?.name !== 'string' || typeof x.check !== 'function') return `has invariants[${i}] without a name and a check function`;
  }
  if (m['goals'] !== undefined) {
    if (!Array.isArray(m['goals'])) return 'has goals, but not an array';
    for (const [i, g] of (m['goals'] as unknown[]).entries()) {
      const x = g as { name?: unknown; reached?: unknown } | null;
      if (typeof x?.name !== 'string' || typeof x.reached !== 'function') return `has goals[${i}] without a name and a reached function`;
    }
  }
  const p = m['progress'] as { name?: unknown; quiescent?: unknown; isFault?: unknown } | undefined;
  if (p !== undefined && (typeof p?.name !== 'string' || typeof p.quiescent !== 'function' || typeof p.isFault !== 'function'))
    return 'has progress without a name, a quiescent function and an isFault function';
  return undefined;
}

/**
 * Loads the model exported as `exportName` (default: the default export,
 * else an export named `model`) by the module at `file`. A file that
 * cannot be read is SJ100; a module that fails to load, or whose export is
 * not a model, SJ102 naming the file and the export.
 */
export async function loadUserModel(file: string, exportName: string | undefined): Promise<UserModel> {
  const path = resolve(file);
  if (!existsSync(path)) throw new InputError('SJ100', file, 'cannot read the model module: no such file');
  if (!statSync(path).isFile())
    throw new InputError('SJ100', file, 'cannot read the model module: it is a directory or a device, not a module file');
  const url = pathToFileURL(path).href;
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(url);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new InputError('SJ102', file, `the model module does not load: ${message.split('\n')[0] ?? ''}`);
  }
  const name = exportName ?? (mod['default'] !== undefined ? 'default' : 'model');
  const exported = mod[name];
  if (exported === undefined) {
    const others = Object.keys(mod).filter((k) => k !== '__esModule');
    throw new InputError(
      'SJ102',
      file,
      `no export ${exportName === undefined ? '"default" or "model"' : `"${name}"`} (the module exports: ${others.length > 0 ? others.join(', ') : 'nothing'}); --export NAME picks one`,
    );
  }
  if (typeof exported === 'function')
    throw new InputError('SJ102', file, `export "${name}" is a function: export the model object itself (call your factory in the module)`);
  const problem = modelShapeError(exported);
  if (problem !== undefined) throw new InputError('SJ102', file, `export "${name}" is not a model (the Model interface): it ${problem}`);
  const model = exported as Model<unknown, unknown>;
  const label = basename(path, extname(path)).replace(/[^A-Za-z0-9._-]+/g, '-') || 'model';
  const preset: ModelPreset = {
    name: label,
    description: `the model exported by ${file}`,
    bounds: [],
    ablations: [],
    build: () => presetModel(guardModel(model, file)),
  };
  return { file, exportName: name, preset, source: { module: url, export: name, args: [], userModelFile: file } };
}

/** The flags that name the model again (in a printed replay command). */
export function userModelArgs(m: UserModel): string[] {
  return ['--model', m.file, ...(m.exportName === 'default' ? [] : ['--export', m.exportName])];
}
