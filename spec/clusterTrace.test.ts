import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from './errors.ts';
import { loadAnyTrace, loadClusterTrace, parseClusterTrace } from './documents.ts';

const clusterDir = join(import.meta.dirname, 'examples', 'cluster');
const example = readFileSync(join(clusterDir, 'zombie-fenced.trace.json'), 'utf8');

function errorOf(f: () => unknown): InputError {
  try {
    f();
  } catch (e) {
    if (e instanceof InputError) return e;
    throw e;
  }
  throw new Error('no error');
}

/** The parts of a cluster trace the tests below edit, loosely typed so that they can break it. */
interface Doc {
  format: string;
  config: { keys: { key: string; owner: string }[] };
  steps: { action: Record<string, unknown> }[];
}

const edited = (edit: (doc: Doc) => void): string => {
  const doc = JSON.parse(example) as Doc;
  edit(doc);
  // One line per step, so that positions name the step's line.
  return JSON.stringify(doc, null, 2);
};

describe('§7 cluster traces: loading and the checks the schema cannot make', () => {
  it('every cluster example is a valid cluster trace named after its file, with expectations at every step', () => {
    const files = readdirSync(clusterDir).filter((f) => f.endsWith('.trace.json'));
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const f of files) {
      const t = loadClusterTrace(join(clusterDir, f));
      expect(`${t.name}.trace.json`).toBe(f);
      expect(t.steps.every((s) => s.expect?.observation !== undefined)).toBe(true);
    }
  });

  it('C1 (SJ106): an owner that is not a listed worker, a key declared twice', () => {
    expect(
      errorOf(() =>
        parseClusterTrace(
          edited((d) => ((d.config.keys[0] as { owner: string }).owner = 'w9')),
          'x.json',
        ),
      ).format(),
    ).toMatch(/^x\.json:\d+:\d+: SJ106 \/config\/keys\/0\/owner: owner "w9" is not a listed worker$/);
    const twice = errorOf(() =>
      parseClusterTrace(
        edited((d) => d.config.keys.push({ key: 'k1', owner: 'w2' })),
        'x.json',
      ),
    );
    expect(twice.code).toBe('SJ106');
    expect(twice.message).toContain('declared twice');
  });

  it('§7 (SJ107): a process action is refused, naming the step', () => {
    const e = errorOf(() =>
      parseClusterTrace(
        edited((d) => d.steps.splice(1, 0, { action: { type: 'process', worker: 'w1', key: 'k1' } })),
        'x.json',
      ),
    );
    expect(e.code).toBe('SJ107');
    expect(e.message).toMatch(/^step 2: /);
    // The line and column of the action of step 2 (steps[1]) in the file.
    const lines = edited((d) => d.steps.splice(1, 0, { action: { type: 'process', worker: 'w1', key: 'k1' } })).split('\n');
    const line = lines.findIndex((l) => l.includes('"process"')) - 1;
    expect(e.where).toBe(`x.json:${line + 1}:${(lines[line] ?? '').indexOf('"action"') + 11}`);
  });

  it('SJ102 names the step and field; SJ103 refuses another format', () => {
    const e = errorOf(() =>
      parseClusterTrace(
        edited((d) => ((d.steps[2] as { action: Record<string, unknown> }).action['to'] = 7)),
        'x.json',
      ),
    );
    expect(e.code).toBe('SJ102');
    expect(e.message).toMatch(/^step 3: /);
    expect(
      errorOf(() =>
        parseClusterTrace(
          edited((d) => (d.format = 'streamjoin/cluster-trace@2')),
          'x.json',
        ),
      ).code,
    ).toBe('SJ103');
  });

  it('loadAnyTrace tells operator and cluster traces apart by format', () => {
    expect(loadAnyTrace(join(clusterDir, 'zombie-fenced.trace.json')).kind).toBe('cluster');
    expect(loadAnyTrace(join(import.meta.dirname, 'examples', 'horizon-boundary.trace.json')).kind).toBe('operator');
  });
});
