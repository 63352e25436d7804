// `streamjoin view FILE`: the self-contained HTML viewer of a counterexample.
// Given the NAME.html a run wrote, it prints where it is; given a
// counterexample or trace file (streamjoin's or ITF), it writes the viewer
// next to it first. It opens a browser only when asked (--open).
import { InputError, readInputsAhead } from '../spec/index.ts';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeViewerOf } from '../conformance/views/viewFiles.ts';
import type { Output } from './output.ts';
import { EXIT, usageError } from './exitCodes.ts';
import { parseCommandArgs } from './options.ts';
import { LINK_BASE_HELP, LINK_BASE_OPTION, linkBaseFlag } from './harnessArgs.ts';

export const viewHelp = `streamjoin view FILE [--open] [--link-base URL|file]

Shows a counterexample in its self-contained HTML viewer (one file, no
network access): the sequence diagram of the nodes, a step slider and
keyboard navigation (← → j k Home End, d for the divergence), at each step
the state with the fields that changed highlighted, expected versus actual
at the divergence, and the rules with links to SPEC.md.

FILE is the NAME.html that conform, replay, mutants or check wrote, or a
file to make one from: a counterexample of streamjoin check (NAME.json), a
trace (NAME.trace.json, shown as the model runs it), or an ITF trace
(NAME.itf.json). The viewer is written next to it (NAME.html) and its path
and file:// URL are printed.

  --open    also open it in the desktop's browser ($BROWSER, else xdg-open
            or open); without it nothing is launched (CI has no browser)
${LINK_BASE_HELP}

Exit codes: 0 the viewer is there; 254 bad input or usage (one line
\`where: SJnnn message\`). 255 is an internal error of streamjoin.`;

function openInBrowser(url: string): string | undefined {
  const command = process.env['BROWSER'] ?? (process.platform === 'darwin' ? 'open' : 'xdg-open');
  try {
    const child = spawn(command, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
    return command;
  } catch {
    return undefined;
  }
}

/** The first bytes a viewer is known by: its generator tag comes before its content. */
const VIEWER_HEAD_BYTES = 4096;

/** An HTML file given to view must be one streamjoin wrote (its generator tag), not any page or a directory. */
function checkViewer(file: string): void {
  if (!existsSync(file)) throw new InputError('SJ100', file, 'no such file');
  if (!statSync(file).isFile()) throw new InputError('SJ100', file, 'not a file');
  let head: string;
  try {
    const fd = openSync(file, 'r');
    try {
      const bytes = Buffer.alloc(VIEWER_HEAD_BYTES);
      head = bytes.subarray(0, readSync(fd, bytes, 0, VIEWER_HEAD_BYTES, 0)).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw new InputError('SJ100', file, `cannot be read: ${(e as Error).message}`);
  }
  if (!head.includes('<meta name="generator" content="streamjoin '))
    throw new InputError('SJ103', file, 'not a viewer streamjoin wrote (no <meta name="generator" content="streamjoin ...">)');
}

export async function viewCommand(args: readonly string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    {
      args: [...args],
      allowPositionals: true,
      options: { open: { type: 'boolean', default: false }, ...LINK_BASE_OPTION },
    },
    'view',
  );
  if (positionals.length !== 1) throw usageError(`view takes exactly one FILE, got ${positionals.length}`);
  const file = positionals[0] as string;
  const linkBase = linkBaseFlag(values['link-base']);
  await readInputsAhead([file], { signal: out.signal });
  if (file.endsWith('.html')) checkViewer(file);
  const html = file.endsWith('.html') ? file : writeViewerOf(file, linkBase);
  if (!existsSync(html)) throw new InputError('SJ100', file, 'no such file');
  const url = pathToFileURL(resolve(html)).href;
  out.stdout(`${html}\n${url}\n`);
  if (values.open) {
    const by = openInBrowser(url);
    out.stderr(by ? `opening it with ${by}\n` : 'could not start a browser: open the URL above\n');
  }
  return EXIT.pass;
}
