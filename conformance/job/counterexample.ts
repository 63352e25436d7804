// What every part does with the first divergence it finds: cut the trace at
// the divergence and minimize it (lockstep/minimize.ts), explain it
// (report/), then name and describe it as its counterexample file shows
// it, with the model's expectations filled in.
import type { AnyTrace, Level } from '../../spec/index.ts';
import type { StderrExcerpt, SystemUnderTest } from '../sut/sut.ts';
import { withExpectations } from '../lockstep/anyTrace.ts';
import type { DivergenceFacts } from '../sut/divergence.ts';
import { minimizeTrace } from '../lockstep/minimize.ts';
import { explainDivergence, type Divergence } from '../report/divergence.ts';

/** A divergence found, minimized and explained. */
export interface Counterexample {
  readonly trace: AnyTrace;
  readonly divergence: Divergence;
  readonly stderr?: () => StderrExcerpt;
}

/**
 * minimizeTrace, then the divergence of the trace kept explained (once per
 * failure: what the report shows); a system that dies while being
 * minimized still leaves the divergence found, unminimized.
 */
export async function minimizedCounterexample(
  system: SystemUnderTest,
  level: Level,
  trace: AnyTrace,
  found: DivergenceFacts,
  stderr?: () => StderrExcerpt,
): Promise<Counterexample> {
  const minimal = await minimizeTrace(system, level, trace, found, undefined, stderr).catch(() => ({
    trace,
    divergence: found,
    ...(stderr ? { stderr } : {}),
  }));
  return { ...minimal, divergence: explainDivergence(minimal.divergence) };
}

/** The trace under a counterexample's name and description (in the order a reader sees first: what it is, the config, the steps), with the model's expectations. */
export function namedCounterexample(trace: AnyTrace, name: string, description: string): AnyTrace {
  const named: AnyTrace =
    trace.kind === 'cluster'
      ? { kind: 'cluster', trace: { format: trace.trace.format, name, description, config: trace.trace.config, steps: trace.trace.steps } }
      : {
          kind: 'operator',
          trace: { format: trace.trace.format, name, description, config: trace.trace.config, steps: trace.trace.steps },
        };
  return withExpectations(named);
}
