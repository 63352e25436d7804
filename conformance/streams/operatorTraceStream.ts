// Reads an operator trace file (SPEC §4) step by step, in memory proportional
// to one step: the members of the document one at a time and the `steps`
// array element by element (jsonScanner.ts). It checks what SPEC §4 asks of
// a trace, and answers with the same errors, in the same order, as reading
// the whole file would (`loadOperatorTrace` and the contract check):
//
//   SJ100 unreadable, SJ101 not JSON (line and column), SJ103 another
//   format, SJ102 not the schema (step and JSON pointer), SJ104 out of
//   contract (J9, the step).
//
// Steps are handed to the caller while the file is read; once any check
// fails no further step is handed over, but the rest of the file is still
// read (cheaply: syntax and format only) because an error of an earlier
// kind further on takes precedence (SPEC §4: JSON first, then the schema,
// then the contract). The caller must therefore write nothing until the
// read returns.
import {
  InputError,
  MAX_DOCUMENT_BYTES,
  OPERATOR_TRACE_FORMAT,
  describeSchemaError,
  fileToOpen,
  paced,
  lineColumn,
  pointerOffset,
  readDocument,
  schemaValidator,
} from '../../spec/index.ts';
import type { JoinConfig, OperatorStep, OperatorTrace } from '../../spec/index.ts';
import { contractChecker } from '../../model/index.ts';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import {
  fileChunks,
  JsonScanner,
  JsonSyntaxError,
  NotUtf8Error,
  ValueTooLargeError,
  type ChunkSource,
  type TextPosition,
} from './jsonScanner.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

/** What is known of a trace before its steps: every member but `steps`. */
export type TraceHeader = Omit<OperatorTrace, 'steps'>;

/** Receives the steps of a trace. */
export interface StepVisitor {
  step(index: number, step: OperatorStep): void;
}

/** The members read so far, in file order (to write a trace back in the layout it came in). */
export interface MembersSoFar {
  /** The members before `steps`, once the steps have begun. */
  beforeSteps(): [string, unknown][];
}

/** What a read found: the header, the members in file order (for writing the trace back), and how many steps. */
export interface TraceRead {
  readonly header: TraceHeader;
  /** Member names in the order of the file, `steps` included. */
  readonly memberOrder: readonly string[];
  readonly steps: number;
}

/**
 * Which problem wins (SPEC §4; lower first): another format; the document
 * outside its steps against the schema (ajv checks the top-level members
 * before it descends into `steps`); a step against the schema; the contract.
 * Syntax errors are thrown at once: nothing outranks them, and the first is
 * the one JSON.parse of the whole file would report.
 */
const RANK = { format: 0, document: 1, step: 2, contract: 3 } as const;
type Rank = (typeof RANK)[keyof typeof RANK];

/** An error's text as the whole-file reader words it: `step N: ` before it when it is in a step. */
function inStep(pointer: string, text: string): string {
  const step = /^\/steps\/(\d+)(\/.*)?$/.exec(pointer);
  return step ? `step ${Number(step[1]) + 1}: ${text}` : text;
}

/** A value as it was read: where it starts in the file and its own text. */
interface ReadValue {
  readonly at: TextPosition;
  readonly text: string;
}

/**
 * `where:line:column` of what a pointer names inside a value read from the
 * file (`inner` relative to the value; with `member`, that member's name),
 * as reading the whole file would place it (SPEC §8: every error at its line
 * and column).
 */
function placeIn(where: string, read: ReadValue, inner: string, member?: string): string {
  const { line, column } = lineColumn(read.text, pointerOffset(read.text, inner, member));
  return line === 1 ? `${where}:${read.at.line}:${read.at.column + column - 1}` : `${where}:${read.at.line + line - 1}:${column}`;
}

