// A system under test in another process, in any language, speaking
// protocol v2 (spec/PROTOCOL.md) over its stdin and stdout.
//
// - Requests of a trace are pipelined: all lines go out in one write and
//   replies are matched by `in_reply_to`.
// - Every message in both directions is schema-validated (ajv, compiled once).
// - A dead, hung or babbling process (no reply in time, bad JSON, a reply to
//   no outstanding request, a line over the cap, a reply off its schema)
//   makes every pending and later call reject with SutUnavailable, carrying
//   the reason and the last stderr lines; the process is killed.
// - The child runs in its own process group; `close()`, any fatal problem,
//   and the harness's own exit or SIGINT/SIGTERM kill the whole group.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { PROTOCOL_ERRORS, PROTOCOL_VERSION, okTypeOf, protocolErrorName, schemaError, schemaValidator } from '../../spec/index.ts';
import type {
  ClusterConfig,
  ClusterObservation,
  ErrorReply,
  EventsOk,
  ExternalAction,
  InitOk,
  InspectOk,
  JoinConfig,
  Level,
  LogRecord,
  OperatorRecordOk,
  ProtocolRequest,
} from '../../spec/index.ts';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter } from './lines.ts';
import {
  SutUnavailable,
  type ActionReply,
  type ClusterSession,
  type ClusterStepReply,
  type OperatorSession,
  type RecordReply,
  type SutInfo,
  type SystemUnderTest,
} from './sut.ts';

export interface ProcessOptions {
  /** A process with requests outstanding that sends no reply for this long is hung (default 10 s). */
  readonly timeoutMs?: number;
  /** The same, for the first reply after start, which includes the process's start-up (default 30 s). */
  readonly startupTimeoutMs?: number;
  /** Cap on a reply line in bytes (default 1 MiB, PROTOCOL.md). */
  readonly maxLineBytes?: number;
  /** How many of the last stderr lines to keep for reports (default 20). */
  readonly stderrLines?: number;
  /** Working directory of the process (default: the harness's). */
  readonly cwd?: string;
  /** Called with each stderr line as it arrives (for progress or logs). */
  readonly onStderr?: (line: string) => void;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;

type Reply = InitOk | OperatorRecordOk | EventsOk | InspectOk | ErrorReply;

/** Which schema a reply to this request must match (PROTOCOL.md, "Requests"). */
function replyDef(request: ProtocolRequest, level: Level | undefined): string {
  if (request.type === 'init') return 'InitOk';
  if (request.type === 'inspect') return 'InspectOk';
  if (request.type === 'record' && level === 'operator') return 'OperatorRecordOk';
  return 'EventsOk';
}

interface Pending {
  readonly request: ProtocolRequest;
  readonly def: string;
  readonly resolve: (reply: Reply) => void;
  readonly reject: (e: SutUnavailable) => void;
}

// Every live child, so that the harness exiting (normally or on SIGINT or
// SIGTERM) takes its process groups with it.
const liveGroups = new Set<number>();
let hooksInstalled = false;

function killGroup(pgid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

/**
 * How many processes of a group are still alive (neither gone nor zombies).
 * Linux only, from /proc; elsewhere 0 (the SIGKILL is trusted).
 */
function livingMembers(pgid: number): number {
  if (process.platform !== 'linux') return 0;
  let alive = 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // it ended while we looked
    }
    // "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') alive++;
  }
  return alive;
}

