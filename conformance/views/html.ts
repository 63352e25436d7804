// A counterexample as one self-contained HTML file (`NAME.html`): the view
// (view.ts) embedded as JSON, the viewer's script and style inline, nothing
// fetched. A Content-Security-Policy meta tag allows exactly the inline
// script and style of the page (by hash) and nothing else: no network, no
// other script, no frames.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packagePath } from '../../spec/index.ts';
import { specHref, type LinkBase } from '../report/specLinks.ts';
import type { CounterexampleView } from './view.ts';

// From the package root: the same files from the sources and from the compiled package (dist/ has no assets).
const ASSETS = packagePath('conformance', 'views', 'assets');

/** An asset of the pages (read once): from this folder's assets/, or from `dir` (another page's own, under the package root too). */
const assetCache = new Map<string, string>();
export function asset(name: string, dir = ASSETS): string {
  const path = join(dir, name);
  let text = assetCache.get(path);
  if (text === undefined) {
    text = readFileSync(path, 'utf8');
    assetCache.set(path, text);
  }
  return text;
}

/** JSON that is safe inside a `<script>` element: no `</script`, no `<!--`, no line separators JavaScript would choke on. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const sha256 = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The Content-Security-Policy of a page with these inline scripts and styles:
 * each allowed by its hash, everything else (network included) refused.
 * `connect` adds what the page may fetch (the explorer talks to its server).
 */
export function contentSecurityPolicy(scripts: readonly string[], styles: readonly string[], connect = "'none'"): string {
  return [
    "default-src 'none'",
    `script-src ${scripts.map(sha256).join(' ')}`,
    `style-src ${styles.map(sha256).join(' ')}`,
    'img-src data:',
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** Options of `counterexampleHtml`: where the file goes and where SPEC links point. */
export interface HtmlOptions {
  /** The directory the file is written to: with link base `file`, SPEC.md links are relative to it. */
  readonly dir?: string;
  /** Where the links to SPEC.md point (specLinks.ts); default the published repository at this version. */
  readonly linkBase?: LinkBase;
}

/** The self-contained HTML viewer of a counterexample. */
export function counterexampleHtml(view: CounterexampleView, options: HtmlOptions = {}): string {
  const script = `\n${asset('draw.js')}\n${asset('viewer.js')}\n`;
  const style = `\n${asset('viewer.css')}\n`;
  const data = scriptJson({ ...view, specHref: specHref(options.linkBase, options.dir) });
  const title = escapeHtml(`streamjoin counterexample: ${view.name}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy([script], [style]))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="streamjoin ${escapeHtml(view.versions.streamjoin)} (spec ${escapeHtml(view.versions.spec)})">
<title>${title}</title>
<style>${style}</style>
</head>
<body>
<header>
<h1 id="title">${title}</h1>
<p id="description"></p>
<div class="meta">
<table id="facts"></table>
<table id="config"></table>
</div>
<div id="verdict"></div>
<ul id="rules"></ul>
</header>
<div class="controls">
<button id="first" title="Home">« first</button><button id="prev" title="← or k">‹ prev</button>
<input id="slider" type="range" min="0" value="0" aria-label="step">
<button id="next" title="→ or j">next ›</button><button id="last" title="End">last »</button>
<button id="jump"></button>
<span id="where"></span>
<span class="keys">← → j k Home End d</span>
</div>
<main>
<section class="panel"><h2>Sequence diagram</h2><div id="sequence"></div></section>
<div>
<section class="panel" id="divergence" hidden></section>
<section class="panel">
<h2>Step</h2>
<div id="action"></div>
<ul id="happened"></ul>
<div id="picture"></div>
<div id="changed"></div>
<div id="state"></div>
</section>
</div>
</main>
<footer>Written by streamjoin ${escapeHtml(view.versions.streamjoin)} (spec ${escapeHtml(view.versions.spec)}).
One file, no network access: the data below and the viewer are inline.</footer>
<script type="application/json" id="counterexample">${data}</script>
<script>${script}</script>
</body>
</html>
`;
}
