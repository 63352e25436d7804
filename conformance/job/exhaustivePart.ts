// The bounded-exhaustive part of the job: each scenario's covering traces
// pipelined through the system under test, each at the weakest checked
// level that has all its actions, the first divergence minimized; a
// scenario with no trace at the levels checked is skipped (never passed)
// and not even built. It claims coverage over the traces that ran.
import type { AnyTrace, Level, OperatorTrace } from '../../spec/index.ts';
import { SutUnavailable } from '../sut/sut.ts';
import { runClusterLockstepPipelined, type PipelinedTrace } from '../lockstep/clusterLockstep.ts';
import { runOperatorLockstepPipelined } from '../lockstep/operatorLockstep.ts';
import type { AnyCover } from '../generate/exhaustive.ts';
import { coverageTable, missingCoverage, observedSteps, requiredCoverage } from '../generate/exhaustive.ts';
import type { DivergenceFacts } from '../sut/divergence.ts';
import { inShard, shardCount } from './shard.ts';
import type { ExhaustivePart, ExhaustiveResult } from './conformTypes.ts';
import type { Failure } from '../report/failure.ts';
import { minimizedCounterexample, namedCounterexample } from './counterexample.ts';
import type { ConformPart, PartJob } from './part.ts';

/** Whether any trace of a scenario of this kind can run at these levels. */
/** Whether a scenario of `kind` has traces at any of `levels`. */
export function runsAt(kind: 'operator' | 'cluster', levels: readonly Level[]): boolean {
  return kind === 'operator' ? levels.includes('operator') : levels.includes('cluster') || levels.includes('faults');
}

/** The levels a scenario of `kind` runs at, in words. */
export const needs = (kind: 'operator' | 'cluster'): string => (kind === 'operator' ? 'operator' : 'cluster or faults');

/** The exhaustive scenarios as a part: covers built already, or scenarios covered when the part gets to them. */
export function exhaustiveScenariosPart(scenarios: readonly ExhaustivePart[]): ConformPart {
  return {
    name: 'exhaustive',
    async run(job: PartJob): Promise<void> {
      const covers: AnyCover[] = [];
      const ran: Set<number>[] = [];
      // Claimed over the traces that ran, scenario by scenario (a job stopped half way claims what ran).
      const claim = (): void => {
        job.report.coverage = {
          required: requiredCoverage(job.levels),
          missing: missingCoverage(covers, job.levels, ran),
          taken: coverageTable(covers, ran).map((r) => r.label),
        };
      };
      claim();
      // The system could not be judged on a scenario: that one is listed `unknown`, the rest `not run`, then the job stops.
      let unavailable: SutUnavailable | undefined;
      for (const item of scenarios) {
        const { scenario } = item;
        const unbuilt = {
          scenario: scenario.name,
          kind: scenario.kind,
          states: 0,
          transitions: 0,
          traces: 0,
          steps: 0,
          probes: 0,
          run: 0,
          skipped: 0,
          probesSent: 0,
          levels: {},
          ms: 0,
        };
        if (!runsAt(scenario.kind, job.levels) && 'build' in item) {
          job.report.exhaustive.push({ ...unbuilt, verdict: 'skipped' });
          job.progress(`skip exhaustive ${scenario.name}: it needs level ${needs(scenario.kind)}`);
          continue;
        }
        if (job.stopped() || unavailable) {
          // This shard's share of a cover built already; nothing of one not built.
          const share =
            'build' in item
              ? {}
              : {
                  traces: shardCount(item.traces.length, job.shard),
                  steps: item.traces.filter((_, i) => inShard(i, job.shard)).reduce((n, t) => n + t.steps.length, 0),
                };
          job.report.exhaustive.push({ ...unbuilt, ...share, verdict: 'not run' });
          continue;
        }
        job.enter(`exhaustive scenario ${scenario.name}`);
        const cover = 'build' in item ? await item.build() : item;
        const r = await runExhaustiveScenario(job, cover);
        covers.push(cover);
        ran.push(r.ran);
        claim();
        job.report.exhaustive.push(r.result);
        const x = r.result;
        job.progress(
          x.verdict === 'skipped'
            ? `skip exhaustive ${x.scenario}: no trace at the levels checked (needs level ${needs(x.kind)})`
            : `${x.verdict === 'pass' ? 'pass' : x.verdict.toUpperCase()} exhaustive ${x.scenario}: ${x.run} of ${x.traces} ${x.kind === 'operator' ? 'logs' : 'interleavings'}, ` +
                `${x.probesSent} probes, ${x.transitions} transitions of ${x.states} states` +
                `${x.skipped > 0 ? ` (${x.skipped} skipped: level not checked)` : ''}` +
                `${r.failure ? `: step ${r.failure.divergence.step + 1}: ${r.failure.divergence.summary}` : ''}`,
        );
        if (r.failure) job.report.failures.push(r.failure);
        unavailable = r.unknown;
        // Interrupted while the scenario ran: its result is in, and the job stops here.
        if (!unavailable) job.enter(`exhaustive scenario ${scenario.name}`);
      }
      if (unavailable) throw unavailable;
    },
  };
}

