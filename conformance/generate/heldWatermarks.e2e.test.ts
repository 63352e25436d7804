// C6, C8, C10 with C2, over every trace of every cluster scenario: each
// restore that gives a copy watermarks from a checkpoint, and whose copy
// reads on, shows their loss at some later step (the epilogue at the
// latest, exhaustive.ts), unless the log's own later watermarks made it
// good first or the loss stayed only where no later step of the trace reads
// it (a copy that no longer owns its key, a checkpoint no restore reads
// again). The kinds of restore each scenario makes are the table's.
import { describe, expect, it } from 'vitest';
import { coverScenario } from './exhaustive.ts';
import { exhaustiveScenario, type ExhaustiveScenario } from './clusterScenarios.ts';
import { HELD_RESTORES, restoresOf } from '../testdata/heldWatermarks.ts';

describe('C6, C8, C10, C2: every restore of every cluster scenario trace shows the loss of its watermarks', () => {
  for (const [name, kinds] of Object.entries(HELD_RESTORES)) {
    it(`${name}: every restore whose copy reads on (${kinds.join(', ') || 'none: no checkpoint is written'}) shows the loss, or the log made it good, or it stayed unread (under 1 %)`, () => {
      const count = { processed: 0, shows: 0, healed: 0, unread: 0 };
      const made = new Set<string>();
      for (const t of coverScenario(exhaustiveScenario(name) as ExhaustiveScenario, { probes: false }).traces) {
        for (const r of restoresOf(t)) {
          if (!r.processed) continue;
          made.add(r.kind);
          count.processed++;
          if (r.shows) count.shows++;
          else if (r.healed) count.healed++;
          else {
            expect(r.unread, `${t.name}: the ${r.kind} at step ${r.step + 1} neither shows the loss nor is made good`).toBe(true);
            count.unread++;
          }
        }
      }
      console.log(`${name}: ${JSON.stringify(count)}`);
      expect([...made].sort()).toEqual([...kinds].sort());
      expect(count.unread * 100).toBeLessThanOrEqual(count.processed);
    }, 300_000);
  }
});
