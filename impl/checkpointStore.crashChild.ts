// Child process for checkpointStore.test.ts: writes a good checkpoint of key
// "k/1", then starts a second one and, at the write point named on the
// command line, tells the parent and blocks until the parent kills it with
// SIGKILL. Not part of the library.
import { FileCheckpointStore, type CheckpointWritePoint } from './checkpointStore.ts';
import { JoinOperator } from './operator.ts';

const [directory, point] = process.argv.slice(2) as [string, CheckpointWritePoint];
const operator = new JoinOperator({ allowedLateness: 1, maxIntervalLength: 2 });
operator.apply({ kind: 'insert', key: 'k/1', side: 'L', id: 'a', ts: 1, start: 0, end: 2 });
let armed = false;
const store = FileCheckpointStore.open(directory, {
  onWritePoint(reached) {
    if (!armed || reached !== point) return;
    process.stdout.write(`at ${reached}\n`);
    // Block this thread for good; only SIGKILL ends the process.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  },
});
store.put({ key: 'k/1', epoch: 1, cursor: 1, state: operator.snapshot() });
process.stdout.write('first put done\n');
operator.apply({ kind: 'insert', key: 'k/1', side: 'R', id: 'b', ts: 1, start: 1, end: 1 });
armed = true;
store.put({ key: 'k/1', epoch: 2, cursor: 2, state: operator.snapshot() });
process.stdout.write('second put done\n');
