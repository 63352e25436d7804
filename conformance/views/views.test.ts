import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ruleHeading, anchorsOf, githubSlug, linkBaseProblem, specAnchor, SPEC_PATH } from '../report/specLinks.ts';
import { VERSIONS } from '../report/versions.ts';
import { RULE_TITLES } from '../report/rules.ts';
import { counterexampleMarkdown, codeSpan } from './markdown.ts';
import { mermaidDiagram, mermaidText } from './mermaid.ts';
import { conformanceView, modelCounterexampleView } from './view.ts';
import { recordText } from '../report/texts.ts';
import { explainView } from './explain.ts';
import { writeCounterexample } from './counterexampleFiles.ts';
import { clusterFailure, modelCounterexample, operatorFailure } from './counterexampleFixtures.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';
import { SPEC_VERSION } from '../../spec/index.ts';
import { STREAMJOIN_VERSION } from '../report/versions.ts';

const spec = readFileSync(SPEC_PATH, 'utf8');
const specAnchors = new Set(anchorsOf(spec));
const tmp = useTemporaryDirectories('sj-views-');

const context = { sut: 'test', level: 'faults', origin: 'the example', replay: 'streamjoin replay X --sut Y' };

/** Every `SPEC.md#anchor` link target in a Markdown text. */
function specLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)]*SPEC\.md)#([^)]+)\)/g)].map((m) => m[2] as string);
}

describe('links to SPEC.md anchors (GitHub heading slugs)', () => {
  it('slugs headings the way GitHub does: the dash goes, the spaces around it stay, § and : drop', () => {
    expect(githubSlug('J6 — Retraction')).toBe('j6--retraction');
    expect(githubSlug('J9 — Input contract: identities are not reused')).toBe('j9--input-contract-identities-are-not-reused');
    expect(githubSlug('§7 Conformance semantics')).toBe('7-conformance-semantics');
    expect(githubSlug('C5 — Handoff record, freeze, persist, abort')).toBe('c5--handoff-record-freeze-persist-abort');
    expect(anchorsOf('# A\n## A\n```\n# not a heading\n```\n### A')).toEqual(['a', 'a-1', 'a-2']);
  });

  it('every rule a report may cite, and the properties section, has its anchor in SPEC.md', () => {
    for (const id of Object.keys(RULE_TITLES)) {
      expect(spec, id).toContain(`\n${id.startsWith('§') ? '## ' : '### '}${ruleHeading(id)}\n`);
      expect(specAnchors.has(specAnchor(id)), id).toBe(true);
    }
    expect(specAnchors.has(specAnchor('ExactlyOnce'))).toBe(true);
  });

  it('every SPEC.md link in the Markdown of real counterexamples (cluster, operator, model) points at an anchor that exists', async () => {
    const views = [
      conformanceView((await clusterFailure()).trace, (await clusterFailure()).divergence, context),
      conformanceView((await operatorFailure()).trace, (await operatorFailure()).divergence, { ...context, level: 'operator' }),
      modelCounterexampleView(modelCounterexample()),
    ];
    for (const view of views) {
      if (!view) throw new Error('no view');
      const dir = join(import.meta.dirname, '..', '..', 'out');
      const md = counterexampleMarkdown(view, { dir });
      const links = specLinks(md);
      expect(links.length, view.name).toBeGreaterThan(1);
      for (const anchor of links) expect(specAnchors.has(anchor), `${view.name}: #${anchor}`).toBe(true);
      // By default every link goes to the published repository at this version: it works wherever the file is read.
      expect(md).toContain(`](https://github.com/streamjoin/streamjoin/blob/v${VERSIONS.streamjoin}/spec/SPEC.md#`);
      expect(md).not.toMatch(/\]\((?!https:\/\/)[^)]*SPEC\.md/);
      // Another base, or this installation's copy relative to where the file is written.
      expect(counterexampleMarkdown(view, { dir, linkBase: 'https://example.org/mirror/' })).toContain(
        '](https://example.org/mirror/spec/SPEC.md#',
      );
      expect(counterexampleMarkdown(view, { dir, linkBase: 'file' })).toContain('](../spec/SPEC.md#');
    }
  });

  it('--link-base takes an http(s) URL or "file", nothing else', () => {
    expect(linkBaseProblem('file')).toBeUndefined();
    expect(linkBaseProblem('https://example.org/x')).toBeUndefined();
    expect(linkBaseProblem('ftp://example.org/x')).toMatch(/expected an http\(s\) URL or "file"/);
    expect(linkBaseProblem('../spec')).toMatch(/expected an http\(s\) URL or "file"/);
  });
});

