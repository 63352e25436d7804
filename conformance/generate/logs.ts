// fast-check generators for configs and logs over small domains, so that
// ids, keys and times collide often: redeliveries, conflicts, retractions of
// known rows, overtaking retractions, stale watermarks and evictions all
// happen in short logs. Every generated log is in contract (J9): records that
// would break it are dropped, so shrinking stays inside the contract too.
import fc from 'fast-check';
import { OPERATOR_TRACE_FORMAT } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, OperatorTrace, RowRecord } from '../../spec/index.ts';
import { initialOracleState, stepOracle } from '../../model/index.ts';

export interface LogDomain {
  readonly keys: readonly string[];
  readonly ids: readonly string[];
  /** Times are drawn from [0, maxTime]. */
  readonly maxTime: number;
  readonly maxRecords: number;
  /** Include records that fail J1 validity. */
  readonly invalid: boolean;
}

export const smallDomain: LogDomain = { keys: ['k1', 'k2'], ids: ['a', 'b', 'c', 'd', 'e'], maxTime: 5, maxRecords: 18, invalid: true };

/**
 * The same sizes with odd names: keys and ids that break naive object maps
 * (`__proto__`, `constructor`), need the match-id encoding's escapes (`/`,
 * `%`), or make an unescaped `"L:"+a+"|R:"+b` ambiguous (`|R:`).
 */
export const oddDomain: LogDomain = {
  ...smallDomain,
  keys: ['__proto__', 'k/%2F', 'constructor'],
  ids: ['a|R:b', 'a', 'b|R:', '%', 'x/y'],
};

/** Small L and D (J0) so that horizons are reached within short logs. */
export function configArbitrary(): fc.Arbitrary<JoinConfig> {
  return fc.record({ allowedLateness: fc.integer({ min: 0, max: 2 }), maxIntervalLength: fc.integer({ min: 0, max: 3 }) });
}

/**
 * The first value three times as often as each other one: rows crowd onto
 * one key, so matches (and multi-match change sets) are common, while the
 * other keys still test isolation.
 */
function firstMostly<T>(values: readonly T[]): fc.Arbitrary<T> {
  const [first, ...rest] = values;
  if (first === undefined) throw new Error('empty domain');
  if (rest.length === 0) return fc.constant(first);
  return fc.oneof({ weight: 3 * rest.length, arbitrary: fc.constant(first) }, { weight: rest.length, arbitrary: fc.constantFrom(...rest) });
}

function rowArbitrary(domain: LogDomain, config: JoinConfig): fc.Arbitrary<RowRecord> {
  return fc
    .record({
      // Mostly inserts: retracts of known rows come from re-sends (below);
      // a fresh retract is a retract that overtakes its insert.
      kind: fc.oneof({ weight: 4, arbitrary: fc.constant('insert' as const) }, { weight: 1, arbitrary: fc.constant('retract' as const) }),
      key: firstMostly(domain.keys),
      side: fc.constantFrom('L', 'R'),
      id: fc.constantFrom(...domain.ids),
      start: fc.integer({ min: 0, max: domain.maxTime }),
      length: fc.integer({ min: 0, max: config.maxIntervalLength }),
      offset: fc.nat(),
    })
    .map(({ kind, key, side, id, start, length, offset }) => ({
      kind,
      key,
      side,
      id,
      ts: start + (offset % (length + 1)),
      start,
      end: start + length,
    }));
}

function invalidArbitrary(domain: LogDomain): fc.Arbitrary<LogRecord> {
  const t = fc.integer({ min: -1, max: domain.maxTime + 1 });
  return fc.oneof(
    fc.record({
      kind: fc.constantFrom('insert' as const, 'retract' as const),
      key: fc.constantFrom('', ...domain.keys),
      side: fc.constantFrom('L', 'R', 'X', ''),
      id: fc.constantFrom('', ...domain.ids),
      ts: fc.oneof(t, fc.constant(2 ** 50 + 1)),
      start: t,
      end: t,
    }),
    fc.record({ kind: fc.constant('watermark' as const), side: fc.constantFrom('X', 'l'), wm: t }),
  );
}

/**
 * One generated step: a fresh row record; a watermark that moves one side by
 * `step` (-1..2, so stale ones occur) from where that side is; a re-send of
 * an earlier row record (possibly as the other kind); or both watermarks
 * moved to an earlier row's horizon (J8) plus `delta` in -1..1, so that the
 * boundaries of J5, J6 and J8 are hit often rather than by luck. Watermarks
 * advance gradually, so a log of a dozen records spans the time domain.
 */
