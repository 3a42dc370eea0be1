// The browser tests' Chromium: Debian's chromium package driven by playwright-core with the flags our machines
// need (design.md, "Facts about our machines"; Playwright adds --headless), pages that fail the test on any
// uncaught page error and on any Content-Security-Policy violation, full-page screenshots under
// test/artifacts/web/, and the page's own width. Chromium is found as `npm test`'s provisioning step finds it
// (CHROMIUM_PATH, then PATH); that step also installs it.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { provisionChromium } from '../../provisioning/chromium.ts';

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

export interface PageOptions {
  /** Record Content-Security-Policy violations without failing (for tests of the check itself). */
  allowCspViolations?: boolean;
  /** A touch screen (a phone's): taps and touch events instead of a mouse. */
  touch?: boolean;
}

export interface TestBrowser {
  browser: Browser;
  newPage(
    viewport?: { width: number; height: number },
    locale?: string,
    options?: PageOptions,
  ): Promise<Page>;
  screenshot(page: Page, name: string): Promise<void>;
  /** Fails (throws) when any page of this browser met a Content-Security-Policy violation. */
  close(): Promise<void>;
}

/** Chromium's console message for a resource, script or style that the page's policy blocked. */
const CSP_CONSOLE_MESSAGE = /Content Security Policy/i;
/** Reports each `securitypolicyviolation` event of the page to the test (an init script bypasses the policy). */
const REPORT_VIOLATIONS = `document.addEventListener('securitypolicyviolation', (event) => {
  globalThis.sigilCspViolation(
    event.effectiveDirective + ' blocked ' + (event.blockedURI || 'inline') +
      ' (' + (event.sourceFile || event.documentURI) + ':' + event.lineNumber + ')',
  );
});`;

const violationsByPage = new WeakMap<Page, string[]>();

/** The Content-Security-Policy violations `page` has met so far. */
export function cspViolations(page: Page): string[] {
  return [...(violationsByPage.get(page) ?? [])];
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
  const failures: string[] = [];
  return {
    browser,
    async newPage(viewport = DESKTOP, locale = 'en-US', options = {}) {
      const context = await browser.newContext({
        viewport,
        locale,
        ...(options.touch ? { hasTouch: true, isMobile: true } : {}),
      });
      // Waits catch hangs, not slowness: on a slow machine under the whole suite a page can take well over
      // Playwright's default 30 s to load or settle (vitest's test timeout still bounds every test).
      context.setDefaultTimeout(120_000);
      context.setDefaultNavigationTimeout(120_000);
      contexts.push(context);
      const violations: string[] = [];
      const report = (violation: string) => {
        if (violations.includes(violation)) return;
        violations.push(violation);
        if (options.allowCspViolations) return;
        failures.push(violation);
        throw new Error(`Content-Security-Policy violation: ${violation}`);
      };
      await context.exposeFunction('sigilCspViolation', report);
      await context.addInitScript(REPORT_VIOLATIONS);
      const page = await context.newPage();
      violationsByPage.set(page, violations);
      page.on('pageerror', (error) => {
        throw error;
      });
      page.on('console', (message) => {
        if (message.type() === 'error' && CSP_CONSOLE_MESSAGE.test(message.text())) report(message.text());
      });
      return page;
    },
    async screenshot(page, name) {
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
      if (failures.length > 0) {
        throw new Error(`Content-Security-Policy violations:\n${failures.join('\n')}`);
      }
    },
  };
}

/** No horizontal scrolling: the page is no wider than the viewport. */
export async function pageWidth(page: Page): Promise<number> {
  // Expressions as strings run in the page (this project type-checks without the DOM library).
  return Number(await page.evaluate('document.documentElement.scrollWidth'));
}
