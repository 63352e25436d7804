// Writing a conformance counterexample: the trace (with the model's
// expectations), its terminal explanation, its Markdown (with a Mermaid
// diagram) and its self-contained HTML viewer, and on request its ITF trace,
// atomically, under names derived from where the failure came from, with the
// command that replays it.
import { isAbsolute, join, relative, sep } from 'node:path';
import { PACKAGE_ROOT } from '../../spec/packageFiles.ts';
import type { LinkBase } from '../report/specLinks.ts';
import type { ImplementationInfo } from '../../spec/index.ts';
import type { Failure } from '../report/failure.ts';
import { prettyJson } from '../sut/jsonDiff.ts';
import { writeFilesAtomic } from '../streams/atomicFiles.ts';
import { explainView } from './explain.ts';
import { counterexampleHtml } from './html.ts';
import { conformanceItf } from './itf.ts';
import { counterexampleMarkdown } from './markdown.ts';
import { conformanceView } from './view.ts';

/**
 * A path as a counterexample file shows it, with nothing of the machine it
 * was written on: one of streamjoin's own files (a built-in example) from the
 * package root (`spec/examples/x.trace.json`), a file under the working
 * directory from there, any other as given.
 */
export function portablePath(path: string, cwd: string = process.cwd()): string {
  for (const root of [PACKAGE_ROOT, cwd]) {
    const r = relative(root, path);
    if (r !== '' && !r.startsWith('..') && !isAbsolute(r)) return r.split(sep).join('/');
  }
  return path;
}

