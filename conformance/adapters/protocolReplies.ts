// What the protocol client (process.ts) makes of replies, apart from the
// transport: which schema each must match, the signs of a system of
// protocol 1, the request above a session's level and its refusal; a
// cluster session's steps from its replies; and RepliesCut, the replies a
// batch got before the system broke.
import {
  PROTOCOL_ERRORS,
  PROTOCOL_VERSION,
  isProtocolV1OnlyCode,
  printable,
  protocolErrorName,
  protocolV1ErrorName,
  renumberedCodesText,
  schemaError,
  schemaValidator,
} from '../../spec/index.ts';
import type {
  ClusterConfig,
  ClusterObservation,
  ErrorReply,
  EventsOk,
  InitOk,
  InspectOk,
  JoinConfig,
  Level,
  OperatorRecordOk,
  ProtocolRequest,
} from '../../spec/index.ts';
import { SutUnavailable, type ActionReply, type ClusterStepReply } from '../sut/sut.ts';

export type Reply = InitOk | OperatorRecordOk | EventsOk | InspectOk | ErrorReply;

/**
 * The system became unavailable before it answered every request of a
 * batch: the replies it had sent, in request order, travel with the reason,
 * so that the session can hand them on to be judged (SutUnavailable.answered).
 */
export class RepliesCut extends SutUnavailable {
  readonly received: readonly Reply[];
  constructor(broken: SutUnavailable, received: readonly Reply[]) {
    super(broken.reason, broken.stderrTail);
    this.received = received;
  }
}

/** Which schema a reply to this request must match (PROTOCOL.md, "Requests"). */
export function replyDef(request: ProtocolRequest, level: Level | undefined): string {
  if (request.type === 'init') return 'InitOk';
  if (request.type === 'inspect') return 'InspectOk';
  if (request.type === 'record' && level === 'operator') return 'OperatorRecordOk';
  return 'EventsOk';
}

const validators = new Map<string, (value: unknown) => string | undefined>();

/** The validator of one reply definition, compiled once; returns the first error, described. */
export function validatorOf(def: string): (value: unknown) => string | undefined {
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

/** A line of the system's output as a reason quotes it: printable, at most 200 characters. */
export const quote = (line: string): string => printable(line, 200);

/** What a system of protocol 1 is told: what changed, and where it is written. */
export const MOVE_TO_V2 =
  `this harness speaks protocol ${PROTOCOL_VERSION}, which renumbered the error codes (${renumberedCodesText()}): ` +
  `see spec/PROTOCOL.md, History; move the system to the new codes and "protocol": ${PROTOCOL_VERSION}`;

/**
 * Why a reply shows the system speaks protocol 1 (PROTOCOL.md, History), or
 * undefined: an `init_ok` naming another protocol, or an error code only
 * protocol 1 has. Said before the schema would say "must be one of".
 */
export function protocolOneReason(request: ProtocolRequest, value: object): string | undefined {
  const v = value as { type?: unknown; protocol?: unknown; code?: unknown };
  if (request.type === 'init' && v.type === 'init_ok' && typeof v.protocol === 'number' && v.protocol !== PROTOCOL_VERSION)
    return `protocol: this system speaks protocol ${v.protocol} (its init_ok says "protocol": ${v.protocol}); ${MOVE_TO_V2}`;
  if (v.type === 'error' && typeof v.code === 'number' && isProtocolV1OnlyCode(v.code)) {
    return (
      `protocol: this system speaks protocol 1 (or still answers with its error codes): the reply to request ${request.id} ` +
      `(${request.type}) is error ${v.code}, protocol 1's ${protocolV1ErrorName(v.code)}, a code protocol ${PROTOCOL_VERSION} ` +
      `does not have; ${MOVE_TO_V2}`
    );
  }
  return undefined;
}

/**
 * A request above a session's level, which the system must refuse with
 * error 10 (not_supported, PROTOCOL.md "Sessions and levels"): sent once
 * per level after the first `init` at it, so that error codes are compared
 * at every level (at level `faults` nothing is above; the refusals of the
 * cluster levels are compared in lockstep too).
 */
export function aboveLevel(level: Level, config: JoinConfig | ClusterConfig, id: number): ProtocolRequest | undefined {
  if (level === 'operator') return { id, type: 'inspect' };
  if (level === 'cluster' && 'workers' in config && config.workers[0] !== undefined)
    return { id, type: 'pause', worker: config.workers[0] };
  return undefined;
}

/** Why the reply to a request above the session's level is not the refusal PROTOCOL.md asks for (error 10), or undefined. */
export function aboveLevelProblem(probe: ProtocolRequest, level: Level, reply: Reply | undefined): string | undefined {
  const asked = `${probe.type} at level ${level} (a request above the session's level, which protocol ${PROTOCOL_VERSION} answers with error 10, not_supported)`;
  if (reply?.type !== 'error') return `protocol: ${asked} was carried out`;
  if (reply.code === PROTOCOL_ERRORS.not_supported) return undefined;
  const v1 =
    protocolV1ErrorName(reply.code) === 'not_supported'
      ? `; ${reply.code} was not_supported in protocol 1: this system still answers with protocol 1's error codes; ${MOVE_TO_V2}`
      : '';
  return `protocol: ${asked} was refused with error ${reply.code} (${protocolErrorName(reply.code)}: ${quote(reply.text)})${v1}`;
}

/** An action's reply as the session hands it on: its events, or its error. */
export const toAction = (r: Reply): ActionReply =>
  r.type === 'error' ? { error: { code: r.code, text: r.text } } : { events: (r as EventsOk).events };

/** An inspect's observation, or why there is none (a protocol breach at levels cluster and faults). */
export function observeReply(r: Reply | undefined): ClusterObservation | string {
  if (r?.type === 'inspect_ok') return r.observation;
  return (
    `protocol: inspect refused ` +
    `(${r?.type === 'error' ? `${protocolErrorName(r.code)}: ${quote(r.text)}` : 'no reply'}); ` +
    `inspect never fails at levels cluster and faults`
  );
}

/**
 * A cluster session's steps from its replies in request order (each
 * action's, then its inspect's where `inspected` says one was sent). Where
 * the replies stop (`cut`: the system broke) or an inspect was refused, it
 * throws SutUnavailable with the steps answered before (`answered`, the last
 * without its observation), so that lockstep judges them first: a wrong
 * reply is a divergence whatever follows it.
 */
export function clusterStepReplies(
  inspected: readonly boolean[],
  replies: readonly Reply[],
  cut: SutUnavailable | undefined,
  tail: () => string[],
): ClusterStepReply[] {
  const out: ClusterStepReply[] = [];
  const broken = (why: SutUnavailable | string, last?: ClusterStepReply): SutUnavailable => {
    const answered = { level: 'cluster' as const, steps: last ? [...out, last] : out };
    return typeof why === 'string' ? new SutUnavailable(why, tail(), answered) : new SutUnavailable(why.reason, why.stderrTail, answered);
  };
  let at = 0;
  for (const asked of inspected) {
    const r = replies[at++];
    if (r === undefined) throw broken(cut ?? 'no reply');
    const reply = toAction(r);
    if (!asked) {
      out.push({ reply });
      continue;
    }
    const seen = replies[at++];
    const o = seen === undefined ? (cut ?? 'no reply') : observeReply(seen);
    if (typeof o === 'string' || o instanceof SutUnavailable) throw broken(o, { reply });
    out.push({ reply, observation: o });
  }
  return out;
}