/** One exhaustive scenario: its traces pipelined, each at the weakest checked level that has all its actions; the first divergence minimized. */
async function runExhaustiveScenario(
  job: PartJob,
  cover: AnyCover,
): Promise<{ result: ExhaustiveResult; failure?: Failure; ran: Set<number>; unknown?: SutUnavailable }> {
  const { levels } = job;
  const t0 = performance.now();
  const ran = new Set<number>();
  const perLevel: Partial<Record<Level, number>> = {};
  let run = 0;
  let skipped = 0;
  let probesSent = 0;
  // This shard's share of the scenario (shard.ts): its traces, their steps and probes.
  let traces = 0;
  let steps = 0;
  let probes = 0;
  const mine = (index: number): boolean => {
    if (!inShard(index, job.shard)) return false;
    traces++;
    steps += cover.traces[index]?.steps.length ?? 0;
    probes += cover.probesOf[index] ?? 0;
    return true;
  };
  let first: { trace: AnyTrace; level: Level; divergence: DivergenceFacts; at: number } | undefined;
  const onResult = (r: { index: number; level: Level; divergence?: DivergenceFacts }, trace: AnyTrace): boolean => {
    if (job.signal?.aborted) return false;
    run++;
    ran.add(r.index);
    probesSent += cover.probesOf[r.index] ?? 0;
    perLevel[r.level] = (perLevel[r.level] ?? 0) + 1;
    job.onTrace({ part: 'exhaustive', level: r.level, trace });
    if (run % 200 === 0)
      job.tick(`exhaustive ${cover.scenario.name}: ${run}/${traces - skipped} ${cover.kind === 'operator' ? 'logs' : 'interleavings'}`);
    if (!r.divergence) return true;
    first = { trace, level: r.level, divergence: r.divergence, at: job.since() };
    return false;
  };
  const window = job.window !== undefined ? { window: job.window } : {};
  let unknown: SutUnavailable | undefined;
  // A system that cannot be judged on a trace makes the scenario `unknown`, listed with what ran (the part rethrows).
  const judgeable = (e: unknown): void => {
    if (!(e instanceof SutUnavailable)) throw e;
    unknown = e;
  };
  if (cover.kind === 'operator') {
    const runnable: { index: number; trace: OperatorTrace }[] = [];
    for (const [index, trace] of cover.traces.entries()) if (mine(index)) runnable.push({ index, trace });
    if (levels.includes('operator')) {
      await runOperatorLockstepPipelined(
        runnable.map((x) => x.trace),
        job.system,
        {
          ...window,
          onResult: (r) => onResult({ ...r, index: (runnable[r.index] as { index: number }).index }, { kind: 'operator', trace: r.trace }),
        },
      ).catch(judgeable);
    } else skipped = runnable.length;
  } else {
    // Each trace at the weakest checked level that has all its actions; indexes kept for the probes and the coverage.
    const runnable: (PipelinedTrace & { index: number })[] = [];
    for (const [index, trace] of cover.traces.entries()) {
      if (!mine(index)) continue;
      const need = cover.levelOf[index] ?? 'faults';
      const level: Level | undefined =
        need === 'cluster' && levels.includes('cluster') ? 'cluster' : levels.includes('faults') ? 'faults' : undefined;
      if (level === undefined) {
        skipped++;
        continue;
      }
      const observed = observedSteps(cover, index);
      runnable.push({ index, trace, level, ...(observed ? { observed } : {}) });
    }
    await runClusterLockstepPipelined(runnable, job.system, {
      ...window,
      onResult: (r) => onResult({ ...r, index: (runnable[r.index] as { index: number }).index }, { kind: 'cluster', trace: r.trace }),
    }).catch(judgeable);
  }
  const base = {
    scenario: cover.scenario.name,
    kind: cover.kind,
    states: cover.states,
    transitions: cover.transitions,
    traces,
    steps,
    probes,
    run,
    skipped,
    probesSent,
    levels: perLevel,
  };
  if (!first)
    return {
      result: {
        ...base,
        verdict: unknown !== undefined || job.signal?.aborted ? 'unknown' : run === 0 ? 'skipped' : 'pass',
        ms: performance.now() - t0,
      },
      ran,
      ...(unknown ? { unknown } : {}),
    };
  const found: { trace: AnyTrace; level: Level; divergence: DivergenceFacts; at: number } = first;
  const minimal = await minimizedCounterexample(job.system, found.level, found.trace, found.divergence);
  const description =
    `${cover.kind === 'operator' ? 'Log' : 'Interleaving'} ${found.trace.trace.name} of the bounded-exhaustive scenario ${cover.scenario.name} ` +
    `(${cover.scenario.description}), cut at the divergence and minimized by deleting steps. ` +
    `It diverged at step ${minimal.divergence.step + 1}: ${minimal.divergence.summary}`;
  return {
    result: { ...base, verdict: 'fail', ms: performance.now() - t0 },
    failure: {
      level: found.level,
      origin: 'exhaustive',
      scenario: cover.scenario.name,
      trace: namedCounterexample(minimal.trace, `exhaustive-${cover.scenario.name}`, description),
      divergence: minimal.divergence,
      foundAfterMs: found.at,
      ...(minimal.stderr ? { stderr: minimal.stderr } : {}),
    },
    ran,
  };
}