/** Quotes a word for a POSIX shell, only when it needs it. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The base file name of a failure's counterexample. */
export function failureName(f: Pick<Failure, 'origin' | 'level' | 'seed' | 'scenario' | 'trace'>): string {
  const base =
    f.origin === 'random'
      ? `${f.level}-seed${f.seed ?? 0}`
      : f.origin === 'exhaustive'
        ? `exhaustive-${f.scenario ?? 'scenario'}.${f.level}`
        : `${f.trace.trace.name}.${f.level}`;
  return base.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** The words of a command line; `shellCommand` joins them for a POSIX shell. */
export type Argv = readonly string[];

export function shellCommand(argv: Argv): string {
  return argv.map(shellQuote).join(' ');
}

/** A counterexample as written: the failure, the files, and the commands that replay it. */
export interface WrittenCounterexample {
  /** The failure it shows. */
  readonly failure: Failure;
  /** The trace file (replayable). */
  readonly tracePath: string;
  /** The terminal explanation, as text. */
  readonly explainPath: string;
  /** The Markdown report. */
  readonly markdownPath: string;
  /** The self-contained HTML viewer. */
  readonly htmlPath: string;
  /** With `itf`: the trace in the Informal Trace Format. */
  readonly itfPath?: string;
  /** The command that replays the counterexample (`streamjoin replay`), as printed, and as words. */
  readonly replay: string;
  /** The replay command as words. */
  readonly replayArgv: Argv;
  /** For a random trace: the command that goes straight back to it (its seed and fast-check path). */
  readonly search?: string;
  /** The search command as words. */
  readonly searchArgv?: Argv;
}

/** Where a counterexample goes and how its replay command names the system. */
export interface CounterexampleTarget {
  /** The directory the files go to. */
  readonly outDir: string;
  /** Base file name (no extension). */
  readonly name: string;
  /** How streamjoin was invoked (`npx streamjoin`): the printed commands start with it. */
  readonly invocation: Argv;
  /** The --sut value of the printed commands. */
  readonly sutCommand: string;
  /** The system as the explanation names it. */
  readonly sut: string;
  /** The implementation's name and version, as the explanation names it. */
  readonly implementation?: string;
  /** Also write the trace in the Informal Trace Format (`NAME.itf.json`). */
  readonly itf?: boolean;
  /** Where the links to SPEC.md point (specLinks.ts); default the published repository at this version. */
  readonly linkBase?: LinkBase;
}

/** Writes one counterexample (trace, explanation, Markdown, HTML, and ITF on request; atomically); returns the paths and the command that replays it. */
export function writeCounterexample(f: Failure, target: CounterexampleTarget): WrittenCounterexample {
  const tracePath = join(target.outDir, `${target.name}.trace.json`);
  const explainPath = join(target.outDir, `${target.name}.explain.txt`);
  const markdownPath = join(target.outDir, `${target.name}.md`);
  const htmlPath = join(target.outDir, `${target.name}.html`);
  const itfPath = target.itf ? join(target.outDir, `${target.name}.itf.json`) : undefined;
  const replayArgv = [...target.invocation, 'replay', tracePath, '--sut', target.sutCommand, '--level', f.level];
  const replay = shellCommand(replayArgv);
  const searchArgv =
    f.origin === 'random'
      ? [
          ...target.invocation,
          'conform',
          '--sut',
          target.sutCommand,
          '--level',
          f.level,
          `--seed=${f.seed ?? 0}`,
          ...(f.fcPath !== undefined ? ['--path', f.fcPath] : []),
          '--examples',
          'none',
        ]
      : undefined;
  const search = searchArgv ? shellCommand(searchArgv) : undefined;
  const origin =
    f.origin === 'random'
      ? `random traces at level ${f.level}, seed ${f.seed ?? 0}, fast-check path ${f.fcPath ?? '?'} (shrunk)`
      : f.origin === 'exhaustive'
        ? `the bounded-exhaustive scenario ${f.scenario ?? '?'} (minimized)`
        : `the example ${f.path !== undefined ? portablePath(f.path) : '?'}`;
  const view = conformanceView(f.trace, f.divergence, {
    sut: target.sut,
    ...(target.implementation !== undefined ? { implementation: target.implementation } : {}),
    level: f.level,
    origin,
    replay,
    ...(search !== undefined ? { search } : {}),
    ...(f.seed !== undefined ? { seed: f.seed } : {}),
    ...(f.fcPath !== undefined ? { fcPath: f.fcPath } : {}),
    // The stderr of the trace that diverged, not of the whole run (a process system; in-process ones have none).
    ...(f.stderr ? { stderr: f.stderr() } : {}),
  });
  const links = target.linkBase !== undefined ? { linkBase: target.linkBase } : {};
  writeFilesAtomic([
    { path: tracePath, text: `${prettyJson(f.trace.trace)}\n` },
    { path: explainPath, text: explainView(view, f.divergence) },
    { path: markdownPath, text: counterexampleMarkdown(view, { dir: target.outDir, ...links }) },
    { path: htmlPath, text: counterexampleHtml(view, { dir: target.outDir, ...links }) },
    ...(itfPath !== undefined
      ? [{ path: itfPath, text: `${JSON.stringify(conformanceItf(f.trace, view, f.divergence), null, 1)}\n` }]
      : []),
  ]);
  return {
    failure: f,
    tracePath,
    explainPath,
    markdownPath,
    htmlPath,
    ...(itfPath !== undefined ? { itfPath } : {}),
    replay,
    replayArgv,
    ...(search && searchArgv ? { search, searchArgv } : {}),
  };
}

/** Writes every counterexample of a conform report; call it once the system is closed (each failure's stderr is read then). */
export function writeCounterexamples(
  report: { readonly failures: readonly Failure[]; readonly sut: string; readonly implementation?: ImplementationInfo },
  outDir: string,
  invocation: Argv,
  sutCommand: string,
  itf = false,
  linkBase?: LinkBase,
): WrittenCounterexample[] {
  return report.failures.map((f) =>
    writeCounterexample(f, {
      outDir,
      name: failureName(f),
      invocation,
      sutCommand,
      sut: report.sut,
      ...(report.implementation ? { implementation: `${report.implementation.name} ${report.implementation.version}` } : {}),
      itf,
      ...(linkBase !== undefined ? { linkBase } : {}),
    }),
  );
}
