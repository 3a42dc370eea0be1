// The dashboard (/app) and the billing page (/app/billing) in a real browser against a real Sigil app
// (docs/billing.md). An organization on the Starter plan (25 envelopes a month, 3 users, 1 team, no SMS credits)
// that has sent 21 envelopes this month and has its one team, set with SQL: the owner's dashboard lists what
// waits on them (an envelope to sign, a draft, a failed delivery, a deadline within three days), each linking to
// its envelope and to the documents list's matching tab, this month's usage and the latest activity; the billing
// page shows the plan and the meters — 21 of 25 with the 80 % warning, the team limit reached, SMS not included —
// and links to the plans. A sender sees no usage and no Billing. In Hebrew (right to left) and on a 375-pixel
// phone, axe-core's WCAG 2.1 AA rules on every screen; screenshots go to test/artifacts/web/.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { AppUser } from '../../db/entities/index.ts';
import { createEnvelope, type EnvelopeSender } from '../../services/envelopes/create-envelope.ts';
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
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { createOrganizationWithTemplate } from '../support/context.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

const DAY = 24 * 60 * 60 * 1000;

interface Seeded {
  owner: SignedInUser;
  sender: SignedInUser;
  waiting: string;
  draft: string;
  failed: string;
}

let seeded: Seeded;

function sql(statement: string, params: unknown[] = []) {
  return harness.ctx.orm.em.fork().execute(statement, params);
}

async function seed(): Promise<Seeded> {
  const { organization, template } = await createOrganizationWithTemplate(harness.ctx);
  await sql(`update organization set plan_name = 'Starter' where id = ?`, [organization.id]);
  const owner = await signedInUser(harness, {
    role: 'owner',
    organizationId: organization.id,
    fullName: 'Olivia Owner',
  });
  const sender = await signedInUser(harness, {
    role: 'sender',
    organizationId: organization.id,
    fullName: 'Avi Sender',
  });
  const team = randomUUID();
  await sql(`insert into team (id, organization_id, name) values (?, ?, 'Sales')`, [team, organization.id]);
  await harness.ctx.orm.em.fork().nativeUpdate(AppUser, { id: sender.user.id }, { teamId: team });

  const make = async (by: EnvelopeSender, title: string, clientEmail = 'dana@example.com') =>
    (
      await createEnvelope(
        harness.ctx,
        {
          organizationId: organization.id,
          templateId: template.id,
          title,
          recipients: [
            {
              roleName: 'Client',
              fullName: 'Olivia Owner',
              email: clientEmail,
              deliveryChannel: 'ManualLink',
            },
            {
              roleName: 'Provider',
              fullName: 'Sam Cohen',
              email: 'sam@example.com',
              deliveryChannel: 'ManualLink',
            },
          ],
        } as never,
        by,
      )
    ).id;
  const byOwner = { userId: owner.user.id, teamId: null };
  const bySender = { userId: sender.user.id, teamId: team };
  const now = Date.now();
  const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
  const sentAt = (minutes: number) => new Date(Math.max(monthStart, now - minutes * 60_000));

  // 21 envelopes sent this month (18 completed, and the three below that are still under way or failed).
  for (let index = 1; index <= 18; index += 1) {
    const id = await make(byOwner, `Service agreement ${index}`);
    await sql(`update envelope set status = 'Completed', sent_at = ? where id = ?`, [
      sentAt(200 - index),
      id,
    ]);
  }
  // The sender's lease waits on the owner's signature and expires in two days.
  const waiting = await make(bySender, 'חוזה שכירות — דירה ברחוב הרצל', owner.email);
  await sql(`update envelope set status = 'Sent', sent_at = ?, expires_at = ? where id = ?`, [
    sentAt(30),
    new Date(now + 2 * DAY),
    waiting,
  ]);
  await sql(`update recipient set status = 'InvitationSent' where envelope_id = ? and role_name = 'Client'`, [
    waiting,
  ]);
  const failed = await make(byOwner, 'Supplier contract — Globex');
  await sql(`update envelope set status = 'DeliveryFailed', sent_at = ? where id = ?`, [sentAt(20), failed]);
  const other = await make(bySender, 'Purchase order 7781');
  await sql(`update envelope set status = 'InProgress', sent_at = ?, expires_at = ? where id = ?`, [
    sentAt(10),
    new Date(now + 10 * DAY),
    other,
  ]);
  const draft = await make(byOwner, 'Quarterly NDA');

  let sequence = 0;
  for (const [envelopeId, type, minutes] of [
    [waiting, 'envelope.sent', 30],
    [failed, 'envelope.sent', 21],
    [failed, 'envelope.delivery_failed', 20],
    [other, 'envelope.sent', 10],
  ] as const) {
    sequence += 1;
    await sql(
      `insert into audit_event (id, envelope_id, organization_id, sequence, type, data, occurred_at)
       values (?, ?, ?, ?, ?, '{}', ?)`,
      [randomUUID(), envelopeId, organization.id, sequence, type, new Date(now - minutes * 60_000)],
    );
  }
  return { owner, sender, waiting, draft, failed };
}