/** The first schema error of `value` against `schema`, as SJ102 at its place, its pointer under `prefix`. */
function schemaProblem(
  schema: string,
  value: unknown,
  prefix: string,
  place: (inner: string, member?: string) => string,
): InputError | undefined {
  const validate = schemaValidator(schema);
  if (validate(value)) return undefined;
  const first = validate.errors?.[0];
  if (!first) return new InputError('SJ102', place(''), inStep(prefix, `${prefix || '(document)'} is invalid`));
  const pointer = `${prefix}${first.instancePath}`;
  // An unknown property is shown at its name; every other error at the value.
  const member =
    first.keyword === 'additionalProperties' ? String((first.params as { additionalProperty?: unknown }).additionalProperty) : undefined;
  return new InputError(
    'SJ102',
    place(first.instancePath, member),
    inStep(pointer, describeSchemaError({ ...first, instancePath: pointer })),
  );
}

/**
 * The `format` a trace file names near its beginning, if any (the first
 * 64 KiB): which reader to use for it. A guess only: the chosen reader
 * checks the whole file.
 */
export function sniffTraceFormat(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(fileToOpen(path), 'r');
    const buffer = Buffer.alloc(1 << 16);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    return /"format"\s*:\s*"([^"\\]*)"/.exec(buffer.toString('utf8', 0, n))?.[1];
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** What a reading yields, in order: `start` once the config is known (with it, the header), then each step in contract. */
export type TraceItem =
  | { readonly kind: 'start'; readonly header: TraceHeader; readonly members: MembersSoFar }
  | { readonly kind: 'step'; readonly index: number; readonly step: OperatorStep };

/**
 * The trace at `path`, read lazily: the consumer pulls items at its own
 * pace (and may await between pulls, e.g. a system under test). The
 * generator's return value is the TraceRead; it throws the InputError SPEC
 * §4 names for the first problem. `start` comes before the first step (if
 * the file lists `steps` before `config`, the steps are held until then).
 */