/** Waits (bounded) until every process of a killed group is gone: SIGKILL is delivered asynchronously. */
async function groupGone(pgid: number, boundMs = 2000): Promise<void> {
  const until = Date.now() + boundMs;
  while (livingMembers(pgid) > 0 && Date.now() < until) {
    killGroup(pgid);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function onSignal(signal: NodeJS.Signals): void {
  for (const pgid of liveGroups) killGroup(pgid);
  liveGroups.clear();
  removeHooks();
  // Re-raise, so the harness ends as it would have without us.
  process.kill(process.pid, signal);
}

function onExit(): void {
  for (const pgid of liveGroups) killGroup(pgid);
  liveGroups.clear();
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', onExit);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}

function removeHooks(): void {
  if (!hooksInstalled) return;
  hooksInstalled = false;
  process.off('exit', onExit);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}

const validators = new Map<string, (value: unknown) => string | undefined>();

/** The validator of one reply definition, compiled once; returns the first error, described. */
function validatorOf(def: string): (value: unknown) => string | undefined {
  let v = validators.get(def);
  if (!v) {
    const name = `protocol/reply#/$defs/${def}`;
    schemaValidator(name);
    v = (value) => {
      const err = schemaError(name, value);
      return err ? err.text : undefined;
    };
    validators.set(def, v);
  }
  return v;
}

const clip = (s: string, n = 200): string => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

/**
 * A system under test run as `command` (through the shell, in its own
 * process group). Started on first use.
 */
export function spawnSystem(
  command: string,
  options: ProcessOptions = {},
): SystemUnderTest & {
  /** The process group id while it runs (for tests that check nothing outlives us). */
  readonly pgid: number | undefined;
  /** The last stderr lines. */
  stderrTail(): string[];
} {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const startupTimeoutMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const keepLines = options.stderrLines ?? 20;

  let child: ChildProcessWithoutNullStreams | undefined;
  let pgid: number | undefined;
  let exited: Promise<void> = Promise.resolve();
  let broken: SutUnavailable | undefined;
  let closing = false;
  let nextId = 1;
  let anyReply = false;
  let level: Level | undefined;
  let info: SutInfo | undefined;
  let session = 0;
  const pending = new Map<number, Pending>();
  const stderr: string[] = [];
  let stderrPartial = '';
  let timer: NodeJS.Timeout | undefined;

  const tail = (): string[] => (stderrPartial !== '' ? [...stderr, stderrPartial] : [...stderr]).slice(-keepLines);

  let failing: Promise<SutUnavailable> | undefined;

  /**
   * The system cannot be judged any more: stop reading it, kill its group,
   * and once its stderr has ended (bounded wait) reject everything pending
   * with the reason and the complete stderr tail.
   */
  function fail(reason: string): void {
    if (failing) return;
    if (timer) clearTimeout(timer);
    stop();
    const settled = Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, 1000).unref?.())]);
    failing = settled.then(() => {
      broken = new SutUnavailable(reason, tail());
      const waiting = [...pending.values()];
      pending.clear();
      for (const p of waiting) p.reject(broken);
      return broken;
    });
  }

  function stop(): void {
    if (pgid !== undefined) {
      killGroup(pgid);
      liveGroups.delete(pgid);
      if (liveGroups.size === 0) removeHooks();
    }
  }

  function armTimer(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0 || failing) return;
    const limit = anyReply ? timeoutMs : startupTimeoutMs;
    timer = setTimeout(() => {
      const oldest = pending.values().next().value;
      const what = oldest ? `request ${oldest.request.id} (${oldest.request.type})` : 'a request';
      fail(`hung: no reply to ${what} within ${limit} ms`);
    }, limit);
    timer.unref?.();
  }

  function onLine(line: string): void {
    if (failing) return;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      fail(`babbling: a stdout line is not JSON: ${clip(JSON.stringify(line))}`);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !('in_reply_to' in value)) {
      fail(`babbling: an unsolicited stdout line (no in_reply_to): ${clip(line)}`);
      return;
    }
    const inReplyTo = (value as { in_reply_to: unknown }).in_reply_to;
    const p = typeof inReplyTo === 'number' ? pending.get(inReplyTo) : undefined;
    if (!p) {
      fail(`babbling: a reply with in_reply_to ${JSON.stringify(inReplyTo)} answers no outstanding request: ${clip(line)}`);
      return;
    }
    const type = (value as { type?: unknown }).type;
    const isError = type === 'error';
    if (!isError && type !== okTypeOf(p.request.type)) {
      fail(
        `protocol: the reply to request ${p.request.id} (${p.request.type}) has type ${JSON.stringify(type)}, not "${okTypeOf(p.request.type)}" or "error"`,
      );
      return;
    }
    const problem = validatorOf(isError ? 'ErrorReply' : p.def)(value);
    if (problem) {
      fail(`protocol: the reply to request ${p.request.id} (${p.request.type}) does not match its schema: ${problem}: ${clip(line)}`);
      return;
    }
    pending.delete(inReplyTo as number);
    anyReply = true;
    armTimer();
    p.resolve(value as Reply);
  }

  function start(): void {
    if (child || failing) return;
    const c = spawn(command, { shell: true, detached: true, stdio: ['pipe', 'pipe', 'pipe'], cwd: options.cwd });
    child = c;
    pgid = c.pid;
    if (pgid !== undefined) {
      liveGroups.add(pgid);
      installHooks();
    }
    const splitter = new LineSplitter(maxLineBytes);
    c.stdout.on('data', (chunk: Buffer) => {
      for (const e of splitter.push(chunk)) {
        if (failing) return;
        if ('overflow' in e) fail(`babbling: a stdout line of ${e.overflow}+ bytes is over the cap of ${maxLineBytes} bytes`);
        else onLine(e.line);
      }
    });
    c.stderr.setEncoding('utf8');
    c.stderr.on('data', (text: string) => {
      const parts = (stderrPartial + text).split('\n');
      stderrPartial = (parts.pop() ?? '').slice(0, 2000);
      for (const l of parts) {
        options.onStderr?.(l);
        stderr.push(clip(l, 500));
        if (stderr.length > keepLines) stderr.shift();
      }
    });
    // Writing to a process that has gone away raises EPIPE here, not a crash.
    c.stdin.on('error', () => {});
    exited = new Promise((resolve) => {
      c.on('close', (code, signal) => {
        if (!closing) {
          const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
          fail(`dead: the process ${how}${pending.size > 0 ? ' with requests outstanding' : ''}`);
        }
        stop();
        resolve();
      });
    });
    c.on('error', (e) => fail(`cannot run ${JSON.stringify(command)}: ${e.message}`));
  }

  /** Sends the requests in one write; resolves with their replies in request order. */
  function send(requests: readonly ProtocolRequest[]): Promise<Reply[]> {
    let text = '';
    for (const r of requests) {
      // Both directions are validated: a request off its schema is the harness's bug.
      const bad = schemaError('protocol/request', r);
      if (bad) throw new Error(`harness built a request off its schema: ${bad.text}: ${JSON.stringify(r)}`);
      text += `${JSON.stringify(r)}\n`;
    }
    start();
    if (failing) return failing.then((e) => Promise.reject(e));
    const replies = requests.map(
      (request) =>
        new Promise<Reply>((resolve, reject) => {
          pending.set(request.id, { request, def: replyDef(request, request.type === 'init' ? request.level : level), resolve, reject });
        }),
    );
    (child as ChildProcessWithoutNullStreams).stdin.write(text);
    armTimer();
    return Promise.all(replies);
  }

  const id = (): number => nextId++;

  async function init(lvl: Level, config: JoinConfig | ClusterConfig): Promise<InitOk | ErrorReply> {
    const [reply] = await send([{ id: id(), type: 'init', protocol: PROTOCOL_VERSION, level: lvl, config }]);
    if (reply?.type === 'init_ok') {
      if (!reply.levels.includes(lvl)) {
        fail(`protocol: init_ok for level ${lvl} lists levels ${reply.levels.join(', ')}, without ${lvl}`);
        throw await (failing as Promise<SutUnavailable>);
      }
      info = { implementation: reply.implementation, levels: reply.levels };
      return reply;
    }
    return reply as ErrorReply;
  }

  /**
   * Opens a session lazily: its `init` goes out in the same write as the
   * session's first requests, so a trace costs one round trip. Returns the
   * function that exchanges a batch of requests within the session.
   */
  function openSession(lvl: Level, config: JoinConfig | ClusterConfig): (requests: readonly ProtocolRequest[]) => Promise<Reply[]> {
    const mine = ++session;
    let head: ProtocolRequest | undefined = { id: id(), type: 'init', protocol: PROTOCOL_VERSION, level: lvl, config };
    return async (requests) => {
      if (failing) throw await failing;
      if (mine !== session) throw new Error('this session was ended by a later init');
      const init = head;
      head = undefined;
      if (!init) return send(requests);
      level = lvl;
      const [reply, ...rest] = await send([init, ...requests]);
      if (reply?.type === 'error') {
        // The requests after a refused init were answered with errors (no session); they mean nothing.
        throw new SutUnavailable(`init at level ${lvl} refused with ${protocolErrorName(reply.code)}: ${reply.text}`, tail());
      }
      if (reply?.type !== 'init_ok' || !reply.levels.includes(lvl)) {
        fail(`protocol: init_ok for level ${lvl} does not list ${lvl}`);
        throw await (failing as unknown as Promise<SutUnavailable>);
      }
      info ??= { implementation: reply.implementation, levels: reply.levels };
      return rest;
    };
  }

  const toAction = (r: Reply): ActionReply =>
    r.type === 'error' ? { error: { code: r.code, text: r.text } } : { events: (r as EventsOk).events };

  return {
    label: command,
    get pgid() {
      return pgid;
    },
    stderrTail: tail,

    async info(): Promise<SutInfo> {
      if (info) return info;
      // Probe: the first init that succeeds tells every level.
      const probes: [Level, JoinConfig | ClusterConfig][] = [
        ['operator', { allowedLateness: 0, maxIntervalLength: 0 }],
        ['faults', { join: { allowedLateness: 0, maxIntervalLength: 0 }, workers: ['w1'], keys: [{ key: 'k1', owner: 'w1' }] }],
        ['cluster', { join: { allowedLateness: 0, maxIntervalLength: 0 }, workers: ['w1'], keys: [{ key: 'k1', owner: 'w1' }] }],
      ];
      const refusals: string[] = [];
      for (const [lvl, config] of probes) {
        const reply = await init(lvl, config);
        if (reply.type === 'init_ok') return { implementation: reply.implementation, levels: reply.levels };
        refusals.push(`${lvl}: ${protocolErrorName(reply.code)} (${reply.text})`);
        if (reply.code !== PROTOCOL_ERRORS.not_supported) break;
      }
      throw new SutUnavailable(`init refused at every level: ${refusals.join('; ')}`, tail());
    },

    async openOperator(config: JoinConfig): Promise<OperatorSession> {
      if (failing) throw await failing;
      const exchange = openSession('operator', config);
      return {
        async records(records: readonly LogRecord[]): Promise<RecordReply[]> {
          const replies = await exchange(records.map((record) => ({ id: id(), type: 'record', record })));
          return replies.map((r) =>
            r.type === 'error'
              ? { error: { code: r.code, text: r.text } }
              : (({ outcome, changes, retained }) => ({ outcome, changes, retained }))(r as OperatorRecordOk),
          );
        },
      };
    },

    async openCluster(config: ClusterConfig, lvl: Level): Promise<ClusterSession> {
      if (failing) throw await failing;
      const exchange = openSession(lvl, config);
      const observeReply = (r: Reply | undefined): ClusterObservation | string => {
        if (r?.type === 'inspect_ok') return r.observation;
        return `protocol: inspect refused (${r?.type === 'error' ? `${protocolErrorName(r.code)}: ${r.text}` : 'no reply'}); inspect never fails at levels cluster and faults`;
      };
      const observation = async (r: Reply | undefined): Promise<ClusterObservation> => {
        const o = observeReply(r);
        if (typeof o !== 'string') return o;
        fail(o);
        throw await (failing as Promise<SutUnavailable>);
      };
      return {
        async apply(action: ExternalAction): Promise<ActionReply> {
          const [r] = await exchange([{ id: id(), ...action }]);
          return toAction(r as Reply);
        },
        async observe(): Promise<ClusterObservation> {
          const [r] = await exchange([{ id: id(), type: 'inspect' }]);
          return observation(r);
        },
        async steps(actions: readonly ExternalAction[]): Promise<ClusterStepReply[]> {
          const requests: ProtocolRequest[] = [];
          for (const action of actions) requests.push({ id: id(), ...action }, { id: id(), type: 'inspect' });
          const replies = await exchange(requests);
          const out: ClusterStepReply[] = [];
          for (let i = 0; i < actions.length; i++) {
            out.push({ reply: toAction(replies[2 * i] as Reply), observation: await observation(replies[2 * i + 1]) });
          }
          return out;
        },
      };
    },

    /** Ends the process: stdin closed, then the whole group killed; resolves once the group is gone. */
    async close(): Promise<void> {
      if (!child) return;
      closing = true;
      if (timer) clearTimeout(timer);
      // Ask politely (end of input), then take the whole group down.
      child.stdin.end();
      const grace = new Promise<void>((resolve) => setTimeout(resolve, 200).unref?.());
      await Promise.race([exited, grace]);
      stop();
      // SIGKILL cannot be refused; the bound only guards against a process that left its group.
      await Promise.race([exited, new Promise<void>((resolve) => setTimeout(resolve, 5000).unref?.())]);
      if (pgid !== undefined) await groupGone(pgid);
      if (!failing) failing = Promise.resolve(new SutUnavailable('closed: the harness ended this system'));
    },
  };
}
