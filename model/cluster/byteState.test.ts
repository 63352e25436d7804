import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ByteState,
  COPY_EPOCH,
  CURSOR,
  FROZEN_COPY,
  GLOBALS,
  H,
  H_DST,
  H_SRC,
  HAS,
  INSTALL_EPOCH,
  INSTALL_TO,
  OWNER_OF,
  RELEASE_EPOCH,
  RELEASE_FROM,
} from './byteState.ts';

interface Copy {
  readonly status: number;
  readonly copy: { readonly frozen: boolean; readonly cursor: number; readonly epoch: number } | null;
}
interface References {
  readonly handoff: boolean;
  readonly src: number;
  readonly dst: number;
  readonly owner: number;
  readonly installTo: number;
  readonly releaseFrom: number;
}

/** One key's workers' blocks, written both ways: as integers (`writeOneKeyBlocks`) and by the general writer. */
class OneKeyBlocks extends ByteState {
  constructor(workers: number) {
    super(1, workers, 4);
  }

  state(workers: readonly Copy[], refs: References): Int32Array {
    const s = new Int32Array(this.size);
    s[H] = refs.handoff ? 1 : 0;
    s[H_SRC] = refs.src;
    s[H_DST] = refs.dst;
    s[GLOBALS + OWNER_OF] = refs.owner;
    s[GLOBALS + INSTALL_EPOCH] = refs.installTo >= 0 ? 1 : 0;
    s[GLOBALS + INSTALL_TO] = refs.installTo;
    s[GLOBALS + RELEASE_EPOCH] = refs.releaseFrom >= 0 ? 1 : 0;
    s[GLOBALS + RELEASE_FROM] = refs.releaseFrom;
    workers.forEach((w, i) => {
      s[this.workerAt(i)] = w.status;
      const c = this.copyAt(i, 0);
      if (w.copy === null) return;
      s[c + HAS] = 1;
      s[c + FROZEN_COPY] = w.copy.frozen ? 1 : 0;
      s[c + CURSOR] = w.copy.cursor;
      s[c + COPY_EPOCH] = w.copy.epoch;
    });
    return s;
  }

  asIntegers(s: Int32Array, symmetric: boolean): string | undefined {
    const b = new Uint8Array(256);
    const end = this.writeOneKeyBlocks(s, b, 0, symmetric);
    return end < 0 ? undefined : Buffer.from(b.subarray(0, end)).toString('hex');
  }

  general(s: Int32Array, symmetric: boolean): string {
    const b = new Uint8Array(256);
    return Buffer.from(b.subarray(0, this.writeAnyBlocks(s, b, 0, symmetric))).toString('hex');
  }
}

/** Both writers on one state: the same bytes, sorted or not, unless a cursor or epoch is 128 or more (then the integers decline). */
function expectAgree(blocks: OneKeyBlocks, workers: readonly Copy[], refs: References): void {
  const s = blocks.state(workers, refs);
  const wide = workers.some((w) => w.copy !== null && (w.copy.cursor >= 128 || w.copy.epoch >= 128));
  for (const symmetric of [true, false]) {
    const fast = blocks.asIntegers(s, symmetric);
    if (wide) expect(fast).toBeUndefined();
    else if (fast !== blocks.general(s, symmetric))
      expect({ workers, refs, symmetric, fast }).toEqual({ workers, refs, symmetric, fast: blocks.general(s, symmetric) });
  }
}

const none: References = { handoff: false, src: -1, dst: -1, owner: -1, installTo: -1, releaseFrom: -1 };

// ByteSuccessorsAgree rests on the blocks: the successors on bytes write one key's worker blocks
// as integers, the codec (codec.ts) as bytes sorted by `compareBlocks` (SPEC §6, symmetry).
describe('ByteSuccessorsAgree: one key worker blocks written as integers equal the general writer', () => {
  it('every pair of blocks over status, copy, frozen, cursor and epoch 0, 1, 127, and each owner', () => {
    const small = [0, 1, 127];
    const shapes: Copy[] = [];
    for (const status of [0, 1, 2]) {
      shapes.push({ status, copy: null });
      for (const frozen of [false, true])
        for (const cursor of small) for (const epoch of small) shapes.push({ status, copy: { frozen, cursor, epoch } });
    }
    const blocks = new OneKeyBlocks(2);
    let checked = 0;
    for (const a of shapes)
      for (const b of shapes)
        for (const owner of [-1, 0, 1]) {
          expectAgree(blocks, [a, b], { ...none, owner });
          checked++;
        }
    expect(checked).toBe(57 * 57 * 3);
  });

  it('any state of 1 to 4 workers, cursors and epochs past 127 declined', () => {
    const value = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 125, max: 130 }), fc.integer({ min: 0, max: 100_000 }));
    const copy = fc.record({
      status: fc.integer({ min: 0, max: 2 }),
      copy: fc.option(fc.record({ frozen: fc.boolean(), cursor: value, epoch: value }), { nil: null }),
    });
    const world = fc.integer({ min: 1, max: 4 }).chain((n) => {
      const ref = fc.integer({ min: -1, max: n - 1 });
      return fc.tuple(
        fc.array(copy, { minLength: n, maxLength: n }),
        fc.record({ handoff: fc.boolean(), src: ref, dst: ref, owner: ref, installTo: ref, releaseFrom: ref }),
      );
    });
    fc.assert(
      fc.property(world, ([workers, refs]) => {
        expectAgree(new OneKeyBlocks(workers.length), workers, refs);
      }),
    );
  });
});
