// The views written beside a `streamjoin check` counterexample file
// (DIR/NAME.json): NAME.md (Markdown with a Mermaid diagram), NAME.html (the
// self-contained viewer) and, on request, NAME.itf.json (the Informal Trace
// Format, which `check --replay` reads back). One call from the command, for
// a preset's model or for a user's (`check --model`).
import { dirname } from 'node:path';
import type { Counterexample, ItfTrace } from '../../spec/index.ts';
import { writeFilesAtomic } from '../streams/atomicFiles.ts';
import { counterexampleHtml } from './html.ts';
import { modelItf, userModelItf } from './itf.ts';
import { counterexampleMarkdown } from './markdown.ts';
import { modelCounterexampleView, type CounterexampleView } from './view.ts';
import { userModelView } from './userModelView.ts';
import type { Model, Path } from '../../model/index.ts';
import type { LinkBase } from '../report/specLinks.ts';

export interface ModelViewFiles {
  readonly markdownPath: string;
  readonly htmlPath: string;
  readonly itfPath?: string;
}

/**
 * Writes the views of the counterexample `cx`, saved at `file`, next to it
 * (atomically). Returns their paths, or undefined when the counterexample's
 * preset is not one of streamjoin's (a test's own model): nothing is written.
 */
export function writeModelCounterexampleViews(
  cx: Counterexample,
  file: string,
  options: { readonly itf?: boolean; readonly linkBase?: LinkBase } = {},
): ModelViewFiles | undefined {
  const view = modelCounterexampleView(cx, file);
  return view ? writeViews(cx, view, modelItf, file, options) : undefined;
}

/**
 * Writes the views of `cx`, a counterexample to a user's model (`check
 * --model`) saved at `file`, drawn by the model's rendering hook or
 * generically (userModelView.ts); `replay` is the command that replays it.
 */
export function writeUserModelCounterexampleViews<S, A>(
  cx: Counterexample,
  file: string,
  model: Model<S, A>,
  path: Path<S, A>,
  replay: string,
  options: { readonly itf?: boolean; readonly linkBase?: LinkBase } = {},
): ModelViewFiles {
  return writeViews(cx, userModelView(cx, model, path, replay), userModelItf, file, options);
}

function writeViews(
  cx: Counterexample,
  view: CounterexampleView,
  itf: (cx: Counterexample, view: CounterexampleView) => ItfTrace,
  file: string,
  options: { readonly itf?: boolean; readonly linkBase?: LinkBase },
): ModelViewFiles {
  const base = file.replace(/\.json$/, '');
  const dir = dirname(file);
  const markdownPath = `${base}.md`;
  const htmlPath = `${base}.html`;
  const itfPath = options.itf ? `${base}.itf.json` : undefined;
  const links = options.linkBase !== undefined ? { linkBase: options.linkBase } : {};
  writeFilesAtomic([
    { path: markdownPath, text: counterexampleMarkdown(view, { dir, ...links }) },
    { path: htmlPath, text: counterexampleHtml(view, { dir, ...links }) },
    ...(itfPath !== undefined ? [{ path: itfPath, text: `${JSON.stringify(itf(cx, view), null, 1)}\n` }] : []),
  ]);
  return { markdownPath, htmlPath, ...(itfPath !== undefined ? { itfPath } : {}) };
}
