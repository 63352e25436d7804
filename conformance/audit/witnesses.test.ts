// Witnesses that explain (docs/audit.md, "Each violation comes with a
// minimal witness"): a late row that the sink joined cites the late record,
// the watermark that made it late and L (J5); a conflicting update the
// oracle dropped is cited (J2); a prefix violation (ExactlyOnce, SPEC §6 P4)
// names the log line the sink had reached and the sink lines of the write.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rowRecord } from '../../spec/index.ts';
import type { JoinConfig, LogRecord, RowRecord } from '../../spec/index.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';
import { auditHistory } from './audit.ts';

const freshDirectory = useTemporaryDirectories('sj-witness-');
const jsonl = (xs: readonly unknown[]): string => xs.map((x) => `${JSON.stringify(x)}\n`).join('');

async function audit(config: JoinConfig, log: readonly LogRecord[], sink: readonly unknown[]) {
  const dir = freshDirectory();
  writeFileSync(join(dir, 'log.jsonl'), jsonl([{ format: 'streamjoin/history-log@1', config }, ...log]));
  writeFileSync(join(dir, 'sink.jsonl'), jsonl(sink));
  return auditHistory({ log: join(dir, 'log.jsonl'), sink: join(dir, 'sink.jsonl') });
}

const config: JoinConfig = { allowedLateness: 2, maxIntervalLength: 4 };
const row = (kind: 'insert' | 'retract', key: string, side: 'L' | 'R', id: string, start: number, end = start): RowRecord =>
  rowRecord(kind, key, side, id, start, end);

describe('witnesses that explain', () => {
  it('a late row joined (J5): the violation cites the late record, the watermark that made it late, and L', async () => {
    const log: LogRecord[] = [
      row('insert', 'k', 'L', 'a', 3, 6),
      { kind: 'watermark', side: 'R', wm: 30 },
      { kind: 'watermark', side: 'L', wm: 20 },
      row('insert', 'k', 'R', 'x', 5),
    ];
    const r = await audit(config, log, [{ op: 'insert', match: 'k/a/x', key: 'k' }]);
    expect(r.violations).toHaveLength(1);
    const v = r.violations[0];
    expect(v?.kind).toBe('wrong-id');
    // Lines: 1 is the header; the late insert is line 5; gw = 20 from the L watermark at line 4.
    expect(v?.message).toMatch(
      /row \(k, R, x\) at log line 5 is late \(J5: ts 5 < gw − L = 20 − 2 = 18; the watermark at log line 4 made gw 20\)/,
    );
    const log4 = v?.witness.find((w) => w.file === 'log' && w.line === 4);
    expect(log4?.role).toMatch(/the watermark that made gw 20/);
    expect(log4?.text).toContain('"wm":20');
    expect(v?.witness.find((w) => w.file === 'log' && w.line === 5)?.role).toMatch(/late \(L = 2\): dropped/);
  });

  it('J4: the watermark cited as making gw is the line that raised gw to its value: with both sides at 12, the second of them', async () => {
    const log: LogRecord[] = [
      row('insert', 'k', 'L', 'a', 9, 11),
      { kind: 'watermark', side: 'L', wm: 12 },
      { kind: 'watermark', side: 'R', wm: 12 },
      row('insert', 'k', 'R', 'x', 9, 11),
    ];
    const r = await audit({ allowedLateness: 1, maxIntervalLength: 2 }, log, [{ op: 'insert', match: 'k/a/x', key: 'k' }]);
    const v = r.violations[0];
    // Line 1 is the header: L 12 at line 3 leaves gw at −∞ (R unknown), R 12 at line 4 makes gw 12.
    expect(v?.message).toMatch(
      /row \(k, R, x\) at log line 5 is late \(J5: ts 9 < gw − L = 12 − 1 = 11; the watermark at log line 4 made gw 12\)/,
    );
    expect(v?.witness.find((w) => w.file === 'log' && w.line === 4)?.role).toMatch(/the watermark that made gw 12/);
  });

  it('a conflicting update the oracle dropped (J2) is cited when the sink joined its new content', async () => {
    const log: LogRecord[] = [
      row('insert', 'k', 'L', 'a', 1),
      row('insert', 'k', 'R', 'x', 1),
      row('insert', 'k', 'L', 'a', 6),
      row('insert', 'k', 'R', 'y', 6),
    ];
    const r = await audit(config, log, [
      { op: 'insert', match: 'k/a/x', key: 'k' },
      { op: 'insert', match: 'k/a/y', key: 'k' },
    ]);
    expect(r.violations.map((v) => v.kind)).toEqual(['wrong-id']);
    expect(r.violations[0]?.message).toMatch(
      /log line 4 re-uses row \(k, L, a\)'s identity with other content \(J2: a conflicting update\)/,
    );
    expect(r.violations[0]?.witness.find((w) => w.file === 'log' && w.line === 4)?.role).toMatch(/a conflicting update of row \(k, L, a\)/);
  });

  it('a prefix violation names, in words, the log line the sink had reached and the sink lines of the write', async () => {
    const log: LogRecord[] = [
      row('insert', 'k', 'L', 'a', 1),
      row('insert', 'k', 'R', 'x', 1),
      row('insert', 'k', 'L', 'b', 1),
      row('retract', 'k', 'L', 'a', 1),
    ];
    const r = await audit(config, log, [
      { op: 'insert', match: 'k/a/x', key: 'k', seq: 1 },
      { op: 'retract', match: 'k/a/x', key: 'k', seq: 2 },
      { op: 'insert', match: 'k/b/x', key: 'k', seq: 3 },
    ]);
    expect(r.violations.map((v) => v.kind)).toEqual(['prefix']);
    expect(r.violations[0]?.message).toBe(
      'after write 2 of key k (sink line 2) the sink does not hold k/b/x, but the oracle inserts it at log line 4 and ' +
        'never retracts it; its previous write had brought it to the log up to line 3, and no prefix of the ' +
        'log from there on agrees with the sink (P4: the prefix never shrinks)',
    );
  });
});
