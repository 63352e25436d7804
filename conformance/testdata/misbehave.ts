// Hostile systems under test (conformance/hostile.e2e.test.ts,
// conformance/adapters/process.e2e.test.ts, cli/conform.e2e.test.ts). Each
// serves the reference model correctly for its first N request lines
// (default 4: the handshake and a little more), then does what MODE says.
// Every request is logged to stderr as `misbehave: request K`, and the
// moment it starts to misbehave as `misbehave: misbehaving now (t=MS)`, MS
// the wall clock in milliseconds (for the time to the verdict).
//
// Systems that cannot be judged (the verdict is unknown):
//   hang            stops answering, and leaves a grandchild `sleep` in its
//                   process group (the harness must kill the whole group)
//   exit            writes a line to stderr and exits with code 3 (a crash
//                   mid-trace)
//   text            writes a line that is not JSON
//   binary          writes a line of bytes: terminal escapes, a bell, bytes
//                   that are not UTF-8
//   huge            writes a 10 MB line
//   unsolicited     writes a JSON object that answers nothing
//   wrong-id        answers with an in_reply_to no request has
//   repeated-id     answers the request, then answers it again
//   flood-valid     writes protocol-looking lines without end, answering nothing
//   flood-blank     writes blank lines without end (blank lines are ignored:
//                   it is hung)
//   grandchild-exit starts a grandchild in its group that holds stdout
//                   (`sleep 300`), then exits with code 3: dead, although
//                   stdout stays open
//   setsid-hang     starts a grandchild in a session of its own that holds
//                   stdout (`sleep 300`, outside the process group), then stops
//                   answering
//   close-stdout    closes its stdout and goes on running (it reads stdin,
//                   answers nothing: it cannot)
//   refuse-d        refuses every init whose D (maxIntervalLength) is N
//                   with internal_error (a division by D), from the first
//                   request on, and serves the model otherwise
//   die-on-d        exits with code 3 at every init whose D is N (an
//                   uncaught division by D), and serves the model otherwise
//
// Systems of protocol version 1 (PROTOCOL.md, History), from the first
// request on (N is ignored):
//   v1              a system of protocol 1 as it was: an init of protocol 2
//                   is malformed to it (its code 10), any other request before
//                   a session has none (its code 15)
//   v1-ok           answers init with "protocol": 1 and serves the model
//   v1-codes        half-migrated: "protocol": 2, but every error reply keeps
//                   its protocol-1 code (not_supported 12, not_enabled 13, ...)
//
// Systems that conform (the verdict is pass), however awkwardly:
//   reverse         answers the lines of each chunk it reads in reverse order
//   slow            answers one line at a time, each DELAY ms (default 400)
//                   after the one before
//   stderr-flood    writes 100 KB to stderr per request, and one 5 MB stderr
//                   line without a newline at the start
//   ignore-sigterm  ignores SIGTERM and the end of stdin (only SIGKILL ends it)
//
// A wrong implementation with a well-formed protocol (a divergence):
//   ablate:ELEMENT  serves the model with a protocol element switched off
//                   (SPEC §6)
//   breaks-at-first-match
//                   serves the model until a request whose processing writes
//                   a match: that one is answered with error 1003
//                   (internal_error), and every later request of the session
//                   too, inspect included; the next init starts afresh
//
// Usage: node --import tsx conformance/testdata/misbehave.ts MODE [N] [DELAY]
import { spawn } from 'node:child_process';
import { closeSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createProtocolServer } from '../adapters/protocolServer.ts';
import { modelSut } from '../sut/modelSut.ts';
import { createModelCluster } from '../sut/modelCluster.ts';
import { PROTOCOL_ELEMENTS, type ProtocolElement } from '../../model/cluster/clusterState.ts';
import { PROTOCOL_ERRORS, PROTOCOL_V1_ERRORS } from '../../spec/index.ts';

// stderr is written synchronously: a line logged before a reply is in the pipe before it, even if the process is killed at once.
function log(text: string): void {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; ) {
    try {
      at += writeSync(2, bytes, at);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
    }
  }
}

const mode = process.argv[2] ?? 'hang';
const after = Number(process.argv[3] ?? 4);
const delayMs = Number(process.argv[4] ?? 400);
const CORRECT_MODES = ['reverse', 'slow', 'stderr-flood', 'ignore-sigterm'];

