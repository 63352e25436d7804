// Reading spec documents from files, with errors that say where and what
// (SPEC §4, §8). This is the one reader of every command that reads a
// document (run, replay, check --config and --replay, conform's trace
// files): whatever the bytes, it returns a checked document or throws one
// InputError whose line is printable, bounded, and names the file, line and
// column. Nothing here writes.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { InputError, type ErrorCode } from './errors.ts';
import { fileToOpen } from './inputFiles.ts';
import { schemaValidator, describeSchemaError, type SchemaName } from './schemas.ts';
import { CHECK_CONFIG_FORMAT, CLUSTER_TRACE_FORMAT, COUNTEREXAMPLE_FORMAT, OPERATOR_TRACE_FORMAT } from './constants.ts';
import { itfDocumentValue } from './itf.ts';
import type { CheckConfig, ClusterConfig, ClusterTrace, Counterexample, OperatorTrace } from './types.gen.ts';
import { firstInvalidUtf8, jsonTextError, lineColumn, pointerOffset, tooDeepAt } from './jsonText.ts';

/**
 * The largest document read, in bytes (SJ110). The biggest documents the
 * tools write (counterexamples, minimized traces) are kilobytes; a
 * hand-written or generated trace a thousand times larger still fits.
 */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** The deepest nesting of arrays and objects a document may have (SJ102); the schemas need about ten. */
export const MAX_DOCUMENT_DEPTH = 64;

/** JSON text and its parsed value, with the name errors give it. */
export interface JsonDocument {
  /** The file (or the name given to a text). */
  readonly where: string;
  /** The text the value was parsed from; undefined for a document converted from another (ITF), whose errors have no position. */
  readonly text: string | undefined;
  readonly value: unknown;
}

/** The document an ITF trace holds (spec/itf.ts), or `doc` itself when it is not one. */
function unwrapItf(doc: JsonDocument, want: 'trace' | 'counterexample'): JsonDocument {
  const value = itfDocumentValue(doc.value, doc.where, want);
  return value === doc.value ? doc : { where: doc.where, text: undefined, value };
}

/** `where:line:column` of a UTF-16 offset in a text. */
function at(where: string, text: string, offset: number): string {
  const { line, column } = lineColumn(text, offset);
  return `${where}:${line}:${column}`;
}

/** An error at a place in a document: the value a JSON pointer names, or with `member`, that member's name. */
export function documentError(doc: JsonDocument, code: ErrorCode, pointer: string, message: string, member?: string): InputError {
  if (doc.text === undefined) return new InputError(code, doc.where, message);
  return new InputError(code, at(doc.where, doc.text, pointerOffset(doc.text, pointer, member)), message);
}

/**
 * `file:line:column` of the value a JSON pointer names in a document file,
 * for errors found after loading (J9, a replay); the file alone if it can
 * no longer be read.
 */
export function placeInFile(path: string, pointer: string): string {
  try {
    const text = readTextFile(path);
    return at(path, text, pointerOffset(text, pointer));
  } catch {
    return path;
  }
}

/** Parses JSON text: SJ101 with line and column for a syntax error, SJ102 for nesting too deep. */
export function parseJson(text: string, where: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    // V8's message may quote the bytes and lacks a position for some errors: say it ourselves.
    const e = jsonTextError(text) ?? { offset: 0, message: 'not valid JSON' };
    throw new InputError('SJ101', at(where, text, e.offset), e.message);
  }
  const deep = tooDeepAt(text, MAX_DOCUMENT_DEPTH);
  if (deep !== undefined) {
    throw new InputError(
      'SJ102',
      at(where, text, deep),
      `arrays and objects nest deeper than ${MAX_DOCUMENT_DEPTH} levels; no streamjoin document nests that deep`,
    );
  }
  return value;
}

/** Parses JSON text into a document (SJ101, SJ102 for nesting). */
export function parseDocument(text: string, where: string): JsonDocument {
  return { where, text, value: parseJson(text, where) };
}

