import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadClusterTrace } from '../../spec/index.ts';
import { RULE_TITLES, rulesOfObservationPath } from '../report/rules.ts';
import { clusterDiagram, renderDiagram } from './explain.ts';

const spec = readFileSync(join(import.meta.dirname, '..', '..', 'spec', 'SPEC.md'), 'utf8');

describe('reports cite the rules of SPEC.md by id and title', () => {
  it('every rule title a report uses is the heading of that rule in SPEC.md', () => {
    for (const [id, title] of Object.entries(RULE_TITLES)) {
      const heading = id.startsWith('§') ? `## ${id} ${title}` : `### ${id} — ${title}`;
      expect(spec, id).toContain(`\n${heading}\n`);
    }
  });

  it('maps observation paths to the rules that define them (§7)', () => {
    expect(rulesOfObservationPath('/sink/deduped').rules).toEqual(['C9']);
    expect(rulesOfObservationPath('/coordinator/keys/k1/epoch').rules).toEqual(['C7', 'C8']);
    expect(rulesOfObservationPath('/workers/w1/keys/k1/retained/live')).toEqual({ rules: ['J8'], properties: ['BoundedState'] });
    expect(rulesOfObservationPath('/workers/w1/keys/k1/frozen').rules).toEqual(['C5', 'C6', 'C7']);
  });
});

describe('sequence diagrams: one column per node', () => {
  it('draws lifelines, notes and messages in both directions', () => {
    const text = renderDiagram(
      ['a', 'b', 'c'],
      [
        { step: 0, from: 0, to: 2, text: 'hello' },
        { step: 0, from: 2, to: 1, text: 'back' },
        { step: 1, from: 1, text: 'note' },
      ],
      10,
    );
    expect(text.split('\n')).toEqual([
      '           a         b         c',
      '   0       ●─ hello ───────────▶',
      '           │         ◀─ back ──●',
      '   1       │         ● note    │',
    ]);
  });

  it("shows a zombie fenced at the sink, from the model's run of the example", () => {
    const trace = loadClusterTrace(join(import.meta.dirname, '..', '..', 'spec', 'examples', 'cluster', 'zombie-fenced.trace.json'));
    const text = clusterDiagram(trace, 4);
    expect(text.split('\n')[0]).toMatch(/^\s+log\s+coordinator\s+w1\s+w2\s+w3\s+sink$/);
    expect(text).toContain('fence k1=e2');
    // Refused at the sink (C9): the arrow ends in ✗, the label leads with FENCED.
    expect(text).toMatch(/●─ FENCED, refused: #1 e1 accepted \+k1\/a\/b ─+✗/);
    expect(text).toContain('drop k1 (fenced)');
  });
});