/** Mode `breaks-at-first-match`: the session is broken from the first reply that writes a match until the next init. */
let sessionBroken = false;
function breakingReply(line: string): string {
  const request = JSON.parse(line) as { id: number; type: string };
  if (request.type === 'init') sessionBroken = false;
  const internal = (): string =>
    JSON.stringify({ in_reply_to: request.id, type: 'error', code: PROTOCOL_ERRORS.internal_error, text: 'the state store went away' });
  if (sessionBroken) return internal();
  const answer = server.handle(line);
  const events = (JSON.parse(answer) as { events?: { type: string; changes?: unknown[] }[] }).events ?? [];
  if (!events.some((e) => e.type === 'processed' && (e.changes?.length ?? 0) > 0)) return answer;
  sessionBroken = true;
  return internal();
}

const ablated = mode.startsWith('ablate:') ? (mode.slice('ablate:'.length) as ProtocolElement) : undefined;
if (ablated && !PROTOCOL_ELEMENTS.includes(ablated)) {
  log(`misbehave: unknown protocol element ${ablated}\n`);
  process.exit(254);
}
const server = createProtocolServer(
  ablated
    ? {
        ...modelSut,
        implementation: { name: `model-without-${ablated}`, version: '0' },
        cluster: (config) => createModelCluster({ ...config, ablate: [ablated] }),
      }
    : modelSut,
);

/** Keeps the process alive whatever happens to stdin. */
const stayAlive = (): void => void setInterval(() => {}, 1 << 30);

if (mode === 'ignore-sigterm') {
  process.on('SIGTERM', () => log('misbehave: SIGTERM ignored\n'));
  stayAlive();
}
if (mode === 'stderr-flood') log('z'.repeat(5 * 1024 * 1024));

// Replies of one chunk of input, written together (reversed in mode `reverse`).
let batch: string[] = [];
let flushing = false;
function reply(line: string): void {
  batch.push(line);
  if (flushing) return;
  flushing = true;
  setImmediate(() => {
    flushing = false;
    const lines = batch;
    batch = [];
    if (mode === 'reverse') lines.reverse();
    process.stdout.write(lines.map((l) => `${l}\n`).join(''));
  });
}

// Mode `slow`: one reply at a time, each `delayMs` after the one before.
const slowQueue: string[] = [];
let slowRunning = false;
function replySlowly(line: string): void {
  slowQueue.push(line);
  if (slowRunning) return;
  slowRunning = true;
  const next = (): void => {
    const l = slowQueue.shift();
    if (l === undefined) {
      slowRunning = false;
      return;
    }
    process.stdout.write(`${l}\n`);
    setTimeout(next, delayMs);
  };
  setTimeout(next, delayMs);
}

/** The reply a system of protocol 1 gives (modes v1, v1-ok, v1-codes; see the top). */
let v1Session = false;
function asProtocolOne(line: string): string {
  const request = JSON.parse(line) as { id: number; type: string; protocol?: number };
  const error = (code: number, text: string): string => JSON.stringify({ in_reply_to: request.id, type: 'error', code, text });
  if (mode === 'v1') {
    if (request.type === 'init' && request.protocol !== 1) return error(PROTOCOL_V1_ERRORS.malformed_request, '/protocol must be 1');
    if (!v1Session) return error(PROTOCOL_V1_ERRORS.no_session, 'no session: send init first');
  }
  const reply = JSON.parse(server.handle(line)) as { type: string; code?: number; protocol?: number };
  if (request.type === 'init' && reply.type === 'init_ok') v1Session = true;
  if (mode === 'v1-ok' && reply.type === 'init_ok') reply.protocol = 1;
  if (mode === 'v1-codes' && reply.type === 'error') {
    const name = (Object.keys(PROTOCOL_ERRORS) as (keyof typeof PROTOCOL_ERRORS)[]).find((n) => PROTOCOL_ERRORS[n] === reply.code);
    if (name !== undefined) reply.code = PROTOCOL_V1_ERRORS[name];
  }
  return JSON.stringify(reply);
}

