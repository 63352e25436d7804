// The hostile systems under test, and how to run the harness against one
// and observe it: shared by the hostile-system suite
// (conformance/hostile.e2e.test.ts) and the table of verdicts and times
// (scripts/hostileTable.ts). Test support only.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUFFERING_HINT } from '../adapters/process.ts';
import { renumberedCodesText } from '../../spec/index.ts';
import { livingWithEnvironment } from '../adapters/processGroup.ts';

const root = join(import.meta.dirname, '..', '..');

export const misbehave = (mode: string, after = 4, delay?: number): string =>
  `node --import tsx conformance/testdata/misbehave.ts ${mode} ${after}${delay !== undefined ? ` ${delay}` : ''}`;

/** The renumbering of protocol 2, as every protocol-1 verdict names it. */
const RENUMBERED = renumberedCodesText();

/** Generous: only hung systems wait for their timeout. */
export const PATIENT = 60_000;
/** Short: what a hung system is given. */
export const HUNG = 2_000;

export interface HostileCase {
  /** What the system does. */
  readonly does: string;
  readonly sut: string;
  /** The command and its arguments besides --sut, --timeout, --json and --out. */
  readonly run: readonly string[];
  readonly timeoutMs: number;
  readonly verdict: 'pass' | 'unknown';
  /** The reason's wording (unknown). */
  readonly reason?: RegExp;
}

/** The systems, each with the run that meets it; `seed` seeds conform's random traces. */
/**
 * What the reason of a death mid-session adds (lockstep/deaths.ts): no reply
 * came, not even the init's (its lines lost with the process), so the trace
 * is run once more to its first step in a fresh process, which answers it:
 * the death did not come back, and the verdict stays unknown.
 */
const NOT_AGAIN = String.raw`, before the session's init was answered \(a valid config, J0 and C1: \{.*\}\); run again up to step 1 in a fresh process, it answered every step: the death did not come back at that step`;

