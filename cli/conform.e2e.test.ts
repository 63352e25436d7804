// streamjoin conform against systems spawned as processes over the conformance protocol
// (PROTOCOL.md): the end-to-end tier (npm run test:e2e). The in-process runs,
// usage errors, replay and serve are in conform.test.ts.
import { describe, expect, inject, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { SPEC_VERSION } from '../spec/index.ts';
import { runCli } from './testSupport.ts';

const seed = String(inject('fcSeed'));
const run = runCli;
const tmp = useTemporaryDirectories('sj-conform-e2e-', 'all');
const zombie = join(import.meta.dirname, '..', 'spec', 'examples', 'cluster', 'zombie-fenced.trace.json');

describe('streamjoin conform --sut COMMAND (a process speaking the protocol)', () => {
  it(
    '--sut "node bin/streamjoin.js serve" --exhaustive: the implementation over the process protocol conforms ' +
      'on every interleaving of two of the five scenarios (zombie-after-failover, failover-replay-from-older-checkpoint: ' +
      '4,150 interleavings; the full set runs in the mutants test and the main job, in-process), the examples ' +
      'and random traces; exit 0',
    async () => {
      const out = tmp();
      const r = await run([
        'conform',
        '--sut',
        'node bin/streamjoin.js serve',
        '--exhaustive',
        '--scenario',
        'zombie-after-failover,failover-replay-from-older-checkpoint',
        `--seed=${seed}`,
        '--runs',
        '20',
        '--out',
        out,
      ]);
      expect(r.stdout).toContain(`streamjoin conform: streamjoin-impl ${SPEC_VERSION}`);
      expect(r.stdout).toMatch(
        /^exhaustive zombie-after-failover: 1,745 of 1,745 interleavings \([\d,]+ steps, [\d,]+ probes sent; 1,745 at faults\), 2,478 transitions of 737 states, pass/m,
      );
      expect(r.stdout).toMatch(/^exhaustive failover-replay-from-older-checkpoint: 2,405 of 2,405 interleavings .* pass/m);
      expect(r.stdout).toMatch(/^coverage: NOT COMPLETE with these scenarios at these levels: missing .*crash:src@migrate@frozen/m);
      expect(r.stdout).toContain('verdict: PASS');
      expect(r.code).toBe(0);
      expect(readdirSync(out)).toEqual([]);
    },
  );

  it('a wrong implementation: exit 1, the counterexample and its explanation written, and the printed replay command reproduces it', async () => {
    const out = tmp();
    const sut = 'node --import tsx conformance/testdata/misbehave.ts ablate:install-epoch-check';
    const r = await run([
      'conform',
      '--sut',
      sut,
      '--level',
      'cluster',
      `--seed=${seed}`,
      '--runs',
      '300',
      '--out',
      out,
      '--examples',
      'none',
    ]);
    expect(r.code).toBe(1);
    const files = readdirSync(out).sort();
    const base = `cluster-seed${Number(seed) | 0}`;
    expect(files).toEqual([`${base}.explain.txt`, `${base}.html`, `${base}.md`, `${base}.trace.json`]);
    expect(r.stdout).toContain(`viewer:         ${join(out, `${base}.html`)}`);
    const explanation = readFileSync(join(out, files[0] as string), 'utf8');
    expect(explanation).toContain('C6 (Install)');
    expect(explanation).toContain('Sequence diagram');
    // The stderr shown is that of the counterexample's own run, not the end of the whole run:
    // misbehave logs each request it reads; a run of N steps is an init, then an action and an inspect per step.
    const steps = (JSON.parse(readFileSync(join(out, files[3] as string), 'utf8')) as { steps: unknown[] }).steps.length;
    const logged = [...explanation.matchAll(/^ {2}\| misbehave: request (\d+)$/gm)].map((m) => Number(m[1]));
    expect(logged).toHaveLength(Math.min(20, 1 + 2 * steps));
    expect(logged).toEqual(logged.map((_, i) => (logged[0] as number) + i));
    const replayLine = /replay: {9}npx streamjoin (replay .*)$/m.exec(r.stdout)?.[1];
    expect(replayLine).toBeDefined();
    // The printed command, as a shell would split it.
    const args = (replayLine as string).match(/'[^']*'|\S+/g)?.map((w) => w.replace(/^'|'$/g, '')) ?? [];
    const replay = await run(args);
    expect(replay.code).toBe(1);
    const step = /Divergence at step (\d+)/.exec(r.stdout)?.[1];
    expect(replay.stdout).toContain(`Divergence at step ${step}`);
    // The same file against the model itself: it conforms.
    expect((await run(['replay', join(out, files[3] as string), '--sut', 'model'])).code).toBe(0);
  });

  it('a dead system: exit 2 (unknown), with the reason and its last stderr lines', async () => {
    const r = await run([
      'conform',
      '--sut',
      'node --import tsx conformance/testdata/misbehave.ts exit 3',
      '--seed',
      '1',
      '--runs',
      '1',
      '--out',
      tmp(),
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/UNKNOWN during .*: dead: the process exited with code 3/);
    expect(r.stdout).toContain('| misbehave: simulated crash');
    expect(r.stdout).toContain('verdict: UNKNOWN');
  });

  it('a system that dies in the middle of the pipelined exhaustive traces: exit 2 (unknown), with the reason; nothing hangs', async () => {
    const sut = 'node --import tsx conformance/testdata/misbehave.ts exit 2000';
    const r = await run([
      'conform',
      '--sut',
      sut,
      '--exhaustive',
      '--scenario',
      'zombie-after-failover',
      '--examples',
      'none',
      '--runs',
      '0',
      '--out',
      tmp(),
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/UNKNOWN during exhaustive scenario zombie-after-failover: dead: the process exited with code 3/);
  });
});

describe('streamjoin replay --sut COMMAND', () => {
  it("--out DIR: a divergence writes the counterexample (cut at the divergence, with the model's expectations) and its explanation, as conform does", async () => {
    const dir = tmp();
    const sut = 'node --import tsx conformance/testdata/misbehave.ts ablate:sink-fence';
    const r = await run(['replay', zombie, '--sut', sut, '--out', dir, '--startup-timeout', '60000']);
    expect(r.code).toBe(1);
    const base = join(dir, 'zombie-fenced.faults');
    expect(readdirSync(dir).sort()).toEqual(['explain.txt', 'html', 'md', 'trace.json'].map((x) => `zombie-fenced.faults.${x}`));
    expect(r.stdout).toContain(`written: ${base}.trace.json, ${base}.explain.txt, ${base}.md, ${base}.html`);
    const written = JSON.parse(readFileSync(join(dir, 'zombie-fenced.faults.trace.json'), 'utf8')) as { steps: unknown[] };
    const step = Number(/Divergence at step (\d+)/.exec(r.stdout)?.[1]);
    expect(written.steps).toHaveLength(step); // steps count from 1: the cut trace ends at the step that diverges
    // The explanation shows this run's stderr: misbehave logs each request, the handshake's and then the trace's
    // (its init, then an action and an inspect per step of the whole file).
    const explanation = readFileSync(join(dir, 'zombie-fenced.faults.explain.txt'), 'utf8');
    expect(explanation).toContain('What the system under test wrote to stderr while this trace ran:');
    const logged = [...explanation.matchAll(/^ {2}\| misbehave: request (\d+)$/gm)].map((m) => Number(m[1]));
    const steps = (JSON.parse(readFileSync(zombie, 'utf8')) as { steps: unknown[] }).steps.length;
    expect(logged).toEqual(Array.from({ length: 1 + 2 * steps }, (_, i) => 2 + i));
    // The written trace replays against the model (its expectations are the model's).
    expect((await run(['replay', join(dir, 'zombie-fenced.faults.trace.json'), '--sut', 'model'])).code).toBe(0);
    // Refused: --out that would overwrite the file replayed.
    const again = await run(['replay', join(dir, 'zombie-fenced.faults.trace.json'), '--sut', 'model', '--out', dir]);
    expect(again.code).toBe(254);
    expect(again.stderr).toMatch(/^usage: SJ105 --out .*: the counterexample would overwrite/);
  });
});
