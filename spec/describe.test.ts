import { describe, expect, it } from 'vitest';
import { describeClusterAction } from './describe.ts';

describe('describeClusterAction: one line for people', () => {
  it('names as they are when printable: freeze k1 -> w2, record insert k1/L/a ts=1 [1,2]', () => {
    expect(describeClusterAction({ type: 'freeze', key: 'k1', to: 'w2' })).toBe('freeze k1 -> w2');
    expect(
      describeClusterAction({ type: 'record', record: { kind: 'insert', key: 'k1', side: 'L', id: 'a', ts: 1, start: 1, end: 2 } }),
    ).toBe('record insert k1/L/a ts=1 [1,2]');
  });

  it('J1: a key, id or worker with a line break (any non-empty string) is escaped, so the description stays one line', () => {
    const record = { kind: 'insert', key: 'k\r\n2', side: 'L', id: 'a\u2028z', ts: 1, start: 1, end: 1 } as const;
    expect(describeClusterAction({ type: 'record', record })).toBe('record insert k\\r\\n2/L/a\\u2028z ts=1 [1,1]');
    expect(describeClusterAction({ type: 'failover', key: 'k\u0085', to: 'w\u2029' })).toBe('failover k\\u0085 -> w\\u2029');
    expect(describeClusterAction({ type: 'crash', node: 'w\n3' })).toBe('crash w\\n3');
  });
});
