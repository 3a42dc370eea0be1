// The Integrations area's API keys (/app/integrations, docs/integrations.md) in a real browser against a real
// Sigil app: an administrator opens it from the navigation, creates a key in the dialog (the page's own checks,
// then each IP allowlist line the server refuses shown beside the field with its reason), reads the secret the
// page shows once, and the test obtains a token with it at POST /oauth/token and calls /api/v1; the secret is
// gone once the panel is closed and the page reloaded. A second secret is added (rotate), the first deleted (it
// no longer obtains a token), a third is refused with the server's message; the key is edited and deleted. An
// organization without API access sees why and no control that makes a key; a read-only member no control that
// changes anything. The page in Hebrew (right to left) and on a 375-pixel phone, and axe-core's WCAG 2.1 AA rules
// on every screen; screenshots go to test/artifacts/web/.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  signedInPage,
  signIn,
  useAppBrowser,
  waitForLoaded,
  waitForPath,
} from '../support/app-pages.ts';
import { callAs } from '../support/app-requests.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

/** POST /oauth/token with HTTP Basic, as an integrator's system calls it. */
function tokenRequest(clientId: string, clientSecret: string): Promise<Response> {
  return fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
}

function keyCard(page: Page, name: string) {
  return page.locator(`li[data-api-key="${name}"]`);
}

async function openIntegrations(page: Page): Promise<void> {
  await page.goto(`${baseUrl}/app/integrations`);
  await eventually(() => page.getByRole('heading', { level: 1 }).count()).toBe(1);
  await waitForLoaded(page);
}

/** The secret panel's secret and client id, as a person would copy them. */
async function shownSecret(page: Page): Promise<{ clientId: string; clientSecret: string }> {
  const panel = page.getByTestId('api-key-secret');
  await eventually(() => panel.count()).toBe(1);
  return {
    clientId: ((await panel.getByTestId('api-key-secret-client-id').textContent()) ?? '').trim(),
    clientSecret: await panel.getByLabel('Secret').inputValue(),
  };
}

