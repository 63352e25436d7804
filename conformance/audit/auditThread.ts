// `streamjoin audit` in memory it bounds itself. The check holds only what
// retention and its partitions allow (historyCheck.ts, spill.ts), but V8
// sizes a heap by its own limit, not by what is live: under node's default
// limit (a quarter of the machine's memory, or more) it lets garbage pile up
// to gigabytes before it collects. So the audit runs on a worker thread
// whose old generation is capped (`heapMb`): what is live fits in it by
// construction, and the collector works within it. A history that really
// needs more (a watermark that never advances holds every row, J8) stops
// with its reason, never a verdict, and a larger `heapMb` audits it.
// A thread stopped by a full heap runs no `finally`: the files it spills
// (spill.ts, twoInputs.ts) go into a temporary directory of its own, which
// this thread removes however the audit ends.
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { InputError, Interrupted, abortReason, fileToOpen, readAheadCopies } from '../../spec/index.ts';
import type { ErrorCode } from '../../spec/index.ts';
import { auditHistory, type AuditOptions, type AuditProgress, type AuditResult } from './audit.ts';

/** The audit thread's old generation, in MB, by default: with the main thread and buffers, a peak RSS under 500 MB. */
export const AUDIT_HEAP_MB = 320;

/**
 * The audit thread's young generation, in MB. V8 sizes a thread's young
 * generation from its old one, a few MB for AUDIT_HEAP_MB: the rows, matches
 * and oracle steps that live for a window of the log then outlive many
 * scavenges, are copied at each and promoted, and full collections walk
 * them. 96 MB (semi-spaces of 32 MB) let more of them die young: on the
 * dense benchmark history (2·10^5 records) 45 scavenges instead of 65 and
 * 14–15 mark-compacts instead of 18, for about 30 MB more peak RSS
 * (docs/benchmarks.md).
 */
const AUDIT_YOUNG_MB = 96;

/** Marks the worker thread (workerData.role). */
export const AUDIT_THREAD = 'streamjoin-audit';

/** What the worker is given: the options that are data, the inputs read ahead. */
export interface AuditThreadData {
  readonly role: typeof AUDIT_THREAD;
  readonly options: Omit<AuditOptions, 'onProgress' | 'signal'>;
  readonly copies: [string, string][];
}

/** What the worker says. */
export type FromAuditThread = { readonly progress: AuditProgress } | { readonly result: AuditResult } | { readonly error: ThreadError };

/** An error thrown on the worker, as data. */
export type ThreadError =
  | { readonly kind: 'input'; readonly code: ErrorCode; readonly where: string; readonly message: string }
  | { readonly kind: 'interrupted'; readonly reason: string }
  | { readonly kind: 'internal'; readonly message: string; readonly stack: string | undefined };

/** The error as data, to post. */
export function threadError(e: unknown): ThreadError {
  if (e instanceof InputError) return { kind: 'input', code: e.code, where: e.where, message: e.message };
  if (e instanceof Interrupted) return { kind: 'interrupted', reason: e.reason };
  return { kind: 'internal', message: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined };
}

function rethrown(e: ThreadError): Error {
  if (e.kind === 'input') return new InputError(e.code, e.where, e.message);
  if (e.kind === 'interrupted') return new Interrupted(e.reason);
  const error = new Error(e.message);
  if (e.stack !== undefined) error.stack = e.stack;
  return error;
}

function startThread(data: AuditThreadData, heapMb: number, temporary: string): Worker {
  const here = import.meta.url;
  const resourceLimits = { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: AUDIT_YOUNG_MB };
  // The thread's os.tmpdir() (its own copy of the environment).
  const env = { ...process.env, TMPDIR: temporary, TMP: temporary, TEMP: temporary };
  if (extname(fileURLToPath(here)) !== '.ts')
    return new Worker(new URL('./auditWorker.js', here), { workerData: data, resourceLimits, env });
  // From the TypeScript sources (tests, or the checkout's launcher): register tsx in the thread, then load the worker.
  const require = createRequire(here);
  const pkgFile = require.resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { exports: Record<string, { import?: { default?: string } }> };
  const api = pathToFileURL(join(pkgFile, '..', pkg.exports['./esm/api']?.import?.default ?? 'dist/esm/api/index.mjs')).href;
  const worker = new URL('./auditWorker.ts', here).href;
  const code = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(worker)}); });`;
  return new Worker(code, { eval: true, workerData: data, resourceLimits, env });
}

/**
 * `auditHistory` on a worker thread whose heap is capped at `heapMb` (by
 * default AUDIT_HEAP_MB): the same result, errors and interrupts, in
 * memory bounded whatever the history.
 */
export function auditInBoundedThread(options: AuditOptions, heapMb = AUDIT_HEAP_MB): Promise<AuditResult> {
  const { onProgress, signal, ...data } = options;
  if (signal?.aborted) return Promise.reject(new Interrupted(abortReason(signal)));
  const temporary = mkdtempSync(join(tmpdir(), 'streamjoin-audit-thread-'));
  const removeTemporary = (): void => rmSync(temporary, { recursive: true, force: true });
  let worker: Worker;
  try {
    worker = startThread({ role: AUDIT_THREAD, options: data, copies: readAheadCopies() }, heapMb, temporary);
  } catch (e) {
    removeTemporary();
    throw e;
  }
  return new Promise<AuditResult>((resolve, reject) => {
    let settled = false;
    const onAbort = (): void => worker.postMessage({ abort: abortReason(signal) });
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      // Now, for a caller that exits at once, and again once the thread has stopped writing.
      removeTemporary();
      f();
      void worker.terminate().then(removeTemporary, removeTemporary);
    };
    worker.on('message', (m: FromAuditThread) => {
      if ('progress' in m) onProgress?.(m.progress);
      else if ('result' in m) settle(() => resolve(m.result));
      else settle(() => reject(rethrown(m.error)));
    });
    worker.on('error', (e: Error & { code?: string }) =>
      settle(() =>
        reject(
          e.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new Interrupted(
                `the audit's heap of ${heapMb} MB is full: no verdict; give it more with --heap MB ` +
                  '(what it holds grows with the rows a stalled watermark keeps, J8, and with the changes of a key its sink writes far from log order)',
              )
            : e,
        ),
      ),
    );
    worker.on('exit', (code) => settle(() => reject(new Error(`internal: the audit thread ended (exit ${code}) without a result`))));
  });
}

/** Below this much text (gzip counted five times its size), an audit cannot hold much: it runs on this thread, with no thread to start. */
const SMALL_HISTORY_BYTES = 16 << 20;

/** The size of a file's text, about (gzip: five times its size on disk); 0 if it cannot be read (the reader says why). */
function textBytes(path: string | undefined): number {
  if (path === undefined) return 0;
  try {
    const file = fileToOpen(path);
    const size = statSync(file).size;
    const head = Buffer.alloc(2);
    const fd = openSync(file, 'r');
    try {
      return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b ? size * 5 : size;
    } finally {
      closeSync(fd);
    }
  } catch {
    return 0;
  }
}

/**
 * `streamjoin audit`'s way to run an audit: a small history on this thread;
 * a larger one, or any when `heapMb` is given, on a thread whose heap is
 * capped (auditInBoundedThread).
 */
export function auditBounded(options: AuditOptions, heapMb?: number): Promise<AuditResult> {
  const text = textBytes(options.log) + textBytes(options.logRight) + textBytes(options.sink);
  if (heapMb === undefined && text < SMALL_HISTORY_BYTES) return auditHistory(options);
  return auditInBoundedThread(options, heapMb);
}
