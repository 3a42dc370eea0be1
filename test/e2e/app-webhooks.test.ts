// Webhooks in the business app (/app/integrations/webhooks and its deliveries log) in a real browser against a
// real Sigil app and the shared webhook worker: an owner adds an endpoint pointing at a receiver the test
// starts, copies the secret shown once, sends a test delivery that the receiver verifies with that secret,
// follows it in the deliveries log, opens a delivery the receiver failed (HTTP 500) with its attempts and
// replays it from the page, which then succeeds; rotates the secret (the grace period said); a plan without
// webhooks says so and offers nothing to add. Hebrew (right to left) and a 375-pixel phone, axe-core's WCAG 2.1
// AA rules on every screen; screenshots go to test/artifacts/web/.
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../domain/vocabulary.ts';
import { webhookDeliveryWorkflowId } from '../../workflows/webhook-contracts.ts';
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
import {
  deliveryIdOf,
  type ReceivedRequest,
  startWebhookReceiver,
  verifies,
  type WebhookReceiver,
} from '../support/webhook-receiver.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;
let receiver: WebhookReceiver;

useAppBrowser(async (opened) => {
  ({ harness, browser, baseUrl } = opened);
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver?.close());

interface Delivery {
  id: string;
  status: string;
  attemptCount: number;
  lastStatusCode: number | null;
}

async function openWebhooks(page: Page): Promise<void> {
  await page.goto(`${baseUrl}/app/integrations/webhooks`);
  await eventually(() => page.getByRole('heading', { level: 1 }).count()).toBe(1);
  await waitForLoaded(page);
}

describe('the business app: webhooks', () => {
  it('adds an endpoint, sends a signed test, follows the deliveries and replays a failed one', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Wendy Webhook' });
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, owner.email, owner.password);
    await openWebhooks(page);
    await eventually(() =>
      page.getByText('There are no webhook endpoints yet. Add one to receive events.').count(),
    ).toBe(1);
    expect(await page.getByRole('link', { name: '← Integrations' }).getAttribute('href')).toBe(
      '/app/integrations',
    );
    await expectAccessible(page, 'no webhooks');

    // Add: the URL is required; then the URL and one event.
    const path = '/hooks/e2e';
    const url = `${receiver.url}${path}`;
    const ours = (request: ReceivedRequest) => request.path === path;
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const form = page.getByRole('dialog', { name: 'Add a webhook endpoint' });
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await eventually(() => form.locator('#webhook-url-error').textContent()).toBe(
      "Enter the endpoint's URL.",
    );
    await form.getByLabel('Endpoint URL').fill('ftp://example.com/hook');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await eventually(() => form.locator('#webhook-url-error').textContent()).toContain('https://');
    await form.getByLabel('Endpoint URL').fill(url);
    await form.getByLabel('envelope.completed').check();
    await expectAccessible(page, 'add webhook');
    await browser.screenshot(page, 'app-webhooks-add-en-desktop');
    await form.getByRole('button', { name: 'Add endpoint' }).click();

    // The secret, shown once.
    const secretPanel = page.getByTestId('webhook-secret');
    await eventually(() => secretPanel.count()).toBe(1);
    const secret = await secretPanel.getByLabel('Secret').inputValue();
    expect(secret).toMatch(/^whsec_[\w-]{43}$/);
    expect(await secretPanel.textContent()).toContain('it will not be shown again');
    await expectAccessible(page, 'webhook secret');
    await browser.screenshot(page, 'app-webhooks-secret-en-desktop');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await eventually(() => secretPanel.count()).toBe(0);
    const row = page.locator(`tr[data-endpoint="${url}"]`);
    expect(await row.textContent()).toContain('envelope.completed');
    expect(await row.textContent()).toContain('Enabled');
    expect(await page.content()).not.toContain(secret);

    // A test delivery, signed with the secret the page showed.
    await page.getByRole('button', { name: `Send test: ${url}` }).click();
    await eventually(() => page.locator('.app-success').textContent()).toContain(
      'A test event is on its way',
    );
    const [tested] = await receiver.waitFor(1, ours);
    if (!tested) throw new Error('no test delivery');
    expect(verifies(tested, secret)).toBe(true);
    const testId = deliveryIdOf(tested) as string;
    // The list says so as it happens, without a reload: the test counts among the last 7 days' deliveries.
    await eventually(() => row.getByTestId('recent-deliveries').textContent()).toContain(
      '100% delivered (1 of 1)',
    );
    expect((await callAs<Delivery>(baseUrl, owner, 'GET', `/api/webhooks/deliveries/${testId}`)).status).toBe(
      'succeeded',
    );
    await browser.screenshot(page, 'app-webhooks-en-desktop');

    // The deliveries log.
    await page.getByRole('link', { name: 'Deliveries log' }).click();
    await waitForPath(page, '/app/integrations/webhooks/deliveries');
    await waitForLoaded(page);
    const testedRow = page.locator(`tr[data-delivery="${testId}"]`);
    await eventually(() => testedRow.count()).toBe(1);
    expect(await testedRow.textContent()).toContain('Delivered');
    expect(await testedRow.textContent()).toContain('200');
    await expectAccessible(page, 'deliveries log');

    // A delivery the receiver fails.
    receiver.answer((request) => (ours(request) ? { status: 500, body: 'receiver down' } : { status: 200 }));
    const failing = await callAs<Delivery>(
      baseUrl,
      owner,
      'POST',
      `/api/webhooks/${await endpointId(owner, url)}/test`,
    );
    await eventually(
      async () =>
        (await callAs<Delivery>(baseUrl, owner, 'GET', `/api/webhooks/deliveries/${failing.id}`))
          .attemptCount,
      30_000,
    ).toBe(1);
    await page.goto(`${baseUrl}/app/integrations/webhooks/deliveries?status=pending`);
    await waitForLoaded(page);
    expect(await page.locator('#filter-status').inputValue()).toBe('pending');
    await eventually(() => page.locator('tr[data-delivery]').count()).toBe(1);
    await browser.screenshot(page, 'app-webhooks-deliveries-en-desktop');
    await page.locator(`tr[data-delivery="${failing.id}"] a`).first().click();
    await waitForPath(page, `/app/integrations/webhooks/deliveries/${failing.id}`);
    await waitForLoaded(page);
    const attempts = page.getByTestId('webhook-attempts');
    await eventually(() => attempts.locator('tbody tr').count()).toBe(1);
    expect(await attempts.textContent()).toContain('500');
    expect(await attempts.textContent()).toContain('HTTP 500: receiver down');
    await expectAccessible(page, 'failed delivery');
    await browser.screenshot(page, 'app-webhooks-delivery-failed-en-desktop');

    // Fixed: replayed from the page, the replay succeeds.
    receiver.answer(() => ({ status: 200 }));
    await page.getByRole('button', { name: 'Replay', exact: true }).click();
    await eventually(() => page.locator('.app-success').textContent()).toBe(
      'Replayed: this is the new delivery.',
    );
    const replayPath = new URL(page.url()).pathname;
    const replayId = replayPath.split('/').at(-1) as string;
    expect(replayId).not.toBe(failing.id);
    // The test delivery, the failed one, then the replay.
    const [, , replayed] = await receiver.waitFor(3, ours);
    if (!replayed) throw new Error('no replay');
    expect(deliveryIdOf(replayed)).toBe(replayId);
    expect(verifies(replayed, secret)).toBe(true);
    await eventually(async () => {
      await page.reload();
      await waitForLoaded(page);
      return page.getByTestId('delivery-status').textContent();
    }).toContain('Delivered');
    expect(await page.getByRole('link', { name: failing.id }).count()).toBe(1);
    await expectAccessible(page, 'replayed delivery');
    await browser.screenshot(page, 'app-webhooks-delivery-replayed-en-desktop');
    await harness.ctx.temporal.workflow
      .getHandle(webhookDeliveryWorkflowId(failing.id))
      .terminate('test done');

    // Rotation: the new secret shown once, the previous one's grace period said.
    await openWebhooks(page);
    await page.getByRole('button', { name: `Rotate secret: ${url}` }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    expect(await rotate.textContent()).toContain('24 hours');
    await expectAccessible(page, 'rotate secret');
    await rotate.getByRole('button', { name: 'Rotate secret' }).click();
    await eventually(() => page.getByTestId('webhook-secret').count()).toBe(1);
    const rotated = await page.getByTestId('webhook-secret').getByLabel('Secret').inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect(await page.getByTestId('webhook-secret').textContent()).toContain(
      'The previous secret keeps signing as well for 24 hours',
    );
    await expectAccessible(page, 'rotated secret');
    await browser.screenshot(page, 'app-webhooks-rotated-en-desktop');

    // Disable, then delete after a confirmation.
    await page.getByRole('button', { name: `Disable: ${url}` }).click();
    await eventually(() => row.textContent()).toContain('Disabled');
    await page.getByRole('button', { name: `Delete: ${url}` }).click();
    const remove = page.getByRole('dialog', { name: 'Delete the webhook endpoint?' });
    await remove.getByRole('button', { name: 'Delete' }).click();
    await eventually(() => row.count()).toBe(0);
    expect(await page.locator('.app-success').textContent()).toBe(`${url} was deleted.`);
  });

  it('says when the plan has no webhooks, and offers nothing to add', async () => {
    const starter = await signedInUser(harness, { role: 'owner', plan: 'Starter' });
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, starter.email, starter.password);
    await openWebhooks(page);
    await eventually(() => page.getByTestId('no-webhook-access').count()).toBe(1);
    expect(await page.getByTestId('no-webhook-access').textContent()).toContain(
      'The Starter plan does not include webhooks',
    );
    expect(await page.getByRole('button', { name: 'Add endpoint' }).count()).toBe(0);
    await expectAccessible(page, 'no webhook access');
    await browser.screenshot(page, 'app-webhooks-no-access-en-desktop');
  });

  it('shows the events an endpoint no longer receives, and offers a limited role no envelope event (issue 30)', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const organizationId = owner.organization.id;
    const maker = await signedInUser(harness, {
      role: 'administrator',
      organizationId,
      fullName: 'Ada Admin',
    });
    await callAs(baseUrl, maker, 'POST', '/api/webhooks', {
      url: `${receiver.url}/hooks/suspended`,
      eventTypes: ['envelope.completed', 'document.final_pdf_ready'],
    });
    await callAs(baseUrl, owner, 'PUT', `/api/users/${maker.user.id}`, { status: 'deactivated' });
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
      await openWebhooks(page);
      const row = page.locator('tr[data-endpoint]');
      await eventually(() => row.getByTestId('webhook-suspended').count()).toBe(1);
      const suspended = (await row.getByTestId('webhook-suspended').textContent()) ?? '';
      expect(suspended).toContain('envelope.completed');
      expect(suspended).toContain('document.final_pdf_ready');
      expect(suspended).toContain('Ada Admin');
      expect(await row.getByTestId('webhook-changed-by').textContent()).toContain(
        language === 'he' ? 'מושבת' : 'Deactivated',
      );
      expect(await pageWidth(page), `${language} ${device} list`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `suspended events (${language}, ${device})`);
      await browser.screenshot(page, `app-webhooks-suspended-${language}-${device}`);

      await page
        .getByRole('button', { name: language === 'he' ? 'הוספת נקודת קצה' : 'Add endpoint' })
        .click();
      await eventually(() => page.getByRole('dialog').count()).toBe(1);
      const dialog = page.getByRole('dialog');
      expect(await dialog.getByTestId('events-lack').count()).toBe(1);
      expect(await dialog.locator('input[type="checkbox"]:disabled').count()).toBe(
        WEBHOOK_EVENT_TYPES.length,
      );
      expect(await pageWidth(page), `${language} ${device} dialog`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `add webhook as a limited role (${language}, ${device})`);
      await browser.screenshot(page, `app-webhooks-limited-add-${language}-${device}`);
      await page.close();
    }
  });

  it('is right to left in Hebrew and fits a 375-pixel phone in both languages', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const url = `${receiver.url}/hooks/e2e-${'long-path-segment-'.repeat(3)}end`;
    const endpoint = await callAs<{ id: string }>(baseUrl, owner, 'POST', '/api/webhooks', {
      url,
      eventTypes: ['envelope.completed', 'recipient.authentication_failed', 'document.final_pdf_ready'],
    });
    const test = await callAs<Delivery>(baseUrl, owner, 'POST', `/api/webhooks/${endpoint.id}/test`);
    await eventually(
      async () =>
        (await callAs<Delivery>(baseUrl, owner, 'GET', `/api/webhooks/deliveries/${test.id}`)).status,
    ).toBe('succeeded');
    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const page = await signedInPage(browser, baseUrl, owner, viewport, language);
      await openWebhooks(page);
      await eventually(() => page.locator('tr[data-endpoint]').count()).toBe(1);
      expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      if (language === 'he') {
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('וובהוקים (Webhooks)');
        expect(await page.locator('tr[data-endpoint]').textContent()).toContain('100% נמסרו (1 מתוך 1)');
      }
      expect(await pageWidth(page), `${language} ${device} list`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `webhooks (${language}, ${device})`);
      await browser.screenshot(page, `app-webhooks-${language}-${device}`);

      await page
        .getByRole('button', { name: language === 'he' ? 'הוספת נקודת קצה' : 'Add endpoint' })
        .click();
      await eventually(() => page.getByRole('dialog').count()).toBe(1);
      await page.locator('#webhook-url').fill('https://hooks.example.com/sigil');
      expect(await pageWidth(page), `${language} ${device} dialog`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `add webhook (${language}, ${device})`);
      await browser.screenshot(page, `app-webhooks-add-${language}-${device}`);
      await page.locator('#webhook-url').press('Escape');

      await page.goto(`${baseUrl}/app/integrations/webhooks/deliveries`);
      await waitForLoaded(page);
      await eventually(() => page.locator('tr[data-delivery]').count()).toBe(1);
      expect(await pageWidth(page), `${language} ${device} log`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `deliveries (${language}, ${device})`);
      await browser.screenshot(page, `app-webhooks-deliveries-${language}-${device}`);

      await page.goto(`${baseUrl}/app/integrations/webhooks/deliveries/${test.id}`);
      await waitForLoaded(page);
      await eventually(() => page.getByTestId('webhook-attempts').locator('tbody tr').count()).toBe(1);
      expect(await pageWidth(page), `${language} ${device} delivery`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `delivery (${language}, ${device})`);
      await browser.screenshot(page, `app-webhooks-delivery-${language}-${device}`);
      await page.close();
    }
  });
});

async function endpointId(owner: Awaited<ReturnType<typeof signedInUser>>, url: string): Promise<string> {
  const list = await callAs<{ endpoints: { id: string; url: string }[] }>(
    baseUrl,
    owner,
    'GET',
    '/api/webhooks',
  );
  const found = list.endpoints.find((endpoint) => endpoint.url === url);
  if (!found) throw new Error(`no endpoint ${url}`);
  return found.id;
}
