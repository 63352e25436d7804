// A worker thread of a check session (session.ts): builds the models it is
// sent (from a module and arguments, since functions cannot cross threads),
// and expands its share of each level it is given, over the shared store.
import { parentPort, workerData } from 'node:worker_threads';
import { Expander, type RunLimits } from './engine.ts';
import { FrontierWriter } from './frontier.ts';
import { buildModel, EXPLORER_THREAD, type FromWorker, type ToWorker } from './source.ts';
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

  async function handle(m: ToWorker): Promise<void> {
    if (m.type === 'simulate') {
      const key = JSON.stringify(m.source);
      let model = models.get(key);
      if (!model) models.set(key, (model = buildModel(m.source)));
      const tally = runWalks(await model, m.options, m.limits, m.shared, m.slot);
      const reply: FromWorker = { type: 'simulated', id: m.id, tally };
      port?.postMessage(reply);
      return;
    }
    if (m.type === 'join') {
      const key = JSON.stringify(m.source);
      let model = models.get(key);
      if (!model) models.set(key, (model = buildModel(m.source)));
      const store = new StateStore(m.buffers, true);
      taking.set(m.id, { expander: new Expander(await model, m.settings, store, undefined, m.limits), limits: m.limits });
      return;
    }
    const t = taking.get(m.id);
    if (!t) throw new Error(`exploration ${m.id} was never joined`);
    if (m.type === 'level') {
      const writer = new FrontierWriter(true, t.limits.spill, m.file);
      t.expander.expandLevel(m.segments, m.depth, m.levelEnd, writer, m.late === true);
      const reply: FromWorker = { type: 'level-done', id: m.id, segments: writer.finish(), generated: t.expander.generated };
      port?.postMessage(reply);
      return;
    }
    taking.delete(m.id);
    const reply: FromWorker = { type: 'tally', id: m.id, tally: t.expander.tally };
    port?.postMessage(reply);
  }

  port.on('message', (m: ToWorker) => {
    chain = chain
      .then(() => handle(m))
      .catch((e: unknown) => {
        const reply: FromWorker = { type: 'failed', id: m.id, message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
        port.postMessage(reply);
      });
  });
}
