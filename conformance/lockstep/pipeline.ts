// The pipeline both levels' runs of many traces share: each trace's session
// opens and its requests go out while earlier traces are still being
// answered (PROTOCOL.md: a system handles requests in the order it receives
// them, so sessions cannot interfere), and the traces are judged in list
// order. After a death a trace's judge confirmed (deaths.ts), the system
// was started afresh: the traces sent to the dead process are sent again,
// and an open the death refused is tried once more.
import type { DivergenceFacts } from '../sut/divergence.ts';
import { isDeath, SutUnavailable } from '../sut/sut.ts';

/** A trace's judgement: its divergence if any, and whether its process died under it (the system now runs afresh). */
export interface PipelinedJudgement {
  readonly divergence?: DivergenceFacts;
  readonly died: boolean;
}

/** How the pipeline talks to one level's sessions. `A` is what a sent trace's replies come to. */
export interface PipelineStages<T, A> {
  /** Traces in flight at once (default 32): their requests are written before the first replies are read. */
  readonly window?: number;
  /** Opens the trace's session and sends its requests; `answered` is what they are answered with. */
  readonly send: (trace: T) => Promise<{ readonly answered: Promise<A> }>;
  /** Judges a trace from its answers; a divergence the death of its process explains comes from here too. */
  readonly judge: (trace: T, answered: Promise<A>) => Promise<PipelinedJudgement>;
  /** Called in list order; false stops the run (traces still in flight are left unjudged). */
  readonly onResult: (index: number, trace: T, divergence: DivergenceFacts | undefined) => boolean | undefined;
}

/** Runs `traces` through `stages`. Rejects with SutUnavailable if the system cannot be judged. */
export async function runPipelined<T, A>(traces: readonly T[], stages: PipelineStages<T, A>): Promise<void> {
  const window = Math.max(1, stages.window ?? 32);
  // `generation`: the process a trace was sent to.
  const inFlight: { index: number; trace: T; answered: Promise<A>; generation: number }[] = [];
  let generation = 0;
  let stopped = false;
  const send = async (trace: T): Promise<{ readonly answered: Promise<A> }> => {
    const sent = await stages.send(trace);
    // Judged later; a rejection left unobserved meanwhile must not count as unhandled.
    sent.answered.catch(() => undefined);
    return sent;
  };
  const judgeOldest = async (): Promise<void> => {
    const f = inFlight.shift();
    if (!f) return;
    // Sent to a process that died since on an earlier trace: sent again, to the one started afresh.
    if (f.generation !== generation) f.answered = (await send(f.trace)).answered;
    const { divergence, died } = await stages.judge(f.trace, f.answered);
    if (died) generation++;
    if (stages.onResult(f.index, f.trace, divergence) === false) stopped = true;
  };
  for (let index = 0; index < traces.length && !stopped; index++) {
    const trace = traces[index] as T;
    const sent = await send(trace).catch(async (e: unknown) => {
      // The system broke while earlier traces were in flight: they are judged first (a divergence or a death of
      // theirs is the verdict). A death that came back was one's divergence, and the system started afresh: once
      // more; any other break, the system cannot be judged.
      while (inFlight.length > 0 && !stopped) await judgeOldest();
      if (stopped) return undefined;
      if (!(e instanceof SutUnavailable) || !isDeath(e)) throw e;
      return send(trace);
    });
    if (sent === undefined) break;
    inFlight.push({ index, trace, answered: sent.answered, generation });
    if (inFlight.length >= window) await judgeOldest();
  }
  while (inFlight.length > 0 && !stopped) await judgeOldest();
}
