// The end-to-end checks both example engines get (d2ts.e2e.test.ts,
// pglite.e2e.test.ts): the engine job, correct and with a one-character
// overlap bug, checked live (conform) and through its changelog (audit);
// and what the engine does, without streamjoin's bookkeeping, on each
// minimal history of differences.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { auditHistory, runConform, writeExampleHistory, type AuditResult } from '../../index.ts';
import { DIFFERENCES, observe } from './differences.ts';
import { type Overlap, readLog, writeChangelog } from './engine.ts';
import { type EngineName, conformSummary, engineStarter, engineSystem, exampleTraces } from './job.ts';

/** What an engine's job writes for one minimal history (differences.ts), as `op@seq` per sink line, and the audit's verdict. */
export type ObservedDifferences = Record<string, { readonly sink: readonly string[]; readonly verdict: AuditResult['verdict'] }>;

export interface EngineSuite {
  /** Random traces in the live conform run (each session is a fresh engine). */
  readonly runs: number;
  /** Run the mutant catalogue's regression traces too (each is a session). */
  readonly regressions: boolean;
  readonly differences: ObservedDifferences;
}

export function describeEngine(name: EngineName, suite: EngineSuite): void {
  const seed = inject('fcSeed');
  const engines = engineStarter(name);
  const dir = mkdtempSync(join(tmpdir(), `sj-${name}-`));
  afterAll(async () => {
    await engines.close();
    rmSync(dir, { recursive: true, force: true });
  });
  // A history of the implementation's cluster under faults: 2,000 records with duplicates, retractions and late rows.
  const history = writeExampleHistory({ dir: join(dir, 'history'), seed, records: 2000, format: 'streamjoin', gzip: false });
  const { config, records } = readLog(history.log);
  const changelog = async (overlap: Overlap): Promise<AuditResult> => {
    const sink = join(dir, `sink-${overlap}.jsonl`);
    // Batches of 100 records, each batch's match changes as the engine emits them (keys interleaved, a match's insert and
    // retraction both in one batch): a diff sink whose batches are its consistent points.
    const lines = await writeChangelog(await engines.start(overlap), config, records, { batch: 100, gate: 'spec' });
    writeFileSync(sink, `${lines.join('\n')}\n`);
    return auditHistory({ log: history.log, sink, sinkModel: 'diff' });
  };

  describe(`${name}: the interval join job checked live (matchingEngineSystem, level operator)`, () => {
    it(`conforms: the operator examples${suite.regressions ? ', the regression traces' : ''} and ${suite.runs} random traces in lockstep with the model (seed ${seed})`, async () => {
      const { examples, regressions } = exampleTraces();
      const report = await runConform({
        system: engineSystem(name, engines, 'inclusive'),
        seed,
        runs: suite.runs,
        examples,
        regressions: suite.regressions ? regressions : [],
      });
      expect(report.verdict, conformSummary(report)).toBe('pass');
      expect(report.examples.length).toBeGreaterThan(10);
      expect(report.random[0]?.runs).toBe(suite.runs);
    });

    it(`J3: with \`<\` for \`<=\` in its overlap test it diverges in changes, on a witness of at most 4 records (seed ${seed})`, async () => {
      const report = await runConform({
        system: engineSystem(name, engines, 'strict'),
        seed,
        runs: suite.runs,
        examples: exampleTraces().examples,
      });
      expect(report.verdict, conformSummary(report)).toBe('fail');
      const failure = report.failures[0];
      expect(failure?.divergence.field).toBe('changes');
      expect(failure?.divergence.summary).toMatch(/missing insert/);
      expect(failure?.trace.kind === 'operator' ? failure.trace.trace.steps.length : Number.NaN).toBeLessThanOrEqual(4);
    });
  });

  describe(`${name}: the job's changelog, in batches of 100, audited with --sink-model diff (a 2,000-record history under faults, seed ${seed})`, () => {
    it('JoinCorrect, ExactlyOnce: with the bookkeeping in front, the changelog is valid', async () => {
      const result = await changelog('inclusive');
      expect(result.violations.map((v) => v.message)).toEqual([]);
      expect(result.verdict).toBe('valid');
      expect(result.sink.changes).toBeGreaterThan(500);
    });

    it('J3: with `<` for `<=` it is a violation: a match missing, with a witness of its two rows', async () => {
      const result = await changelog('strict');
      expect(result.verdict).toBe('violation');
      const missing = result.violations.find((v) => v.kind === 'missing');
      expect(missing?.property).toBe('JoinCorrect');
      expect(missing?.witness.length).toBeGreaterThanOrEqual(2);
      expect(missing?.witness.length).toBeLessThanOrEqual(6);
    });
  });

  describe(`${name} without the bookkeeping: the minimal histories of its differences from SPEC (differences.ts, docs/audit.md)`, () => {
    for (const d of DIFFERENCES) {
      const want = suite.differences[d.name];
      it(`${d.name} (${d.rule}): the sink ${want?.sink.join(', ') || 'is empty'}; audit: ${want?.verdict}`, async () => {
        const seen = await observe(await engines.start('inclusive'), d);
        const compact = seen.sink.map((line) => {
          const { op, seq } = JSON.parse(line) as { op: string; seq: number };
          return `${op}@${seq}`;
        });
        expect({ sink: compact, verdict: seen.verdict }).toEqual(want);
      });
    }
  });
}