describe('unambiguous text', () => {
  it('rows quote their key and id: ids holding "/" cannot be misread (the old `ins a/b/R// 1[1,1]`)', () => {
    const a = recordText({ kind: 'insert', key: 'a/b', side: 'R', id: '', ts: 1, start: 1, end: 1 });
    const b = recordText({ kind: 'insert', key: 'a', side: 'R', id: 'b/R/', ts: 1, start: 1, end: 1 });
    expect(a).toBe('ins "a/b" R "" 1[1,1]');
    expect(b).toBe('ins "a" R "b/R/" 1[1,1]');
    expect(a).not.toBe(b);
  });

  it('recordText is injective on keys, ids and sides (any strings)', () => {
    const row = fc.record({ key: fc.string(), side: fc.string(), id: fc.string() });
    fc.assert(
      fc.property(row, row, (x, y) => {
        const text = (r: typeof x) => recordText({ kind: 'retract', ...r, ts: 0, start: 0, end: 0 });
        return (text(x) === text(y)) === (x.key === y.key && x.side === y.side && x.id === y.id);
      }),
    );
  });

  it('a Mermaid label never holds a statement separator, a comment, an arrow or markup, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const t = mermaidText(s).replace(/#\d+;/g, '');
        return !/[;\n\r<>:#%]/.test(t) && !t.includes('--') && mermaidText(s).trim() !== '';
      }),
    );
    expect(mermaidText('a;b #1 <x>')).toBe('a#59;b #35;1 #60;x#62;');
  });

  it('a code span holds any text, backticks included', () => {
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('`x`')).toBe('`` `x` ``');
  });
});

describe('the files a divergence leaves (conform, replay, mutants)', () => {
  it('trace, explain.txt with config and versions, NAME.md with a Mermaid diagram of every node, NAME.html, NAME.itf.json; nothing else, nothing half-written', async () => {
    const f = await clusterFailure();
    const dir = tmp();
    // The stderr of the trace that diverged goes with it (a process system).
    const withStderr = { ...f, stderr: () => ({ lines: ['last words'], earlier: 3 }) };
    const w = writeCounterexample(withStderr, {
      outDir: dir,
      name: 'zombie',
      invocation: ['npx', 'streamjoin'],
      sutCommand: 'X',
      sut: 'X',
      itf: true,
    });
    expect(readdirSync(dir).sort()).toEqual(['zombie.explain.txt', 'zombie.html', 'zombie.itf.json', 'zombie.md', 'zombie.trace.json']);
    const explain = readFileSync(w.explainPath, 'utf8');
    expect(explain).toContain(`streamjoin ${STREAMJOIN_VERSION}, spec ${SPEC_VERSION}`);
    expect(explain).toMatch(/L \(allowed lateness, J0\): \d+/);
    expect(explain).toMatch(/workers \(C1\): w1, w2/);
    expect(explain).toContain('record ins "k1" L "a"');
    expect(explain).toContain(
      'What the system under test wrote to stderr while this trace ran (the last line; 3 before it not kept):\n  | last words',
    );
    const md = readFileSync(w.markdownPath, 'utf8');
    expect(md).toContain(`| streamjoin | \`${STREAMJOIN_VERSION}\` |`);
    expect(md).toContain(`## Divergence at step ${f.divergence.step + 1}`);
    expect(md).toContain('| event | expected | actual |');
    expect(md).toContain('| ✗ 0 | `processed w1 k1 #1 e1 accepted +k1/a/b FENCED` | `processed w1 k1 #1 e1 accepted +k1/a/b` |');
    // The zombie's write refused at the sink (C9), in the diagram as in the viewer: a dotted line ending in a cross.
    expect(md).toMatch(/N\d--xN\d: FENCED, refused#58; /);
    expect(md).toMatch(
      /```mermaid\nsequenceDiagram\n {2}participant N0 as log\n {2}participant N1 as coordinator\n {2}participant N2 as w1\n/,
    );
    expect(md).toContain('rect rgb(255, 228, 228)');
    expect(md).toContain('Note over N0,N');
    expect(md).toContain('last words');
    const html = readFileSync(w.htmlPath, 'utf8');
    expect(html).toContain('http-equiv="Content-Security-Policy"');
    // Nothing that loads: no external script, style or image, no fetch, no sockets (the browser test watches the requests too).
    expect(html).not.toMatch(
      /<script[^>]+src=|<link[^>]+href=|<img[^>]+src=|fetch\(|XMLHttpRequest|WebSocket|@import|url\(['"]?(https?|\/\/)/,
    );
  });

  it('the Markdown of a model counterexample names the property, its rules, and every step', () => {
    const view = modelCounterexampleView(modelCounterexample());
    if (!view) throw new Error('no view');
    const md = counterexampleMarkdown(view, { linkBase: 'file' });
    expect(md).toContain('## Fenced is broken after step 7');
    expect(md).toContain('[C9 — The sink](spec/SPEC.md#c9--the-sink)');
    expect(md).toContain('property [Fenced](spec/SPEC.md#6-properties-and-the-explorer)');
    expect(md.match(/^\| (✗ )?\d+ \| `/gm)).toHaveLength(view.steps.length);
    expect(explainView(view)).toContain('Fenced (invariant) is broken after step 7');
  });

  it('a Mermaid diagram too long for GitHub leaves out its earliest steps and says so', async () => {
    const f = await clusterFailure();
    const view = conformanceView(f.trace, f.divergence, context);
    const many = {
      ...view,
      steps: Array.from({ length: 1000 }, (_, i) => ({ ...(view.steps[0] as (typeof view.steps)[number]), number: i })),
    };
    const text = mermaidDiagram(many, 999);
    expect(text.length).toBeLessThanOrEqual(40_000);
    expect(text).toContain('left out (too long to draw)');
  });
});
