import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { JoinConfig, LogRecord, Side } from '../../spec/index.ts';
import { check, replayPath } from '../explorer/index.ts';
import type { Model, PropertyResult } from '../explorer/index.ts';
import { globalWatermark, stepJoin } from './join.ts';
import {
  JOIN_ABLATIONS,
  joinModel,
  recordDomain,
  renameState,
  symmetryGroup,
  type JoinModelBounds,
  type OperatorStepFunction,
} from './joinModel.ts';
import type { JoinModelState } from './joinModelState.ts';

/** Reaches every goal with N = 4 (a match outliving an endpoint needs 2 rows and 2 watermarks). */
const small: JoinModelBounds = { records: 4, keys: 1, ids: 1, maxTime: 1, allowedLateness: 0, maxIntervalLength: 1, invalid: true };

/** A broken join: rows evicted one tick early, at gw = end + L + D. */
const evictOneTickEarly: OperatorStepFunction = (config: JoinConfig, state, record: LogRecord) => {
  const out = stepJoin(config, state, record);
  if (record.kind !== 'watermark') return out;
  const gw = globalWatermark(out.state.wm);
  const rows = out.state.rows.filter((r) => gw === null || gw < r.end + config.allowedLateness + config.maxIntervalLength);
  const held = (key: string, side: Side, id: string): boolean => rows.some((r) => r.key === key && r.side === side && r.id === id);
  return {
    ...out,
    state: { ...out.state, rows, matches: out.state.matches.filter((m) => held(m.key, 'L', m.left) || held(m.key, 'R', m.right)) },
  };
};

describe('join model: the reference join exhausted over every log of at most N records', () => {
  const model = joinModel({ bounds: small });
  let cached: ReturnType<typeof check<JoinModelState, LogRecord>> | undefined;
  const smallReport = (): ReturnType<typeof check<JoinModelState, LogRecord>> => (cached ??= check(model));

  it('JoinCorrect and BoundedState hold, every goal is reached and every action kind taken (J7, J8, J9)', () => {
    const report = smallReport();
    expect(report.exhausted).toBe(true);
    expect(report.invariants.map((p) => [p.name, p.verdict])).toEqual([
      ['JoinCorrect', 'holds'],
      ['BoundedState', 'holds'],
    ]);
    expect(report.goals.filter((g) => g.verdict !== 'holds').map((g) => g.name)).toEqual([]);
    expect(report.goals.map((g) => g.name)).toContain('MatchOutlivesEndpoint');
    expect(report.unreachedActionKinds).toEqual([]);
    expect(report.maxDepth).toBe(4);
    expect(report.passed).toBe(true);
  });

  it('goal witnesses are concrete logs that replay: a match outlives its evicted endpoint after 4 records (J8)', () => {
    const report = smallReport();
    const witness = report.goals.find((g) => g.name === 'MatchOutlivesEndpoint')?.path;
    expect(witness?.actions.map((r) => r.kind)).toEqual(['insert', 'insert', 'watermark', 'watermark']);
    const replay = replayPath(model, 0, witness?.actions ?? []);
    expect(replay.ok).toBe(true);
    if (replay.ok) expect(replay.final.op.matches.length).toBe(1);
  });

  it('symmetry over ids (argued sound in joinModel.ts): same verdicts, fewer states', () => {
    const bounds: JoinModelBounds = { records: 3, keys: 1, ids: 2, maxTime: 1, allowedLateness: 0, maxIntervalLength: 1, invalid: false };
    const model = joinModel({ bounds });
    const on = check(model);
    const off = check(model, { symmetry: false });
    expect(on.distinct).toBeLessThan(off.distinct);
    const verdicts = (r: typeof on): string[] => [...r.invariants, ...r.goals].map((p) => `${p.name}:${p.verdict}`);
    expect(verdicts(on)).toEqual(verdicts(off));
  });

  it('symmetry: the representative is canonical, equal for every renaming of a reachable state', () => {
    const bounds: JoinModelBounds = { records: 6, keys: 2, ids: 2, maxTime: 2, allowedLateness: 0, maxIntervalLength: 1, invalid: false };
    const model = joinModel({ bounds });
    const domain = recordDomain(bounds);
    const group = symmetryGroup(bounds);
    const rep = model.representative as (s: JoinModelState) => JoinModelState;
    fc.assert(
      fc.property(fc.array(fc.nat(domain.length - 1), { maxLength: 6 }), fc.nat(group.length - 1), (picks, gi) => {
        let state = model.initialStates()[0] as JoinModelState;
        for (const i of picks) {
          const next = model.next(state, domain[i] as LogRecord);
          if (next.outOfContract) break;
          state = next;
        }
        const renamed = renameState(group[gi] as (typeof group)[number], state);
        expect(model.encode(rep(renamed))).toBe(model.encode(rep(state)));
        // and the representative is a member of the orbit: same invariants, same retained counts
        expect(rep(state).op.rows.length).toBe(state.op.rows.length);
        expect(rep(state).op.matches.length).toBe(state.op.matches.length);
      }),
      { numRuns: 300 },
    );
  });

  it('symmetry over keys: same verdicts, fewer states', () => {
    const bounds: JoinModelBounds = { records: 2, keys: 2, ids: 1, maxTime: 1, allowedLateness: 0, maxIntervalLength: 1, invalid: false };
    const model = joinModel({ bounds });
    const on = check(model);
    const off = check(model, { symmetry: false });
    expect(on.distinct).toBeLessThan(off.distinct);
    expect(on.invariants.map((p) => p.verdict)).toEqual(off.invariants.map((p) => p.verdict));
  });

  it('a log that breaks the input contract (J9) leaves the model and is not expanded', () => {
    const bounds: JoinModelBounds = { records: 4, keys: 1, ids: 1, maxTime: 1, allowedLateness: 0, maxIntervalLength: 0, invalid: false };
    const model = joinModel({ bounds });
    const row = (ts: number): LogRecord => ({ kind: 'insert', key: 'k1', side: 'L', id: 'a', ts, start: ts, end: ts });
    // a is evicted at gw = 1 > 0 + L + D, then its identity comes back on time with other content
    const log: LogRecord[] = [row(0), { kind: 'watermark', side: 'L', wm: 1 }, { kind: 'watermark', side: 'R', wm: 1 }, row(1)];
    const replay = replayPath(model, 0, log);
    expect(replay.ok).toBe(true);
    if (replay.ok) {
      expect(replay.final.outOfContract).toBe(true);
      expect(model.withinBoundary?.(replay.final)).toBe(false);
      expect(model.invariants.map((i) => i.check(replay.final))).toEqual([undefined, undefined]);
    }
    const report = check(model);
    expect(report.outsideBoundary).toBe(1);
    expect(report.exhausted).toBe(true);
    expect(report.invariants.map((p) => p.verdict)).toEqual(['holds', 'holds']);
  });

  it('the record domain holds every valid row and watermark of the bound, and the invalid ones', () => {
    const domain = recordDomain(small);
    // rows: 2 kinds x 2 sides x 1 id x ([0,0],[1,1] one ts each + [0,1] two) = 16; watermarks 2 x 0..3 = 8; invalid 4
    expect(domain.length).toBe(16 + 8 + 4);
    expect(() => model.actionFromJson?.({ kind: 'insert', key: 'k1' })).toThrow(/not a log record/);
    expect(model.actionFromJson?.(domain[0])).toEqual(domain[0]);
  });
});

