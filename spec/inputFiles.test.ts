// Reading ahead an input that is not a regular file (a FIFO): an interrupt
// stops the copy whenever it comes, and a finished copy holds the bytes.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { fileToOpen, readInputsAhead, releaseInputs } from './inputFiles.ts';
import { Interrupted } from './pacing.ts';

const tmp = useTemporaryDirectories('sj-input-files-');

afterEach(() => releaseInputs());

function fifoIn(dir: string): string {
  const fifo = join(dir, 'silent.trace.json');
  execFileSync('mkfifo', [fifo]);
  return fifo;
}

/** The descriptors this process holds open on `path` (Linux, /proc). */
function openOn(path: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  }).length;
}

describe('readInputsAhead: a FIFO nobody writes', () => {
  it('an abort at any moment after the FIFO is opened ends the wait with Interrupted, and the FIFO is closed', async () => {
    // The read-ahead opens the FIFO before its first await: aborting right after the call lands in the
    // window where the stream is not yet built (a listener added after the abort would never hear it).
    for (const delay of [-1, 0, 1, 5]) {
      const fifo = fifoIn(tmp());
      const controller = new AbortController();
      const reading = readInputsAhead([fifo], { signal: controller.signal });
      if (delay < 0) controller.abort('SIGINT');
      else setTimeout(() => controller.abort('SIGINT'), delay);
      const outcome = await Promise.race([
        reading.then(
          () => 'read',
          (e: unknown) => e,
        ),
        new Promise((r) => setTimeout(() => r('still waiting after 5 s'), 5000)),
      ]);
      expect(outcome, `abort after ${delay} ms`).toBeInstanceOf(Interrupted);
      expect((outcome as Error).message).toContain(`while reading ${fifo}`);
      expect(fileToOpen(fifo)).toBe(fifo);
      // The descriptor is closed as the stream is destroyed, on the event loop: waited for (a loaded machine may take a while).
      for (let waited = 0; openOn(fifo) > 0 && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10));
      expect(openOn(fifo), `abort after ${delay} ms`).toBe(0);
    }
  });

  it('a writer that writes and closes: the copy holds its bytes, under the name given', async () => {
    const fifo = fifoIn(tmp());
    const reading = readInputsAhead([fifo]);
    writeFileSync(fifo, '{"a":1}\n');
    await reading;
    const copy = fileToOpen(fifo);
    expect(copy).not.toBe(fifo);
    expect(readFileSync(copy, 'utf8')).toBe('{"a":1}\n');
    releaseInputs();
    expect(existsSync(copy)).toBe(false);
  });
});
