// What every part does with the first divergence it finds: cut the trace at
// the divergence and minimize it (lockstep/minimize.ts), then name and
// describe it as its counterexample file shows it, with the model's
// expectations filled in.
import type { AnyTrace, Level } from '../../spec/index.ts';
import type { StderrExcerpt, SystemUnderTest } from '../adapters/sut.ts';
import { withExpectations } from '../lockstep/anyTrace.ts';
import type { Divergence } from '../lockstep/divergence.ts';
import { minimizeTrace, type Minimized } from '../lockstep/minimize.ts';

/** minimizeTrace; a system that dies while being minimized still leaves the divergence found, unminimized. */
export function minimizeOrKeep(
  system: SystemUnderTest,
  level: Level,
  trace: AnyTrace,
  divergence: Divergence,
  stderr?: () => StderrExcerpt,
): Promise<Minimized> {
  return minimizeTrace(system, level, trace, divergence, undefined, stderr).catch(() => ({
    trace,
    divergence,
    ...(stderr ? { stderr } : {}),
  }));
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
