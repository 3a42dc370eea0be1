// The backoffice's envelope pages (/backoffice/envelopes and an envelope's page, docs/backoffice.md, "Envelopes")
// in a real browser against a real Sigil app. A member of staff finds an organization's envelope by a recipient's
// email address, opens it — status, organization, recording state, recipients, audit events, never the field
// values — verifies its audit trail through the repair's reason dialog (an empty reason refused first), and views
// the contents after giving a reason; both are in the backoffice audit log with the reason and in the
// organization's security log. The same pages in Hebrew (right to left) and on a 375-pixel phone. axe-core's WCAG
// 2.1 AA rules on every screen; screenshots go to test/artifacts/web/.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BackofficeAuditEvent, SecurityEvent } from '../../db/entities/index.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  useAppBrowser,
  waitForLoaded,
  waitForPath,
} from '../support/app-pages.ts';
import { signedInBackofficePage } from '../support/backoffice-pages.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { draftTwoSignerEnvelope } from '../support/context.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

const RUN = randomUUID().slice(0, 8);
const DOMAIN = `envelopes-${RUN}.example.test`;
const EMAIL = `client-${RUN}@example.com`;

async function sentEnvelopeOfItsOwn(title: string) {
  const made = await draftTwoSignerEnvelope(harness.ctx, {
    title,
    recipients: [
      { roleName: 'Client', fullName: 'Dana Levi', email: EMAIL, deliveryChannel: 'ManualLink' },
      {
        roleName: 'Provider',
        fullName: 'Sam Cohen',
        email: 'sam@example.com',
        deliveryChannel: 'ManualLink',
      },
    ],
  });
  await sendEnvelope(harness.ctx, made.organizationId, made.envelopeId);
  return made;
}

describe('the backoffice envelope pages', () => {
  it('finds an envelope by a recipient’s email, verifies its audit trail and shows its contents for a reason', async () => {
    const { envelopeId, organizationId } = await sentEnvelopeOfItsOwn(`Lease ${RUN}`);
    const page = await signedInBackofficePage(browser, harness, baseUrl, DESKTOP, DOMAIN);
    await page.goto(`${baseUrl}/backoffice/envelopes`);
    await waitForLoaded(page);
    await page.getByLabel('Envelope id, external reference, recipient email or phone').fill(EMAIL);
    await page.getByRole('button', { name: 'Find' }).click();
    const row = page.locator(`[data-envelope="${envelopeId}"]`);
    await eventually(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('Recipient email');
    await expectAccessible(page, 'envelopes (en, desktop)');
    await browser.screenshot(page, 'backoffice-envelopes-en-desktop');

    await row.getByRole('link', { name: `Lease ${RUN}` }).click();
    await waitForPath(page, `/backoffice/envelopes/${envelopeId}`);
    await waitForLoaded(page);
    await eventually(() => page.getByTestId('envelope-status').textContent()).toBe('Sent');
    expect((await page.getByTestId('projection-state').textContent())?.trim()).toBe('Up to date');
    expect(await page.getByTestId('recipients').textContent()).toContain(EMAIL);
    expect(await page.getByTestId('audit-events').textContent()).toContain('envelope.sent');
    expect(await page.getByTestId('field-values').count()).toBe(0);
    await expectAccessible(page, 'envelope (en, desktop)');
    await browser.screenshot(page, 'backoffice-envelope-en-desktop');

    // A repair asks why: an empty reason is refused beside the field, then the repair is done and said.
    await page.locator('[data-repair="verify-audit"]').click();
    await eventually(() => page.locator('#repair-verify-audit-reason').isVisible()).toBe(true);
    await page.getByRole('dialog').getByRole('button', { name: 'Verify the audit trail' }).click();
    await eventually(() => page.getByRole('dialog').textContent()).toContain(
      'Say why (at least 3 characters).',
    );
    await expectAccessible(page, 'repair dialog (en, desktop)');
    await page.evaluate('window.scrollTo(0, 0)');
    await browser.screenshot(page, 'backoffice-envelope-repair-en-desktop');
    await page.locator('#repair-verify-audit-reason').fill('Ticket 5521: the customer asks');
    await page.getByRole('dialog').getByRole('button', { name: 'Verify the audit trail' }).click();
    await eventually(() => page.getByRole('status').first().textContent()).toMatch(
      /The audit chain is intact/,
    );

    await page.getByTestId('view-contents').click();
    await page.locator('#view-contents-reason').fill('Ticket 5521: which values were filled');
    await page.getByRole('dialog').getByRole('button', { name: 'View contents' }).click();
    await eventually(() => page.getByTestId('field-values').count()).toBe(1);

    const staff = await harness.ctx.orm.em
      .fork()
      .find(BackofficeAuditEvent, { targetId: envelopeId }, { orderBy: { occurredAt: 'asc' } });
    expect(staff.map((event) => [event.action, event.details.reason ?? null])).toEqual([
      ['envelope.viewed', null],
      ['envelope.verify-audit', 'Ticket 5521: the customer asks'],
      // The page read again after the repair: a view again.
      ['envelope.viewed', null],
      ['envelope.contents_viewed', 'Ticket 5521: which values were filled'],
    ]);
    const owners = await harness.ctx.orm.em
      .fork()
      .find(SecurityEvent, { organizationId, type: 'support.accessed' });
    expect(owners.length).toBe(4);
  }, 240_000);

  it('is right to left in Hebrew and fits a 375-pixel phone', async () => {
    const { envelopeId } = await sentEnvelopeOfItsOwn(`חוזה ${RUN}`);
    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const page = await signedInBackofficePage(browser, harness, baseUrl, viewport, DOMAIN);
      for (const [path, name] of [
        [`/backoffice/envelopes?q=${encodeURIComponent(EMAIL)}`, 'envelopes'],
        [`/backoffice/envelopes/${envelopeId}`, 'envelope'],
      ] as const) {
        await page.goto(`${baseUrl}${path}${path.includes('?') ? '&' : '?'}lang=${language}`);
        await waitForPath(page, path.split('?')[0] ?? path);
        await waitForLoaded(page);
        await eventually(() => page.getByRole('heading', { level: 1 }).count()).toBe(1);
        expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
        if (name === 'envelopes')
          await eventually(() => page.locator('[data-envelope]').count()).toBeGreaterThan(0);
        expect(await pageWidth(page), `${name} ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
        await expectAccessible(page, `${name} (${language}, ${device})`);
        await browser.screenshot(page, `backoffice-${name}-${language}-${device}`);
      }
      await page.locator('[data-repair="reissue-links"]').click();
      await eventually(() => page.locator('#repair-reissue-links-reason').isVisible()).toBe(true);
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `repair dialog (${language}, ${device})`);
      await page.evaluate('window.scrollTo(0, 0)');
      await browser.screenshot(page, `backoffice-envelope-repair-${language}-${device}`);
      await page.keyboard.press('Escape');
    }
  }, 360_000);
});
