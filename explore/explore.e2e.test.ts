// The interactive explorer: the model side (refused actions and their
// reasons agree with the model's enabled set), and the page in a real
// browser, clicked through a migration and a crash, shared by URL, and
// loading a counterexample.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from '../conformance/views/browser.ts';
import { modelCounterexample } from '../conformance/views/counterexampleFixtures.ts';
import { useTemporaryDirectories } from '../conformance/testFixtures.ts';
import { clusterTraceIntoExplorer, snapshot } from './session.ts';
import { startExploreServer, type ExploreServer } from './server.ts';
import { loadClusterTrace } from '../spec/index.ts';

const tmp = useTemporaryDirectories('sj-explore-', 'all');
const root = join(import.meta.dirname, '..');

describe('the explorer model (C1–C12, the smoke preset)', () => {
  it('offers exactly the enabled actions, and gives a reason for every refused one: the guard of SPEC §5 or a spent budget', () => {
    const s0 = snapshot({ preset: 'smoke' }, []);
    expect(s0.enabled.map((a) => a.text)).toContain('record ins "k1" L "a" 1[1,2]');
    expect(s0.refused.find((a) => a.text === 'persist k1')?.why).toBe('no migration of k1 awaits persist');
    expect(s0.refused.find((a) => a.text === 'freeze k1 -> w1')?.why).toBe('w1 already owns k1');
    expect(s0.refused.find((a) => a.text === 'restart coordinator')?.why).toBe('the coordinator is up');
    expect(s0.refused.every((a) => typeof a.why === 'string' && a.why !== '')).toBe(true);
    // After a crash the crash budget (1) is spent: a second crash is refused for that, not by a guard.
    const crashed = snapshot({ preset: 'smoke' }, [{ type: 'crash', node: 'w3' }]);
    expect(crashed.refused.find((a) => a.text === 'crash w2')?.why).toBe('the budget of crashes is spent (1 of 1)');
    expect(crashed.refused.find((a) => a.text === 'crash w3')?.why).toBe('w3 is already down');
    expect(crashed.properties.find((p) => p.name === 'ExactlyOnce')?.verdict).toBe('holds');
  });

  it('a path with an action that is not enabled stops there and says why', () => {
    const s = snapshot({ preset: 'smoke' }, [{ type: 'persist', key: 'k1' }]);
    expect(s.stoppedAt).toEqual({ index: 0, why: 'no migration of k1 awaits persist' });
    expect(s.path).toEqual([]);
  });

  it('a conformance trace becomes a model path: its actions, and the processing §7 runs eagerly as process steps', () => {
    const t = loadClusterTrace(join(root, 'spec', 'examples', 'cluster', 'zombie-fenced.trace.json'));
    const { spec, path } = clusterTraceIntoExplorer(t);
    const s = snapshot(spec, path);
    expect(s.stoppedAt).toBeUndefined();
    expect(s.path.filter((p) => !p.text.startsWith('process')).map((p) => p.text)).toHaveLength(t.steps.length);
    expect((s.state as { observation: unknown }).observation).toEqual(t.steps.at(-1)?.expect?.observation);
  });
});

