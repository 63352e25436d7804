// The views written beside a `streamjoin check` counterexample file
// (DIR/NAME.json): NAME.md (Markdown with a Mermaid diagram), NAME.html (the
// self-contained viewer) and, on request, NAME.itf.json (the Informal Trace
// Format, which `check --replay` reads back). One call from the command.
import { dirname } from 'node:path';
import type { Counterexample } from '../../spec/index.ts';
import { writeFilesAtomic } from '../streams/atomicFiles.ts';
import { counterexampleHtml } from './html.ts';
import { modelItf } from './itf.ts';
import { counterexampleMarkdown } from './markdown.ts';
import { modelCounterexampleView } from './view.ts';
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
  if (!view) return undefined;
  const base = file.replace(/\.json$/, '');
  const dir = dirname(file);
  const markdownPath = `${base}.md`;
  const htmlPath = `${base}.html`;
  const itfPath = options.itf ? `${base}.itf.json` : undefined;
  const links = options.linkBase !== undefined ? { linkBase: options.linkBase } : {};
  writeFilesAtomic([
    { path: markdownPath, text: counterexampleMarkdown(view, { dir, ...links }) },
    { path: htmlPath, text: counterexampleHtml(view, { dir, ...links }) },
    ...(itfPath !== undefined ? [{ path: itfPath, text: `${JSON.stringify(modelItf(cx, view), null, 1)}\n` }] : []),
  ]);
  return { markdownPath, htmlPath, ...(itfPath !== undefined ? { itfPath } : {}) };
}
