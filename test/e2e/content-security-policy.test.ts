// The web app's pages run under their Content-Security-Policy in a real browser, and the browser tests'
// check (test/support/browser.ts) does see violations: a page that loads clean records none, while an
// inline script, an inline style attribute and an image from another origin injected into it are blocked
// (the script never runs) and recorded. The other browser tests fail on any violation their pages meet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, listenLocally, openApiHarness } from '../support/api.ts';
import { cspViolations, DESKTOP, launchTestBrowser, type TestBrowser } from '../support/browser.ts';

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
