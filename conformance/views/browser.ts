// A real browser for the tests of the pages (the counterexample viewer, the
// explorer) and for validating Mermaid: Debian's Chromium driven by
// playwright-core, headless, with a fresh profile and everything that would
// reach the network switched off. CI installs Chromium (.ci/run); a machine
// without it gets one clear error, never a skipped test.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = process.env['STREAMJOIN_CHROMIUM'] ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Launches Chromium with a fresh profile directory (removed on close). */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `no Chromium at ${CHROMIUM_PATH}: the browser tests need Debian's chromium ` +
        '(apt-get update && apt-get install -y chromium; .ci/run does this in CI), or STREAMJOIN_CHROMIUM=/path/to/chromium',
    );
  }
  const profile = mkdtempSync(join(tmpdir(), 'sj-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS],
    viewport: { width: 1400, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
