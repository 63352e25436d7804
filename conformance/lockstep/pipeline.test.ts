import { describe, expect, it } from 'vitest';
import { SutUnavailable } from '../sut/sut.ts';
import type { DivergenceFacts } from '../sut/divergence.ts';
import { runPipelined } from './pipeline.ts';

/**
 * A stand-in process: it answers each trace (a number) with its square, and
 * dies on the traces listed in `deadly`. The death shows late: the next
 * trace is still written to the dead process, the one after is refused.
 */
function fakeSystem(deadly: readonly number[]) {
  let process = 0;
  const sent: { trace: number; process: number }[] = [];
  let sendsLeft = Number.POSITIVE_INFINITY;
  return {
    sent,
    send: async (trace: number) => {
      if (sendsLeft <= 0) throw new SutUnavailable('dead: exited with code 1');
      sendsLeft--;
      sent.push({ trace, process });
      if (deadly.includes(trace)) sendsLeft = 1;
      const answeredBy = process;
      return {
        answered: Promise.resolve().then(() => {
          if (deadly.includes(trace) || answeredBy !== process) throw new SutUnavailable('dead: exited with code 1');
          return trace * trace;
        }),
      };
    },
    /** A death judged: the process is started afresh. */
    revive: () => {
      process++;
      sendsLeft = Number.POSITIVE_INFINITY;
    },
  };
}

const divergenceFor = (trace: number): DivergenceFacts => ({ step: trace }) as unknown as DivergenceFacts;

describe('runPipelined: traces in flight, judged in list order', () => {
  it('judges every trace in list order with at most `window` in flight', async () => {
    const system = fakeSystem([]);
    const order: number[] = [];
    await runPipelined([1, 2, 3, 4, 5, 6, 7], {
      window: 3,
      send: system.send,
      judge: async (_trace, answered) => {
        await answered;
        // Judging trace k happens once k and at most window - 1 later traces have gone out.
        expect(system.sent.length - order.length).toBeLessThanOrEqual(3);
        return { died: false };
      },
      onResult: (_index, trace) => {
        order.push(trace);
        return undefined;
      },
    });
    expect(order).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('stops at the first result that says false, sending nothing after', async () => {
    const system = fakeSystem([]);
    const order: number[] = [];
    await runPipelined([1, 2, 3, 4, 5, 6], {
      window: 1,
      send: system.send,
      judge: async (trace, answered) => ((await answered) === 9 ? { divergence: divergenceFor(trace), died: false } : { died: false }),
      onResult: (_index, trace, divergence) => {
        order.push(trace);
        return divergence === undefined;
      },
    });
    expect(order).toEqual([1, 2, 3]);
    expect(system.sent.map((s) => s.trace)).toEqual([1, 2, 3]);
  });

  it('after a confirmed death, the traces sent to the dead process and the open it refused go to the fresh one', async () => {
    const system = fakeSystem([3]);
    const results: { trace: number; divergence: boolean }[] = [];
    await runPipelined([1, 2, 3, 4, 5, 6], {
      window: 4,
      send: system.send,
      judge: async (trace, answered) => {
        try {
          await answered;
          return { died: false };
        } catch {
          // The death came back at trace 3 (deaths.ts): its divergence, and the system runs afresh.
          system.revive();
          return { divergence: divergenceFor(trace), died: true };
        }
      },
      onResult: (_index, trace, divergence) => {
        results.push({ trace, divergence: divergence !== undefined });
        return undefined;
      },
    });
    expect(results).toEqual([1, 2, 3, 4, 5, 6].map((trace) => ({ trace, divergence: trace === 3 })));
    // 4 went to the dead process and was sent again; 5's open was refused, then sent to the fresh one.
    expect(system.sent.filter((s) => s.trace >= 4)).toEqual([
      { trace: 4, process: 0 },
      { trace: 4, process: 1 },
      { trace: 5, process: 1 },
      { trace: 6, process: 1 },
    ]);
  });

  it('a break that is not a death, with nothing in flight to explain it, rejects: the system cannot be judged', async () => {
    await expect(
      runPipelined([1], {
        send: async () => {
          throw new SutUnavailable('timeout: no reply in 10 s');
        },
        judge: async () => ({ died: false }),
        onResult: () => undefined,
      }),
    ).rejects.toThrow(/timeout/);
  });
});