describe('the business app: API keys', () => {
  it('creates a key whose secret, shown once, obtains a token; rotates, deletes a secret, edits and deletes', async () => {
    const admin = await signedInUser(harness, {
      role: 'administrator',
      apiEnabled: true,
      fullName: 'Ada Admin',
    });
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, admin.email, admin.password);
    await page
      .getByRole('navigation', { name: 'Business app' })
      .getByRole('link', { name: 'Integrations' })
      .click();
    await waitForPath(page, '/app/integrations');
    await eventually(() =>
      page.getByText('There are no API keys yet. Create one for each system that calls the API.').count(),
    ).toBe(1);
    expect(await page.getByRole('link', { name: 'Manage webhooks' }).getAttribute('href')).toBe(
      '/app/integrations/webhooks',
    );
    await expectAccessible(page, 'no API keys');

    // The page's own checks first, then the server's: every refused allowlist line with its reason.
    await page.getByRole('button', { name: 'Create an API key' }).click();
    const form = page.getByRole('dialog', { name: 'Create an API key' });
    await form.getByRole('button', { name: 'Create key' }).click();
    await eventually(() => form.locator('#key-name-error').textContent()).toBe('Enter a name.');
    expect(await form.locator('#key-scopes-error').textContent()).toBe('Choose at least one scope.');
    expect(await page.evaluate('document.activeElement?.id')).toBe('key-name');
    await form.getByLabel('Name').fill('ERP');
    await form.getByRole('checkbox', { name: /^templates\.read/ }).check();
    await form.getByRole('checkbox', { name: /^organization\.read/ }).check();
    await form.getByLabel('IP allowlist').fill('127.0.0.1\n\n10.0.0.0/33\n::1\nlocalhost');
    await form.getByRole('button', { name: 'Create key' }).click();
    const lines = form.getByTestId('allowlist-errors');
    await eventually(() => lines.locator('li').count()).toBe(2);
    // (Each server message is a direction isolate of its own, so it reads right in a Hebrew sentence too.)
    const shownLines = (await lines.locator('li').allTextContents()).map((line) =>
      line.replace(/[\u2068\u2069]/g, ''),
    );
    expect(shownLines).toEqual([
      'Line 3: "10.0.0.0/33" has an invalid prefix length (0-32 for IPv4)',
      'Line 5: "localhost" is not an IP address or CIDR range',
    ]);
    expect(await form.locator('#key-error').textContent()).toBe('Some fields need your attention.');
    expect(await form.getByLabel('IP allowlist').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'create API key, refused lines');
    await browser.screenshot(page, 'app-integrations-create-errors-en-desktop');
    await form.getByLabel('IP allowlist').fill('127.0.0.1\n::1');
    await form.getByRole('button', { name: 'Create key' }).click();

    // The secret, once: the panel warns, and the test uses it at the token endpoint.
    const first = await shownSecret(page);
    expect(first.clientId).toMatch(/^sigil_/);
    expect(first.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const panel = page.getByTestId('api-key-secret');
    expect(await panel.textContent()).toContain('it will not be shown again');
    expect(await page.evaluate('document.activeElement?.id')).toBe('api-key-secret-title');
    await eventually(() => keyCard(page, 'ERP').count()).toBe(1);
    expect(await page.locator('.app-success').textContent()).toBe('The API key ERP was created.');
    await expectAccessible(page, 'secret shown once');
    await browser.screenshot(page, 'app-integrations-secret-en-desktop');
    const token = await tokenRequest(first.clientId, first.clientSecret);
    expect(token.status, await token.clone().text()).toBe(200);
    const { access_token: accessToken, scope } = (await token.json()) as {
      access_token: string;
      scope: string;
    };
    expect(scope).toBe('organization.read templates.read');
    const templates = await fetch(`${baseUrl}/api/v1/templates`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(templates.status).toBe(200);

    // Closed and reloaded: the secret is nowhere on the page, only its hint.
    await panel.getByRole('button', { name: 'I have stored it' }).click();
    await openIntegrations(page);
    const card = keyCard(page, 'ERP');
    await eventually(() => card.count()).toBe(1);
    expect(await page.content()).not.toContain(first.clientSecret);
    const cardText = (await card.textContent()) ?? '';
    expect(cardText).toContain(first.clientId);
    expect(cardText).toContain(`…${first.clientSecret.slice(-4)}`);
    // The scopes in the specification's order, whatever order they were ticked in.
    expect(await card.getByTestId('scopes').locator('li').allTextContents()).toEqual([
      'organization.read',
      'templates.read',
    ]);
    expect(await card.getByTestId('allowlist').locator('li').allTextContents()).toEqual(['127.0.0.1', '::1']);
    // The requests just made show (they are counted after their answers).
    await eventually(async () => {
      await openIntegrations(page);
      return (await keyCard(page, 'ERP').textContent()) ?? '';
    }).toContain('1 request, 0% errors');
    expect(
      await page.getByTestId('api-key-figures').locator('tr[data-figures="ERP"]').textContent(),
    ).toContain('1 request, 0 errors, 0 rate-limited');
    await expectAccessible(page, 'one API key');
    await browser.screenshot(page, 'app-integrations-en-desktop');

    // Rotate: a second secret, shown once; both work.
    await page.getByRole('button', { name: 'Add a secret: ERP' }).click();
    const rotate = page.getByRole('dialog', { name: 'Add a new secret?' });
    await expectAccessible(page, 'rotate');
    await rotate.getByRole('button', { name: 'Add a secret' }).click();
    await eventually(() => page.getByTestId('api-key-secret').count()).toBe(1);
    const second = await shownSecret(page);
    expect(second.clientId).toBe(first.clientId);
    expect(second.clientSecret).not.toBe(first.clientSecret);
    expect((await tokenRequest(second.clientId, second.clientSecret)).status).toBe(200);
    expect((await tokenRequest(first.clientId, first.clientSecret)).status).toBe(200);
    await eventually(() => keyCard(page, 'ERP').locator('li[data-secret]').count()).toBe(2);

    // A third: the server's refusal, in the dialog.
    await page.getByRole('button', { name: 'Add a secret: ERP' }).click();
    await rotate.getByRole('button', { name: 'Add a secret' }).click();
    await eventually(() => rotate.locator('.app-alert').textContent()).toMatch(
      /already has two active secrets; delete one first/,
    );
    await expectAccessible(page, 'third secret refused');
    await browser.screenshot(page, 'app-integrations-third-secret-en-desktop');
    await rotate.getByRole('button', { name: 'Cancel' }).click();

    // Delete the first secret: it no longer obtains a token; the second still does.
    const firstHint = first.clientSecret.slice(-4);
    await page.getByRole('button', { name: `Delete secret: ERP …${firstHint}` }).click();
    const deleteSecret = page.getByRole('dialog', { name: `Delete the secret …${firstHint}?` });
    await expectAccessible(page, 'delete a secret');
    await deleteSecret.getByRole('button', { name: 'Delete secret' }).click();
    await eventually(() => keyCard(page, 'ERP').locator('li[data-secret]').count()).toBe(1);
    expect(await page.locator('.app-success').textContent()).toBe(
      `The secret …${firstHint} of ERP was deleted.`,
    );
    expect((await tokenRequest(first.clientId, first.clientSecret)).status).toBe(401);
    expect((await tokenRequest(second.clientId, second.clientSecret)).status).toBe(200);

    // Edit: the dialog holds the key; a refused line again, then saved.
    await page.getByRole('button', { name: 'Edit: ERP' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit ERP' });
    expect(await edit.getByLabel('IP allowlist').inputValue()).toBe('127.0.0.1\n::1');
    expect(await edit.getByRole('checkbox', { name: /^organization\.read/ }).isChecked()).toBe(true);
    await edit.getByLabel('Name').fill('ERP (production)');
    await edit.getByRole('checkbox', { name: /^organization\.read/ }).uncheck();
    await edit.getByLabel('IP allowlist').fill('');
    await edit.getByRole('button', { name: 'Save' }).click();
    await eventually(() => keyCard(page, 'ERP (production)').count()).toBe(1);
    const edited = keyCard(page, 'ERP (production)');
    expect(await edited.textContent()).toContain('Any address');
    expect(await edited.getByTestId('scopes').locator('li').allTextContents()).toEqual(['templates.read']);

    // Delete the key.
    await page.getByRole('button', { name: 'Delete: ERP (production)' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this API key?' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await eventually(() => page.locator('li[data-api-key]').count()).toBe(0);
    expect((await tokenRequest(second.clientId, second.clientSecret)).status).toBe(401);
  });

  it('says why the public API is off and offers nothing that needs it', async () => {
    const owner = await signedInUser(harness, { role: 'owner', apiEnabled: true, fullName: 'Olga Owner' });
    await callAs(baseUrl, owner, 'POST', '/api/api-keys', {
      name: 'Old integration',
      scopes: ['templates.read'],
    });
    await callAs(baseUrl, owner, 'POST', '/api/api-keys', {
      name: 'Before the pause',
      scopes: ['envelopes.read'],
    });
    await harness.ctx.orm.em
      .fork()
      .execute('update organization set api_enabled = false where id = ?', [owner.organization.id]);
    const page = await signedInPage(browser, baseUrl, owner, DESKTOP, 'en');
    await openIntegrations(page);
    const notice = page.getByTestId('no-api-access');
    await eventually(() => notice.count()).toBe(1);
    expect(await notice.textContent()).toContain('ask support or a platform administrator to turn it on');
    expect(await page.getByRole('button', { name: 'Create an API key' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Add a secret: / }).count()).toBe(0);
    // Its keys are still there, to change or delete.
    expect(await page.locator('li[data-api-key]').count()).toBe(2);
    expect(await page.getByRole('button', { name: 'Delete: Old integration' }).count()).toBe(1);
    await expectAccessible(page, 'API access off');
    await browser.screenshot(page, 'app-integrations-no-access-en-desktop');

    const starter = await signedInUser(harness, { role: 'owner', plan: 'Starter' });
    const starterPage = await signedInPage(browser, baseUrl, starter, DESKTOP, 'en');
    await openIntegrations(starterPage);
    await eventually(() => starterPage.getByTestId('no-api-access').textContent()).toContain(
      'The Starter plan does not include API access.',
    );
    expect(await starterPage.getByText('There are no API keys.').count()).toBe(1);
  });

  it('shows a read-only member nothing, and a reader of integrations no control that changes a key', async () => {
    const owner = await signedInUser(harness, { role: 'owner', apiEnabled: true });
    await callAs(baseUrl, owner, 'POST', '/api/api-keys', { name: 'Reporting', scopes: ['envelopes.read'] });
    const role = await callAs<{ id: string }>(baseUrl, owner, 'POST', '/api/roles', {
      name: 'Integration viewer',
      permissions: ['integrations:read'],
    });
    const reader = await signedInUser(harness, { role: role.id, organizationId: owner.organization.id });
    const page = await signedInPage(browser, baseUrl, reader, DESKTOP, 'en');
    await openIntegrations(page);
    await eventually(() => keyCard(page, 'Reporting').count()).toBe(1);
    for (const name of [/^Create an API key$/, /^(Edit|Delete|Add a secret|Delete secret): /]) {
      expect(await page.getByRole('button', { name }).count(), String(name)).toBe(0);
    }
    await expectAccessible(page, 'API keys, read only');

    const member = await signedInUser(harness, { role: 'member', organizationId: owner.organization.id });
    const memberPage = await signedInPage(browser, baseUrl, member, DESKTOP, 'en');
    const nav = memberPage.getByRole('navigation', { name: 'Business app' });
    await eventually(() => nav.getByRole('link', { name: 'Contacts' }).count()).toBe(1);
    expect(
      await memberPage
        .getByRole('navigation', { name: 'Business app' })
        .getByRole('link', { name: 'Integrations' })
        .count(),
    ).toBe(0);
  });

  it('names the last changer and a suspended scope, and offers a limited role only the scopes it holds (issue 30)', async () => {
    const owner = await signedInUser(harness, { role: 'owner', apiEnabled: true });
    const organizationId = owner.organization.id;
    const maker = await signedInUser(harness, {
      role: 'administrator',
      organizationId,
      fullName: 'Ada Admin',
    });
    await callAs(baseUrl, maker, 'POST', '/api/api-keys', {
      name: 'Archive sync',
      scopes: ['envelopes.read', 'organization.read'],
    });
    const { roles } = await callAs<{ roles: { id: string; builtIn: string | null }[] }>(
      baseUrl,
      owner,
      'GET',
      '/api/roles',
    );
    const sender = roles.find((role) => role.builtIn === 'sender')?.id;
    await callAs(baseUrl, owner, 'PUT', `/api/users/${maker.user.id}`, { roleId: sender });
    const integrators = await callAs<{ id: string }>(baseUrl, owner, 'POST', '/api/roles', {
      name: 'Integrators',
      permissions: ['integrations:read', 'integrations:manage'],
    });
    const integrator = await signedInUser(harness, { role: integrators.id, organizationId });
    for (const [language, viewport, device] of [
      ['en', DESKTOP, 'desktop'],
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const page = await signedInPage(browser, baseUrl, integrator, viewport, language);
      await openIntegrations(page);
      const card = keyCard(page, 'Archive sync');
      await eventually(() => card.getByTestId('api-key-suspended').count()).toBe(1);
      const suspended = (await card.getByTestId('api-key-suspended').textContent()) ?? '';
      expect(suspended).toContain('envelopes.read');
      expect(suspended).toContain(language === 'he' ? 'מסמכים' : 'Documents: View all');
      expect(suspended).toContain('Ada Admin');
      expect(await card.getByTestId('api-key-changed-by').textContent()).toContain('Ada Admin');
      expect(await pageWidth(page), `${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `suspended scope (${language}, ${device})`);
      await browser.screenshot(page, `app-integrations-suspended-${language}-${device}`);

      // The dialog: the scopes the role does not cover cannot be ticked, and say what they need.
      await page
        .getByRole('button', { name: language === 'he' ? 'יצירת מפתח API' : 'Create an API key' })
        .click();
      await eventually(() => page.getByRole('dialog').count()).toBe(1);
      const dialog = page.getByRole('dialog');
      expect(await dialog.locator('#key-scope-4').isDisabled()).toBe(true); // envelopes.read
      expect(await dialog.locator('#key-scope-6').isDisabled()).toBe(false); // webhooks.manage
      expect(await dialog.getByTestId('scope-lacks').count()).toBe(5);
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `create API key as a limited role (${language}, ${device})`);
      await browser.screenshot(page, `app-integrations-limited-create-${language}-${device}`);
    }
  });

  it('is right to left in Hebrew and fits a 375-pixel phone in both languages', async () => {
    const owner = await signedInUser(harness, { role: 'owner', apiEnabled: true });
    await callAs(baseUrl, owner, 'POST', '/api/api-keys', {
      name: 'מערכת הנהלת חשבונות',
      scopes: ['templates.read', 'envelopes.read', 'envelopes.write', 'webhooks.manage'],
      ipAllowlist: ['2001:db8:1234:5678::/64', '203.0.113.7'],
    });
    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const page = await signedInPage(browser, baseUrl, owner, viewport, language);
      await openIntegrations(page);
      await eventually(() => page.locator('li[data-api-key]').count()).toBe(1);
      expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      if (language === 'he') {
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('אינטגרציות');
      }
      expect(await pageWidth(page), `${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `API keys (${language}, ${device})`);
      await browser.screenshot(page, `app-integrations-${language}-${device}`);

      // The create dialog with a refused line, then the secret panel: both fit and pass.
      await page
        .getByRole('button', { name: language === 'he' ? 'יצירת מפתח API' : 'Create an API key' })
        .click();
      await eventually(() => page.getByRole('dialog').count()).toBe(1);
      await page.locator('#key-name').fill(language === 'he' ? 'אתר המכירות' : 'Web shop');
      await page.locator('#key-scope-2').check();
      await page.locator('#key-ipAllowlist').fill('10.0.0.1\nnot an address');
      await page.locator('#key-name').press('Enter');
      await eventually(() => page.getByTestId('allowlist-errors').count()).toBe(1);
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `create API key (${language}, ${device})`);
      await browser.screenshot(page, `app-integrations-create-${language}-${device}`);
      await page.locator('#key-ipAllowlist').fill('10.0.0.1');
      await page.locator('#key-name').press('Enter');
      await eventually(() => page.getByTestId('api-key-secret').count()).toBe(1);
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `secret shown once (${language}, ${device})`);
      await browser.screenshot(page, `app-integrations-secret-${language}-${device}`);
      // Deleted again, so the next screen shows the one key.
      const { apiKeys } = await callAs<{ apiKeys: { id: string; name: string }[] }>(
        baseUrl,
        owner,
        'GET',
        '/api/api-keys',
      );
      for (const key of apiKeys.filter((candidate) => candidate.name !== 'מערכת הנהלת חשבונות')) {
        await callAs(baseUrl, owner, 'DELETE', `/api/api-keys/${key.id}`);
      }
    }
  });
});
