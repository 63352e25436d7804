// The server side of protocol v2 (spec/PROTOCOL.md) around any in-process
// system under test: `streamjoin serve --model` serves the reference model
// with it, and `streamjoin serve` the implementation the same way. One request
// line in, one reply line out; the transport (stdin/stdout) is the caller's.
import {
  LEVELS,
  PROTOCOL_ERRORS,
  PROTOCOL_VERSION,
  REQUEST_TYPES,
  clusterConfigProblem,
  jsonTextError,
  levelAllows,
  lineColumn,
  okTypeOf,
  schemaError,
} from '../../spec/index.ts';
import type { ClusterConfig, ExternalAction, JoinConfig, Level, ProtocolRequest } from '../../spec/index.ts';
import type { OperatorUnderTest } from '../sut/sut.ts';
import { SutConfigError, type ClusterUnderTest, type InProcessSut } from '../sut/sut.ts';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter, type LineEvent } from './lines.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

type Session =
  | { readonly level: 'operator'; readonly operator: OperatorUnderTest }
  | { readonly level: 'cluster' | 'faults'; readonly cluster: ClusterUnderTest };

/** The protocol (spec/PROTOCOL.md) in front of an in-process system under test: request lines in, reply lines out. */
export interface ProtocolServer {
  /** Handles one request line (without its newline); returns the reply line (without newline). */
  handle(line: string): string;
  /** A line over the length cap: the reply that says so. */
  overflow(bytes: number, maxBytes: number): string;
  /** Ends the current session. */
  close(): void;
}

const requestTypes: ReadonlySet<string> = new Set(REQUEST_TYPES);

function errorLine(inReplyTo: number | null, code: number, text: string): string {
  return JSON.stringify({ in_reply_to: inReplyTo, type: 'error', code, text });
}

function idOf(value: unknown): number | null {
  if (typeof value !== 'object' || value === null || !('id' in value)) return null;
  const id = (value as { id: unknown }).id;
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : null;
}

