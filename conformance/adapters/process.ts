// A system under test in another process, in any language, speaking
// protocol v2 (spec/PROTOCOL.md) over stdin and stdout: the protocol client.
// Its processes' life is processGroup.ts's; what a reply must be, protocolReplies.ts's.
// - Requests of a trace are pipelined: all lines go out in one write and
//   replies are matched by `in_reply_to`.
// - Every message in both directions is schema-validated (ajv, compiled once).
// - A dead, hung or babbling process (it exits, no reply in time, bad JSON, a
//   reply to no outstanding request, a line over the cap, a reply off its
//   schema) makes every pending and later call reject with SutUnavailable,
//   carrying the reason, the last stderr lines and the replies in before
//   (`answered`, judged first); its processes are stopped. So does an abort.
//   A refused inspect ends the trace (unknown unless a reply before it is
//   wrong), not the process.
// - Its stderr is kept per session (one trace), bounded, for explanations.
import {
  LEVELS,
  PROTOCOL_ERRORS,
  PROTOCOL_VERSION,
  abortReason,
  okTypeOf,
  printable,
  protocolErrorName,
  schemaError,
} from '../../spec/index.ts';
import type {
  ClusterConfig,
  ClusterObservation,
  ErrorReply,
  ExternalAction,
  InitOk,
  JoinConfig,
  Level,
  LogRecord,
  OperatorRecordOk,
  ProtocolRequest,
} from '../../spec/index.ts';
import { DEFAULT_MAX_LINE_BYTES, LineSplitter } from './lines.ts';
import {
  RepliesCut,
  aboveLevel,
  aboveLevelProblem,
  clusterStepReplies,
  observeReply,
  toAction,
  protocolOneReason,
  quote,
  replyDef,
  validatorOf,
  type Reply,
} from './protocolReplies.ts';
import { spawnInGroup, within, type GroupProcess } from './processGroup.ts';
import { DIED_BEFORE_INIT } from '../sut/divergence.ts';
import {
  isDeath,
  SutUnavailable,
  type ActionReply,
  type AnsweredBefore,
  type ClusterOpenOptions,
  type ClusterSession,
  type ClusterStepReply,
  type OperatorSession,
  type RecordReply,
  type RefusedConfig,
  type SutInfo,
  type SystemUnderTest,
} from '../sut/sut.ts';
import type { AbortSignalLike } from '../../spec/index.ts';

