import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter, check, type Invariant, type Model, type StateCodec } from '../explorer/index.ts';
import type { JoinState } from '../join/join.ts';
import type { ExploredState } from './boundedHistories.ts';
import { clusterExplorerModel, type LabelledAction } from './explorerModel.ts';
import { clusterPreset } from './presets.ts';

const smoke = clusterPreset('smoke')?.config;
if (!smoke) throw new Error('no preset smoke');

/**
 * Structural equality, key order and prototypes aside; join states and logs
 * must be the very same objects (the codec rebuilds them from shared tables).
 */
function same(a: unknown, b: unknown, key = ''): boolean {
  if (a === b) return true;
  if (key === 'join' || key === 'log') return false;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) if (!(k in y) || !same(x[k], y[k], k)) return false;
  return true;
}

describe('the cluster codec (compact frontier, SPEC §6 symmetry)', () => {
  it('round-trips every state of smoke exactly, and its symmetric bytes read back as a member of the same class', () => {
    const base = clusterExplorerModel(smoke);
    const codec = base.codec;
    if (!codec) throw new Error('the cluster model has no codec');
    const out = new ByteWriter();
    const again = new ByteWriter();
    let states = 0;
    let renamed = 0;
    const roundTrip: Invariant<ExploredState> = {
      name: 'RoundTrip',
      check: (s) => {
        states++;
        codec.write(s, out.reset(), false);
        const back = codec.read(new ByteReader(out.bytes, 0, out.length));
        if (!same(back, s)) return `read back differently: ${JSON.stringify(back)} from ${JSON.stringify(s)}`;
        // Symmetric: the bytes read back write the same bytes again (one canonical member per class).
        codec.write(s, out.reset(), true);
        const key = Buffer.from(out.bytes.subarray(0, out.keyEnd)).toString('hex');
        const member = codec.read(new ByteReader(out.bytes, 0, out.length));
        codec.write(member, again.reset(), true);
        if (Buffer.from(again.bytes.subarray(0, again.keyEnd)).toString('hex') !== key) return 'symmetric bytes are not canonical';
        if (!same(member, s)) renamed++;
        return undefined;
      },
    };
    // The codec alone (without its successors on bytes, byteSuccessors.test.ts): every state is built as an object and judged.
    const plain: StateCodec<ExploredState> = { symmetric: codec.symmetric, write: codec.write.bind(codec), read: codec.read.bind(codec) };
    const model: Model<ExploredState, LabelledAction> = { ...base, codec: plain, invariants: [roundTrip] };
    const report = check(model);
    expect(report.exhausted).toBe(true);
    expect(report.invariants[0]).toMatchObject({ name: 'RoundTrip', verdict: 'holds' });
    expect(states).toBe(report.distinct);
    // The canonical member is often a renaming: symmetry is at work.
    expect(renamed).toBeGreaterThan(0);
  });

  it('leaves the checkpoint epoch out of the identity (no rule reads it), and only that and the counters and text', () => {
    const model = clusterExplorerModel(smoke);
    const codec = model.codec;
    if (!codec) throw new Error('the cluster model has no codec');
    const s = model.initialStates()[0] as ExploredState;
    const join = s.cluster.workers['w1']?.keys['k1']?.join as JoinState;
    const withCheckpoint = (epoch: number): ExploredState => ({
      ...s,
      cluster: {
        ...s.cluster,
        store: { k1: { epoch, cursor: 0, join } },
      },
    });
    const key = (x: ExploredState): string => {
      const out = new ByteWriter();
      codec.write(x, out, true);
      return Buffer.from(out.bytes.subarray(0, out.keyEnd)).toString('hex');
    };
    expect(key(withCheckpoint(1))).toBe(key(withCheckpoint(2)));
    expect(key(withCheckpoint(1))).not.toBe(key(s));
    const counted = { ...s, cluster: { ...s.cluster, sink: { ...s.cluster.sink, applied: 7 } } };
    expect(key(counted)).toBe(key(s));
    const moved = { ...s, cluster: { ...s.cluster, sink: { ...s.cluster.sink, fence: { k1: 2 } } } };
    expect(key(moved)).not.toBe(key(s));
  });
});
