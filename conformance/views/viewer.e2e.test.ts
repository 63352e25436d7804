// The counterexample pages in a real browser (Debian's Chromium through
// playwright-core): the HTML viewer stepped through with the keyboard and
// the slider, and every Markdown report's Mermaid diagram parsed and drawn
// by the mermaid package itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import type { ClusterTrace } from '../../spec/index.ts';
import { launchBrowser, type TestBrowser } from './browser.ts';
import { writeCounterexample } from './counterexampleFiles.ts';
import { clusterFailure, modelCounterexample, operatorFailure } from './counterexampleFixtures.ts';
import { writeModelCounterexampleViews } from './modelCounterexampleFiles.ts';
import { mermaidDiagram } from './mermaid.ts';
import { conformanceView, modelCounterexampleView, type CounterexampleView } from './view.ts';
import { useTemporaryDirectories } from '../testFixtures.ts';

const tmp = useTemporaryDirectories('sj-viewer-', 'all');
let browser: TestBrowser;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const context = { sut: 'test', level: 'faults', origin: 'the example', replay: 'streamjoin replay X --sut Y' };

/** Opens a file in a fresh page, recording page errors and every request the page makes. */
async function open(file: string): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(pathToFileURL(file).href);
  return { page, errors, requests };
}

/** A cluster whose node, key and id names hold Mermaid's own syntax. */
const hostileTrace: ClusterTrace = {
  format: 'streamjoin/cluster-trace@1',
  name: 'hostile names',
  config: {
    join: { allowedLateness: 1, maxIntervalLength: 2 },
    workers: ['w;1', 'end', 'a-->b'],
    keys: [{ key: 'k#1 %%x', owner: 'w;1' }],
  },
  steps: [
    { action: { type: 'record', record: { kind: 'insert', key: 'k#1 %%x', side: 'L', id: '<b>a;b</b>', ts: 1, start: 1, end: 2 } } },
    { action: { type: 'record', record: { kind: 'insert', key: 'k#1 %%x', side: 'R', id: 'Note over', ts: 2, start: 2, end: 3 } } },
    { action: { type: 'freeze', key: 'k#1 %%x', to: 'end' } },
    { action: { type: 'crash', node: 'a-->b' } },
  ],
};

describe('Mermaid: every diagram the Markdown reports hold parses and draws (the mermaid package, in Chromium)', () => {
  it('conformance counterexamples (cluster, operator), a model counterexample, and names full of Mermaid syntax', async () => {
    const views: CounterexampleView[] = [
      conformanceView((await clusterFailure()).trace, (await clusterFailure()).divergence, context),
      conformanceView((await operatorFailure()).trace, (await operatorFailure()).divergence, { ...context, level: 'operator' }),
      modelCounterexampleView(modelCounterexample()) as CounterexampleView,
      conformanceView({ kind: 'cluster', trace: hostileTrace }, undefined, context),
    ];
    const diagrams = views.map((v) => mermaidDiagram(v));
    const page = await browser.context.newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    const mermaidJs = join(createRequire(import.meta.url).resolve('mermaid/package.json'), '..', 'dist', 'mermaid.min.js');
    await page.addScriptTag({ content: readFileSync(mermaidJs, 'utf8') });
    const results = await page.evaluate(async (texts: string[]) => {
      const m = (
        globalThis as unknown as { mermaid: { initialize(c: object): void; render(id: string, t: string): Promise<{ svg: string }> } }
      ).mermaid;
      m.initialize({ startOnLoad: false, securityLevel: 'strict' });
      const out: { ok: boolean; text: string }[] = [];
      for (const [i, t] of texts.entries()) {
        try {
          const { svg } = await m.render(`d${i}`, t);
          out.push({ ok: true, text: svg });
        } catch (e) {
          out.push({ ok: false, text: String((e as Error).message) });
        }
      }
      return out;
    }, diagrams);
    await page.close();
    for (const [i, r] of results.entries()) expect(r, `${views[i]?.name}: ${diagrams[i]}`).toMatchObject({ ok: true });
    // The drawn text: tags out, XML entities decoded.
    for (const r of results)
      r.text = r.text
        .replace(/<[^>]*>/g, ' ')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, '&');
    // The divergence is drawn, and hostile names come out as written.
    expect(results[0]?.text).toContain('the system departs here');
    expect(results[2]?.text).toContain('Fenced is broken here');
    for (const name of ['w;1', 'end', 'a-->b', '<b>a;b</b>', 'k#1 %%x']) expect(results[3]?.text).toContain(name);
  });
});