export function hostileCases(seed: number): readonly HostileCase[] {
  const conform = (...more: string[]): string[] => ['conform', `--seed=${seed}`, '--startup-timeout', String(PATIENT), ...more];
  return [
    {
      does: 'exits at once',
      sut: `sh -c 'echo "misbehave: misbehaving now (t=$(date +%s%3N))" >&2; echo "cannot start: no licence" >&2; exit 3'`,
      run: conform('--runs', '1'),
      timeoutMs: PATIENT,
      verdict: 'unknown',
      reason: /^dead: the process exited with code 3 with requests outstanding$/,
    },
    {
      does: 'crashes mid-trace',
      sut: misbehave('exit', 6),
      run: conform('--runs', '1'),
      timeoutMs: PATIENT,
      verdict: 'unknown',
      reason: new RegExp(`^dead: the process exited with code 3 with requests outstanding${NOT_AGAIN}$`),
    },
    {
      does: 'hangs (a grandchild in its group)',
      sut: misbehave('hang'),
      run: conform('--runs', '1'),
      timeoutMs: HUNG,
      verdict: 'unknown',
      reason: new RegExp(`^hung: no reply to request \\d+ \\(record\\) within ${HUNG} ms; ${escapeRegExp(BUFFERING_HINT)}$`),
    },
    {
      does: 'writes garbage',
      sut: misbehave('text'),
      run: conform('--runs', '1'),
      timeoutMs: PATIENT,
      verdict: 'unknown',
      reason: /^babbling: a stdout line is not JSON: this is not JSON$/,
    },
    {
      does: 'writes bytes: terminal escapes, a bell, not UTF-8 (quoted escaped)',
      sut: misbehave('binary'),
      run: conform('--runs', '1'),
      timeoutMs: PATIENT,
      verdict: 'unknown',
      reason: /^babbling: a stdout line is not JSON: \\u001b\[2J\\u001b\]0;owned\\u0007\uFFFD\uFFFD\\u0000A$/,
    },
    {
      does: 'writes an oversized line',
      sut: misbehave('huge'),
      run: conform('--runs', '1'),
      timeoutMs: PATIENT,
      verdict: 'unknown',
      reason: /^babbling: a stdout line of \d+\+ bytes is over the cap of 1048576 bytes$/,
    },
    {
      does: 'answers a wrong id',
      sut: misbehave('wrong-id'),
      run: conform('--runs', '1'),
      timeoutMs: PATIENT,
      verdict: 'unknown',
      reason: /^babbling: a reply with in_reply_to \d+ answers no outstanding request: \{"in_reply_to":\d+,/,
    },
    {
      does: 'answers an id twice',
      sut: misbehave('repeated-id'),
      run: conform('--runs', '1'),
      timeoutMs: PATIENT,
      verdict: 'unknown',
      reason: /^babbling: a reply with in_reply_to 5 answers no outstanding request: \{"in_reply_to":5,/,
    },
    {
      does: 'writes an unsolicited line',
      sut: misbehave('unsolicited'),
      run: conform('--runs', '1'),
      timeoutMs: PATIENT,
      verdict: 'unknown',
      reason: /^babbling: an unsolicited stdout line \(no in_reply_to\): \{"hello":"world"\}$/,
    },
    {
      does: 'floods valid-looking lines',
      sut: misbehave('flood-valid'),
      run: conform('--runs', '1'),
      timeoutMs: PATIENT,
      verdict: 'unknown',
      reason: /^babbling: a reply with in_reply_to null answers no outstanding request/,
    },
    {
      does: 'floods blank lines (ignored: it never answers)',
      sut: misbehave('flood-blank'),
      run: conform('--runs', '1'),
      timeoutMs: HUNG,
      verdict: 'unknown',
      reason: new RegExp(`^hung: no reply to request \\d+ \\(record\\) within ${HUNG} ms; `),
    },
    {
      does: 'exits, leaving a grandchild in its group that holds stdout',
      sut: misbehave('grandchild-exit'),
      run: conform('--runs', '1'),
      timeoutMs: PATIENT,
      verdict: 'unknown',
      reason: new RegExp(`^dead: the process exited with code 3 with requests outstanding${NOT_AGAIN}$`),
    },
    {
      does: 'hangs, with a grandchild outside its group (setsid) holding stdout',
      sut: misbehave('setsid-hang'),
      run: conform('--runs', '1'),
      timeoutMs: HUNG,
      verdict: 'unknown',
      reason: new RegExp(`^hung: no reply to request \\d+ \\(record\\) within ${HUNG} ms; `),
    },
    {
      // Given the hung system's timeout: were its closed stdout not seen at once, the verdict would be "hung".
      does: 'closes its stdout and runs on',
      sut: misbehave('close-stdout', 6),
      run: conform('--runs', '1'),
      timeoutMs: HUNG,
      verdict: 'unknown',
      reason: new RegExp(
        `^dead: it closed its stdout while it still runs, with requests outstanding: it can send no reply any more${NOT_AGAIN}$`,
      ),
    },
    {
      does: 'speaks protocol 1 (refuses a protocol-2 init with its malformed_request, 10)',
      sut: misbehave('v1'),
      run: conform('--runs', '1'),
      timeoutMs: PATIENT,
      verdict: 'unknown',
      reason: new RegExp(
        `^protocol: this system speaks protocol 1 \\(or still answers with its error codes\\): the reply to request 4 \\(record\\) is error 15, protocol 1's no_session, .*${escapeRegExp(RENUMBERED)}`,
      ),
    },
    {
      does: 'answers init with "protocol": 1',
      sut: misbehave('v1-ok'),
      run: conform('--runs', '1'),
      timeoutMs: PATIENT,
      verdict: 'unknown',
      reason: new RegExp(`^protocol: this system speaks protocol 1 \\(its init_ok says "protocol": 1\\); .*${escapeRegExp(RENUMBERED)}`),
    },
    {
      does: 'says protocol 2 but answers with the error codes of protocol 1 (at level operator)',
      sut: misbehave('v1-codes'),
      run: conform('--level', 'operator', '--runs', '1'),
      timeoutMs: PATIENT,
      verdict: 'unknown',
      reason: new RegExp(
        `^protocol: inspect at level operator \\(a request above the session's level, which protocol 2 answers with error 10, not_supported\\) ` +
          `was refused with error 12 \\(malformed_request: inspect is not part of level operator\\); 12 was not_supported in protocol 1: .*${escapeRegExp(RENUMBERED)}`,
      ),
    },
    {
      does: 'says protocol 2 but answers with the error codes of protocol 1 (at level cluster: a refused action)',
      sut: misbehave('v1-codes'),
      run: conform('--level', 'cluster', '--runs', '1'),
      timeoutMs: PATIENT,
      verdict: 'unknown',
      // The first refusal it sends is a code protocol 2 does not have.
      reason: new RegExp(
        `^protocol: this system speaks protocol 1 \\(or still answers with its error codes\\): the reply to request \\d+ \\(\\w+\\) ` +
          `is error 13, protocol 1's not_enabled, a code protocol 2 does not have; .*${escapeRegExp(RENUMBERED)}`,
      ),
    },
    {
      does: 'does not flush its stdout (Python, block-buffered)',
      sut: 'python3 conformance/testdata/noflush.py',
      // --timeout bounds the start-up too: no --startup-timeout here.
      run: ['conform', `--seed=${seed}`, '--runs', '1'],
      timeoutMs: HUNG,
      verdict: 'unknown',
      reason: new RegExp(`^hung: no reply to request 1 \\(init\\) within ${HUNG} ms of starting; ${escapeRegExp(BUFFERING_HINT)}$`),
    },
    {
      does: 'answers each chunk in reverse order (conforms)',
      sut: misbehave('reverse'),
      run: conform('--level', 'operator', '--runs', '5'),
      timeoutMs: PATIENT,
      verdict: 'pass',
    },
    {
      // 11 requests 700 ms apart: 7.7 s in all, more than --timeout (5 s), each reply well within it.
      does: 'answers slowly, one reply at a time (conforms)',
      sut: misbehave('slow', 4, 700),
      run: ['replay', join(root, 'spec', 'examples', 'invalid-records.trace.json'), '--startup-timeout', String(PATIENT)],
      timeoutMs: 5_000,
      verdict: 'pass',
    },
    {
      does: 'floods stderr (conforms)',
      sut: misbehave('stderr-flood'),
      run: conform('--level', 'operator', '--runs', '5'),
      timeoutMs: PATIENT,
      verdict: 'pass',
    },
    {
      does: 'ignores SIGTERM and the end of stdin (conforms; SIGKILL ends it)',
      sut: misbehave('ignore-sigterm'),
      run: conform('--level', 'operator', '--runs', '2'),
      timeoutMs: PATIENT,
      verdict: 'pass',
    },
  ];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface Outcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall clock (ms) when the verdict was printed, and when the process exited. */
  /** Wall clock (ms) when the harness was started. */
  readonly startedAt: number;
  readonly verdictAt: number;
  readonly exitAt: number;
}

/** Runs the CLI as a process, marking its environment so that everything it starts can be found. */
export function runHarness(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const startedAt = Date.now();
    const child = spawn(process.execPath, ['bin/streamjoin.js', ...argv], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let verdictAt = 0;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      verdictAt ||= Date.now();
      stdout += text;
    });
    child.stderr.on('data', (text: string) => {
      stderr += text;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr, startedAt, verdictAt, exitAt: Date.now() }));
  });
}

