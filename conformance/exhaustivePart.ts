// The bounded-exhaustive part of the conformance job (conform.ts): one
// scenario's traces pipelined through the system under test, each at the
// weakest checked level that has all its actions, the first divergence
// minimized.
import type { AnyTrace, Level, OperatorTrace } from '../spec/index.ts';
import { runClusterLockstepPipelined, type PipelinedTrace } from './lockstep/clusterLockstep.ts';
import { runOperatorLockstepPipelined } from './lockstep/operatorLockstep.ts';
import { withExpectations } from './lockstep/anyTrace.ts';
import { minimizeTrace } from './lockstep/minimize.ts';
import type { AnyCover } from './generate/exhaustive.ts';
import { observedSteps } from './generate/exhaustive.ts';
import type { Divergence } from './lockstep/divergence.ts';
import { inShard } from './shard.ts';
import type { ConformOptions, ExhaustiveResult, Failure } from './conformTypes.ts';

/** One exhaustive scenario: its traces pipelined, each at the weakest checked level that has all its actions; the first divergence minimized. */
export async function runExhaustiveScenario(
  opts: ConformOptions,
  cover: AnyCover,
  levels: readonly Level[],
  since: () => number,
): Promise<{ result: ExhaustiveResult; failure?: Failure; ran: Set<number> }> {
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
    if (!inShard(index, opts.shard)) return false;
    traces++;
    steps += cover.traces[index]?.steps.length ?? 0;
    probes += cover.probesOf[index] ?? 0;
    return true;
  };
  let first: { trace: AnyTrace; level: Level; divergence: Divergence; at: number } | undefined;
  const onResult = (r: { index: number; level: Level; divergence?: Divergence }, trace: AnyTrace): boolean => {
    if (opts.signal?.aborted) return false;
    run++;
    ran.add(r.index);
    probesSent += cover.probesOf[r.index] ?? 0;
    perLevel[r.level] = (perLevel[r.level] ?? 0) + 1;
    opts.onTrace?.({ part: 'exhaustive', level: r.level, trace });
    if (run % 200 === 0)
      opts.tick?.(`exhaustive ${cover.scenario.name}: ${run}/${traces - skipped} ${cover.kind === 'operator' ? 'logs' : 'interleavings'}`);
    if (!r.divergence) return true;
    first = { trace, level: r.level, divergence: r.divergence, at: since() };
    return false;
  };
  const window = opts.window !== undefined ? { window: opts.window } : {};
  if (cover.kind === 'operator') {
    const runnable: { index: number; trace: OperatorTrace }[] = [];
    for (const [index, trace] of cover.traces.entries()) if (mine(index)) runnable.push({ index, trace });
    if (levels.includes('operator')) {
      await runOperatorLockstepPipelined(
        runnable.map((x) => x.trace),
        opts.system,
        {
          ...window,
          onResult: (r) => onResult({ ...r, index: (runnable[r.index] as { index: number }).index }, { kind: 'operator', trace: r.trace }),
        },
      );
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
    await runClusterLockstepPipelined(runnable, opts.system, {
      ...window,
      onResult: (r) => onResult({ ...r, index: (runnable[r.index] as { index: number }).index }, { kind: 'cluster', trace: r.trace }),
    });
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
      result: { ...base, verdict: opts.signal?.aborted ? 'unknown' : run === 0 ? 'skipped' : 'pass', ms: performance.now() - t0 },
      ran,
    };
  const found: { trace: AnyTrace; level: Level; divergence: Divergence; at: number } = first;
  // A system that dies while being minimized still leaves the divergence found, unminimized.
  const minimal = await minimizeTrace(opts.system, found.level, found.trace, found.divergence).catch(() => ({
    trace: found.trace,
    divergence: found.divergence,
    stderr: undefined,
  }));
  const small = minimal.trace;
  const name = `exhaustive-${cover.scenario.name}`;
  const description =
    `${cover.kind === 'operator' ? 'Log' : 'Interleaving'} ${found.trace.trace.name} of the bounded-exhaustive scenario ${cover.scenario.name} ` +
    `(${cover.scenario.description}), cut at the divergence and minimized by deleting steps. ` +
    `It diverged at step ${minimal.divergence.step}: ${minimal.divergence.summary}`;
  const trace: AnyTrace =
    small.kind === 'cluster'
      ? { kind: 'cluster', trace: { format: small.trace.format, name, description, config: small.trace.config, steps: small.trace.steps } }
      : {
          kind: 'operator',
          trace: { format: small.trace.format, name, description, config: small.trace.config, steps: small.trace.steps },
        };
  return {
    result: { ...base, verdict: 'fail', ms: performance.now() - t0 },
    failure: {
      level: found.level,
      origin: 'exhaustive',
      scenario: cover.scenario.name,
      trace: withExpectations(trace),
      divergence: minimal.divergence,
      foundAfterMs: found.at,
      ...(minimal.stderr ? { stderr: minimal.stderr } : {}),
    },
    ran,
  };
}