type LogOp =
  | { readonly fresh: LogRecord }
  | { readonly watermark: 'L' | 'R'; readonly step: number }
  | { readonly resend: number; readonly as: 'same' | 'insert' | 'retract' }
  | { readonly horizonOf: number; readonly delta: number };

function opArbitrary(domain: LogDomain, config: JoinConfig): fc.Arbitrary<LogOp> {
  const arbs: fc.WeightedArbitrary<LogOp>[] = [
    { weight: 8, arbitrary: rowArbitrary(domain, config).map((fresh) => ({ fresh })) },
    {
      weight: 3,
      arbitrary: fc.record({ watermark: fc.constantFrom('L' as const, 'R' as const), step: fc.integer({ min: -1, max: 2 }) }),
    },
    {
      weight: 3,
      arbitrary: fc.record({ resend: fc.nat(), as: fc.constantFrom('same' as const, 'insert' as const, 'retract' as const) }),
    },
    { weight: 1, arbitrary: fc.record({ horizonOf: fc.nat(), delta: fc.integer({ min: -1, max: 1 }) }) },
  ];
  if (domain.invalid) arbs.push({ weight: 1, arbitrary: invalidArbitrary(domain).map((fresh) => ({ fresh })) });
  return fc.oneof(...arbs);
}

function materialize(config: JoinConfig, ops: readonly LogOp[]): LogRecord[] {
  const out: LogRecord[] = [];
  const wm = { L: 0, R: 0 };
  for (const op of ops) {
    if ('fresh' in op) {
      out.push(op.fresh);
      continue;
    }
    if ('watermark' in op) {
      wm[op.watermark] += op.step;
      out.push({ kind: 'watermark', side: op.watermark, wm: wm[op.watermark] });
      continue;
    }
    const rows = out.filter((r): r is RowRecord => r.kind !== 'watermark');
    if (rows.length === 0) continue;
    if ('resend' in op) {
      const source = rows[op.resend % rows.length] as RowRecord;
      out.push(op.as === 'same' ? { ...source } : { ...source, kind: op.as });
    } else {
      const target = rows[op.horizonOf % rows.length] as RowRecord;
      const w = target.end + config.allowedLateness + config.maxIntervalLength + op.delta;
      wm.L = w;
      wm.R = w;
      out.push({ kind: 'watermark', side: 'L', wm: w }, { kind: 'watermark', side: 'R', wm: w });
    }
  }
  return out;
}

/** Drops every record that would break the input contract (J9). */
export function keepInContract(config: JoinConfig, records: readonly LogRecord[]): LogRecord[] {
  // A violating record leaves the oracle's state unchanged, so dropping it
  // cannot make a later record violate: one pass suffices.
  let state = initialOracleState;
  const kept: LogRecord[] = [];
  for (const record of records) {
    const step = stepOracle(config, state, record);
    if (step.contractViolation) continue;
    kept.push(record);
    state = step.state;
  }
  return kept;
}

/** A log over `domain` for `config`, in contract. */
export function logArbitrary(config: JoinConfig, domain: LogDomain = smallDomain): fc.Arbitrary<LogRecord[]> {
  return fc
    .array(opArbitrary(domain, config), { maxLength: domain.maxRecords, size: 'max' })
    .map((ops) => keepInContract(config, materialize(config, ops)));
}

/** A config together with a log for it. */
export function configuredLogArbitrary(domain: LogDomain = smallDomain): fc.Arbitrary<{ config: JoinConfig; log: LogRecord[] }> {
  return configArbitrary().chain((config) => logArbitrary(config, domain).map((log) => ({ config, log })));
}

/** Random operator traces (level `operator`), in contract (J9); one in four over odd keys and ids. */
export function operatorTraceArbitrary(): fc.Arbitrary<OperatorTrace> {
  return fc
    .oneof({ weight: 3, arbitrary: fc.constant(smallDomain) }, { weight: 1, arbitrary: fc.constant(oddDomain) })
    .chain((domain) => configuredLogArbitrary(domain))
    .map(({ config, log }: { config: JoinConfig; log: LogRecord[] }) => ({
      format: OPERATOR_TRACE_FORMAT,
      name: 'random-operator',
      config,
      steps: log.map((record) => ({ record })),
    }));
}