/** The model checking one invariant only, stopping at its first (so shortest) violation. */
function firstViolation(model: Model<JoinModelState, LogRecord>, property: string): PropertyResult<JoinModelState, LogRecord> | undefined {
  const report = check({ ...model, invariants: model.invariants.filter((p) => p.name === property) }, { stopAtFirstViolation: true });
  expect(report.passed).toBe(false);
  return report.invariants[0];
}

describe('join model: a deliberately broken join is refuted with a shortest counterexample', () => {
  it('evicting one tick early (J8): BoundedState fails after 3 records, JoinCorrect after 4', () => {
    const model = joinModel({ bounds: small, operator: evictOneTickEarly, name: 'join-evicts-early' });
    const bounded = firstViolation(model, 'BoundedState');
    const correct = firstViolation(model, 'JoinCorrect');
    expect(bounded?.verdict).toBe('violated');
    expect(correct?.verdict).toBe('violated');
    // one row, then both watermarks up to its horizon: it is dropped while J8 still retains it
    expect(bounded?.path?.actions.map((r) => r.kind)).toEqual(['insert', 'watermark', 'watermark']);
    // and one more record that the missing row would have answered differently (a match, or a duplicate)
    expect(correct?.path?.actions.length).toBe(4);
    expect(correct?.explanation).toMatch(/^record 3 .*operator .* but oracle /);
    const replay = replayPath(model, 0, correct?.path?.actions ?? []);
    expect(replay.ok && replay.final.mismatch !== undefined).toBe(true);
  });

  it.each([
    ['match-retention', 'BoundedState', 4],
    ['retract-tombstone', 'JoinCorrect', 2],
    ['strict-eviction', 'JoinCorrect', 4],
  ])('ablating %s is refuted: %s fails with a %i-record counterexample', (element, property, length) => {
    const ablation = JOIN_ABLATIONS[element];
    if (!ablation) throw new Error(`no ablation ${element}`);
    const result = firstViolation(joinModel({ bounds: small, operator: ablation.wrap(stepJoin) }), property);
    expect(result?.verdict).toBe('violated');
    expect(result?.path?.actions.length).toBe(length);
  });
});
