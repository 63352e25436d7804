// Child process for cluster.durability.e2e.test.ts: runs a cluster trace with a
// data directory and, at the Nth durable write point, tells the parent where
// it is and blocks until the parent kills it with SIGKILL. After each action
// it prints `ack <step> <log index or -1>`; a record is acknowledged only
// after `apply` returned, i.e. once it is durable. Not part of the library.
//
// usage: node --import tsx cluster.crashChild.ts <dataDir> <trace.json> <killAt>
//   trace.json: { "config": ClusterConfig, "actions": ClusterAction[] }
import { readFileSync } from 'node:fs';
import type { ClusterAction, ClusterConfig } from '../../spec/index.ts';
import { ImplCluster } from './cluster.ts';

const [dataDir, tracePath, killAtText] = process.argv.slice(2) as [string, string, string];
const trace = JSON.parse(readFileSync(tracePath, 'utf8')) as { config: ClusterConfig; actions: ClusterAction[] };
const killAt = Number(killAtText);
let writes = 0;
const cluster = ImplCluster.open(trace.config, {
  dataDir,
  onWritePoint(point, path) {
    writes++;
    if (writes !== killAt) return;
    process.stdout.write(`at ${writes} ${point} ${path}\n`);
    // Block this thread for good; only SIGKILL ends the process.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  },
});
trace.actions.forEach((action, step) => {
  const result = cluster.apply(action);
  if ('error' in result) throw new Error(`step ${step} was refused: ${result.error.text}`);
  const appended = result.events.find((e) => e.type === 'appended');
  process.stdout.write(`ack ${step} ${appended?.type === 'appended' ? appended.index : -1}\n`);
});
process.stdout.write('done\n');