/** A protocol server for `sut` (`streamjoin serve`). */
export function createProtocolServer(sut: InProcessSut): ProtocolServer {
  let session: Session | undefined;

  const endSession = (): void => {
    if (session?.level !== 'operator') session?.cluster.close();
    session = undefined;
  };

  function init(id: number, level: Level, config: JoinConfig | ClusterConfig, recover: boolean): string {
    endSession();
    if (!sut.levels.includes(level)) {
      return errorLine(id, PROTOCOL_ERRORS.not_supported, `level ${level} is not supported; supported: ${sut.levels.join(', ')}`);
    }
    try {
      if (level === 'operator') {
        if (!sut.operator) return errorLine(id, PROTOCOL_ERRORS.not_supported, 'level operator is not supported');
        session = { level, operator: sut.operator(config as JoinConfig) };
      } else {
        const cluster = config as ClusterConfig;
        const problem = clusterConfigProblem(cluster);
        if (problem) return errorLine(id, PROTOCOL_ERRORS.bad_config, problem);
        if (!sut.cluster) return errorLine(id, PROTOCOL_ERRORS.not_supported, `level ${level} is not supported`);
        session = { level, cluster: sut.cluster(cluster, level, recover ? { recover } : {}) };
      }
    } catch (e) {
      if (e instanceof SutConfigError) return errorLine(id, PROTOCOL_ERRORS.bad_config, e.message);
      throw e;
    }
    const levels = LEVELS.filter((l) => sut.levels.includes(l));
    return JSON.stringify({ in_reply_to: id, type: 'init_ok', protocol: PROTOCOL_VERSION, implementation: sut.implementation, levels });
  }

  function dispatch(request: ProtocolRequest): string {
    const id = request.id;
    if (request.type === 'init') return init(id, request.level, request.config, request.recover === true);
    if (!session) return errorLine(id, PROTOCOL_ERRORS.no_session, 'no session: send init first');
    if (!levelAllows(session.level, request)) {
      return errorLine(id, PROTOCOL_ERRORS.not_supported, `${request.type} is not part of level ${session.level}`);
    }
    if (session.level === 'operator') {
      if (request.type !== 'record') throw new Error('unreachable: levelAllows admits only record at level operator');
      const { outcome, changes } = session.operator.apply(request.record);
      return JSON.stringify({ in_reply_to: id, type: 'record_ok', outcome, changes, retained: session.operator.retained() });
    }
    if (request.type === 'inspect') return JSON.stringify({ in_reply_to: id, type: 'inspect_ok', observation: session.cluster.observe() });
    const { id: _id, ...action } = request;
    const reply = session.cluster.apply(action as ExternalAction);
    if ('error' in reply) return errorLine(id, reply.error.code, reply.error.text);
    return JSON.stringify({ in_reply_to: id, type: okTypeOf(request.type), events: reply.events });
  }

  return {
    handle(line: string): string {
      let value: unknown;
      try {
        value = JSON.parse(line) as unknown;
      } catch {
        // Our own words and the column, as for documents (SPEC §8): V8's message quotes the bytes.
        const e = jsonTextError(line) ?? { offset: 0, message: 'not valid JSON' };
        return errorLine(null, PROTOCOL_ERRORS.malformed_request, `not JSON: ${e.message} (column ${lineColumn(line, e.offset).column})`);
      }
      const id = idOf(value);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return errorLine(id, PROTOCOL_ERRORS.malformed_request, 'a request is a JSON object');
      }
      const type = (value as { type?: unknown }).type;
      if (typeof type === 'string' && !requestTypes.has(type)) {
        return errorLine(id, PROTOCOL_ERRORS.unknown_type, `unknown request type "${type}"`);
      }
      // PROTOCOL.md, Requests: an init of a protocol version this server does not speak is not_supported, not malformed.
      const version = (value as { protocol?: unknown }).protocol;
      if (type === 'init' && typeof version === 'number' && version !== PROTOCOL_VERSION) {
        return errorLine(
          id,
          PROTOCOL_ERRORS.not_supported,
          `protocol ${version} is not supported; this system speaks protocol ${PROTOCOL_VERSION}`,
        );
      }
      const bad = schemaError('protocol/request', value);
      if (bad) return errorLine(id, PROTOCOL_ERRORS.malformed_request, bad.text);
      try {
        return dispatch(value as ProtocolRequest);
      } catch (e) {
        return errorLine(id, PROTOCOL_ERRORS.internal_error, e instanceof Error ? e.message : String(e));
      }
    },
    overflow(bytes: number, maxBytes: number): string {
      return errorLine(null, PROTOCOL_ERRORS.malformed_request, `line of ${bytes}+ bytes is over the cap of ${maxBytes} bytes`);
    },
    close: endSession,
  };
}

/**
 * What `serveStream` reads: a readable byte stream (`process.stdin`, a
 * socket), as far as it uses one; structural, so that the declarations need
 * no Node types.
 */
export interface ByteInput {
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (e: Error) => void): unknown;
  off(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  pause(): unknown;
}

/**
 * Serves requests from `input` until it ends, or until `signal` aborts
 * (SIGINT, SIGTERM): each chunk's complete lines are answered in order, and
 * their replies go out in one write. Either way the session is closed
 * (its durable directory removed) before the promise resolves.
 */
export function serveStream(
  server: ProtocolServer,
  input: ByteInput,
  write: (text: string) => void,
  maxLineBytes: number = DEFAULT_MAX_LINE_BYTES,
  signal?: AbortSignalLike,
): Promise<void> {
  const splitter = new LineSplitter(maxLineBytes);
  let ended = false;
  const answer = (events: readonly LineEvent[]): void => {
    if (events.length === 0 || ended) return;
    let out = '';
    for (const e of events) {
      if ('overflow' in e) out += `${server.overflow(e.overflow, maxLineBytes)}\n`;
      else if (e.line.trim() !== '') out += `${server.handle(e.line)}\n`;
    }
    if (out !== '') write(out);
  };
  return new Promise((resolve, reject) => {
    const onData = (chunk: Uint8Array | string): void =>
      answer(splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
    const finish = (): void => {
      if (ended) return;
      ended = true;
      input.off('data', onData);
      signal?.removeEventListener('abort', onAbort);
      server.close();
      resolve();
    };
    const onAbort = (): void => {
      // Stop reading: what is not answered yet stays unanswered.
      input.pause();
      finish();
    };
    input.on('data', onData);
    input.on('end', () => {
      answer(splitter.finish());
      finish();
    });
    input.on('error', (e) => {
      if (ended) return;
      ended = true;
      server.close();
      reject(e);
    });
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