describe('streamjoin explore in Chromium', () => {
  let browser: TestBrowser;
  let server: ExploreServer;
  beforeAll(async () => {
    browser = await launchBrowser();
    server = await startExploreServer({ spec: { preset: 'smoke' } });
  });
  afterAll(async () => {
    await server?.close();
    await browser?.close();
  });

  async function open(url: string): Promise<{ page: Page; errors: string[]; requests: string[] }> {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(url);
    await page.waitForSelector('body[data-ready]');
    return { page, errors, requests };
  }

  /** Clicks the enabled action with this text and waits for the new state. */
  async function click(page: Page, text: string): Promise<void> {
    const steps = Number(await page.locator('body').getAttribute('data-ready'));
    await page.locator('button.action', { hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }).click();
    await page.waitForSelector(`body[data-ready="${steps + 1}"]`);
  }

  const box = (page: Page, node: string) => page.locator(`.box[data-node="${node}"]`);

  it('clicks through a migration (freeze, persist, install, commit, release) and a crash of the new owner; back, forward, and the URL as a shared state', async () => {
    const { page, errors, requests } = await open(server.url);
    expect(await page.locator('#where').textContent()).toBe('initial state');
    await click(page, 'record ins "k1" L "a" 1[1,2]');
    await click(page, 'process w1 k1');
    expect(await box(page, 'w1').textContent()).toContain('k1: e1 @1');
    for (const step of ['freeze k1 -> w2', 'persist k1', 'install k1']) await click(page, step);
    expect(await box(page, 'coordinator').textContent()).toContain('handoff: migrate k1 w1 → w2 from e1, installed');
    expect(await box(page, 'w2').textContent()).toContain('k1: e2 @1 frozen');
    await click(page, 'commit k1');
    await click(page, 'release k1');
    expect(await box(page, 'coordinator').textContent()).toContain('k1: owner w2, epoch 2');
    expect(await box(page, 'w1').textContent()).toContain('no copies');
    expect(await box(page, 'sink').textContent()).toContain('fence k1: e2');
    // The new owner crashes: down, its copy gone; processing on it is refused with the guard's reason.
    await click(page, 'crash w2');
    expect(await box(page, 'w2').getAttribute('class')).toContain('down');
    expect(await page.locator('#refused li', { hasText: 'process w2 k1' }).textContent()).toContain('w2 is not up');
    expect(await page.locator('.prop[data-name="ExactlyOnce"] .verdict').textContent()).toBe('holds');
    expect(await page.locator('.prop[data-name="Fenced"] .verdict').textContent()).toBe('holds');
    // Back and forward along the path.
    await page.keyboard.press('ArrowLeft');
    await page.waitForSelector('body[data-ready="7"]');
    expect(await box(page, 'w2').getAttribute('class')).not.toContain('down');
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('body[data-ready="8"]');
    expect(await box(page, 'w2').getAttribute('class')).toContain('down');
    await click(page, 'restart w2');
    expect(await box(page, 'w2').textContent()).toContain('k1: e2 @1');
    // Restarted, it recovers the key from the checkpoint persist wrote (C10), at cursor 1.
    // The URL holds the state: another page opened on it shows the same.
    const shared = page.url();
    expect(shared).toContain('#spec=');
    const other = await open(shared);
    expect(await other.page.locator('#where').textContent()).toBe('after 9 step(s)');
    expect(await other.page.locator('#path li').count()).toBe(9);
    expect(await box(other.page, 'w2').textContent()).toContain('k1: e2 @1');
    await page.screenshot({ path: join(tmp(), 'explore.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(other.errors).toEqual([]);
    expect(requests.every((u) => u.startsWith(server.url))).toBe(true);
    await other.page.close();
    await page.close();
  });

  it('loads a counterexample file and steps through it to the violation', async () => {
    const dir = tmp();
    const file = join(dir, 'smoke-sink-fence-k1-Fenced.json');
    writeFileSync(file, JSON.stringify(modelCounterexample()));
    const { page, errors } = await open(server.url);
    await page.locator('#file').setInputFiles(file);
    await page.waitForSelector('#model:has-text("without sink-fence")');
    for (let i = 1; i <= 7; i++) {
      await page.keyboard.press('ArrowRight');
      await page.waitForSelector(`body[data-ready="${i}"]`);
    }
    expect(await page.locator('.prop[data-name="Fenced"] .verdict').textContent()).toBe('violated');
    expect(await page.locator('.violation').textContent()).toContain(
      'Fenced: a write for k1 with epoch 1 was applied after epoch 2 was committed',
    );
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('streamjoin explore, the command', () => {
  it('prints its 127.0.0.1 URL, serves the page, and stops when its stdin ends (exit 0)', async () => {
    const child = spawn(process.execPath, [join(root, 'bin', 'streamjoin.js'), 'explore', '--preset', 'smoke'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        const m = /streamjoin explore: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(text);
        if (m) resolve(m[1] as string);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code} before printing its URL`)));
    });
    const page = await (await fetch(url)).text();
    expect(page).toContain('<title>streamjoin explore</title>');
    expect(page).toContain("connect-src 'self'");
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.stdin.end();
    expect(await exit).toBe(0);
  });
});
