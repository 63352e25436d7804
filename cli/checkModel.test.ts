// `check --model FILE`: a user's own model, from a module, checked with the
// options of any preset: the documented handoff variant of docs/check.md
// (examples/models/commit-without-fence.mjs), a small model written here in
// JavaScript and in TypeScript, and the mistakes a newcomer makes.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { schemaError } from '../spec/index.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { runCli } from './testSupport.ts';

const tmp = useTemporaryDirectories('sj-check-model-');
const root = join(import.meta.dirname, '..');

/** The documented variant, importing streamjoin's sources instead of the installed package (a checkout has no build). */
function variantFile(dir: string): string {
  const text = readFileSync(join(root, 'examples', 'models', 'commit-without-fence.mjs'), 'utf8');
  expect(text).toContain("from 'streamjoin'");
  const file = join(dir, 'commit-without-fence.mjs');
  writeFileSync(file, text.replace("from 'streamjoin'", `from ${JSON.stringify(join(root, 'index.ts'))}`));
  return file;
}

/**
 * Two processes take a lock by test-and-set, or (`racy`) by a check and a
 * separate set: the racy one lets both into the critical section (Mutex).
 */
const lockModel = (racy: boolean, typed: boolean): string => {
  const t = (annotation: string): string => (typed ? `: ${annotation}` : '');
  return `
${typed ? 'type S = { readonly pc: readonly string[]; readonly locked: boolean };\ntype A = { readonly p: number; readonly step: string };' : ''}
const steps = ${racy ? "['check', 'set', 'enter', 'leave']" : "['take', 'enter', 'leave']"};
export const model = {
  name: '${racy ? 'racy' : 'test-and-set'} lock',
  initialStates: ()${t('S[]')} => [{ pc: ['idle', 'idle'], locked: false }],
  actions(s${t('S')})${t('A[]')} {
    const out${t('A[]')} = [];
    s.pc.forEach((pc, p) => {
      ${racy ? "if (pc === 'idle' && !s.locked) out.push({ p, step: 'check' });\n      if (pc === 'checked') out.push({ p, step: 'set' });" : "if (pc === 'idle' && !s.locked) out.push({ p, step: 'take' });"}
      if (pc === 'holding') out.push({ p, step: 'enter' });
      if (pc === 'critical') out.push({ p, step: 'leave' });
    });
    return out;
  },
  next(s${t('S')}, a${t('A')})${t('S')} {
    const to = { check: 'checked', set: 'holding', take: 'holding', enter: 'critical', leave: 'idle' }[a.step]${typed ? ' as string' : ''};
    const pc = s.pc.map((x, p) => (p === a.p ? to : x));
    const locked = a.step === 'set' || a.step === 'take' ? true : a.step === 'leave' ? false : s.locked;
    return { pc, locked };
  },
  encode: (s${t('S')}) => JSON.stringify(s),
  actionKind: (a${t('A')}) => a.step,
  describeAction: (a${t('A')}) => \`p\${a.p} \${a.step}\`,
  expectedActionKinds: steps,
  invariants: [{ name: 'Mutex', check: (s${t('S')}) => (s.pc.filter((x) => x === 'critical').length > 1 ? 'both processes are in the critical section' : undefined) }],
  goals: [{ name: 'someone enters', reached: (s${t('S')}) => s.pc.includes('critical') }],
  actionToJson: (a${t('A')}) => a,
  actionFromJson: (j${t('unknown')}) => j${typed ? ' as A' : ''},
  stateToJson: (s${t('S')}) => s,
};
`;
};