useAppBrowser(async (opened) => {
  ({ harness, browser, baseUrl } = opened);
  seeded = await seed();
});

async function openDashboard(page: Page): Promise<void> {
  await page.goto(`${baseUrl}/app`);
  await eventually(() => page.getByTestId('overview-organization').count()).toBe(1);
  await waitForLoaded(page);
}

async function openBilling(page: Page): Promise<void> {
  await page.goto(`${baseUrl}/app/billing`);
  await eventually(() => page.getByTestId('meter-envelopes').count()).toBe(1);
  await waitForLoaded(page);
}

describe('the business app: dashboard and billing', () => {
  it('shows the owner what waits on them, linked to each envelope and its list', async () => {
    const { owner, waiting, draft, failed } = seeded;
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, owner.email, owner.password);
    await waitForLoaded(page);
    await eventually(() => page.getByTestId('dashboard-waiting').textContent()).toBe(
      '4 envelopes wait for you.',
    );

    const signature = page.getByRole('region', { name: 'Waiting for your signature' });
    expect(
      await signature.getByRole('link', { name: 'חוזה שכירות — דירה ברחוב הרצל' }).getAttribute('href'),
    ).toBe(`/app/documents/${waiting}`);
    expect(await signature.getByRole('link', { name: /^View all \(1\)/ }).getAttribute('href')).toBe(
      '/app/documents?tab=action_needed',
    );
    const drafts = page.getByRole('region', { name: 'Your drafts' });
    expect(await drafts.getByRole('link', { name: 'Quarterly NDA' }).getAttribute('href')).toBe(
      `/app/documents/${draft}`,
    );
    expect(await drafts.getByRole('link', { name: /^View all/ }).getAttribute('href')).toBe(
      `/app/documents?tab=drafts&sender=${owner.user.id}`,
    );
    const delivery = page.getByRole('region', { name: 'Delivery failed' });
    expect(
      await delivery.getByRole('link', { name: 'Supplier contract — Globex' }).getAttribute('href'),
    ).toBe(`/app/documents/${failed}`);
    expect(await page.getByRole('region', { name: 'Final PDF failed' }).textContent()).toContain(
      'No failed final PDFs.',
    );
    const expiring = page.getByRole('region', { name: 'Expiring within 3 days' });
    expect(await expiring.getByRole('link').first().getAttribute('href')).toBe(`/app/documents/${waiting}`);
    expect(await expiring.textContent()).not.toContain('Purchase order 7781');

    // This month's usage against the Starter plan: 21 of 25 envelopes warns.
    const envelopes = page.getByTestId('meter-dashboard-envelopes');
    expect(await envelopes.textContent()).toContain('21 of 25');
    expect(await envelopes.textContent()).toContain('80% or more of the limit is used.');
    expect(await page.getByRole('link', { name: 'Billing details' }).getAttribute('href')).toBe(
      '/app/billing',
    );

    // Recent activity, newest first.
    const activity = page.getByTestId('dashboard-activity').locator('li');
    await eventually(() => activity.count()).toBe(4);
    expect(await activity.first().textContent()).toContain('Purchase order 7781');
    expect(await activity.nth(1).textContent()).toContain('Supplier contract — Globex');

    // Sending starts here too.
    const send = page.getByRole('link', { name: 'Send a document' });
    expect(await send.getAttribute('href')).toBe('/app/send');

    await expectAccessible(page, 'dashboard (en, desktop)');
    await browser.screenshot(page, 'app-dashboard-en-desktop');

    // An item opens its envelope's page.
    await drafts.getByRole('link', { name: 'Quarterly NDA' }).click();
    await waitForPath(page, `/app/documents/${draft}`);
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Quarterly NDA');
  });

  it('shows the plan and the meters on the billing page, with the 80 % warning and the limit reached', async () => {
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, seeded.owner.email, seeded.owner.password);
    const nav = page.getByRole('navigation', { name: 'Business app' });
    await nav.getByRole('link', { name: 'Billing' }).click();
    await waitForPath(page, '/app/billing');
    await eventually(() => page.getByTestId('meter-envelopes').count()).toBe(1);
    await waitForLoaded(page);
    expect(await page.getByRole('heading', { level: 2, name: 'Starter plan' }).count()).toBe(1);
    expect(await page.getByTestId('plan-documents').textContent()).toBe('25');
    expect(await page.getByRole('link', { name: 'Compare plans' }).getAttribute('href')).toBe('/plans');

    const envelopes = page.getByRole('meter', { name: 'Envelopes sent this month' });
    expect(await envelopes.getAttribute('value')).toBe('21');
    expect(await envelopes.getAttribute('max')).toBe('25');
    expect(await envelopes.getAttribute('aria-valuetext')).toBe('21 of 25');
    const envelopeMeter = page.getByTestId('meter-envelopes');
    expect(await envelopeMeter.getAttribute('data-level')).toBe('warning');
    expect(await envelopeMeter.textContent()).toContain('80% or more of the limit is used. 4 left');

    expect(
      await page.getByRole('meter', { name: 'Users (active and invited)' }).getAttribute('aria-valuetext'),
    ).toBe('2 of 3');
    expect(await page.getByTestId('meter-users').getAttribute('data-level')).toBe('ok');
    const teams = page.getByTestId('meter-teams');
    expect(await teams.getAttribute('data-level')).toBe('reached');
    expect(await teams.textContent()).toContain('The limit is reached.');
    // No SMS credits on Starter: no meter, no alarm.
    const sms = page.getByTestId('meter-sms');
    expect(await sms.textContent()).toContain('Not included in the plan');
    expect(await sms.getByRole('meter').count()).toBe(0);
    expect(await page.getByText('Left this month: 4 envelopes, 0 SMS credits.').count()).toBe(1);

    await expectAccessible(page, 'billing (en, desktop)');
    await browser.screenshot(page, 'app-billing-en-desktop');
  });

  it('offers "Send a document" only to those who may send', async () => {
    const member = await signedInUser(harness, {
      role: 'member',
      organizationId: seeded.owner.organization.id,
      fullName: 'Mor Member',
    });
    for (const [user, links] of [
      [seeded.sender, 1],
      [member, 0],
    ] as const) {
      const page = await browser.newPage(DESKTOP);
      await signIn(page, baseUrl, user.email, user.password);
      await waitForLoaded(page);
      await eventually(() => page.getByTestId('overview-organization').count()).toBe(1);
      expect(await page.getByRole('link', { name: 'Send a document' }).count()).toBe(links);
      await page.close();
    }
    // The sender's action opens the send page.
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, seeded.sender.email, seeded.sender.password);
    await waitForLoaded(page);
    await page.getByRole('link', { name: 'Send a document' }).click();
    await waitForPath(page, '/app/send');
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Send a document');
  });

  it('shows a sender their own part: no usage, no Billing, and the billing page refused', async () => {
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, seeded.sender.email, seeded.sender.password);
    await waitForLoaded(page);
    await eventually(() => page.getByRole('region', { name: 'Your drafts' }).count()).toBe(1);
    expect(await page.getByTestId('meter-dashboard-envelopes').count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Waiting for your signature' }).textContent()).toContain(
      'Nothing waits for your signature.',
    );
    // The team's lease expires soon: the sender sees it; the owner's failure is not theirs.
    expect(await page.getByRole('region', { name: 'Expiring within 3 days' }).locator('li').count()).toBe(1);
    expect(await page.getByRole('region', { name: 'Delivery failed' }).textContent()).toContain(
      'No failed deliveries.',
    );
    const nav = page.getByRole('navigation', { name: 'Business app' });
    expect(await nav.getByRole('link', { name: 'Billing' }).count()).toBe(0);
    await expectAccessible(page, 'dashboard of a sender');
    await browser.screenshot(page, 'app-dashboard-sender-en-desktop');

    await page.goto(`${baseUrl}/app/billing`);
    await eventually(() => page.getByTestId('forbidden').textContent()).toContain('billing:read');
    await expectAccessible(page, 'billing refused');
  });

  it('is right to left in Hebrew and fits a 375-pixel phone in both languages', async () => {
    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const page = await signedInPage(browser, baseUrl, seeded.owner, viewport, language);
      await openDashboard(page);
      await eventually(() => page.getByTestId('dashboard-activity').locator('li').count()).toBe(4);
      expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
      if (language === 'he') {
        expect(await page.getByTestId('dashboard-waiting').textContent()).toBe('4 מעטפות ממתינות לכם.');
        expect(await page.getByTestId('meter-dashboard-envelopes').textContent()).toContain('21 מתוך 25');
      }
      expect(await pageWidth(page), `dashboard ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `dashboard (${language}, ${device})`);
      await browser.screenshot(page, `app-dashboard-${language}-${device}`);

      await openBilling(page);
      if (language === 'he') {
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('חיוב');
        expect(await page.getByTestId('meter-envelopes').textContent()).toContain(
          'נוצלו 80% או יותר מהמגבלה.',
        );
      }
      expect(await pageWidth(page), `billing ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `billing (${language}, ${device})`);
      await browser.screenshot(page, `app-billing-${language}-${device}`);
    }
  });
});
