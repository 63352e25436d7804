import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter, check, type Invariant, type Model } from '../explorer/index.ts';
import { joinModel, type JoinAction } from './joinModel.ts';
import type { JoinModelState } from './joinModelState.ts';

const bounds = { records: 3, keys: 2, ids: 1, maxTime: 1, allowedLateness: 0, maxIntervalLength: 1, invalid: true };

describe('the join model codec (compact frontier)', () => {
  it('round-trips every state of a small bound: the same encoding, and symmetric bytes that name one member per class', () => {
    const base = joinModel({ bounds });
    const encode = (s: JoinModelState): string => base.encode(s);
    const codec = base.codec;
    if (!codec) throw new Error('the join model has no codec');
    const out = new ByteWriter();
    const again = new ByteWriter();
    let states = 0;
    const roundTrip: Invariant<JoinModelState> = {
      name: 'RoundTrip',
      check: (s) => {
        states++;
        codec.write(s, out.reset(), false);
        const back = codec.read(new ByteReader(out.bytes, 0, out.length));
        if (encode(back) !== encode(s)) return `read back ${encode(back)} from ${encode(s)}`;
        if (back.mismatch !== s.mismatch) return 'the mismatch text did not come back';
        codec.write(s, out.reset(), true);
        const key = Buffer.from(out.bytes.subarray(0, out.keyEnd)).toString('hex');
        codec.write(codec.read(new ByteReader(out.bytes, 0, out.length)), again.reset(), true);
        if (Buffer.from(again.bytes.subarray(0, again.keyEnd)).toString('hex') !== key) return 'symmetric bytes are not canonical';
        return undefined;
      },
    };
    const model: Model<JoinModelState, JoinAction> = { ...base, invariants: [roundTrip] };
    const report = check(model);
    expect(report.exhausted).toBe(true);
    expect(report.invariants[0]).toMatchObject({ name: 'RoundTrip', verdict: 'holds' });
    expect(states).toBe(report.distinct);
  });
});
