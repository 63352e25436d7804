// A worker thread of a check session (session.ts): builds the models it is
// sent (from a module and arguments, since functions cannot cross threads),
// and takes part in the levels it is sent, over the shared store, beside the
// main thread. It answers every request once, in the order received.
import { parentPort, workerData } from 'node:worker_threads';
import { Expander, type RunLimits } from './engine.ts';
import { FrontierWriter } from './frontier.ts';
import { ModelFault } from './guard.ts';
import { buildModel, EXPLORER_THREAD, type FromWorker, type ModelSource, type ToWorker } from './source.ts';
import { runWalks } from './walkers.ts';
import { StateStore } from './store.ts';
import type { Model } from './types.ts';

interface Taking {
  readonly expander: Expander<unknown, unknown>;
  readonly limits: RunLimits;
}

// Only a thread a session started takes messages (importing this module anywhere else does nothing).
const port = (workerData as { role?: unknown } | null)?.role === EXPLORER_THREAD ? parentPort : null;
if (port) {
  const models = new Map<string, Promise<Model<unknown, unknown>>>();
  const taking = new Map<number, Taking>();
  let chain: Promise<void> = Promise.resolve();

  /** The model of `source`, built once per thread (a session may prepare it before an exploration joins it). */
  const modelOf = (source: ModelSource): Promise<Model<unknown, unknown>> => {
    const key = JSON.stringify(source);
    let model = models.get(key);
    if (!model) models.set(key, (model = buildModel(source)));
    return model;
  };

  async function handle(m: ToWorker): Promise<FromWorker> {
    const { req, id } = m;
    switch (m.type) {
      case 'prepare':
        await modelOf(m.source);
        return { req, id, type: 'prepared' };
      case 'simulate':
        return { req, id, type: 'simulated', tally: runWalks(await modelOf(m.source), m.options, m.limits, m.shared, m.slot) };
      case 'join': {
        const store = new StateStore(m.buffers, true);
        taking.set(id, { expander: new Expander(await modelOf(m.source), m.settings, store, undefined, m.limits), limits: m.limits });
        return { req, id, type: 'joined' };
      }
      case 'level': {
        const t = taking.get(id);
        if (!t) throw new Error(`exploration ${id} was never joined`);
        const writer = new FrontierWriter(true, t.limits.spill, m.file);
        t.expander.expandLevel(m.segments, m.depth, m.levelEnd, writer, true);
        return { req, id, type: 'level-done', segments: writer.finish(), generated: t.expander.generated };
      }
      case 'finish': {
        const t = taking.get(id);
        if (!t) throw new Error(`exploration ${id} was never joined`);
        taking.delete(id);
        return { req, id, type: 'tally', tally: t.expander.tally };
      }
    }
  }

  port.on('message', (m: ToWorker) => {
    chain = chain
      .then(() => handle(m))
      .then(
        (reply) => port.postMessage(reply),
        (e: unknown) => {
          const reply: FromWorker = {
            req: m.req,
            id: m.id,
            type: 'failed',
            message: e instanceof ModelFault ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e),
            ...(e instanceof ModelFault ? { faultyModelFile: e.where } : {}),
          };
          port.postMessage(reply);
        },
      );
  });
}