export function* operatorTraceItems(path: string): Generator<TraceItem, TraceRead, undefined> {
  let chunks: ReturnType<typeof fileChunks>;
  try {
    chunks = fileChunks(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError('SJ100', path, code === 'ENOENT' ? 'no such file' : `cannot read (${code ?? String(e)})`);
  }
  try {
    return yield* operatorTraceItemsFrom(chunks.next, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (!(e instanceof InputError) && typeof code === 'string') throw new InputError('SJ100', path, `cannot read (${code})`);
    // Bytes or syntax the document reader reads too: its error, word for word (SPEC §4: as reading the whole file).
    if (e instanceof NotUtf8Error || (e instanceof InputError && e.code === 'SJ101')) throw wholeFileError(path) ?? streamedError(e, path);
    throw e;
  } finally {
    chunks.close();
  }
}

/**
 * The error reading the whole file gives, for a file no larger than a
 * document may be (larger ones have no whole-file reading to match).
 */
function wholeFileError(path: string): InputError | undefined {
  try {
    if (statSync(fileToOpen(path)).size > MAX_DOCUMENT_BYTES) return undefined;
    readDocument(path);
  } catch (e) {
    if (e instanceof InputError) return e;
  }
  return undefined;
}

/** The streamed reading's own error: at the byte offset for bytes that are not UTF-8. */
function streamedError(e: InputError | NotUtf8Error, path: string): InputError {
  return e instanceof NotUtf8Error ? new InputError('SJ101', path, e.message) : e;
}

/** `operatorTraceItems` over text from any source; `where` names it in errors. */
export function* operatorTraceItemsFrom(source: ChunkSource, where: string): Generator<TraceItem, TraceRead, undefined> {
  try {
    return yield* itemsFrom(new JsonScanner(source), where);
  } catch (e) {
    if (e instanceof ValueTooLargeError) throw new InputError('SJ110', `${where}:${e.line}:${e.column}`, e.message);
    if (e instanceof JsonSyntaxError) {
      throw new InputError('SJ101', e.column === undefined ? `${where}:${e.line}` : `${where}:${e.line}:${e.column}`, e.message);
    }
    throw e;
  }
}

/** Drives a reading to its end, handing `start`'s visitor every step. */
function visitAll(
  items: Generator<TraceItem, TraceRead, undefined>,
  start: (header: TraceHeader, members: MembersSoFar) => StepVisitor,
): TraceRead {
  let visitor: StepVisitor | undefined;
  for (;;) {
    const next = items.next();
    if (next.done) return next.value;
    const item = next.value;
    if (item.kind === 'start') visitor = start(item.header, item.members);
    else visitor?.step(item.index, item.step);
  }
}

/**
 * Reads the trace at `path`. `start(header)` is called once the config is
 * known and returns the visitor of the steps. Throws the InputError SPEC §4
 * names for the first problem.
 */
export function readOperatorTrace(path: string, start: (header: TraceHeader, members: MembersSoFar) => StepVisitor): TraceRead {
  return visitAll(operatorTraceItems(path), start);
}

/**
 * `readOperatorTrace` at the event loop's pace (spec/pacing.ts): a trace of
 * any length is read and run while signals are heard; rejects with
 * Interrupted once `signal` is aborted (the visitor has then seen the steps
 * before).
 */
export async function readOperatorTracePaced(
  path: string,
  start: (header: TraceHeader, members: MembersSoFar) => StepVisitor,
  signal: AbortSignalLike | undefined,
): Promise<TraceRead> {
  const items = paced(operatorTraceItems(path), signal);
  let visitor: StepVisitor | undefined;
  for (;;) {
    const next = await items.next();
    if (next.done) return next.value;
    const item = next.value;
    if (item.kind === 'start') visitor = start(item.header, item.members);
    else visitor?.step(item.index, item.step);
  }
}

/** `readOperatorTrace` over text from any source; `where` names it in errors. */
export function readOperatorTraceFrom(
  source: ChunkSource,
  where: string,
  start: (header: TraceHeader, members: MembersSoFar) => StepVisitor,
): TraceRead {
  return visitAll(operatorTraceItemsFrom(source, where), start);
}

function* itemsFrom(scanner: JsonScanner, where: string): Generator<TraceItem, TraceRead, undefined> {
  const members: Record<string, unknown> = {};
  const memberOrder: string[] = [];
  const soFar: MembersSoFar = {
    beforeSteps: () => memberOrder.slice(0, Math.max(0, memberOrder.indexOf('steps'))).map((name) => [name, members[name]]),
  };
  /** The winning problem so far (the first of the best rank). */
  let problem: InputError | undefined;
  let problemRank: Rank = RANK.contract;
  const note = (e: InputError, rank: Rank): void => {
    if (problem === undefined || rank < problemRank) {
      problem = e;
      problemRank = rank;
    }
  };
  let started = false;
  let checker: ReturnType<typeof contractChecker> | undefined;
  const held: { index: number; step: OperatorStep; read: ReadValue }[] = [];
  // Where the document's members were read, to place an error in one as reading the whole file would.
  const docStart = scanner.position();
  const reads = new Map<string, ReadValue>();
  const namesAt = new Map<string, TextPosition>();
  const placeInDocument = (pointer: string, member?: string): string => {
    const m = /^\/([^/]*)(.*)$/.exec(pointer);
    const r = m ? reads.get((m[1] as string).replace(/~1/g, '/').replace(/~0/g, '~')) : undefined;
    if (m && r) return placeIn(where, r, m[2] as string, member);
    const p = (member !== undefined ? namesAt.get(member) : undefined) ?? docStart;
    return `${where}:${p.line}:${p.column}`;
  };
  let steps = 0;

  const formatProblem = (atEnd = false): InputError | undefined => {
    const format = members['format'];
    if (atEnd && !('format' in members))
      return new InputError('SJ103', placeInDocument(''), `not a "${OPERATOR_TRACE_FORMAT}" document (no "format" field)`);
    return typeof format === 'string' && format !== OPERATOR_TRACE_FORMAT
      ? new InputError('SJ103', placeInDocument('/format'), `format "${format}" is not "${OPERATOR_TRACE_FORMAT}"`)
      : undefined;
  };
  /** The start item, once the config is there and valid (then the held steps go out). */
  const tryStart = (): TraceItem | undefined => {
    if (started || problem !== undefined || !('config' in members)) return undefined;
    const bad = schemaProblem('config', members['config'], '/config', (inner, member) => placeInDocument(`/config${inner}`, member));
    if (bad) {
      note(bad, RANK.document);
      return undefined;
    }
    const header = { ...members } as unknown as TraceHeader;
    checker = contractChecker(header.config as JoinConfig);
    started = true;
    return { kind: 'start', header, members: soFar };
  };
  /** The step item, if the step is in contract (J9) and no problem is known. */
  const inContract = (index: number, step: OperatorStep, read: ReadValue): TraceItem | undefined => {
    if (problem !== undefined) return undefined;
    const v = (checker as ReturnType<typeof contractChecker>).check(step.record, index);
    if (v) {
      note(new InputError('SJ104', placeIn(where, read, ''), `step ${index + 1}: ${v.message}`), RANK.contract);
      return undefined;
    }
    return { kind: 'step', index, step };
  };

  scanner.expect('{', 'Unexpected token: a trace is a JSON object');
  if (!scanner.accept('}')) {
    for (;;) {
      scanner.peek();
      const nameAt = scanner.position();
      const name = scanner.memberName();
      if (!namesAt.has(name)) namesAt.set(name, nameAt);
      scanner.expect(':', "Expected ':' after property name");
      if (name === 'steps' && scanner.peek() === 0x5b) {
        memberOrder.push(name);
        scanner.expect('[', '');
        if (!scanner.accept(']')) {
          for (;;) {
            const read = scanner.value();
            const { value } = read;
            const index = steps++;
            // Once a problem of rank step or better is known, a step can only change the verdict by its syntax.
            if (problem === undefined || problemRank > RANK.step) {
              const bad = schemaProblem('operator-trace#/$defs/OperatorStep', value, `/steps/${index}`, (inner, member) =>
                placeIn(where, read, inner, member),
              );
              if (bad) note(bad, RANK.step);
              else if (problem === undefined && started) {
                const item = inContract(index, value as OperatorStep, read);
                if (item) yield item;
              } else if (problem === undefined) held.push({ index, step: value as OperatorStep, read });
            }
            if (scanner.accept(']')) break;
            scanner.expect(',', "Expected ',' or ']' after array element");
          }
        }
        members['steps'] = [];
      } else {
        const read = scanner.value();
        const { value } = read;
        reads.set(name, read);
        if (!(name in members)) memberOrder.push(name);
        members[name] = value;
        const f = formatProblem();
        if (f) note(f, RANK.format);
        const start = tryStart();
        if (start) {
          yield start;
          for (const h of held.splice(0)) {
            const item = inContract(h.index, h.step, h.read);
            if (item) yield item;
          }
        }
      }
      if (scanner.accept('}')) break;
      scanner.expect(',', "Expected ',' or '}' after property value");
    }
  }
  scanner.expectEnd();

  // The document without its steps (each checked above) against the whole schema.
  const f = formatProblem(true);
  if (f) note(f, RANK.format);
  // (`steps`, if it was an array, stands here as an empty one.)
  const bad = schemaProblem('operator-trace', members, '', placeInDocument);
  if (bad) note(bad, RANK.document);
  if (problem !== undefined) throw problem;
  if (held.length > 0) throw new Error('unreachable: steps held without a config');
  const { steps: _steps, ...header } = members;
  return { header: header as unknown as TraceHeader, memberOrder, steps };
}
