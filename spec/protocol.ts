// Facts of protocol v2 (spec/PROTOCOL.md) that both ends need: the version,
// the levels, the error codes and which request belongs to which level. The
// message shapes themselves are the schemas in spec/schemas/protocol/.
import type { ClusterAction, Level, ProtocolErrorCode, ProtocolRequest } from './types.gen.ts';

/** Version 2 renumbered the error codes (PROTOCOL.md, History). */
export const PROTOCOL_VERSION = 2;

/** The capability levels, weakest first (PROTOCOL.md, "Levels"). */
export const LEVELS: readonly Level[] = ['operator', 'cluster', 'faults'];

/**
 * Stable error codes (PROTOCOL.md, "Errors"; `ProtocolErrorCode` in
 * reply.schema.json). A code never changes meaning. Below 1000 Maelstrom's
 * numbers, where the meaning is Maelstrom's too; 1000 and up streamjoin's own.
 */
export const PROTOCOL_ERRORS = {
  not_supported: 10,
  malformed_request: 12,
  not_enabled: 22,
  unknown_type: 1000,
  bad_config: 1001,
  no_session: 1002,
  internal_error: 1003,
} as const satisfies Record<string, ProtocolErrorCode>;

/**
 * The error codes of protocol version 1 (PROTOCOL.md, History), by name:
 * what a system not yet moved to version 2 answers with. The harness uses
 * them only to name such a system for what it is.
 */
export const PROTOCOL_V1_ERRORS = {
  malformed_request: 10,
  unknown_type: 11,
  not_supported: 12,
  not_enabled: 13,
  bad_config: 14,
  no_session: 15,
  internal_error: 19,
} as const satisfies Record<keyof typeof PROTOCOL_ERRORS, number>;

/** The name a code had in protocol 1, if it had one. */
export function protocolV1ErrorName(code: number): keyof typeof PROTOCOL_V1_ERRORS | undefined {
  for (const [name, c] of Object.entries(PROTOCOL_V1_ERRORS)) if (c === code) return name as keyof typeof PROTOCOL_V1_ERRORS;
  return undefined;
}

/** Whether a code exists in protocol 1 only (a version-2 system never sends it). */
export function isProtocolV1OnlyCode(code: number): boolean {
  return protocolV1ErrorName(code) !== undefined && !(Object.values(PROTOCOL_ERRORS) as number[]).includes(code);
}

/** The renumbering of version 2, one line (PROTOCOL.md, History): `name v1 → v2` for every code. */
export function renumberedCodesText(): string {
  return (Object.keys(PROTOCOL_ERRORS) as (keyof typeof PROTOCOL_ERRORS)[])
    .map((name) => `${name} ${PROTOCOL_V1_ERRORS[name]} → ${PROTOCOL_ERRORS[name]}`)
    .join(', ');
}

/** The name of an error code, for messages. */
export function protocolErrorName(code: number): string {
  for (const [name, c] of Object.entries(PROTOCOL_ERRORS)) if (c === code) return name;
  return `code ${code}`;
}

/** A cluster action as the harness sends it: every kind but `process` (SPEC §7). */
export type ExternalAction = Exclude<ClusterAction, { type: 'process' }>;

/** Request types, in the order PROTOCOL.md lists them. */
export const REQUEST_TYPES = [
  'init',
  'record',
  'freeze',
  'persist',
  'install',
  'commit',
  'release',
  'abort',
  'checkpoint',
  'crash',
  'restart',
  'pause',
  'resume',
  'failover',
  'duplicateInstall',
  'duplicateRelease',
  'inspect',
] as const satisfies readonly ProtocolRequest['type'][];

/** The action types that exist only at level `faults`. */
const FAULT_TYPES: ReadonlySet<string> = new Set([
  'crash',
  'restart',
  'pause',
  'resume',
  'failover',
  'duplicateInstall',
  'duplicateRelease',
]);

/** The weakest cluster level that includes an action (PROTOCOL.md, "Levels"). */
export function levelOfAction(action: ExternalAction): 'cluster' | 'faults' {
  if (FAULT_TYPES.has(action.type)) return 'faults';
  if (action.type === 'commit' && action.crashAfterFence === true) return 'faults';
  return 'cluster';
}

/** Whether a session at `level` accepts a request of this type and body. */
export function levelAllows(level: Level, request: ProtocolRequest): boolean {
  if (request.type === 'init') return true;
  if (level === 'operator') return request.type === 'record';
  if (request.type === 'inspect' || request.type === 'record') return true;
  const { id: _id, ...action } = request;
  return level === 'faults' || levelOfAction(action as ExternalAction) === 'cluster';
}

/** The reply type of a successful request (`<type>_ok`). */
export function okTypeOf(type: ProtocolRequest['type']): string {
  return `${type}_ok`;
}