/** Options of a system under test run as a process speaking the protocol: timeouts, line cap, stderr kept, working directory and environment. */
export interface ProcessOptions {
  /** A process with requests outstanding that sends no reply for this long is hung (default 10 s). */
  readonly timeoutMs?: number;
  /** The same, for the first reply after start, which includes the process's start-up (default 30 s). */
  readonly startupTimeoutMs?: number;
  /** Cap on a reply line in bytes (default 1 MiB, PROTOCOL.md). */
  readonly maxLineBytes?: number;
  /** How many of the last stderr lines to keep for reports, of the whole run and of each session (default 20). */
  readonly stderrLines?: number;
  /** Working directory of the process (default: the harness's). */
  readonly cwd?: string;
  /** Environment of the process (default: the harness's). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Called with each stderr line as it arrives (for progress or logs), unescaped. */
  readonly onStderr?: (line: string) => void;
  /** Aborting it stops the system: every pending and later call rejects (`interrupted: ...`). */
  readonly signal?: AbortSignalLike;
  /**
   * The levels the run will ask for (`--level`): the handshake (`info`) sends
   * `init` at these only. Default: every level, the weakest first.
   */
  readonly levels?: readonly Level[];
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;

/** The longest stderr line kept, in characters (the rest is elided). */
const STDERR_LINE_CHARS = 500;

/** What a hung system most often is (PROTOCOL.md, "Transport"): said in every `hung` reason. */
export const BUFFERING_HINT =
  "a system whose stdout is block-buffered looks exactly like this (C's stdio, Python without -u or flush=True, Java's PrintStream to a pipe): flush stdout after every reply";

interface Pending {
  readonly request: ProtocolRequest;
  readonly def: string;
  readonly resolve: (reply: Reply) => void;
  readonly reject: (e: SutUnavailable) => void;
  /** The init sent before it in the same write, if any. */
  readonly afterInit?: number;
  /**
   * Its init was refused: the system answers it in whatever session it
   * still has (an error reply changes nothing, PROTOCOL.md), or none, so its
   * reply means nothing and is not held to the session's level.
   */
  meaningless?: boolean;
}

/** The last `keep` lines written to stderr while something ran, and how many went before them. */
export class StderrTail {
  private readonly keep: number;
  private readonly kept: string[] = [];
  private dropped = 0;
  constructor(keep: number) {
    this.keep = keep;
  }
  push(line: string): void {
    this.kept.push(line);
    if (this.kept.length > this.keep) {
      this.kept.shift();
      this.dropped++;
    }
  }
  /** The lines kept, oldest first (each printable and bounded). */
  lines(): string[] {
    return [...this.kept];
  }
  /** Lines written before the ones kept. */
  get earlier(): number {
    return this.dropped;
  }
}

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
  /** The value of SUT_MARKER_VARIABLE its processes carry (processGroup.ts). */
  readonly marker: string | undefined;
  /** The last stderr lines. */
  stderrTail(): string[];
  /**
   * Kill mode: SIGKILL to its whole process group now (processGroup.ts
   * `kill`); every pending and later call rejects with SutUnavailable
   * (`killed: ...`). Resolves once nothing of it is alive.
   */
  kill(): Promise<void>;
  /** Kill mode: SIGSTOP to its process group, so that it reads no further request until killed. */
  freeze(): void;
} {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const startupTimeoutMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const keepLines = options.stderrLines ?? 20;

  let proc: GroupProcess | undefined;
  let closing = false;
  let nextId = 1;
  let anyReply = false;
  let level: Level | undefined;
  let info: SutInfo | undefined;
  let session = 0;
  /** The levels whose refusal of a request above them has been checked (`aboveLevel`). */
  const probedLevels = new Set<Level>();
  const pending = new Map<number, Pending>();
  const stderr = new StderrTail(keepLines);
  // The session being run gets the stderr lines written from its first request until the next session's.
  let sessionStderr: StderrTail | undefined;
  let stderrPartial = '';
  let stderrEnded: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const tail = (): string[] =>
    [...stderr.lines(), ...(stderrPartial !== '' ? [printable(stderrPartial, STDERR_LINE_CHARS)] : [])].slice(-keepLines);

  let failing: Promise<SutUnavailable> | undefined;
  /** The process died on its own (exited, or closed its stdout): `revive` may start the command again. */
  let died = false;
  /** The stopping of the failed process's group (fail): `revive` waits for all of it, past failing's bound. */
  let stopping: Promise<unknown> = Promise.resolve();

  /**
   * The system cannot be judged any more: stop reading it, stop its
   * processes, and once its stderr has ended (bounded wait) reject
   * everything pending with the reason and the complete stderr tail.
   */
  function fail(reason: string): void {
    if (failing) return;
    if (timer) clearTimeout(timer);
    // Closing stdin is no use to a system that is failing: SIGTERM at once.
    const stopped = proc ? proc.stop({ closeGraceMs: 0 }) : Promise.resolve();
    stopping = stopped;
    failing = within(Promise.all([stopped, stderrEnded]), 1000).then(() => {
      const broken = new SutUnavailable(reason, tail());
      const waiting = [...pending.values()];
      pending.clear();
      for (const p of waiting) p.reject(broken);
      return broken;
    });
  }

  function armTimer(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0 || failing) return;
    const limit = anyReply ? timeoutMs : startupTimeoutMs;
    timer = setTimeout(() => {
      const oldest = pending.values().next().value;
      const what = oldest ? `request ${oldest.request.id} (${oldest.request.type})` : 'a request';
      fail(`hung: no reply to ${what} within ${limit} ms${anyReply ? '' : ' of starting'}; ${BUFFERING_HINT}`);
    }, limit);
  }

  function onLine(line: string): void {
    if (failing) return;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      fail(`babbling: a stdout line is not JSON: ${quote(line)}`);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !('in_reply_to' in value)) {
      fail(`babbling: an unsolicited stdout line (no in_reply_to): ${quote(line)}`);
      return;
    }
    const inReplyTo = (value as { in_reply_to: unknown }).in_reply_to;
    const p = typeof inReplyTo === 'number' ? pending.get(inReplyTo) : undefined;
    if (!p) {
      fail(
        `babbling: a reply with in_reply_to ${quote(JSON.stringify(inReplyTo) ?? 'undefined')} answers no outstanding request: ${quote(line)}`,
      );
      return;
    }
    if (p.meaningless) {
      pending.delete(inReplyTo as number);
      anyReply = true;
      armTimer();
      p.resolve(value as Reply);
      return;
    }
    const speaksV1 = protocolOneReason(p.request, value);
    if (speaksV1) {
      fail(speaksV1);
      return;
    }
    const type = (value as { type?: unknown }).type;
    const isError = type === 'error';
    if (!isError && type !== okTypeOf(p.request.type)) {
      fail(
        `protocol: the reply to request ${p.request.id} (${p.request.type}) has type ${quote(JSON.stringify(type) ?? 'undefined')}, not "${okTypeOf(p.request.type)}" or "error"`,
      );
      return;
    }
    const problem = validatorOf(isError ? 'ErrorReply' : p.def)(value);
    if (problem) {
      fail(
        `protocol: the reply to request ${p.request.id} (${p.request.type}) does not match its schema: ${quote(problem)}: ${quote(line)}`,
      );
      return;
    }
    pending.delete(inReplyTo as number);
    if (isError && p.request.type === 'init') for (const q of pending.values()) if (q.afterInit === p.request.id) q.meaningless = true;
    anyReply = true;
    armTimer();
    p.resolve(value as Reply);
  }

  function onStderrLine(raw: string): void {
    options.onStderr?.(raw);
    const line = printable(raw, STDERR_LINE_CHARS);
    stderr.push(line);
    sessionStderr?.push(line);
  }

  function start(): void {
    if (proc || failing) return;
    if (options.signal?.aborted) {
      fail(`interrupted: ${abortReason(options.signal)}`);
      return;
    }
    const p = spawnInGroup(command, {
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      ...(options.env ? { env: options.env } : {}),
    });
    proc = p;
    const c = p.child;
    const splitter = new LineSplitter(maxLineBytes);
    const stdoutEnded = new Promise<void>((resolve) => {
      c.stdout.once('end', resolve);
      c.stdout.once('close', resolve);
    });
    // A system that closes its stdout can never reply again: that is the verdict, at once. (Exiting closes
    // stdout too; that is `dead` with the exit status, below: a moment's wait for the exit tells them apart.)
    // Every handler below is the process `p`'s: once `revive` replaced it, what it still does is ignored.
    void stdoutEnded.then(async () => {
      if (proc !== p || closing || failing || (await within(p.exited, 100)) || proc !== p || closing || failing) return;
      died = true;
      fail(
        `dead: it closed its stdout while it still runs${pending.size > 0 ? ', with requests outstanding' : ''}: it can send no reply any more`,
      );
    });
    c.stdout.on('data', (chunk: Buffer) => {
      if (proc !== p) return;
      for (const e of splitter.push(chunk)) {
        if (failing) return;
        if ('overflow' in e) fail(`babbling: a stdout line of ${e.overflow}+ bytes is over the cap of ${maxLineBytes} bytes`);
        else onLine(e.line);
      }
    });
    c.stderr.setEncoding('utf8');
    stderrEnded = new Promise((resolve) => {
      c.stderr.once('end', resolve);
      c.stderr.once('close', resolve);
    });
    c.stderr.on('data', (text: string) => {
      if (proc !== p) return;
      const parts = (stderrPartial + text).split('\n');
      // An endless line without newline is kept to a bound.
      stderrPartial = (parts.pop() ?? '').slice(0, 4 * STDERR_LINE_CHARS);
      for (const l of parts) onStderrLine(l);
    });
    c.stderr.once('end', () => {
      if (proc !== p) return;
      if (stderrPartial !== '') onStderrLine(stderrPartial);
      stderrPartial = '';
    });
    c.once('error', (e) => proc === p && fail(`cannot run ${quote(JSON.stringify(command))}: ${quote(e.message)}`));
    // Dead is the process's exit, whoever still holds its stdout (a grandchild
    // may): replies it wrote before exiting are read first, for a bounded while.
    void p.exited.then(async ({ code, signal }) => {
      if (proc !== p || closing || failing) return;
      await within(stdoutEnded, 500);
      if (proc !== p || closing || failing) return;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      died = true;
      fail(`dead: the process ${how}${pending.size > 0 ? ' with requests outstanding' : ''}`);
    });
  }

  const onAbort = (): void => fail(`interrupted: ${abortReason(options.signal)}`);
  options.signal?.addEventListener('abort', onAbort, { once: true });

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
    let initId: number | undefined;
    const replies = requests.map(
      (request) =>
        new Promise<Reply>((resolve, reject) => {
          const def = replyDef(request, request.type === 'init' ? request.level : level);
          pending.set(request.id, { request, def, resolve, reject, ...(initId === undefined ? {} : { afterInit: initId }) });
          if (request.type === 'init') initId = request.id;
        }),
    );
    (proc as GroupProcess).child.stdin.write(text);
    armTimer();
    // Once the system fails every reply still pending rejects at once; those in before are kept (RepliesCut).
    return Promise.allSettled(replies).then((settled) => {
      const received: Reply[] = [];
      for (const s of settled) {
        if (s.status === 'rejected') throw s.reason instanceof SutUnavailable ? new RepliesCut(s.reason, received) : s.reason;
        received.push(s.value);
      }
      return received;
    });
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
   * function that exchanges a batch of requests within the session, and the
   * session's stderr (from its first write until the next session's).
   */
  function openSession(
    lvl: Level,
    config: JoinConfig | ClusterConfig,
    recover = false,
  ): { exchange: (requests: readonly ProtocolRequest[]) => Promise<Reply[]>; stderr: StderrTail } {
    const mine = ++session;
    const own = new StderrTail(keepLines);
    let head: ProtocolRequest | undefined = {
      id: id(),
      type: 'init',
      protocol: PROTOCOL_VERSION,
      level: lvl,
      ...(recover ? { recover: true } : {}),
      config,
    };
    const probe = probedLevels.has(lvl) ? undefined : aboveLevel(lvl, config, id());
    probedLevels.add(lvl);
    const exchange = async (requests: readonly ProtocolRequest[]): Promise<Reply[]> => {
      if (failing) throw await failing;
      if (mine !== session) throw new Error('this session was ended by a later init');
      const init = head;
      head = undefined;
      if (!init) return send(requests);
      // Let stderr the last session's replies trailed be read first: it is written before them, so one turn of the event loop suffices.
      await new Promise((resolve) => setImmediate(resolve));
      if (failing) throw await failing;
      level = lvl;
      sessionStderr = own;
      const skip = 1 + (probe ? 1 : 0);
      const nothing: AnsweredBefore = lvl === 'operator' ? { level: 'operator', records: [] } : { level: 'cluster', steps: [] };
      const validConfig = `(a valid config, J0 and C1: ${quote(JSON.stringify(config))})`;
      // Every config the harness sends is valid (J0, C1): a session's init refused (not a re-attach's, kill mode) is its
      // trace's divergence, before its first step; the reason quotes the config, so that the refusal can be reproduced.
      const refused = (r: ErrorReply): SutUnavailable => {
        const reason = `init at level ${lvl} refused with ${protocolErrorName(r.code)}: ${quote(r.text)} ${validConfig}`;
        if (recover) return new SutUnavailable(reason, tail());
        // The request above the level sent after it was answered outside the session: the next session at the level sends it again.
        if (probe) probedLevels.delete(lvl);
        return new SutUnavailable(reason, tail(), nothing, { code: r.code, text: r.text });
      };
      const [reply, ...more] = await send([init, ...(probe ? [probe] : []), ...requests]).catch((e: unknown) => {
        if (!(e instanceof RepliesCut)) throw e;
        const first = e.received[0];
        // Cut after the session began: the session's own replies are what it answered.
        if (e.received.length >= skip && first?.type === 'init_ok' && (!probe || !aboveLevelProblem(probe, lvl, e.received[1])))
          throw new RepliesCut(e, e.received.slice(skip));
        // Cut before the session began: its init refused, then the cut; or dead before its init was answered, which
        // lockstep runs once more (lockstep/deaths.ts: a death that comes back there is the trace's first step's).
        if (first?.type === 'error') throw refused(first);
        if (first === undefined && !recover && isDeath(e))
          throw new SutUnavailable(`${e.reason}, ${DIED_BEFORE_INIT} ${validConfig}`, e.stderrTail, nothing);
        throw new SutUnavailable(e.reason, e.stderrTail);
      });
      // The requests after a refused init were answered in whatever session the system still has, or none; they mean nothing.
      if (reply?.type === 'error') throw refused(reply);
      if (reply?.type !== 'init_ok' || !reply.levels.includes(lvl)) {
        fail(`protocol: init_ok for level ${lvl} does not list ${lvl}`);
        throw await (failing as unknown as Promise<SutUnavailable>);
      }
      info ??= { implementation: reply.implementation, levels: reply.levels };
      if (!probe) return more;
      const [refusal, ...rest] = more;
      const wrong = aboveLevelProblem(probe, lvl, refusal);
      if (wrong) {
        fail(wrong);
        throw await (failing as unknown as Promise<SutUnavailable>);
      }
      return rest;
    };
    return { exchange, stderr: own };
  }

  /** Starts the command again after a death (SystemUnderTest.revive). */
  async function revive(): Promise<boolean> {
    if (!failing || !died || closing || options.signal?.aborted) return false;
    // Every process of the dead one is stopped and every request it held rejected before the next starts.
    await failing;
    // (Bounded: a process that outlives SIGKILL is not waited for forever.)
    await within(stopping, 10_000);
    if (closing || options.signal?.aborted) return false;
    proc = undefined;
    failing = undefined;
    died = false;
    anyReply = false;
    level = undefined;
    sessionStderr = undefined;
    stderrPartial = '';
    stderrEnded = Promise.resolve();
    return true;
  }

  return {
    label: command,
    get pgid() {
      return proc?.pgid;
    },
    get marker() {
      return proc?.marker;
    },
    stderrTail: tail,

    async info(): Promise<SutInfo> {
      if (info) return info;
      // Probe: the first init that succeeds tells every level. Only at the levels the run asks for (--level).
      const cluster: ClusterConfig = {
        join: { allowedLateness: 0, maxIntervalLength: 0 },
        workers: ['w1'],
        keys: [{ key: 'k1', owner: 'w1' }],
      };
      const wanted = options.levels ?? LEVELS;
      const probes = (
        [
          ['operator', { allowedLateness: 0, maxIntervalLength: 0 }],
          ['faults', cluster],
          ['cluster', cluster],
        ] as [Level, JoinConfig | ClusterConfig][]
      ).filter(([lvl]) => wanted.includes(lvl));
      const refusals: { level: Level; code: number; text: string }[] = [];
      // The first config is the smallest J0 and C1 allow (L = D = 0, one worker). Refused (or the process died on it, and
      // starts afresh), an ordinary one at the same level tells the levels; the refusal is then a finding of its own
      // (SutInfo.refusedConfig), judged as a trace, not a system that cannot be judged.
      const ordinaryAt = async (lvl: Level, config: JoinConfig | ClusterConfig, why: Omit<RefusedConfig, 'level' | 'config'>) => {
        const ordinary: JoinConfig | ClusterConfig =
          lvl === 'operator'
            ? { allowedLateness: 1, maxIntervalLength: 2 }
            : { join: { allowedLateness: 1, maxIntervalLength: 2 }, workers: ['w1', 'w2'], keys: [{ key: 'k1', owner: 'w1' }] };
        const again = await init(lvl, ordinary);
        if (again.type !== 'init_ok') return undefined;
        info = { implementation: again.implementation, levels: again.levels, refusedConfig: { level: lvl, config, ...why } };
        return info;
      };
      for (const [lvl, config] of probes) {
        const reply = await init(lvl, config).catch(async (e: unknown) => {
          // Dead on the first config: the ordinary one in a fresh process (a death on that one is the verdict unknown).
          if (!(e instanceof SutUnavailable) || !isDeath(e) || refusals.length > 0 || !(await revive())) throw e;
          return e;
        });
        if (reply instanceof SutUnavailable) {
          const known = await ordinaryAt(lvl, config, { text: `${reply.reason}, ${DIED_BEFORE_INIT}` });
          if (known) return known;
          throw reply;
        }
        if (reply.type === 'init_ok') return { implementation: reply.implementation, levels: reply.levels };
        refusals.push({ level: lvl, code: reply.code, text: reply.text });
        if (reply.code !== PROTOCOL_ERRORS.not_supported) {
          const known = await ordinaryAt(lvl, config, { code: reply.code, text: reply.text });
          if (known) return known;
          break;
        }
      }
      if (refusals.every((r) => r.code === PROTOCOL_ERRORS.not_supported)) {
        // Protocol 1 numbered malformed_request 10: a system of protocol 1 refuses a protocol-2 init with it at every
        // level. A request before any session tells them apart: protocol 2 answers it no_session (1002), protocol 1
        // with its own code (15), which fails this system there (protocolOneReason).
        await send([{ id: id(), type: 'record', record: { kind: 'watermark', side: 'L', wm: 0 } }]);
      }
      const where = probes.length === LEVELS.length ? 'at every level' : `at level ${probes.map(([l]) => l).join(', ')}`;
      const why = refusals.map((r) => `${r.level}: ${protocolErrorName(r.code)} (${quote(r.text)})`).join('; ');
      // Refused with another code than not_supported: the handshake's config is the smallest J0 and C1 allow, and a system takes every one.
      const valid = refusals.some((r) => r.code !== PROTOCOL_ERRORS.not_supported)
        ? ` (the handshake's configs are valid: L = 0 and D = 0, which J0 allows, then L = 1 and D = 2; at the cluster levels one worker w1 owning one key k1, then two; a system must accept every config J0 and C1 allow)`
        : '';
      throw new SutUnavailable(`init refused ${where}: ${why}${valid}`, tail());
    },

    async openOperator(config: JoinConfig): Promise<OperatorSession> {
      if (failing) throw await failing;
      const { exchange, stderr: own } = openSession('operator', config);
      return {
        async records(records: readonly LogRecord[]): Promise<RecordReply[]> {
          const toRecord = (r: Reply): RecordReply =>
            r.type === 'error'
              ? { error: { code: r.code, text: r.text } }
              : (({ outcome, changes, retained }) => ({ outcome, changes, retained }))(r as OperatorRecordOk);
          const replies = await exchange(records.map((record) => ({ id: id(), type: 'record', record }))).catch((e: unknown) => {
            // The records answered before the system broke are judged first (SutUnavailable.answered).
            if (!(e instanceof RepliesCut)) throw e;
            throw new SutUnavailable(e.reason, e.stderrTail, { level: 'operator', records: e.received.map(toRecord) });
          });
          return replies.map(toRecord);
        },
        stderr: () => ({ lines: own.lines(), earlier: own.earlier }),
      };
    },

    async openCluster(config: ClusterConfig, lvl: Level, open: ClusterOpenOptions = {}): Promise<ClusterSession> {
      if (failing) throw await failing;
      const { exchange, stderr: own } = openSession(lvl, config, open.recover === true);
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
        async steps(actions: readonly ExternalAction[], observed?: (index: number) => boolean): Promise<ClusterStepReply[]> {
          const requests: ProtocolRequest[] = [];
          const inspected: boolean[] = [];
          for (const [i, action] of actions.entries()) {
            requests.push({ id: id(), ...action });
            inspected.push(!observed || observed(i));
            if (inspected[i]) requests.push({ id: id(), type: 'inspect' });
          }
          let cut: RepliesCut | undefined;
          const replies = await exchange(requests).catch((e: unknown) => {
            if (!(e instanceof RepliesCut)) throw e;
            cut = e;
            return e.received;
          });
          // The replies before a break or a refused inspect are judged first; a refused inspect ends this trace, not the system.
          return clusterStepReplies(inspected, replies, cut, tail);
        },
        stderr: () => ({ lines: own.lines(), earlier: own.earlier }),
      };
    },

    revive,

    async kill(): Promise<void> {
      options.signal?.removeEventListener('abort', onAbort);
      if (timer) clearTimeout(timer);
      closing = true;
      if (proc) await proc.kill();
      const killed = new SutUnavailable('killed: the harness killed it with SIGKILL (kill mode)', tail());
      failing ??= Promise.resolve(killed);
      const waiting = [...pending.values()];
      pending.clear();
      for (const p of waiting) p.reject(killed);
    },

    freeze(): void {
      proc?.freeze();
    },

    /** Ends the system: stdin closed, then its processes stopped (processGroup.ts); resolves once none is left and the pipes are closed. */
    async close(): Promise<void> {
      options.signal?.removeEventListener('abort', onAbort);
      if (timer) clearTimeout(timer);
      if (!proc) return;
      closing = true;
      await proc.stop();
      if (failing) await failing;
      else failing = Promise.resolve(new SutUnavailable('closed: the harness ended this system'));
    },
  };
}

/** What an abort says (spec/pacing.ts). */
export { abortReason };
