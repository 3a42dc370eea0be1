// The accessibility check the browser tests rely on (test/support/accessibility.ts) does find what it must:
// an unlabelled input, text too faint for its background, an image without a text alternative, a page
// without a language; and a clean page passes. Without this, "no violations" could mean "never ran".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations } from '../support/accessibility.ts';
import { launchTestBrowser, type TestBrowser } from '../support/browser.ts';

let browser: TestBrowser;

beforeAll(async () => {
  browser = await launchTestBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe('the accessibility check', () => {
  it('reports missing labels, low contrast, missing alternative text and a missing language', async () => {
    const page = await browser.newPage();
    await page.setContent(`<!doctype html><html><head><title>Bad</title></head><body><main>
      <h1>Form</h1>
      <input type="text">
      <p style="color:#bbb;background:#fff">Faint text that is hard to read</p>
      <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
    </main></body></html>`);
    const rules = (await accessibilityViolations(page)).map((line) => line.split(' ')[0]);
    expect(rules).toEqual(expect.arrayContaining(['label', 'color-contrast', 'image-alt', 'html-has-lang']));
  });

  it('passes a page that is labelled, legible and in a named language', async () => {
    const page = await browser.newPage();
    await page.setContent(`<!doctype html><html lang="en"><head><title>Good</title></head><body><main>
      <h1>Form</h1>
      <label for="name">Name</label> <input id="name" type="text">
      <p style="color:#333;background:#fff">Plain text that is easy to read</p>
    </main></body></html>`);
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});
