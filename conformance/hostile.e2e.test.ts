// The hostile-system suite: `streamjoin conform` (and `replay`) run as a
// user runs them, as a process, against systems under test that misbehave in
// every way a real one does (conformance/testdata/misbehave.ts, noflush.py).
// For each: the verdict, the reason's wording, a bound on the time from the
// misbehaviour to the verdict relative to --timeout (loose: an order of
// magnitude), the harness's exit soon after its verdict, and nothing left
// behind: no process (every process the run started carries HOSTILE_TAG in
// its environment, setsid or not) and no file (TMPDIR and --out stay empty).
//
// Only the systems that are hung wait for --timeout; every other one gets a
// generous one (60 s), so that a loaded machine cannot turn "dead" into
// "hung", and its verdict must come well before it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { BUFFERING_HINT } from './adapters/process.ts';
import { livingWithEnvironment } from './adapters/processGroup.ts';
import { useTemporaryDirectories } from './testFixtures.ts';

const root = join(import.meta.dirname, '..');
const seed = String(inject('fcSeed'));
const tmp = useTemporaryDirectories('sj-hostile-', 'all');

const misbehave = (mode: string, after = 4, delay?: number): string =>
  `node --import tsx conformance/testdata/misbehave.ts ${mode} ${after}${delay !== undefined ? ` ${delay}` : ''}`;

/** Generous: only hung systems wait for their timeout. */
const PATIENT = 60_000;
/** Short: what a hung system is given. */
const HUNG = 2_000;

interface HostileCase {
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

const conform = (...more: string[]): string[] => ['conform', `--seed=${seed}`, '--startup-timeout', String(PATIENT), ...more];

const CASES: readonly HostileCase[] = [
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
    reason: /^dead: the process exited with code 3 with requests outstanding$/,
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
    reason: /^dead: the process exited with code 3 with requests outstanding$/,
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

interface Outcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall clock (ms) when the verdict was printed, and when the process exited. */
  readonly verdictAt: number;
  readonly exitAt: number;
}

/** Runs the CLI as a process, marking its environment so that everything it starts can be found. */
function runHarness(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<Outcome> {
  return new Promise((resolve, reject) => {
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
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr, verdictAt, exitAt: Date.now() }));
  });
}

describe.concurrent('hostile systems under test: the verdict, its reason, its time, and nothing left behind', () => {
  for (const c of CASES) {
    it(`${c.does}: ${c.verdict}`, async () => {
      const tag = randomBytes(8).toString('hex');
      const scratch = tmp();
      const out = tmp();
      const argv = [
        ...c.run,
        '--sut',
        c.sut,
        '--timeout',
        String(c.timeoutMs),
        '--json',
        ...(c.run[0] === 'conform' ? ['--out', out] : []),
      ];
      const r = await runHarness(argv, { ...process.env, TMPDIR: scratch, HOSTILE_TAG: tag });
      const report = JSON.parse(r.stdout) as {
        verdict: string;
        reason?: string;
        stderrTail?: string[];
        unknown?: { reason: string; stderrTail: string[] } | null;
      };
      expect(report.verdict, r.stdout).toBe(c.verdict);
      expect(r.code).toBe(c.verdict === 'pass' ? 0 : 2);
      // The report and the progress: printable, whatever the system wrote.
      expect(r.stdout + r.stderr).not.toMatch(/(?!\n)\p{Cc}/u);
      if (c.verdict === 'unknown') {
        const reason = report.unknown?.reason ?? report.reason ?? '';
        expect(reason).toMatch(c.reason as RegExp);
        // From the moment it misbehaved (or started) to the verdict: within ten timeouts if it hung, well within one otherwise.
        const tail = report.unknown?.stderrTail ?? report.stderrTail ?? [];
        const since = Number(/\(t=(\d+)\)/.exec(tail.join('\n'))?.[1]);
        expect(since, tail.join('\n')).toBeGreaterThan(0);
        const toVerdict = r.verdictAt - since;
        if (c.timeoutMs === HUNG) expect(toVerdict).toBeLessThan(10 * c.timeoutMs);
        else expect(toVerdict).toBeLessThan(c.timeoutMs / 4);
      }
      // The harness ends soon after its verdict, whatever still holds the system's pipes.
      expect(r.exitAt - r.verdictAt).toBeLessThan(10_000);
      expect(r.stderr).not.toContain('internal error');
      // Nothing left behind.
      expect(livingWithEnvironment('HOSTILE_TAG', tag)).toEqual([]);
      // (tsx, which runs the TypeScript sources, keeps its compile cache in TMPDIR: the toolchain's, not the run's.)
      expect(readdirSync(scratch).filter((f) => !/^tsx-\d+$/.test(f))).toEqual([]);
      expect(readdirSync(out)).toEqual([]);
    });
  }
});