/** One case run as the suite runs it: the outcome, the report, and what it left behind. */
export interface CaseRun extends Outcome {
  readonly argv: readonly string[];
  readonly report: { verdict: string; reason?: string; stderrTail?: string[]; unknown?: { reason: string; stderrTail: string[] } | null };
  readonly reason: string;
  /** Wall clock (ms) when the system started to misbehave (or started, if it misbehaves from the start), if it said. */
  readonly misbehavedAt: number | undefined;
  /** Processes of the run still alive after the harness exited; files left in TMPDIR and --out. */
  readonly processesLeft: readonly number[];
  readonly filesLeft: readonly string[];
}

/** Runs the harness against one hostile system, in temporary directories it removes. */
export async function runCase(c: HostileCase): Promise<CaseRun> {
  const tag = randomBytes(8).toString('hex');
  const scratch = mkdtempSync(join(tmpdir(), 'sj-hostile-tmp-'));
  const out = mkdtempSync(join(tmpdir(), 'sj-hostile-out-'));
  try {
    const argv = [...c.run, '--sut', c.sut, '--timeout', String(c.timeoutMs), '--json', ...(c.run[0] === 'conform' ? ['--out', out] : [])];
    // The sources, as the tests run them (a dist/ built earlier may be stale), unless the caller says otherwise.
    const env = { STREAMJOIN_FROM_SOURCE: '1', ...process.env, TMPDIR: scratch, HOSTILE_TAG: tag };
    const r = await runHarness(argv, env);
    const processesLeft = livingWithEnvironment('HOSTILE_TAG', tag);
    // (tsx, which runs the TypeScript sources, keeps its compile cache in TMPDIR: the toolchain's, not the run's.)
    const filesLeft = [...readdirSync(scratch).filter((f) => !/^tsx-\d+$/.test(f)), ...readdirSync(out)];
    const report = JSON.parse(r.stdout) as CaseRun['report'];
    const tail = report.unknown?.stderrTail ?? report.stderrTail ?? [];
    const t = /\(t=(\d+)\)/.exec(tail.join('\n'))?.[1];
    return {
      ...r,
      argv,
      report,
      reason: report.unknown?.reason ?? report.reason ?? '',
      misbehavedAt: t === undefined ? undefined : Number(t),
      processesLeft,
      filesLeft,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
}
