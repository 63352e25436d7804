// `streamjoin audit` and `serve --record` from the command line: the journey
// of docs/audit.md (write an example, audit it, damage it), the exit codes,
// the JSON report and its schema, and a session the protocol server recorded.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, SPEC_VERSION, schemaError } from '../spec/index.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { runCli } from './testSupport.ts';
import { serveCommand } from './serve.ts';
import type { Output } from './output.ts';

const tmp = useTemporaryDirectories('sj-cli-audit-');

describe('streamjoin audit', () => {
  it('the journey: --example writes a history, audit says valid (exit 0); --json is the audit report of its schema', async () => {
    const dir = join(tmp(), 'demo');
    const made = await runCli(['audit', '--example', dir, '--seed', '5', '--records', '300']);
    expect(made.code).toBe(0);
    expect(made.stdout).toContain(`streamjoin audit --log ${join(dir, 'log.jsonl')} --sink ${join(dir, 'sink.jsonl')}`);
    expect(readdirSync(dir).sort()).toEqual(['config.json', 'log.jsonl', 'sink.jsonl']);
    const r = await runCli(['audit', '--log', join(dir, 'log.jsonl'), '--sink', join(dir, 'sink.jsonl'), '--quiet']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/JoinCorrect +holds/);
    expect(r.stdout).toMatch(/ExactlyOnce +holds/);
    expect(r.stdout).toMatch(/Fenced +holds/);
    expect(r.stdout).toContain('valid: every property holds (exit 0)');
    expect(r.stderr).toBe('');
    const j = await runCli(['audit', '--log', join(dir, 'log.jsonl'), '--sink', join(dir, 'sink.jsonl'), '--json']);
    const report = JSON.parse(j.stdout) as Record<string, unknown>;
    expect(schemaError('reports/audit-report', report)).toBeUndefined();
    expect(report).toMatchObject({
      format: 'streamjoin/audit-report@1',
      spec: SPEC_VERSION,
      exitCode: 0,
      verdict: 'valid',
      engine: 'audit',
    });
  });

  it('--heap runs the audit on a thread with a capped heap: the same verdicts, violations and witnesses as on this thread; bad input stays 254', async () => {
    const dir = join(tmp(), 'thread');
    expect((await runCli(['audit', '--example', dir, '--seed', '4', '--records', '400', '--damage', 'resurrection'])).code).toBe(0);
    const files = ['--log', join(dir, 'log.jsonl'), '--sink', join(dir, 'sink.jsonl'), '--json', '--quiet'];
    const here = await runCli(['audit', ...files]);
    const thread = await runCli(['audit', ...files, '--heap', '64']);
    expect(here.code).toBe(1);
    expect(thread.code).toBe(1);
    const strip = (text: string): unknown => {
      const { seconds: _s, ...rest } = JSON.parse(text) as Record<string, unknown>;
      return rest;
    };
    expect(strip(thread.stdout)).toEqual(strip(here.stdout));
    writeFileSync(join(dir, 'bad.jsonl'), '{"op":"insert"\n');
    const bad = await runCli(['audit', '--log', join(dir, 'log.jsonl'), '--sink', join(dir, 'bad.jsonl'), '--quiet', '--heap', '64']);
    expect(bad.code).toBe(254);
    expect(bad.stderr).toContain(`${join(dir, 'bad.jsonl')}:1:`);
    expect((await runCli(['audit', ...files, '--heap', '0'])).code).toBe(254);
  });

  it('a damaged sink: a violation is exit 1, a file cut short exit 2, a malformed line exit 254 with file, line and column', async () => {
    const cases = [
      { damage: 'resurrection', code: 1, says: /VIOLATION: .*ExactlyOnce/ },
      { damage: 'zombie-write', code: 1, says: /Fenced +VIOLATED/ },
      { damage: 'truncate', code: 2, says: /UNKNOWN: nothing is violated/ },
    ];
    for (const { damage, code, says } of cases) {
      const dir = join(tmp(), damage);
      const made = await runCli([
        'audit',
        '--example',
        dir,
        '--seed',
        '3',
        '--records',
        '600',
        '--damage',
        damage,
        '--format',
        'debezium',
        '--gzip',
      ]);
      expect(made.code, made.stderr).toBe(0);
      expect(made.stdout).toContain(`damage: ${damage}:`);
      const r = await runCli([
        'audit',
        '--log',
        join(dir, 'log.jsonl.gz'),
        '--sink',
        join(dir, 'sink.jsonl.gz'),
        '--config',
        join(dir, 'config.json'),
        '--quiet',
      ]);
      expect(r.code, `${damage}: ${r.stdout}${r.stderr}`).toBe(code);
      expect(r.stdout).toMatch(says);
    }
    const dir = join(tmp(), 'malformed');
    await runCli(['audit', '--example', dir, '--seed', '3', '--records', '300', '--damage', 'malformed-line']);
    const r = await runCli(['audit', '--log', join(dir, 'log.jsonl'), '--sink', join(dir, 'sink.jsonl'), '--quiet']);
    expect(r.code).toBe(254);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^${join(dir, 'sink.jsonl').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+: SJ101 .+\\n$`));
  });

  it('an empty log is never valid: with an empty sink it is unknown (exit 2, nothing was audited), with changes in the sink a violation', async () => {
    const dir = tmp();
    await runCli(['audit', '--example', dir, '--seed', '3', '--records', '50']);
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    const config = join(dir, 'config.json');
    const nothing = await runCli(['audit', '--log', empty, '--sink', empty, '--config', config, '--quiet']);
    expect(nothing.code).toBe(2);
    expect(nothing.stdout).toMatch(/JoinCorrect +UNKNOWN .*unknown: the log holds no record and no watermark, so nothing was audited/);
    const sinkOnly = await runCli(['audit', '--log', empty, '--sink', join(dir, 'sink.jsonl'), '--config', config, '--quiet']);
    expect(sinkOnly.code).toBe(1);
    // A log of its header alone, and a log given as two empty inputs, audited nothing either.
    const headerOnly = join(dir, 'header.jsonl');
    writeFileSync(headerOnly, `${readFileSync(join(dir, 'log.jsonl'), 'utf8').split('\n')[0]}\n`);
    expect(readFileSync(headerOnly, 'utf8')).toMatch(/"format":"streamjoin\/history-log@1"/);
    for (const log of [
      ['--log', headerOnly],
      ['--log', empty, '--log-right', empty],
    ]) {
      const r = await runCli(['audit', ...log, '--sink', empty, '--config', config, '--quiet']);
      expect({ log, code: r.code }).toEqual({ log, code: 2 });
      expect(r.stdout).toMatch(/unknown: the log holds no record and no watermark, so nothing was audited/);
    }
    // A log of one watermark is a history: audited, valid.
    const watermark = join(dir, 'watermark.jsonl');
    writeFileSync(
      watermark,
      `${readFileSync(join(dir, 'log.jsonl'), 'utf8')
        .split('\n')
        .find((l) => l.includes('watermark'))}\n`,
    );
    expect((await runCli(['audit', '--log', watermark, '--sink', empty, '--config', config, '--quiet'])).code).toBe(0);
  });

  it('usage errors are exit 254 with one line', async () => {
    const cases: string[][] = [
      ['audit', '--log', 'x.jsonl'],
      ['audit', '--log', 'x', '--sink', 'y', '--format', 'avro'],
      ['audit', '--log', 'x', '--sink', 'y', '--damage', 'lost-write'],
      ['audit', '--example', tmp(), '--damage', 'fire'],
      ['audit', '--log', 'x', '--sink', 'y', '--lookahead', '0'],
      ['audit', '--log', 'x', '--sink', 'y', '--time-unit', 'hours'],
      ['audit', '--log', 'x', '--sink', 'y', '--columns', 'colour=blue'],
      ['audit', '--example', tmp(), '--format', 'canal'],
    ];
    for (const args of cases) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(254);
      expect(r.stderr).toMatch(/^usage: SJ105 .+\n$/);
    }
    const missing = await runCli(['audit', '--log', join(tmp(), 'none.jsonl'), '--sink', join(tmp(), 'none.jsonl'), '--quiet']);
    expect(missing.code).toBe(254);
    expect(missing.stderr).toMatch(/none\.jsonl: SJ100 no such file/);
  });

  it('what comes from the files is printed printable: a match id with a bidirectional override or an escape stays one plain line', async () => {
    const dir = tmp();
    writeFileSync(
      join(dir, 'log.jsonl'),
      '{"format":"streamjoin/history-log@1","config":{"allowedLateness":1,"maxIntervalLength":2}}\n{"kind":"insert","key":"k","side":"L","id":"a","ts":1,"start":1,"end":1}\n',
    );
    writeFileSync(join(dir, 'sink.jsonl'), '{"op":"insert","match":"k/a/\\u202e\\u001b[2J"}\n');
    const r = await runCli(['audit', '--log', join(dir, 'log.jsonl'), '--sink', join(dir, 'sink.jsonl'), '--quiet']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('k/a/\\u202e\\u001b[2J');
    expect(r.stdout.includes('\u202e') || r.stdout.includes(String.fromCharCode(27))).toBe(false);
  });
});

describe('streamjoin serve --record', () => {
  it('records each cluster session as a history that audits valid; --model cannot record', async () => {
    const rec = tmp();
    const input = new PassThrough();
    let stdout = '';
    const out: Output = { stdout: (t) => (stdout += t), stderr: () => {}, interactive: false };
    const done = serveCommand(['--record', rec], out, input);
    const config = {
      join: { allowedLateness: 1, maxIntervalLength: 2 },
      workers: ['w1', 'w2'],
      keys: [{ key: 'k', owner: 'w1' }],
    };
    const row = (kind: string, side: string, id: string, t: number) => ({ kind, key: 'k', side, id, ts: t, start: t, end: t + 1 });
    const requests = [
      { type: 'init', protocol: PROTOCOL_VERSION, level: 'faults', config },
      { type: 'record', record: row('insert', 'L', 'a', 1) },
      { type: 'record', record: row('insert', 'R', 'b', 2) },
      { type: 'pause', worker: 'w1' },
      { type: 'failover', key: 'k', to: 'w2' },
      { type: 'record', record: row('retract', 'L', 'a', 1) },
      { type: 'resume', worker: 'w1' },
      { type: 'record', record: row('insert', 'R', 'c', 1) },
      // A second session: the first one ends (and is recorded whole).
      { type: 'init', protocol: PROTOCOL_VERSION, level: 'cluster', config },
      { type: 'record', record: row('insert', 'L', 'a', 1) },
      { type: 'freeze', key: 'k', to: 'w2' },
      { type: 'record', record: row('insert', 'R', 'b', 1) },
    ];
    input.end(requests.map((r, i) => `${JSON.stringify({ id: i + 1, ...r })}\n`).join(''));
    expect(await done).toBe(0);
    expect(stdout).not.toContain('"type":"error"');
    const sessions = readdirSync(rec).sort();
    expect(sessions).toEqual(['session-0001', 'session-0002']);
    for (const s of sessions) {
      const dir = join(rec, s);
      expect(readdirSync(dir).sort()).toEqual(['config.json', 'log.jsonl', 'sink.jsonl']);
      // Brought back to quiescence when it ended: the history is complete.
      expect(readFileSync(join(dir, 'sink.jsonl'), 'utf8').trimEnd().split('\n').at(-1)).toBe('{"end":{"complete":true}}');
      const r = await runCli(['audit', '--log', join(dir, 'log.jsonl'), '--sink', join(dir, 'sink.jsonl'), '--json']);
      expect(r.code, r.stdout).toBe(0);
      const report = JSON.parse(r.stdout) as { sink: { changes: number; epochs: boolean } };
      expect(report.sink.changes).toBeGreaterThan(0);
    }
    const model = await runCli(['serve', '--model', '--record', rec]);
    expect(model.code).toBe(254);
  });
});
