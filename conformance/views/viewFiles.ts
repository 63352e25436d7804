// The viewer of a file (for `streamjoin view`): the NAME.html beside a
// counterexample, written from the file itself when it is a model
// counterexample (streamjoin's or ITF), an ITF conformance trace (its
// divergence is in #meta), or a plain trace (shown as the model runs it).
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LinkBase } from '../report/specLinks.ts';
import { documentFormat, isItfTrace, itfKind, loadCounterexample, parseJson, readTextFile } from '../../spec/index.ts';
import type { ItfTrace } from '../../spec/index.ts';
import { COUNTEREXAMPLE_FORMAT, InputError } from '../../spec/index.ts';
import { loadCheckedTrace } from '../lockstep/traceFiles.ts';
import type { Divergence } from '../report/divergence.ts';
import { writeFileAtomic } from '../streams/atomicFiles.ts';
import { counterexampleHtml } from './html.ts';
import { conformanceView, modelCounterexampleView, type CounterexampleView } from './view.ts';

/** The HTML file beside `file`: `NAME.html` for `NAME.json`, `NAME.trace.json` or `NAME.itf.json`. */
export function viewerPathOf(file: string): string {
  return `${file.replace(/(\.trace|\.itf)?\.json$/, '')}.html`;
}

/** The divergence an ITF conformance trace records in `#meta.streamjoin.divergence`. */
function itfDivergence(t: ItfTrace, actions: readonly unknown[]): Divergence | undefined {
  const d = (t['#meta']?.['streamjoin'] as { divergence?: Record<string, unknown> } | undefined)?.divergence;
  if (!d || typeof d['step'] !== 'number') return undefined;
  return {
    step: d['step'],
    action: actions[d['step']] as Divergence['action'],
    field: d['field'] as Divergence['field'],
    summary: String(d['summary'] ?? ''),
    expected: d['expected'],
    actual: d['actual'],
    diff: (d['diff'] as Divergence['diff'] | undefined) ?? [],
    refs: { rules: (d['rules'] as string[] | undefined) ?? [], properties: (d['properties'] as string[] | undefined) ?? [] },
  };
}

/** The view of any counterexample or trace file. */
export function viewOfFile(file: string): CounterexampleView {
  const value = parseJson(readTextFile(file), file);
  const itf = isItfTrace(value) ? (value as ItfTrace) : undefined;
  if (documentFormat(value) === COUNTEREXAMPLE_FORMAT || (itf && itfKind(itf) === 'counterexample')) {
    const cx = loadCounterexample(file);
    const view = modelCounterexampleView(cx, file);
    if (!view) throw new InputError('SJ102', file, `/preset: "${cx.preset}" is not a preset of this streamjoin`);
    return view;
  }
  const trace = loadCheckedTrace(file);
  const actions =
    trace.kind === 'cluster'
      ? trace.trace.steps.map((s) => s.action)
      : trace.trace.steps.map((s) => ({ type: 'record', record: s.record }));
  const d = itf ? itfDivergence(itf, actions) : undefined;
  return conformanceView(trace, d, {
    sut: d ? 'as recorded in the file' : 'none (the trace as the model runs it)',
    level: trace.kind === 'operator' ? 'operator' : 'cluster or faults',
    origin: file,
    replay: `npx streamjoin replay ${file} --sut COMMAND`,
  });
}

/**
 * The viewer of `file`: its own NAME.html when it is one of a run's
 * counterexample traces and that viewer exists (it holds the divergence the
 * trace alone does not), else written now beside it. Returns its path.
 */
export function writeViewerOf(file: string, linkBase?: LinkBase): string {
  const html = viewerPathOf(file);
  if (file.endsWith('.trace.json') && existsSync(html)) return html;
  writeFileAtomic(html, counterexampleHtml(viewOfFile(file), { dir: dirname(html), ...(linkBase !== undefined ? { linkBase } : {}) }));
  return html;
}
