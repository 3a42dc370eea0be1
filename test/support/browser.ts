// The browser tests' Chromium: Debian's chromium package driven by playwright-core with the flags our machines
// need (design.md, "Facts about our machines"; Playwright adds --headless), pages that fail the test on any
// uncaught page error, full-page screenshots under test/artifacts/web/, and the page's own width. Chromium is
// found as `npm test`'s provisioning step finds it (CHROMIUM_PATH, then PATH); that step also installs it.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { provisionChromium } from '../../temporal/provisioning/chromium.ts';

const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ARTIFACTS = fileURLToPath(new URL('../artifacts/web', import.meta.url));

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 375, height: 812 };

export interface TestBrowser {
  browser: Browser;
  newPage(viewport?: { width: number; height: number }, locale?: string): Promise<Page>;
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

let chromiumPath: Promise<string> | undefined;

/** The Chromium binary, looked up once per test file; an error says what to install or which variable to set. */
function findChromium(): Promise<string> {
  chromiumPath ??= provisionChromium({ install: false }).then((found) => found.path);
  return chromiumPath;
}

export async function launchTestBrowser(): Promise<TestBrowser> {
  const executablePath = await findChromium();
  await mkdir(ARTIFACTS, { recursive: true });
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
  const contexts: BrowserContext[] = [];
  return {
    browser,
    async newPage(viewport = DESKTOP, locale = 'en-US') {
      const context = await browser.newContext({ viewport, locale });
      contexts.push(context);
      const page = await context.newPage();
      page.on('pageerror', (error) => {
        throw error;
      });
      return page;
    },
    async screenshot(page, name) {
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
    },
  };
}

/** No horizontal scrolling: the page is no wider than the viewport. */
export async function pageWidth(page: Page): Promise<number> {
  // Expressions as strings run in the page (this project type-checks without the DOM library).
  return Number(await page.evaluate('document.documentElement.scrollWidth'));
}
