// The two example jobs from the command line.
//
//   npx tsx examples/engines/job.ts d2ts|pglite changelog --log LOG --sink SINK [--batch N] [--gate spec|none] [--overlap inclusive|strict]
//   npx tsx examples/engines/job.ts d2ts|pglite conform [--seed N] [--runs N] [--overlap inclusive|strict]
//
// `changelog` runs a streamjoin history log through the engine and writes
// the changelog `streamjoin audit --log LOG --sink SINK` checks. `conform`
// checks the engine live (matchingEngineSystem): the operator examples, the
// mutant catalogue's regression traces and random traces in lockstep with
// the reference model; it prints the verdict and the first divergence.
// Exit codes as streamjoin's: 0 pass, 1 fail, 2 unknown, 254 usage.
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { PGlite } from '@electric-sql/pglite';
import { loadAnyTrace, matchingEngineSystem, runConform, type ConformReport, type JoinConfig, type SystemUnderTest } from '../../index.ts';
import { d2tsJoin } from './d2ts.ts';
import { type IncrementalJoin, type Overlap, liveMatcher, readLog, writeChangelog } from './engine.ts';
import { openPostgres, pgliteJoin } from './pglite.ts';

export const ENGINES = ['d2ts', 'pglite'] as const;
export type EngineName = (typeof ENGINES)[number];

/** Starts engines of one kind, correct or with the overlap bug; a Postgres database is started once and shared by every session. */
export interface EngineStarter {
  start(overlap: Overlap): Promise<IncrementalJoin>;
  close(): Promise<void>;
}

export function engineStarter(name: EngineName): EngineStarter {
  if (name === 'd2ts') return { start: async (overlap) => d2tsJoin(overlap), close: async () => undefined };
  let db: Promise<PGlite> | undefined;
  return {
    start: async (overlap) => pgliteJoin(await (db ??= openPostgres()), overlap),
    close: async () => {
      if (db) await (await db).close();
    },
  };
}

/** The engine as a system under test at level operator: streamjoin keeps the spec's books, the engine matches. */
export function engineSystem(name: EngineName, engines: EngineStarter, overlap: Overlap): SystemUnderTest {
  return matchingEngineSystem({
    implementation: { name: `${name}-interval-join${overlap === 'strict' ? '-strict' : ''}`, version: '1' },
    engine: async (_config: JoinConfig) => liveMatcher(await engines.start(overlap)),
  });
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const traceFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !f.endsWith('.explain.json'))
    .sort()
    .map((f) => join(dir, f));

/** The operator examples of spec/examples/ and the mutant catalogue's regression traces (cluster traces are skipped at level operator). */
export function exampleTraces() {
  const load = (paths: string[]) => paths.map((path) => ({ path, trace: loadAnyTrace(path) }));
  return {
    examples: load(traceFiles(join(root, 'spec', 'examples')).filter((p) => p.endsWith('.trace.json'))),
    regressions: load(traceFiles(join(root, 'conformance', 'mutants', 'regressions'))),
  };
}

/** One line per fact: the verdict, and the first divergence with its trace. */
export function conformSummary(report: ConformReport): string {
  const lines = [`${report.sut}: ${report.verdict}, seed ${report.seed}`];
  const failure = report.failures[0];
  if (failure) {
    lines.push(
      `first divergence (${failure.origin}${failure.path ? ` ${relative(process.cwd(), failure.path)}` : ''}): ${failure.divergence.summary}`,
    );
    if (failure.trace.kind === 'operator') for (const step of failure.trace.trace.steps) lines.push(`  ${JSON.stringify(step.record)}`);
  }
  if (report.unknown) lines.push(`unknown: ${report.unknown.reason}`);
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      log: { type: 'string' },
      sink: { type: 'string' },
      batch: { type: 'string', default: '100' },
      gate: { type: 'string', default: 'spec' },
      overlap: { type: 'string', default: 'inclusive' },
      seed: { type: 'string', default: '1' },
      runs: { type: 'string', default: '100' },
    },
  });
  const [name, command] = positionals;
  const overlap = values.overlap as Overlap;
  if (
    !ENGINES.includes(name as EngineName) ||
    (command !== 'changelog' && command !== 'conform') ||
    !['inclusive', 'strict'].includes(overlap)
  )
    throw new Error('usage: job.ts d2ts|pglite changelog|conform [options] (see the head of this file)');
  const engines = engineStarter(name as EngineName);
  try {
    if (command === 'changelog') {
      if (values.log === undefined || values.sink === undefined) throw new Error('usage: changelog needs --log LOG --sink SINK');
      const gate = values.gate === 'none' ? 'none' : 'spec';
      const { config, records } = readLog(values.log);
      const lines = await writeChangelog(await engines.start(overlap), config, records, { batch: Number(values.batch), gate });
      writeFileSync(values.sink, `${lines.join('\n')}\n`);
      process.stderr.write(
        `${name}: ${records.length} records in batches of ${values.batch} (gate ${gate}): ${lines.length - 1} sink changes\n`,
      );
      return 0;
    }
    const report = await runConform({
      system: engineSystem(name as EngineName, engines, overlap),
      seed: Number(values.seed),
      runs: Number(values.runs),
      ...exampleTraces(),
    });
    process.stdout.write(`${conformSummary(report)}\n`);
    return report.verdict === 'pass' ? 0 : report.verdict === 'fail' ? 1 : 2;
  } finally {
    await engines.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 254;
    },
  );
}