function readError(path: string, e: unknown): InputError {
  const code = (e as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EISDIR'
        ? 'is a directory, not a file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : `cannot read (${code ?? (e instanceof Error ? e.message : String(e))})`;
  return new InputError('SJ100', path, why);
}

/**
 * Reads a file as UTF-8 text: SJ100 if it cannot be read, SJ110 if it is
 * larger than MAX_DOCUMENT_BYTES (no more than that is read, so a huge file
 * or an endless device costs nothing), SJ101 at the first byte that is not
 * UTF-8. A leading byte-order mark is dropped.
 */
export function readTextFile(path: string): string {
  let fd: number;
  try {
    fd = openSync(fileToOpen(path), 'r');
  } catch (e) {
    throw readError(path, e);
  }
  let bytes: Buffer;
  try {
    if (fstatSync(fd).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, MAX_DOCUMENT_BYTES + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
      if (total > MAX_DOCUMENT_BYTES) break;
    }
    bytes = Buffer.concat(chunks, total);
  } catch (e) {
    throw e instanceof InputError ? e : readError(path, e);
  } finally {
    closeSync(fd);
  }
  if (bytes.length > MAX_DOCUMENT_BYTES) {
    const limit = bytes.subarray(0, MAX_DOCUMENT_BYTES);
    const text = limit.toString('utf8');
    throw new InputError(
      'SJ110',
      at(path, text, text.length),
      `the file is larger than ${MAX_DOCUMENT_BYTES / (1024 * 1024)} MiB, the most a document may be; it goes on past here`,
    );
  }
  if (!isUtf8(bytes)) {
    const bad = firstInvalidUtf8(bytes) ?? 0;
    const before = bytes.subarray(0, bad).toString('utf8');
    throw new InputError(
      'SJ101',
      at(path, before, before.length),
      `byte 0x${(bytes[bad] ?? 0).toString(16).padStart(2, '0')} is not UTF-8 (a document is UTF-8 text; is this a binary file, or text in another encoding?)`,
    );
  }
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Reads a JSON document file: SJ100, SJ110, SJ101, SJ102 (nesting). */
export function readDocument(path: string): JsonDocument {
  return parseDocument(readTextFile(path), path);
}

/** Describes where a JSON pointer points, naming the step when there is one. */
function stepOf(pointer: string): string | undefined {
  return /^\/steps\/(\d+)(?:\/|$)/.exec(pointer)?.[1];
}

/** Validates a document against a schema: SJ102 at the field, naming the step when there is one. */
export function checkAgainstSchema(name: SchemaName, doc: JsonDocument): void {
  const validate = schemaValidator(name);
  if (validate(doc.value)) return;
  const first = validate.errors?.[0];
  if (!first) throw documentError(doc, 'SJ102', '', '(document) is invalid');
  const step = stepOf(first.instancePath);
  const text = describeSchemaError(first);
  // An unknown property is shown at its name; every other error at the value.
  const member =
    first.keyword === 'additionalProperties' ? String((first.params as { additionalProperty?: unknown }).additionalProperty) : undefined;
  throw documentError(doc, 'SJ102', first.instancePath, step !== undefined ? `step ${Number(step) + 1}: ${text}` : text, member);
}

/** Returns the `format` field of a document, if it has a string one. */
export function documentFormat(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null && 'format' in value) {
    const f = (value as { format: unknown }).format;
    return typeof f === 'string' ? f : undefined;
  }
  return undefined;
}

/** SJ103 unless the document's format is `format`. */
function checkFormat(doc: JsonDocument, format: string): void {
  const found = documentFormat(doc.value);
  if (found === format) return;
  throw found === undefined
    ? documentError(doc, 'SJ103', '', `not a "${format}" document (no "format" field)`)
    : documentError(doc, 'SJ103', '/format', `format "${found}" is not "${format}"`);
}

/** An operator trace from a parsed document (SPEC §4 steps 1–2). */
function operatorTraceOf(doc: JsonDocument): OperatorTrace {
  checkFormat(doc, OPERATOR_TRACE_FORMAT);
  checkAgainstSchema('operator-trace', doc);
  return doc.value as OperatorTrace;
}

/** Parses and validates an operator trace (SPEC §4 steps 1–2). */
export function parseOperatorTrace(text: string, where: string): OperatorTrace {
  return operatorTraceOf(parseDocument(text, where));
}

/** Reads, parses and validates an operator trace file. */
export function loadOperatorTrace(path: string): OperatorTrace {
  return operatorTraceOf(readDocument(path));
}

/**
 * C1: what the cluster-config schema cannot say. Returns the first problem
 * (unique keys, owners that are listed workers) with the JSON pointer of
 * the field under the config, or undefined.
 */
export function clusterConfigIssue(config: ClusterConfig): { pointer: string; message: string } | undefined {
  const seen = new Set<string>();
  for (const [i, { key, owner }] of config.keys.entries()) {
    if (seen.has(key)) return { pointer: `/keys/${i}/key`, message: `key "${key}" is declared twice` };
    seen.add(key);
    if (!config.workers.includes(owner)) return { pointer: `/keys/${i}/owner`, message: `owner "${owner}" is not a listed worker` };
  }
  return undefined;
}

/** C1 as one line (`/config/keys/0/owner: owner "w9" is not a listed worker`), or undefined. */
export function clusterConfigProblem(config: ClusterConfig): string | undefined {
  const issue = clusterConfigIssue(config);
  return issue ? `/config${issue.pointer}: ${issue.message}` : undefined;
}

/** A cluster trace from a parsed document (SPEC §7): schema, then C1, then no `process` action. */
function clusterTraceOf(doc: JsonDocument): ClusterTrace {
  checkFormat(doc, CLUSTER_TRACE_FORMAT);
  checkAgainstSchema('cluster-trace', doc);
  const trace = doc.value as ClusterTrace;
  const issue = clusterConfigIssue(trace.config);
  if (issue) throw documentError(doc, 'SJ106', `/config${issue.pointer}`, `/config${issue.pointer}: ${issue.message}`);
  const step = trace.steps.findIndex((s) => s.action.type === 'process');
  if (step >= 0) {
    throw documentError(
      doc,
      'SJ107',
      `/steps/${step}/action`,
      `step ${step + 1}: conformance traces process eagerly; remove the process action`,
    );
  }
  return trace;
}

/** Parses and validates a cluster trace (SPEC §7): schema, then C1, then no `process` action. */
export function parseClusterTrace(text: string, where: string): ClusterTrace {
  return clusterTraceOf(parseDocument(text, where));
}

/** Reads, parses and validates a cluster trace file. */
export function loadClusterTrace(path: string): ClusterTrace {
  return clusterTraceOf(readDocument(path));
}

/** A trace file of either kind, told apart by its `format`. */
export type AnyTrace = { kind: 'operator'; trace: OperatorTrace } | { kind: 'cluster'; trace: ClusterTrace };

/** A trace of either kind from a parsed document (or the trace an ITF trace holds, spec/itf.ts). */
export function anyTraceOf(parsed: JsonDocument): AnyTrace {
  const doc = unwrapItf(parsed, 'trace');
  const format = documentFormat(doc.value);
  if (format === CLUSTER_TRACE_FORMAT) return { kind: 'cluster', trace: clusterTraceOf(doc) };
  if (format === OPERATOR_TRACE_FORMAT) return { kind: 'operator', trace: operatorTraceOf(doc) };
  throw format === undefined
    ? documentError(doc, 'SJ103', '', `no "format": expected "${OPERATOR_TRACE_FORMAT}" or "${CLUSTER_TRACE_FORMAT}"`)
    : documentError(doc, 'SJ103', '/format', `format "${format}" is neither "${OPERATOR_TRACE_FORMAT}" nor "${CLUSTER_TRACE_FORMAT}"`);
}

/** Reads a trace file of either kind (SPEC §4, §7), or an ITF trace of either (spec/itf.ts). */
export function loadAnyTrace(path: string): AnyTrace {
  return anyTraceOf(readDocument(path));
}

/** Reads a document of one format: JSON (SJ101), then its format (SJ103), then its schema (SJ102). */
function loadFormatted(path: string, format: string, schema: SchemaName): unknown {
  const doc = format === COUNTEREXAMPLE_FORMAT ? unwrapItf(readDocument(path), 'counterexample') : readDocument(path);
  checkFormat(doc, format);
  checkAgainstSchema(schema, doc);
  return doc.value;
}

/** Reads and validates a counterexample file written by `streamjoin check` (or its ITF trace, spec/itf.ts). */
export function loadCounterexample(path: string): Counterexample {
  return loadFormatted(path, COUNTEREXAMPLE_FORMAT, 'counterexample') as Counterexample;
}

/** Reads and validates a saved `streamjoin check` configuration. */
export function loadCheckConfig(path: string): CheckConfig {
  return loadFormatted(path, CHECK_CONFIG_FORMAT, 'check-config') as CheckConfig;
}