function write(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('check --model: your own model', () => {
  it('the handoff variant of docs/check.md: Fenced broken, the shortest counterexample written, replayed with --model; the same on two threads', async () => {
    const dir = tmp();
    const file = variantFile(dir);
    const run = async (workers: string): Promise<{ code: number; report: ModelReport; out: string; stdout: string }> => {
      const out = join(dir, `out-${workers}`);
      const r = await runCli(['check', '--model', file, '--stop-at-first', '--workers', workers, '--json', '--out', out]);
      return { code: r.code, report: JSON.parse(r.stdout) as ModelReport, out, stdout: r.stdout };
    };
    const one = await run('1');
    expect(one.code).toBe(1);
    expect(schemaError('reports/check-report', one.report)).toBeUndefined();
    const part = one.report.parts[0];
    expect(part?.model).toBe('cluster k1, commit without the fence');
    const fenced = part?.invariants.find((i) => i.name === 'Fenced');
    expect(fenced?.verdict).toBe('violated');
    expect(fenced?.path?.steps.some((s) => s.startsWith('commit'))).toBe(true);
    expect(fenced?.file).toBe(join(one.out, 'commit-without-fence-Fenced.json'));
    expect(fenced?.replay?.slice(-4)).toEqual(['--replay', fenced?.file, '--model', file]);
    // The views beside it, drawn by the model's own rendering hook (Model.rendering).
    expect(readdirSync(one.out).sort()).toEqual([
      'commit-without-fence-Fenced.html',
      'commit-without-fence-Fenced.json',
      'commit-without-fence-Fenced.md',
    ]);
    const md = readFileSync(join(one.out, 'commit-without-fence-Fenced.md'), 'utf8');
    // Its lanes are the diagram's participants; its rows the steps' "what the model did" and the arrows.
    expect(md).toMatch(/participant N0 as log\n {2}participant N1 as coordinator\n {2}participant N2 as w1/);
    expect(md).toMatch(/\| 9 \| `commit k1` \| `commit k1: owner w2, epoch 2`<br>`fence of k1 stays 1 \(C7 would raise it to 2\)` \|/);
    expect(md).toMatch(/N2->>N\d: write k1 at epoch 1 \(fence 1\)#58; applied/);
    expect(md).toContain(`npx streamjoin check --replay ${fenced?.file} --model ${file}`);
    // The HTML viewer draws the same steps: its embedded view holds the model's rows and lanes.
    const html = readFileSync(join(one.out, 'commit-without-fence-Fenced.html'), 'utf8');
    expect(html).toContain('fence of k1 stays 1 (C7 would raise it to 2)');
    expect(html).toContain('"nodes":["log","coordinator","w1","w2","w3","sink"]');
    // --itf: each state's note is what the model drew for its step; check --replay reads the file back.
    const itfDir = join(dir, 'itf');
    expect((await runCli(['check', '--model', file, '--stop-at-first', '--workers', '1', '--itf', '--out', itfDir])).code).toBe(1);
    const itfFile = join(itfDir, 'commit-without-fence-Fenced.itf.json');
    const itf = JSON.parse(readFileSync(itfFile, 'utf8')) as { states: { '#meta': { note?: string } }[] };
    expect(itf.states[9]?.['#meta'].note).toBe('commit k1: owner w2, epoch 2; fence of k1 stays 1 (C7 would raise it to 2)');
    const fromItf = await runCli(['check', '--replay', itfFile, '--model', file]);
    expect(fromItf.code).toBe(1);
    expect(fromItf.stdout).toMatch(/Fenced VIOLATED at the end/);
    const replay = await runCli(['check', '--replay', fenced?.file ?? '', '--model', file]);
    expect(replay.code).toBe(1);
    expect(replay.stdout).toMatch(/Fenced VIOLATED at the end/);
    // On two threads (this one, and a pool thread that loads the module itself and joins the levels once it has:
    // this small search may be over before): the same states and the same counterexample length.
    const two = await run('2');
    expect(two.code).toBe(1);
    expect([1, 2]).toContain(two.report.parts[0]?.workers);
    const fenced2 = two.report.parts[0]?.invariants.find((i) => i.name === 'Fenced');
    expect(fenced2?.path?.steps.length).toBe(fenced?.path?.steps.length);
  });

  it('a model in JavaScript: exhausted and passing (exit 0), or broken (exit 1); the budgets, --simulate and its shards apply', async () => {
    const dir = tmp();
    const good = write(dir, 'tas.mjs', lockModel(false, false));
    const racy = write(dir, 'racy.mjs', lockModel(true, false));
    const pass = await runCli(['check', '--model', good, '--workers', '1', '--out', dir]);
    expect(pass.code).toBe(0);
    expect(pass.stdout).toMatch(/^streamjoin check: model file .*tas\.mjs \(model test-and-set lock\)$/m);
    expect(pass.stdout).toMatch(/Mutex +holds/);
    expect(pass.stdout).toMatch(/^PASS/m);
    const fail = await runCli(['check', '--model', racy, '--workers', '1', '--out', dir]);
    expect(fail.code).toBe(1);
    expect(fail.stdout).toMatch(/Mutex +VIOLATED/);
    expect(fail.stdout).toMatch(/counterexample, 6 step\(s\)/);
    expect(existsSync(join(dir, 'racy-Mutex.json'))).toBe(true);
    // No rendering hook: the generic drawing, one lane, each step's action and the fields it changed.
    const md = readFileSync(join(dir, 'racy-Mutex.md'), 'utf8');
    expect(md).toMatch(/participant N0 as model\n {2}Note over N0: \[1\] p\d check/);
    expect(md).toMatch(/\| `p(\d) set` \| `pc: - "checked"`<br>`pc: \+ "holding"`<br>`locked: false → true` \| `\/pc\/\1` `\/locked` \|/);
    expect(md).toContain('Mutex is broken after step 6');
    expect(fail.stdout).toContain(`check --replay ${join(dir, 'racy-Mutex.json')} --model ${racy}`);
    expect((await runCli(['check', '--model', racy, '--max-states', '3', '--workers', '1', '--out', tmp()])).code).toBe(2);
    const walks = await runCli(['check', '--model', racy, '--simulate', '--seed', '3', '--walks', '50', '--workers', '1', '--out', tmp()]);
    expect(walks.code).toBe(1);
    expect(walks.stdout).toMatch(/walk \d+ broke a property/);
    const shard = await runCli([
      'check',
      '--model',
      good,
      '--simulate',
      '--seed',
      '3',
      '--walks',
      '5',
      '--shard',
      '2/2',
      '--json',
      '--out',
      tmp(),
    ]);
    expect(shard.code).toBe(0);
    expect(JSON.parse(shard.stdout)).toMatchObject({ shard: { index: 2, count: 2 }, parts: [{ walks: 5, verdict: 'pass' }] });
  });

  it('a model in TypeScript loads too (through tsx, which the checkout has)', async () => {
    const dir = tmp();
    const file = write(dir, 'racy.ts', lockModel(true, true));
    const r = await runCli(['check', '--model', file, '--export', 'model', '--workers', '1', '--out', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/Mutex +VIOLATED/);
  });

  it('refuses, with exit 254 and the file, what is not a model, and preset flags beside --model', async () => {
    const dir = tmp();
    const missing = await runCli(['check', '--model', join(dir, 'nowhere.mjs')]);
    expect(missing.code).toBe(254);
    expect(missing.stderr).toMatch(/nowhere\.mjs: SJ100 cannot read the model module/);
    const directory = await runCli(['check', '--model', dir]);
    expect(directory.code).toBe(254);
    expect(directory.stderr).toMatch(/SJ100 cannot read the model module: it is a directory or a device, not a module file/);
    const noExport = write(dir, 'none.mjs', 'export const other = 1;\n');
    expect((await runCli(['check', '--model', noExport])).stderr).toMatch(
      /none\.mjs: SJ102 no export "default" or "model" \(the module exports: other\); --export NAME picks one/,
    );
    const notModel = write(dir, 'half.mjs', "export default { name: 'half', initialStates: () => [0] };\n");
    expect((await runCli(['check', '--model', notModel])).stderr).toMatch(
      /half\.mjs: SJ102 export "default" is not a model .*: it has no function actions/,
    );
    const broken = write(dir, 'broken.mjs', 'export default {\n');
    const b = await runCli(['check', '--model', broken]);
    expect(b.code).toBe(254);
    expect(b.stderr).toMatch(/broken\.mjs: SJ102 the model module does not load/);
    const both = await runCli(['check', '--model', notModel, '--preset', 'ci']);
    expect(both.code).toBe(254);
    expect(both.stderr).toMatch(/--preset belong to the presets/);
    expect((await runCli(['check', '--preset', 'ci', '--export', 'x'])).stderr).toMatch(/--export NAME goes with --model FILE/);
  });

  it('a model that breaks its contract while explored is bad input (254, SJ102 naming the function), on one thread and on two: never a pass of nothing, a violation it does not have, or an internal error', async () => {
    const dir = tmp();
    const lock = lockModel(false, false);
    const changed = (from: string, to: string): string => {
      expect(lock).toContain(from);
      return lock.replace(from, to);
    };
    // Each a newcomer's mistake, in the test-and-set lock that passes as written.
    const mistakes: readonly (readonly [string, string, RegExp])[] = [
      [
        'an invariant that answers with a boolean',
        changed("'both processes are in the critical section' : undefined", 'false : true'),
        /broke its contract: invariant "Mutex" returned true \(boolean\); it must return undefined when the state satisfies it/,
      ],
      [
        'no initial state',
        changed("initialStates: () => [{ pc: ['idle', 'idle'], locked: false }]", 'initialStates: () => []'),
        /broke its contract: initialStates returned an array of 0; it must return at least one state: there is nothing to explore/,
      ],
      [
        'actions that are not an array',
        changed('return out;', 'return out.length;'),
        /broke its contract: actions returned 2 \(number\); it must return an array/,
      ],
      [
        'next that throws',
        changed('const pc = s.pc.map', "if (a.step === 'enter') throw new RangeError('no entry');\n    const pc = s.pc.map"),
        /threw in next: RangeError: no entry \(at .*bad-\d\.mjs:\d+:\d+\)/,
      ],
      [
        'next that returns nothing',
        changed('return { pc, locked };', "return a.step === 'leave' ? undefined : { pc, locked };"),
        /broke its contract: next returned undefined \(undefined\); it must return the successor state/,
      ],
      [
        'an encoding that is not a string',
        changed('encode: (s) => JSON.stringify(s)', 'encode: (s) => s'),
        /broke its contract: encode returned an object; it must return a string/,
      ],
    ];
    for (const [i, [what, text, message]] of mistakes.entries()) {
      const file = write(dir, `bad-${i}.mjs`, text);
      const r = await runCli(['check', '--model', file, '--out', join(dir, `out-${i}`)]);
      expect({ what, code: r.code, stdout: r.stdout }).toEqual({ what, code: 254, stdout: '' });
      expect(r.stderr).toMatch(new RegExp(`bad-${i}\\.mjs: SJ102 the model "test-and-set lock" ${message.source}`));
    }
    // The handoff variant has a codec, so two threads explore it: a throw on either is the same bad input.
    const variant = readFileSync(variantFile(dir), 'utf8');
    const commit = "return action.kind.startsWith('commit') ? commitWithoutFence(state, after) : after;";
    expect(variant).toContain(commit);
    const throwing = write(
      dir,
      'throwing.mjs',
      variant.replace(commit, "if (action.kind.startsWith('commit')) throw new Error('no commit');\n    return after;"),
    );
    for (const workers of ['1', '2']) {
      const r = await runCli(['check', '--model', throwing, '--workers', workers, '--out', join(dir, `out-w${workers}`)]);
      expect(r.code).toBe(254);
      expect(r.stderr).toMatch(
        /throwing\.mjs: SJ102 the model "cluster k1, commit without the fence" threw in next: Error: no commit \(at /,
      );
    }
    // A fault on this thread only, a second into the search (this thread takes part in every level, so it meets a
    // commit then; the pool's thread has joined by then, and has a level to answer):
    // the same bad input, and the pool thread's end as the session closes is no unhandled rejection.
    const here = write(
      dir,
      'here-only.mjs',
      `import { isMainThread } from 'node:worker_threads';\nconst loaded = Date.now();\n${variant.replace(commit, "if (isMainThread && action.kind.startsWith('commit') && Date.now() - loaded > 1000) throw new Error('no commit here');\n    return after;")}`,
    );
    // In a process of its own: an unhandled rejection ends a process (exit 1), where a test's in-process run goes on.
    const bin = join(root, 'bin', 'streamjoin.js');
    const spawned = spawnSync(process.execPath, [bin, 'check', '--model', here, '--workers', '2', '--out', join(dir, 'out-here')], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    const r = { code: spawned.status, stderr: spawned.stderr };
    expect(r.code, r.stderr).toBe(254);
    expect(r.stderr).toMatch(
      /here-only\.mjs: SJ102 the model "cluster k1, commit without the fence" threw in next: Error: no commit here \(at /,
    );
  });
});

interface ModelReport {
  readonly parts: {
    readonly model: string;
    readonly workers: number;
    readonly invariants: {
      readonly name: string;
      readonly verdict: string;
      readonly file?: string;
      readonly replay?: readonly string[];
      readonly path?: { readonly steps: readonly string[] };
    }[];
  }[];
}