let seen = 0;
let stopped = false;
let misbehaving = false;
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (stopped) return;
  seen++;
  log(`misbehave: request ${seen}\n`);
  if (mode === 'v1' || mode === 'v1-ok' || mode === 'v1-codes') {
    if (seen === 1) log(`misbehave: misbehaving now (t=${Date.now()})\n`);
    reply(asProtocolOne(line));
    return;
  }
  if (mode === 'stderr-flood') {
    for (let i = 0; i < 50; i++) log(`misbehave: noise ${seen}.${i} ${'y'.repeat(2000)}\n`);
  }
  if (mode === 'refuse-d' || mode === 'die-on-d') {
    const request = JSON.parse(line) as {
      id: number;
      type: string;
      config?: { maxIntervalLength?: number; join?: { maxIntervalLength?: number } };
    };
    const D = request.config?.maxIntervalLength ?? request.config?.join?.maxIntervalLength;
    if (request.type !== 'init' || D !== after) reply(server.handle(line));
    else if (mode === 'refuse-d')
      reply(JSON.stringify({ in_reply_to: request.id, type: 'error', code: PROTOCOL_ERRORS.internal_error, text: 'division by zero' }));
    else {
      log('misbehave: ZeroDivisionError at init\n');
      process.exit(3);
    }
    return;
  }
  if (mode === 'breaks-at-first-match') {
    reply(breakingReply(line));
    return;
  }
  if (ablated || CORRECT_MODES.includes(mode) || seen <= after) {
    const answer = server.handle(line);
    if (mode === 'slow') replySlowly(answer);
    else reply(answer);
    return;
  }
  const id = (JSON.parse(line) as { id: number }).id;
  if (!misbehaving) {
    misbehaving = true;
    log(`misbehave: misbehaving now (t=${Date.now()})\n`);
  }
  switch (mode) {
    case 'hang':
      stopped = true;
      log('misbehave: hanging now\n');
      spawn('sleep', ['300'], { stdio: 'ignore' });
      stayAlive();
      return;
    case 'exit':
      log('misbehave: simulated crash\n');
      process.exit(3);
      return;
    case 'text':
      process.stdout.write('this is not JSON\n');
      return;
    case 'binary':
      process.stdout.write(Buffer.concat([Buffer.from('\u001b[2J\u001b]0;owned\u0007'), Buffer.from([0xff, 0xfe, 0x00, 0x41, 0x0a])]));
      return;
    case 'huge':
      process.stdout.write(`${'x'.repeat(10 * 1024 * 1024)}\n`);
      return;
    case 'unsolicited':
      process.stdout.write('{"hello":"world"}\n');
      return;
    case 'wrong-id':
      process.stdout.write(`${JSON.stringify({ in_reply_to: id + 1000, type: 'error', code: 19, text: 'wrong id' })}\n`);
      return;
    case 'repeated-id': {
      const answer = server.handle(line);
      process.stdout.write(`${answer}\n${answer}\n`);
      stopped = true;
      return;
    }
    case 'flood-valid':
    case 'flood-blank': {
      stopped = true;
      const chunk =
        mode === 'flood-blank'
          ? '\n'.repeat(64 * 1024)
          : `${JSON.stringify({ in_reply_to: null, type: 'error', code: 19, text: 'flood' })}\n`.repeat(1000);
      const flood = (): void => {
        // Write as fast as the pipe takes it, no faster (the harness may stop reading).
        while (process.stdout.write(chunk)) {
          /* keep writing */
        }
        process.stdout.once('drain', flood);
      };
      flood();
      return;
    }
    case 'grandchild-exit':
      log('misbehave: leaving a grandchild that holds stdout, and exiting\n');
      spawn('sleep', ['300'], { stdio: ['ignore', 'inherit', 'ignore'] });
      process.exit(3);
      return;
    case 'close-stdout':
      stopped = true;
      log('misbehave: closing stdout, running on\n');
      // process.stdout.destroy() leaves the descriptor open: close it (a reply still queued then fails, quietly).
      process.stdout.on('error', () => {});
      closeSync(1);
      stayAlive();
      return;
    case 'setsid-hang':
      stopped = true;
      log('misbehave: a grandchild in its own session holds stdout; hanging now\n');
      // detached: setsid(2), a session and a process group of its own.
      spawn('sleep', ['300'], { stdio: ['ignore', 'inherit', 'ignore'], detached: true }).unref();
      stayAlive();
      return;
    default:
      log(`misbehave: unknown mode ${mode}\n`);
      process.exit(254);
  }
});
