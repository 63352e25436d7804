// The explorer's web server (`streamjoin explore`): one page, self-contained
// like the counterexample viewer, and a small JSON API it calls; bound to
// 127.0.0.1 on a free port. Nothing outside loopback is reached: the page's
// Content-Security-Policy allows requests to this server only.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InputError, packagePath } from '../spec/index.ts';
import { PRESETS } from '../model/index.ts';
import { asset, contentSecurityPolicy, escapeHtml, scriptJson } from '../conformance/views/html.ts';
import { VERSIONS } from '../conformance/report/versions.ts';
import { loadIntoExplorer, snapshot, type ModelSpec } from './session.ts';

/** The running explorer web server (`streamjoin explore`). */
export interface ExploreServer {
  /** `http://127.0.0.1:PORT/`, with the starting model and path in its fragment. */
  readonly url: string;
  /** The TCP port it listens on (127.0.0.1). */
  readonly port: number;
  /** Stops the server; resolves once it is closed. */
  close(): Promise<void>;
}

// From the package root: the same files from the sources and from the compiled package.
const ASSETS = packagePath('explore', 'assets');

/** The largest request body accepted (a counterexample file loaded from the page). */
const MAX_BODY = 8 * 1024 * 1024;

function page(start: { spec: ModelSpec; path: unknown[] }): string {
  // The viewer's drawing and style (conformance/views/assets/), then the explorer's own.
  const script = `\n${asset('draw.js')}\n${asset('explore.js', ASSETS)}\n`;
  const style = `\n${asset('viewer.css')}\n${asset('explore.css', ASSETS)}\n`;
  const presets = PRESETS.map((p) => ({ name: p.name, description: p.description }));
  const data = scriptJson({ start, presets, versions: VERSIONS });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy([script], [style], "'self'"))}">
<title>streamjoin explore</title>
<style>${style}</style>
</head>
<body>
<header class="bar">
<h1>streamjoin explore</h1>
<label>model <select id="preset"></select></label>
<label class="file">load a counterexample <input id="file" type="file" accept=".json"></label>
<span id="model"></span>
</header>
<div class="controls">
<button id="back" title="← or k">‹ back</button><button id="forward" title="→ or j">forward ›</button><button id="reset" title="Home">« initial state</button>
<span id="where"></span><span id="error" class="error"></span>
</div>
<main class="explore">
<section class="panel"><h2>Path</h2><ol id="path" start="1"></ol></section>
<section class="panel"><h2>State</h2><div id="picture"></div><div id="state"></div></section>
<section class="panel"><h2>Properties</h2><ul id="properties"></ul><h2>Enabled actions</h2><div id="enabled"></div>
<details id="refused-box"><summary>Refused actions (<span id="refused-count"></span>), with the model's reason</summary><ul id="refused"></ul></details></section>
</main>
<footer>streamjoin ${escapeHtml(VERSIONS.streamjoin)} (spec ${escapeHtml(VERSIONS.spec)}): the model of SPEC.md, walked by hand. The URL holds the model and the path.</footer>
<script type="application/json" id="explore-data">${data}</script>
<script>${script}</script>
</body>
</html>
`;
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new InputError('SJ105', 'request', `body over ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, start: { spec: ModelSpec; path: unknown[] }): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  try {
    if (req.method === 'GET' && url.pathname === '/') return send(res, 200, 'text/html; charset=utf-8', page(start));
    if (req.method === 'POST' && url.pathname === '/api/state') {
      const { spec, path } = JSON.parse(await readBody(req)) as { spec: ModelSpec; path: unknown[] };
      return send(res, 200, 'application/json', JSON.stringify(snapshot(spec, Array.isArray(path) ? path : [])));
    }
    if (req.method === 'POST' && url.pathname === '/api/load') {
      const name = url.searchParams.get('name') ?? 'the file';
      return send(res, 200, 'application/json', JSON.stringify(loadIntoExplorer(await readBody(req), name)));
    }
    return send(res, 404, 'text/plain', 'not found');
  } catch (e) {
    if (e instanceof InputError || e instanceof SyntaxError)
      return send(res, 400, 'application/json', JSON.stringify({ error: e instanceof InputError ? e.format() : e.message }));
    return send(res, 500, 'application/json', JSON.stringify({ error: `internal error: ${(e as Error).message}` }));
  }
}

/** Starts the explorer on 127.0.0.1 (port 0: a free one), on the model and path given. */
export async function startExploreServer(start: { spec: ModelSpec; path?: unknown[] }, port = 0): Promise<ExploreServer> {
  // Fails here, before any socket is open, if the model cannot be built.
  snapshot(start.spec, start.path ?? []);
  const initial = { spec: start.spec, path: start.path ?? [] };
  const server: Server = createServer((req, res) => void handle(req, res, initial));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}/`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
