// The package as a user gets it: `npm pack`, installed into a fresh project,
// run through `npx streamjoin` (the compiled CLI, no tsx) and imported from
// plain Node and from a typechecked TypeScript consumer. End-to-end tier.
import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { schemaError } from '../spec/index.ts';

const root = join(import.meta.dirname, '..');
const tmp = useTemporaryDirectories('sj-package-', 'all');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The environment of a user's shell: nothing of the test run's (STREAMJOIN_FROM_SOURCE, vitest's). */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('STREAMJOIN_') && !k.startsWith('VITEST') && k !== 'NODE_OPTIONS') env[k] = v;
  return env;
}

interface Packed {
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly files: readonly { readonly path: string }[];
}

let packed: Packed;
let project: string;
/** What `npm install` of the tarball printed on stderr. */
let installStderr: string;

function inProject(command: string, args: readonly string[]): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd: project, env: userEnv(), encoding: 'utf8', timeout: 300_000 });
}

beforeAll(() => {
  const dest = tmp();
  // `npm pack` runs `prepack` (the build): the tarball holds a dist/ compiled from these sources.
  const out = execFileSync(npm, ['pack', '--json', '--pack-destination', dest], {
    cwd: root,
    env: userEnv(),
    encoding: 'utf8',
    timeout: 300_000,
  });
  packed = (JSON.parse(out.slice(out.indexOf('['))) as Packed[])[0] as Packed;
  project = tmp();
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'consumer', private: true, type: 'module' })}\n`);
  // Its dependencies come from npm's cache (filled by the checkout's `npm ci`) or the registry.
  const installed = spawnSync(npm, ['install', join(dest, packed.filename), '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: project,
    env: userEnv(),
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (installed.status !== 0) throw new Error(`npm install failed: ${installed.stderr}`);
  installStderr = installed.stderr;
}, 300_000);

describe('the published package (npm pack, installed in a fresh project)', () => {
  it('installs without a warning (no install script, no engine it does not meet)', () => {
    expect(installStderr).not.toMatch(/warn/i);
  });

  it('holds what a user needs and nothing else: dist (JS and .d.ts, no source maps), the spec documents, schemas and examples, docs, the license', () => {
    const paths = packed.files.map((f) => f.path);
    for (const needed of [
      'package.json',
      'LICENSE',
      'bin/streamjoin.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/bin.js',
      'spec/SPEC.md',
      'spec/PROTOCOL.md',
      'spec/schemas/record.schema.json',
      'spec/schemas/reports/conform-report.schema.json',
      'spec/examples/horizon-boundary.trace.json',
      'docs/ci.md',
      'conformance/views/assets/viewer.js',
      'explore/assets/explore.js',
      'examples/python/join.py',
    ])
      expect(paths, needed).toContain(needed);
    for (const p of paths) {
      expect(p, 'no tests').not.toMatch(/\.test\.(ts|js)$|testdata|testFixtures|testSupport|crashChild/);
      expect(p, 'no TypeScript sources, benches, scripts or CI files').not.toMatch(
        /^(bench|scripts|test-setup|\.ci)\/|^[^/]+\.ts$|^(cli|model|impl|spec|conformance|explore)\/.*\.ts$/,
      );
    }
    expect(
      paths.filter((p) => p.endsWith('.map')),
      'no source maps',
    ).toEqual([]);
    // Every module shipped is loaded from the entry points (the library, the CLI), or holds types only (`export {};`).
    const installed = join(project, 'node_modules', 'streamjoin');
    const reached = modulesReachedFrom(installed, ['dist/index.js', 'dist/cli/bin.js']);
    for (const p of paths.filter((x) => x.endsWith('.js') && x.startsWith('dist/')))
      if (!reached.has(p)) expect(readFileSync(join(installed, p), 'utf8').trim(), `${p}: nothing imports it`).toBe('export {};');
    const pkg = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(pkg['private']).toBeUndefined();
    expect(pkg['repository']).toEqual({ type: 'git', url: 'git+https://github.com/streamjoin/streamjoin.git' });
    expect(pkg['homepage']).toBe('https://github.com/streamjoin/streamjoin#readme');
    expect(pkg['bugs']).toEqual({ url: 'https://github.com/streamjoin/streamjoin/issues' });
    expect(Object.keys(pkg['scripts'] as object)).not.toContain('prepare');
    expect(pkg['engines']).toEqual({ node: '>=20.19' });
    // The registry page shows the README without docs/images/: its picture is an absolute URL.
    const readme = readFileSync(join(installed, 'README.md'), 'utf8');
    for (const [, src] of readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)) expect(src).toMatch(/^https:\/\//);
    expect(pkg['license']).toBe('MIT');
    expect(Object.keys(pkg['dependencies'] as object)).not.toContain('tsx');
  });

  it('npx streamjoin --version and -V name the package version and the spec version', () => {
    const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    for (const flag of ['--version', '-V']) {
      const r = inProject('npx', ['streamjoin', flag]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^streamjoin ${version.replace(/\./g, '\\.')} \\(spec \\d+\\.\\d+, protocol \\d+\\)\\n$`));
    }
  });

  it('npx streamjoin conform --sut model conforms (exit 0) with a schema-valid JSON report', () => {
    const r = inProject('npx', ['streamjoin', 'conform', '--sut', 'model', '--seed', '1', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { verdict: string; examples: { path: string }[] };
    expect(schemaError('reports/conform-report', report)).toBeUndefined();
    expect(report.verdict).toBe('pass');
    // The examples are read from the installed package, and named relative to the working directory.
    expect(report.examples[0]?.path).toMatch(/^node_modules\/streamjoin\/spec\/examples\//);
  });

  it('npx streamjoin check --preset smoke passes (exit 0)', () => {
    const r = inProject('npx', ['streamjoin', 'check', '--preset', 'smoke']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('PASS: every part passes');
  });

  it('npx streamjoin check --model checks the handoff variant shipped for docs/check.md, importing the installed package, on two threads (exit 1: Fenced broken)', () => {
    const model = join('node_modules', 'streamjoin', 'examples', 'models', 'commit-without-fence.mjs');
    const r = inProject('npx', ['streamjoin', 'check', '--model', model, '--stop-at-first', '--workers', '2']);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/\(model cluster k1, commit without the fence\)/);
    expect(r.stdout).toMatch(/Fenced +VIOLATED/);
    expect(r.stdout).toMatch(
      /--replay out\/commit-without-fence-Fenced\.json --model node_modules\/streamjoin\/examples\/models\/commit-without-fence\.mjs/,
    );
  });

  it('a printed replay command works where it is printed: npx streamjoin, the counterexample relative to the working directory', () => {
    const r = inProject('npx', ['streamjoin', 'check', '--preset', 'join-small', '--ablate', 'retract-tombstone']);
    expect(r.status, r.stderr).toBe(1);
    const replay = /replay: (npx streamjoin check --replay out\/join-small-retract-tombstone-JoinCorrect\.json)$/m.exec(r.stdout)?.[1];
    expect(replay, r.stdout).toBeDefined();
    // The views beside it need the package's assets (the viewer's script and style), found from dist/.
    const pages = readdirSync(join(project, 'out')).filter((f) => f.endsWith('.html'));
    expect(pages).toContain('join-small-retract-tombstone-JoinCorrect.html');
    for (const page of pages) expect(readFileSync(join(project, 'out', page), 'utf8')).toContain('<script');
    const again = inProject('npx', (replay as string).split(' ').slice(1));
    expect(again.status, again.stderr).toBe(1);
    expect(again.stdout).toContain('JoinCorrect VIOLATED at the end');
  });

  it('npx streamjoin mutants refuses clearly (exit 254): mutants patch TypeScript sources the package does not have', () => {
    const r = inProject('npx', ['streamjoin', 'mutants', '--seed', '1']);
    expect(r.status).toBe(254);
    expect(r.stderr).toMatch(/^usage: SJ105 mutants patch the implementation's TypeScript sources/);
    // serve --mutant says so in its help.
    const help = inProject('npx', ['streamjoin', 'help', 'serve']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('It needs a checkout of streamjoin with its development dependencies');
  });

  it("import { … } from 'streamjoin' works from plain Node and from TypeScript that typechecks against the package's declarations without @types/node, also with the ES2022 lib only", () => {
    const consumer = `import { SPEC_VERSION, createModelOperator, loadOperatorTrace, runOperatorTrace, type OperatorTrace } from 'streamjoin';

const trace: OperatorTrace = loadOperatorTrace('node_modules/streamjoin/spec/examples/horizon-boundary.trace.json');
const result = runOperatorTrace(trace, createModelOperator);
const steps: number = result.observations.length;
console.log(JSON.stringify({ spec: SPEC_VERSION, name: result.name, steps, diverges: result.divergence !== undefined }));
`;
    mkdirSync(join(project, 'src'));
    writeFileSync(join(project, 'src', 'consumer.ts'), consumer);
    writeFileSync(
      join(project, 'tsconfig.json'),
      `${JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          rootDir: 'src',
          outDir: 'out',
          // No Node types: the declarations must not need them.
          types: [],
        },
        include: ['src'],
      })}\n`,
    );
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(tsc.status, `${tsc.stdout}${tsc.stderr}`).toBe(0);
    // The barest consumer: the ES2022 library only (no DOM, so no global AbortSignal, no
    // console), no Node types; it passes its own signal through the structural AbortSignalLike.
    const bare = `import { runConform, type AbortSignalLike, type ConformOptions, type ConformReport } from 'streamjoin';

const never: AbortSignalLike = { aborted: false, addEventListener() {}, removeEventListener() {} };
export function conformUntil(options: ConformOptions, signal: AbortSignalLike = never): Promise<ConformReport> {
  return runConform({ ...options, signal });
}
`;
    mkdirSync(join(project, 'bare'));
    writeFileSync(join(project, 'bare', 'consumer.ts'), bare);
    writeFileSync(
      join(project, 'tsconfig.bare.json'),
      `${JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2022'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          noEmit: true,
          types: [],
        },
        include: ['bare'],
      })}\n`,
    );
    const bareTsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.bare.json'], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(bareTsc.status, `${bareTsc.stdout}${bareTsc.stderr}`).toBe(0);
    const ran = inProject(process.execPath, [join('out', 'consumer.js')]);
    expect(ran.status, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({ spec: '1.1', name: 'horizon-boundary', steps: expect.any(Number), diverges: false });
    const plain = inProject(process.execPath, [
      '--input-type=module',
      '-e',
      "import { PRESETS, runConform } from 'streamjoin'; console.log(typeof runConform, PRESETS.some((p) => p.name === 'smoke'));",
    ]);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout).toBe('function true\n');
  });
});

/** The package's files (paths from its root) that the entry modules load, following relative imports. */
function modulesReachedFrom(packageRoot: string, entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const pending = [...entries];
  const specifier =
    /(?:import|export)\s*(?:[^'"]*?from\s*)?['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|new URL\(\s*['"](\.[^'"]+)['"]/g;
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    let text: string;
    try {
      text = readFileSync(join(packageRoot, file), 'utf8');
    } catch {
      continue;
    }
    for (const m of text.matchAll(specifier)) {
      const target = posix.normalize(posix.join(posix.dirname(file), (m[1] ?? m[2] ?? m[3]) as string));
      pending.push(target.endsWith('.ts') ? `${target.slice(0, -3)}.js` : target);
    }
  }
  return seen;
}
