// Reading spec documents from files with errors that say where and what
// (SPEC §4, §8). Nothing here writes.
import { readFileSync } from 'node:fs';
import { InputError } from './errors.ts';
import { schemaError, type SchemaName } from './schemas.ts';
import { CHECK_CONFIG_FORMAT, CLUSTER_TRACE_FORMAT, COUNTEREXAMPLE_FORMAT, OPERATOR_TRACE_FORMAT } from './constants.ts';
import { itfAsDocument } from './itf.ts';
import type { CheckConfig, ClusterConfig, ClusterTrace, Counterexample, OperatorTrace } from './types.gen.ts';

/** Line and column (1-based) of a UTF-16 offset in `text`. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** Parses JSON text, turning a syntax error into SJ101 with line and column. */
export function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const pos = /position (\d+)/.exec(message);
    const at = pos?.[1] !== undefined ? lineColumn(text, Number(pos[1])) : undefined;
    const detail = message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
    throw new InputError('SJ101', at ? `${where}:${at.line}:${at.column}` : where, detail);
  }
}

/** Reads a file as UTF-8, turning an I/O failure into SJ100. */
export function readTextFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError('SJ100', path, code === 'ENOENT' ? 'no such file' : `cannot read (${code ?? String(e)})`);
  }
}

/** Describes where a JSON pointer points, naming the step when there is one. */
function describePointer(pointer: string): string {
  const step = /^\/steps\/(\d+)(\/.*)?$/.exec(pointer);
  if (step) return `step ${step[1]}`;
  return pointer === '' ? 'document' : pointer;
}

/** Validates `value` against a schema, throwing SJ102 that names the field. */
export function checkDocument(name: SchemaName, value: unknown, where: string): void {
  const err = schemaError(name, value);
  if (err) throw new InputError('SJ102', where, `${describePointer(err.pointer)}: ${err.text}`);
}

/** Returns the `format` field of a document, if it has a string one. */
export function documentFormat(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null && 'format' in value) {
    const f = (value as { format: unknown }).format;
    return typeof f === 'string' ? f : undefined;
  }
  return undefined;
}

/** Parses and validates an operator trace (SPEC §4 steps 1–2). */
export function parseOperatorTrace(text: string, where: string): OperatorTrace {
  const value = parseJson(text, where);
  const format = documentFormat(value);
  if (format !== undefined && format !== OPERATOR_TRACE_FORMAT) {
    throw new InputError('SJ103', where, `format "${format}" is not "${OPERATOR_TRACE_FORMAT}"`);
  }
  checkDocument('operator-trace', value, where);
  return value as OperatorTrace;
}

/** Reads, parses and validates an operator trace file. */
export function loadOperatorTrace(path: string): OperatorTrace {
  return parseOperatorTrace(readTextFile(path), path);
}

/**
 * C1: what the cluster-config schema cannot say. Returns the first problem
 * (unique keys, owners that are listed workers), or undefined.
 */
export function clusterConfigProblem(config: ClusterConfig): string | undefined {
  const seen = new Set<string>();
  for (const [i, { key, owner }] of config.keys.entries()) {
    if (seen.has(key)) return `/config/keys/${i}/key: key "${key}" is declared twice`;
    seen.add(key);
    if (!config.workers.includes(owner)) return `/config/keys/${i}/owner: owner "${owner}" is not a listed worker`;
  }
  return undefined;
}

/** Parses and validates a cluster trace (SPEC §7): schema, then C1, then no `process` action. */
export function parseClusterTrace(text: string, where: string): ClusterTrace {
  const value = parseJson(text, where);
  const format = documentFormat(value);
  if (format !== undefined && format !== CLUSTER_TRACE_FORMAT) {
    throw new InputError('SJ103', where, `format "${format}" is not "${CLUSTER_TRACE_FORMAT}"`);
  }
  checkDocument('cluster-trace', value, where);
  const trace = value as ClusterTrace;
  const problem = clusterConfigProblem(trace.config);
  if (problem) throw new InputError('SJ106', where, problem);
  const at = trace.steps.findIndex((s) => s.action.type === 'process');
  if (at >= 0) throw new InputError('SJ107', `${where}: step ${at}`, 'conformance traces process eagerly; remove the process action');
  return trace;
}

/** Reads, parses and validates a cluster trace file. */
export function loadClusterTrace(path: string): ClusterTrace {
  return parseClusterTrace(readTextFile(path), path);
}

/** A trace file of either kind, told apart by its `format`. */
export type AnyTrace = { kind: 'operator'; trace: OperatorTrace } | { kind: 'cluster'; trace: ClusterTrace };

/** Reads a trace file of either kind (SPEC §4, §7), or an ITF trace of either (spec/itf.ts). */
export function loadAnyTrace(path: string): AnyTrace {
  const text = itfAsDocument(readTextFile(path), path, 'trace');
  const format = documentFormat(parseJson(text, path));
  if (format === CLUSTER_TRACE_FORMAT) return { kind: 'cluster', trace: parseClusterTrace(text, path) };
  if (format === OPERATOR_TRACE_FORMAT) return { kind: 'operator', trace: parseOperatorTrace(text, path) };
  throw new InputError(
    'SJ103',
    path,
    format === undefined
      ? `no "format": expected "${OPERATOR_TRACE_FORMAT}" or "${CLUSTER_TRACE_FORMAT}"`
      : `format "${format}" is neither "${OPERATOR_TRACE_FORMAT}" nor "${CLUSTER_TRACE_FORMAT}"`,
  );
}

/** Parses a document of one format: JSON (SJ101), then its format (SJ103), then its schema (SJ102). */
function parseFormatted(text: string, where: string, format: string, schema: SchemaName): unknown {
  const value = parseJson(text, where);
  const found = documentFormat(value);
  if (found !== format) {
    throw new InputError(
      'SJ103',
      where,
      found === undefined ? `not a "${format}" document (no format field)` : `format "${found}" is not "${format}"`,
    );
  }
  checkDocument(schema, value, where);
  return value;
}

/** Reads and validates a counterexample file written by `streamjoin check` (or its ITF trace, spec/itf.ts). */
export function loadCounterexample(path: string): Counterexample {
  return parseFormatted(
    itfAsDocument(readTextFile(path), path, 'counterexample'),
    path,
    COUNTEREXAMPLE_FORMAT,
    'counterexample',
  ) as Counterexample;
}

/** Reads and validates a saved `streamjoin check` configuration. */
export function loadCheckConfig(path: string): CheckConfig {
  return parseFormatted(readTextFile(path), path, CHECK_CONFIG_FORMAT, 'check-config') as CheckConfig;
}
