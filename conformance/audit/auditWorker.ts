// The audit's worker thread (auditThread.ts): runs one audit with the
// options it is given and posts its progress and its result, or its error
// as data; an `abort` message stops it as a signal would.
import { parentPort, workerData } from 'node:worker_threads';
import { adoptReadAheadCopies } from '../../spec/index.ts';
import { auditHistory } from './audit.ts';
import { AUDIT_THREAD, type AuditThreadData, type FromAuditThread, threadError } from './auditThread.ts';

const data = workerData as AuditThreadData | undefined;
const port = parentPort;
if (port !== null && data?.role === AUDIT_THREAD) {
  const post = (m: FromAuditThread): void => port.postMessage(m);
  const controller = new AbortController();
  port.on('message', (m: { abort?: string }) => {
    if (m.abort !== undefined) controller.abort(new Error(m.abort));
  });
  adoptReadAheadCopies(data.copies);
  auditHistory({ ...data.options, signal: controller.signal, onProgress: (progress) => post({ progress }) }).then(
    (result) => {
      post({ result });
      port.close();
    },
    (e: unknown) => {
      post({ error: threadError(e) });
      port.close();
    },
  );
}
