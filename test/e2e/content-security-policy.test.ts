// The web app's pages run under their Content-Security-Policy in a real browser, and the browser tests'
// check (test/support/browser.ts) does see violations: a page that loads clean records none, while an
// inline script, an inline style attribute and an image from another origin injected into it are blocked
// (the script never runs) and recorded. The other browser tests fail on any violation their pages meet.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/ports.ts';
import { type ApiHarness, listenLocally, openApiHarness } from '../support/api.ts';
import { cspViolations, DESKTOP, launchTestBrowser, type TestBrowser } from '../support/browser.ts';
import { testConfig } from '../support/context.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

beforeAll(async () => {
  browser = await launchTestBrowser();
  harness = await openApiHarness();
  baseUrl = await listenLocally(harness.app);
});

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

describe('the pages under their Content-Security-Policy', () => {
  it('load without violations, and block and report inline script, inline style and foreign images', async () => {
    const page = await browser.newPage(DESKTOP, 'en-US', { allowCspViolations: true });
    const response = await page.goto(`${baseUrl}/plans`);
    expect(response?.headers()['content-security-policy']).toMatch(/script-src 'self' 'sha256-/);
    await expect.poll(() => page.locator('[data-plan]').count()).toBeGreaterThan(0);
    expect(cspViolations(page)).toEqual([]);

    await page.evaluate(`(() => {
      const script = document.createElement('script');
      script.textContent = 'window.injectedRan = true';
      document.body.append(script);
      document.body.setAttribute('style', 'outline: 5px solid red');
      const image = document.createElement('img');
      image.src = 'https://images.example.com/pixel.png';
      image.alt = '';
      document.body.append(image);
    })()`);
    const recorded = () => cspViolations(page).join('\n');
    await expect.poll(recorded).toMatch(/script-src-elem blocked inline/);
    await expect.poll(recorded).toMatch(/style-src-attr blocked inline/);
    await expect.poll(recorded).toMatch(/img-src blocked https:\/\/images\.example\.com\/pixel\.png/);
    expect(await page.evaluate('window.injectedRan === true')).toBe(false);
  });
});

describe('the Swagger UI at /swagger', () => {
  // Served where its document's server (PUBLIC_BASE_URL) points, so "Try it out" reaches this very server.
  let swagger: ApiHarness;
  let swaggerUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    swaggerUrl = `http://localhost:${port}`;
    swagger = await openApiHarness(testConfig({ PUBLIC_BASE_URL: swaggerUrl }));
    await swagger.app.listen({ host: 'localhost', port });
  });
  afterAll(async () => {
    // The browser's pages keep connections to this server open; it closes once they are gone.
    await Promise.all(pages.map((page) => page.context().close()));
    await swagger?.close();
  });
  const pages: Page[] = [];

  it('renders and tries a route under its own Content-Security-Policy, and may not be framed', async () => {
    // Fails on any violation (the browser helper throws), as the web app's pages do.
    const page = await browser.newPage(DESKTOP);
    pages.push(page);
    const response = await page.goto(`${swaggerUrl}/swagger`);
    const headers = response?.headers() ?? {};
    expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(headers['content-security-policy']).toMatch(/script-src 'self';/);
    expect(headers['x-frame-options']).toBe('DENY');
    await expect
      .poll(() => page.locator('.swagger-ui .info .title').textContent())
      .toMatch(/Sigil public API/);
    await expect.poll(() => page.locator('.opblock').count()).toBeGreaterThan(10);
    // Run a route from the page ("Try it out", "Execute"): without a token it answers 401.
    const operation = page.locator('.opblock', { hasText: '/api/v1/organization' }).first();
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    await expect
      .poll(() =>
        operation.locator('.live-responses-table tr.response .response-col_status').first().textContent(),
      )
      .toMatch(/401/);
    // The schemas: listed, and one opened.
    const schemas = page.locator('section.models article.json-schema-2020-12');
    await expect.poll(() => schemas.count()).toBeGreaterThan(5);
    await schemas.first().locator('.json-schema-2020-12-accordion').click();
    await expect
      .poll(() => schemas.first().locator('.json-schema-2020-12-property').count())
      .toBeGreaterThan(0);
    await browser.screenshot(page, 'swagger');
    expect(cspViolations(page)).toEqual([]);

    // A page that frames it gets nothing: the browser refuses to render it in the frame.
    const framing = await browser.newPage(DESKTOP, 'en-US', { allowCspViolations: true });
    pages.push(framing);
    await framing.goto(`${baseUrl}/plans`);
    await framing.setContent(`<iframe src="${swaggerUrl}/swagger" width="800" height="600"></iframe>`);
    await framing.waitForTimeout(2000);
    const framed = framing.frames().find((frame) => frame !== framing.mainFrame());
    const framedTitle = await framed
      ?.evaluate('document.querySelector(".swagger-ui .info .title")?.textContent ?? null')
      .catch(() => null);
    expect(framedTitle ?? null).toBeNull();
  });
});
