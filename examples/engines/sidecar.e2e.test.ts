// The sidecar (examples/python/sidecar.py): an engine in another language
// that decides matches only, with `streamjoin serve --model` beside it for
// the spec's bookkeeping, checked by `conform` over the process protocol.
// It conforms; with `SJ_BUG=strict` (`<` for `<=`) it diverges in changes.
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { useTemporaryDirectories } from '../../conformance/testFixtures.ts';
import type { ConformJson } from '../../cli/conformReport.ts';
import { runCli } from '../../cli/testSupport.ts';

const seed = String(inject('fcSeed'));
const tmp = useTemporaryDirectories('sj-sidecar-', 'all');
const root = join(import.meta.dirname, '..', '..');
const sidecar = (bug: string) =>
  `${bug}STREAMJOIN_MODEL='node ${join(root, 'bin', 'streamjoin.js')} serve --model' python3 ${join(root, 'examples', 'python', 'sidecar.py')}`;

describe('examples/python/sidecar.py: the model beside an engine that decides matches only', () => {
  it(`conform --sut "python3 sidecar.py": every operator example and 50 random traces conform, exit 0 (seed ${seed})`, async () => {
    const r = await runCli(['conform', '--sut', sidecar(''), `--seed=${seed}`, '--runs', '50', '--json', '--out', tmp()]);
    const report = JSON.parse(r.stdout) as ConformJson;
    expect(report.unknown, r.stderr).toBeNull();
    expect(report.verdict).toBe('pass');
    expect(r.code).toBe(0);
    expect(report.implementation?.name).toBe('python-sidecar-join');
    expect(report.levels).toEqual(['operator']);
    expect(report.examples.filter((e) => e.verdict === 'pass').length).toBeGreaterThan(10);
  });

  it(`J3: with SJ_BUG=strict (\`<\` for \`<=\`) it diverges in changes, exit 1 (seed ${seed})`, async () => {
    const r = await runCli(['conform', '--sut', sidecar('SJ_BUG=strict '), `--seed=${seed}`, '--runs', '50', '--json', '--out', tmp()]);
    const report = JSON.parse(r.stdout) as ConformJson;
    expect(report.verdict, r.stderr).toBe('fail');
    expect(r.code).toBe(1);
    const first = report.failures[0];
    expect(first?.divergence.field).toBe('changes');
    expect(first?.steps).toBeLessThanOrEqual(4);
  });
});