describe('the HTML viewer (NAME.html) in Chromium', () => {
  it('opens with no network access and no error, steps with the keyboard and the slider, shows what changed, and expected versus actual at the divergence', async () => {
    const dir = tmp();
    const f = await clusterFailure();
    const w = writeCounterexample(f, {
      outDir: dir,
      name: 'zombie',
      invocation: ['npx', 'streamjoin'],
      sutCommand: 'X',
      sut: 'X',
    });
    const html = readFileSync(w.htmlPath, 'utf8');
    expect(html).toMatch(
      /Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+';[^"]*connect-src 'none'/,
    );
    const { page, errors, requests } = await open(w.htmlPath);
    const where = () => page.locator('#where').textContent();
    const steps = f.trace.trace.steps.length;
    // It opens at the divergence.
    expect(await where()).toBe(`step ${f.divergence.step + 1} of ${steps}`);
    await expect.poll(() => page.locator('#divergence').isVisible()).toBe(true);
    await page.keyboard.press('Home');
    expect(await where()).toBe(`initial state (before step 1 of ${steps})`);
    expect(await page.locator('#divergence').isVisible()).toBe(false);
    await page.keyboard.press('ArrowRight');
    expect(await where()).toBe(`step 1 of ${steps}`);
    expect(await page.locator('#action').textContent()).toContain('record ins "k1" L "a"');
    // The record appended and, eagerly, processed by its owner (§7): exactly those fields are marked.
    expect(await page.locator('.leaf.changed').allTextContents()).toEqual(['log: 1', 'cursor: 1', 'live: 1']);
    await page.keyboard.press('j');
    expect(await where()).toBe(`step 2 of ${steps}`);
    await page.keyboard.press('k');
    expect(await where()).toBe(`step 1 of ${steps}`);
    // The slider.
    await page.locator('#slider').evaluate((el) => {
      const input = el as unknown as { value: string; dispatchEvent(e: Event): boolean };
      input.value = '3';
      input.dispatchEvent(new Event('input'));
    });
    expect(await where()).toBe(`step 3 of ${steps}`);
    expect(await page.locator('svg.seq .row.current').count()).toBeGreaterThan(0);
    // d: to the divergence, with expected versus actual.
    await page.keyboard.press('d');
    expect(await where()).toBe(`step ${f.divergence.step + 1} of ${steps}`);
    const panel = page.locator('#divergence');
    expect(await panel.isVisible()).toBe(true);
    expect(await panel.textContent()).toContain(f.divergence.summary);
    expect(await panel.locator('td.expected').allTextContents()).toContain('processed w1 k1 #1 e1 accepted +k1/a/b FENCED');
    expect(await panel.locator('td.actual').allTextContents()).toContain('processed w1 k1 #1 e1 accepted +k1/a/b');
    expect(await page.locator('#action .badge').textContent()).toBe('✗ diverges here');
    expect(await page.locator('#rules a').first().getAttribute('href')).toMatch(/SPEC\.md#c9--the-sink$/);
    // The cluster drawn: the zombie w1 resumed, its box marked; the notation of its copies explained.
    expect(await page.locator('.box.touched .title').allTextContents()).toContain('w1');
    expect(await page.locator('.cluster .legend').textContent()).toContain('live rows');
    // The zombie's write is drawn refused at the sink (C9): a cross, not an arrowhead, its label leading with FENCED.
    expect(await page.locator('svg.seq .fenced .cross').count()).toBeGreaterThan(0);
    expect(await page.locator('svg.seq .fenced text:not(.num)').first().textContent()).toMatch(/^FENCED, refused: /);
    // Every lane fits the panel (the sink's included): nothing to scroll sideways to find it.
    const box = await page.locator('#sequence').boundingBox();
    const names = page.locator('#sequence .seq-head text.node');
    expect(await names.allTextContents()).toContain('sink');
    const rights = await names.evaluateAll((ts) => ts.map((t) => t.getBoundingClientRect().right));
    for (const right of rights) expect(right).toBeLessThanOrEqual((box?.x ?? 0) + (box?.width ?? 0));
    // #step=K is step K, and the page follows the fragment when it changes.
    await page.evaluate("location.hash = 'step=2'");
    await expect.poll(where).toBe(`step 2 of ${steps}`);
    const shot = join(dir, 'viewer.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
    expect(statSync(shot).size).toBeGreaterThan(20_000);
    expect(errors).toEqual([]);
    expect(requests).toEqual([pathToFileURL(w.htmlPath).href]);
    await page.close();
  });

  it('a model counterexample: "violation (d)" goes to the step that breaks the property, and its state shows the ghost violation', async () => {
    const dir = tmp();
    const file = join(dir, 'smoke-sink-fence-k1-Fenced.json');
    const written = writeModelCounterexampleViews(modelCounterexample(), file);
    if (!written) throw new Error('nothing written');
    const { page, errors, requests } = await open(written.htmlPath);
    await page.keyboard.press('Home');
    await page.keyboard.press('d');
    expect(await page.locator('#where').textContent()).toBe('step 7 of 7');
    expect(await page.locator('#verdict').textContent()).toContain('Fenced is broken after step 7');
    expect(await page.locator('.leaf.changed').allTextContents()).toContain(
      'violation: "Fenced: a write for k1 with epoch 1 was applied after epoch 2 was committed"',
    );
    expect(errors).toEqual([]);
    expect(requests).toHaveLength(1);
    await page.close();
  });
});
