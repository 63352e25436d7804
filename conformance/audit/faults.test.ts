// streamjoin audit, proven on faults: histories recorded from the
// implementation's cluster under random faults (the random cluster trace
// generator, generate/clusterTraces.ts) are valid; each kind of real-world
// damage to the recorded sink is reported with the property it breaks and a
// witness that points at the damage.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../spec/index.ts';
import type { ClusterTrace } from '../../spec/index.ts';
import { clusterTraceArbitrary } from '../generate/clusterTraces.ts';
import { longClusterDomain, type ClusterDomain } from '../generate/clusterDomains.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';
import { auditHistory, type AuditResult } from './audit.ts';
import { exampleTrace, recordClusterHistory } from './clusterHistory.ts';
import { DAMAGE_KINDS, damageSink, type Damage, type DamageKind } from './damage.ts';
import { LOG_FILE, SINK_FILE } from '../adapters/recorder.ts';

const freshDirectory = useTemporaryDirectories('sj-audit-faults-');

/** Longer than the lockstep tests' traces, so that writes, handoffs and faults pile up. */
const auditDomain: ClusterDomain = {
  ...longClusterDomain,
  ids: ['a', 'b', 'c', 'd', 'e', 'f'],
  maxTime: 6,
  maxRecords: 40,
  maxChoices: 30,
};

/** A random cluster trace under faults: the generator's own, or a longer sliding workload interleaved by it. */
const historyArbitrary: fc.Arbitrary<ClusterTrace> = fc.oneof(
  { weight: 3, arbitrary: clusterTraceArbitrary('faults', auditDomain) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 ** 30 }).map((seed) => exampleTrace(seed, 300)) },
);

/** The damage's expectation, against what audit found. */
function checkDamage(d: Damage, r: AuditResult, sinkPath: string): void {
  const expect_ = d.expect;
  if (expect_.verdict === 'unknown') {
    expect(r.verdict, d.description).toBe('unknown');
    expect(r.sink.cut).toBe(true);
    expect(r.properties.find((p) => p.property === 'JoinCorrect')?.verdict).toBe('unknown');
    return;
  }
  if (expect_.verdict !== 'violation') throw new Error('checkDamage: bad input is checked by the caller');
  expect(r.verdict, d.description).toBe('violation');
  const hits = r.violations.filter(
    (v) =>
      expect_.findings.some((f) => f.property === v.property && f.kind === v.kind) &&
      (v.match === undefined ? v.kind === 'sequence' : d.matches.includes(v.match)),
  );
  expect(
    hits.length,
    `${d.kind}: ${d.description}: expected one of ${JSON.stringify(expect_.findings)}, got ${JSON.stringify(r.violations.map((v) => [v.property, v.kind, v.match]))}`,
  ).toBeGreaterThan(0);
  for (const v of hits) {
    // A witness: lines of the files, each with its text.
    expect(v.witness.length).toBeGreaterThan(0);
    for (const w of v.witness) expect(w.text, `${sinkPath}: ${w.file}:${w.line}`).toBeDefined();
  }
  // Where the damage put lines in, the witness names one of them.
  if (d.lines.length > 0 && d.kind !== 'reorder') {
    expect(hits.some((v) => v.witness.some((w) => w.file === 'sink' && d.lines.includes(w.line)))).toBe(true);
  }
  // Where the damage touched matches, the witness holds the records of their rows.
  if (d.kind !== 'zombie-write') expect(hits.some((v) => v.witness.some((w) => w.file === 'log'))).toBe(true);
}

describe('streamjoin audit on histories of the implementation under random faults', () => {
  it('ExactlyOnce, JoinCorrect, Fenced: an undamaged history is valid, and each kind of damage is reported with its property and a witness', async () => {
    const exercised = new Map<DamageKind, number>(DAMAGE_KINDS.map((k) => [k, 0]));
    await fc.assert(
      fc.asyncProperty(historyArbitrary, fc.integer({ min: 0, max: 2 ** 30 }), async (trace, where) => {
        const dir = freshDirectory();
        const recorded = recordClusterHistory(trace, dir);
        // Recovery always reaches quiescence (SPEC §6 P7), so the history is complete.
        expect(recorded.incomplete).toBeUndefined();
        const log = join(dir, LOG_FILE);
        const sink = join(dir, SINK_FILE);
        const clean = await auditHistory({ log, sink });
        expect(clean.verdict, JSON.stringify(clean.violations.slice(0, 2))).toBe('valid');
        expect(clean.properties.map((p) => p.verdict)).toEqual(['holds', 'holds', clean.sink.epochs ? 'holds' : 'not-checked']);
        const sinkText = readFileSync(sink, 'utf8');
        let seed = where;
        const pick = (): number => {
          seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
          return seed / 2 ** 32;
        };
        for (const kind of DAMAGE_KINDS) {
          const d = damageSink(sinkText, kind, pick);
          if (d === undefined) continue;
          exercised.set(kind, (exercised.get(kind) ?? 0) + 1);
          const damaged = join(dir, `${kind}.jsonl`);
          writeFileSync(damaged, d.text);
          if (d.expect.verdict === 'bad-input') {
            const e = await auditHistory({ log, sink: damaged }).then(
              () => undefined,
              (err: unknown) => err,
            );
            expect(e).toBeInstanceOf(InputError);
            expect((e as InputError).code).toBe(d.expect.code);
            expect((e as InputError).where).toMatch(new RegExp(`^${damaged.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${d.lines[0]}:\\d+$`));
            continue;
          }
          checkDamage(d, await auditHistory({ log, sink: damaged }), damaged);
        }
      }),
      { numRuns: 30 },
    );
    // Every kind of damage was tried on some history.
    for (const [kind, n] of exercised) expect(n, kind).toBeGreaterThan(0);
  });
});
