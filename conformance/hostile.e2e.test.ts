// The hostile-system suite: `streamjoin conform` (and `replay`) run as a
// user runs them, as a process, against systems under test that misbehave in
// every way a real one does (conformance/testdata/hostileCases.ts). For
// each: the verdict, the reason's wording, a bound on the time from the
// misbehaviour to the verdict relative to --timeout (loose: an order of
// magnitude), the harness's exit soon after its verdict, and nothing left
// behind: no process (every process the run started carries HOSTILE_TAG in
// its environment, setsid or not) and no file (TMPDIR and --out stay empty).
//
// Only the systems that are hung wait for --timeout; every other one gets a
// generous one (60 s), so that a loaded machine cannot turn "dead" into
// "hung", and its verdict must come well before it.
import { describe, expect, inject, it } from 'vitest';
import { HUNG, hostileCases, runCase } from './testdata/hostileCases.ts';

describe.concurrent('hostile systems under test: the verdict, its reason, its time, and nothing left behind', () => {
  for (const c of hostileCases(inject('fcSeed'))) {
    it(`${c.does}: ${c.verdict}`, async () => {
      const r = await runCase(c);
      expect(r.report.verdict, r.stdout).toBe(c.verdict);
      expect(r.code).toBe(c.verdict === 'pass' ? 0 : 2);
      // The report and the progress: printable, whatever the system wrote.
      expect(r.stdout + r.stderr).not.toMatch(/(?!\n)\p{Cc}/u);
      if (c.verdict === 'unknown') {
        expect(r.reason).toMatch(c.reason as RegExp);
        // From the moment it misbehaved (or started) to the verdict: within ten timeouts if it hung, well within one otherwise.
        // A hung system on a loaded machine may not even have said it started before its timeout: then from the harness's start.
        if (c.timeoutMs !== HUNG) expect(r.misbehavedAt, r.stdout).toBeDefined();
        const toVerdict = r.verdictAt - (r.misbehavedAt ?? r.startedAt);
        if (c.timeoutMs === HUNG) expect(toVerdict).toBeLessThan(10 * c.timeoutMs);
        else expect(toVerdict).toBeLessThan(c.timeoutMs / 4);
      }
      // The harness ends soon after its verdict, whatever still holds the system's pipes.
      expect(r.exitAt - r.verdictAt).toBeLessThan(10_000);
      expect(r.stderr).not.toContain('internal error');
      // Nothing left behind.
      expect(r.processesLeft).toEqual([]);
      expect(r.filesLeft).toEqual([]);
    });
  }
});
