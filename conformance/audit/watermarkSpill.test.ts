// The watermarks a history split into partitions shares (spill.ts) go to
// disk as numbers and come back exactly, in order, across the reader's
// buffers: every partition's check sees the global watermark (J4) move as
// the log moved it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../generate/seededRandom.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';
import { WatermarkReader, WatermarkWriter } from './watermarkSpill.ts';

const freshDirectory = useTemporaryDirectories('sj-marks-');

describe('J4: the watermarks of a partitioned history, on disk', () => {
  it('come back in line order with their side and exact value, across buffer boundaries', () => {
    const seed = 4242;
    console.log(`watermark spill: seed ${seed}`);
    const next = seededRandom(seed);
    const path = join(freshDirectory(), 'watermarks');
    const written: [number, 'L' | 'R', number][] = [];
    let line = 0;
    // Three buffers and a bit (8,192 a buffer), times up to the edge of the range (±2^50).
    for (let i = 0; i < 3 * 8192 + 17; i++) {
      line += 1 + Math.floor(next() * 5);
      const wm = Math.floor((next() * 2 - 1) * 2 ** 50);
      written.push([line, next() < 0.5 ? 'L' : 'R', wm]);
    }
    const w = new WatermarkWriter(path);
    for (const [l, side, wm] of written) w.add(l, side, wm);
    w.close();
    const r = new WatermarkReader(path);
    const read: [number, 'L' | 'R', number][] = [];
    for (; r.line !== Number.POSITIVE_INFINITY; r.advance()) read.push([r.line, r.side, r.wm]);
    expect(read).toEqual(written);
    r.close();
  });

  it('an empty file reads as no watermark', () => {
    const path = join(freshDirectory(), 'watermarks');
    new WatermarkWriter(path).close();
    const r = new WatermarkReader(path);
    expect(r.line).toBe(Number.POSITIVE_INFINITY);
    r.close();
  });
});
