import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// A child process allocates short-lived garbage, as a search does, and reports its young generation's size.
const CHILD = `
  const v8 = await import('node:v8');
  if (process.argv[1] === 'small') (await import(${JSON.stringify(new URL('./searchHeap.ts', import.meta.url).href)})).keepNurserySmall();
  let keep = [];
  for (let i = 0; i < 3e6; i++) { keep.push({ i, s: [i, i + 1] }); if (keep.length > 2000) keep = []; }
  const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  process.stdout.write(String(space.space_size));
`;

const nurseryBytes = (mode: string): number =>
  Number(
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD, mode], { encoding: 'utf8', timeout: 120_000 }),
  );

describe('keepNurserySmall (the heap of a check process)', () => {
  it("keeps the young generation at its first size where V8 would grow it under a search's garbage", () => {
    const grown = nurseryBytes('default');
    const small = nurseryBytes('small');
    expect(small).toBeLessThan(grown);
    // V8 grows it to several times the size it had when the flag was set (here after tsx's start-up).
    expect(grown).toBeGreaterThanOrEqual(2 * small);
  });
});
