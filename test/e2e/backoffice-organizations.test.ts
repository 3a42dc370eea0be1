// The backoffice's organization pages (/backoffice/organizations and an organization's page,
// docs/backoffice.md, "The backoffice pages") in a real browser against a real Sigil app. An administrator
// made as the operator CLI makes one signs in with the password and the code emailed to the development
// capture. Three organizations of this run (one with an OAuth client, a webhook endpoint and an SMS sent this
// month) are searched by a word only they have, and narrowed by plan, API flag and status — kept in the
// address — with this month's usage in each row. On an organization's page: its details and the plan's rates;
// the plan changed to Enterprise with agreed rates (a wrong one refused beside its field); the API flag
// turned off (the integrations say so); a suspension whose dialog says envelopes already sent go on, with its
// internal reason shown, then the reactivation; SMS credits added with a reason (a missing reason and amount
// refused first), the ledger with the grant and the balance — the same the billing summary gives; the
// integrations with the organization's OAuth client and endpoint, never a secret. Another organization is
// deleted after a confirmation naming the purge, and is then listed only under Deleted. Every change is in
// the backoffice audit log. A second test shows both pages in Hebrew (right to left) and on a 375-pixel
// phone. axe-core's WCAG 2.1 AA rules on every screen; screenshots go to test/artifacts/web/.
//
// The database is shared with files running at the same time: every organization here is this file's own (its
// name has this run's word), and nothing platform-wide is changed.
import { randomUUID } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { BackofficeAuditEvent } from '../../db/entities/index.ts';
import { createOAuthClient } from '../../services/oauth-clients/create-oauth-client.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { usageSummary } from '../../services/usage/usage-summary.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  useAppBrowser,
  waitForLoaded,
  waitForPath,
} from '../support/app-pages.ts';
import {
  backofficeNav,
  operatorMadeAdmin,
  plain,
  signedInBackofficePage,
  signInToBackoffice,
} from '../support/backoffice-pages.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

/** A word only this run's organizations have in their names, and this run's administrators' domain. */
const RUN = `bo${randomUUID().slice(0, 8)}`;
const DOMAIN = `orgs-${RUN}.example.test`;

interface Seeded {
  alpha: string;
  beta: string;
  gamma: string;
  clientId: string;
}

async function sql(statement: string, params: unknown[] = []): Promise<unknown[]> {
  return harness.ctx.orm.em.fork().execute(statement, params) as Promise<unknown[]>;
}

async function organization(name: string, plan: 'Starter' | 'Business' | 'Premium', apiEnabled: boolean) {
  const made = await createOrganization(
    { em: harness.ctx.orm.em.fork() },
    { name: `${RUN} ${name}`, plan, apiEnabled },
  );
  return made.id;
}

/** Three organizations: Alpha (Business, API on, an OAuth client, an endpoint, one SMS sent), Beta, Gamma. */
async function seed(): Promise<Seeded> {
  const alpha = await organization('Alpha Logistics', 'Business', true);
  const beta = await organization('Beta Studio', 'Starter', false);
  const gamma = await organization('Gamma Health', 'Premium', true);
  await sql(`update organization set status = 'suspended', suspended_at = now() where id = ?`, [gamma]);
  const client = await createOAuthClient(harness.ctx, {
    organizationId: alpha,
    name: 'ERP connector',
    scopes: ['envelopes.read', 'templates.read'],
  });
  await createWebhookEndpoint(harness.ctx, { organizationId: alpha, url: 'http://127.0.0.1:9/hooks' });
  await sql(
    `insert into notification (id, organization_id, kind, channel, to_address, language, provider, status,
                               attempts, last_attempt_at, sent_at)
     values (?, ?, 'invitation', 'Sms', '+972500000000', 'en', 'dev-capture', 'sent', 1, now(), now())`,
    [randomUUID(), alpha],
  );
  return { alpha, beta, gamma, clientId: client.clientId };
}

const rows = (page: Page) => page.locator('tr[data-organization]');
const row = (page: Page, name: string) => page.locator(`tr[data-organization="${RUN} ${name}"]`);

async function names(page: Page): Promise<string[]> {
  return (await rows(page).evaluateAll((found) => found.map((tr) => tr.getAttribute('data-organization'))))
    .map((name) => name ?? '')
    .sort();
}

/** The list shows exactly these of this run's organizations (by their names without the run's word). */
async function expectListed(page: Page, expected: string[]): Promise<void> {
  await eventually(() => names(page)).toEqual(expected.map((name) => `${RUN} ${name}`).sort());
}

/** An element's text as read: its white space collapsed, and without the isolates around names. */
async function said(locator: Locator): Promise<string> {
  return plain(await locator.textContent())
    .replace(/\s+/g, ' ')
    .trim();
}

/** A fact of the organization's page, as read. */
function fact(page: Page, testid: string): Promise<string> {
  return said(page.getByTestId(testid));
}

function figure(page: Page, name: string): Promise<string> {
  return said(page.getByTestId('credit-ledger').locator(`[data-figure="${name}"]`));
}

/** A screenshot of an open dialog: the page scrolled to its top first, where the full-page picture starts. */
async function dialogScreenshot(page: Page, name: string): Promise<void> {
  await page.evaluate('window.scrollTo(0, 0)');
  await browser.screenshot(page, name);
}

/** The backoffice audit log's actions on the organization: its changes, and with `looks` the staff's looks too. */
async function auditActions(targetId: string, looks = false): Promise<string[]> {
  const events = await harness.ctx.orm.em
    .fork()
    .find(BackofficeAuditEvent, { targetId }, { orderBy: { occurredAt: 'asc' } });
  return events.map((event) => event.action).filter((action) => looks || !action.endsWith('viewed'));
}

describe('the backoffice pages for organizations', () => {
  it('lists and filters organizations; changes plan, API flag and status; adds credits; deletes', async () => {
    const seeded = await seed();
    const admin = await operatorMadeAdmin(harness, DOMAIN, 'Dana Levi');
    const page = await browser.newPage(DESKTOP);
    await signInToBackoffice(page, baseUrl, admin, '/backoffice/organizations');

    // The navigation has the new areas.
    expect(await backofficeNav(page).getByRole('link').allTextContents()).toEqual([
      'Overview',
      'Organizations',
      'Plans',
      'Envelopes',
      'Providers',
      'Notification templates',
      'Secure signatures',
      'Administrators',
      'Security',
      'Audit log',
    ]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Organizations');

    // The search by this run's word: its three organizations, each with this month's usage.
    await page.getByLabel('Search organizations').fill(RUN);
    await expectListed(page, ['Alpha Logistics', 'Beta Studio', 'Gamma Health']);
    expect(await page.getByTestId('organizations-summary').textContent()).toContain('3 organizations');
    const alphaRow = row(page, 'Alpha Logistics');
    expect(await alphaRow.textContent()).toContain('Business');
    expect(await alphaRow.getByTestId('organization-api').textContent()).toContain('On');
    expect(await alphaRow.getByTestId('organization-standing').textContent()).toContain('Active');
    expect(await alphaRow.getByTestId('usage-envelopes').textContent()).toContain('0 of 1,000');
    const sms = await alphaRow.getByTestId('usage-sms').textContent();
    expect(sms).toContain('1 of 500');
    expect(sms).toContain('499 left');
    expect(await row(page, 'Gamma Health').getByTestId('organization-standing').textContent()).toContain(
      'Suspended',
    );
    expect(await row(page, 'Beta Studio').getByTestId('usage-envelopes').textContent()).toContain('0 of 25');

    // Filters: the plan, the API flag, the status; each kept in the address with the search.
    await page.getByLabel('Plan').selectOption('Starter');
    await expectListed(page, ['Beta Studio']);
    await eventually(async () => new URL(page.url()).searchParams.get('plan')).toBe('Starter');
    expect(new URL(page.url()).searchParams.get('search')).toBe(RUN);
    await page.getByLabel('Plan').selectOption('');
    await page.getByLabel('API integrations').selectOption('true');
    await expectListed(page, ['Alpha Logistics', 'Gamma Health']);
    await page.getByLabel('Status').selectOption('suspended');
    await expectListed(page, ['Gamma Health']);
    await page.getByLabel('API integrations').selectOption('false');
    await eventually(() => page.getByTestId('organizations-summary').textContent()).toContain(
      'No organization matches the search and filters.',
    );
    expect(await rows(page).count()).toBe(0);
    // An exact id finds its organization.
    await page.getByRole('button', { name: 'Clear the search and filters' }).click();
    await eventually(() => page.getByLabel('Search organizations').inputValue()).toBe('');
    await page.getByLabel('Search organizations').fill(seeded.gamma);
    await expectListed(page, ['Gamma Health']);

    // The address restores the search and filters.
    await page.goto(`${baseUrl}/backoffice/organizations?search=${RUN}&api=true`);
    await waitForLoaded(page);
    await expectListed(page, ['Alpha Logistics', 'Gamma Health']);
    expect(await page.getByLabel('API integrations').inputValue()).toBe('true');
    expect(await page.getByLabel('Search organizations').inputValue()).toBe(RUN);
    await expectAccessible(page, 'organizations list');
    await browser.screenshot(page, 'backoffice-organizations-en-desktop');

    // The organization's page.
    await row(page, 'Alpha Logistics')
      .getByRole('link', { name: `${RUN} Alpha Logistics` })
      .click();
    await waitForPath(page, `/backoffice/organizations/${seeded.alpha}`);
    await waitForLoaded(page);
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(
      `${RUN} Alpha Logistics`,
    );
    expect(
      await backofficeNav(page).getByRole('link', { name: 'Organizations' }).getAttribute('aria-current'),
    ).toBe('true');
    expect(await fact(page, 'organization-status')).toContain('Active');
    expect(await fact(page, 'organization-id')).toBe(seeded.alpha);
    expect(await fact(page, 'plan-name')).toBe('Business');
    expect(await fact(page, 'api-flag')).toContain('On');
    expect(await fact(page, 'rate-requests')).toBe("180 (the plan's)");
    expect(await fact(page, 'rate-uploads')).toBe("30 (the plan's)");
    expect(await page.getByTestId('meter-usage-sms').textContent()).toContain('1 of 500');

    // Integrations, read-only: the organization's client and endpoint, never a secret.
    const client = page.getByTestId('integration-clients').locator('tr[data-client="ERP connector"]');
    expect(await client.getByTestId('client-id').textContent()).toBe(seeded.clientId);
    expect(await client.textContent()).toContain('envelopes.read');
    expect(await client.textContent()).toMatch(/…[A-Za-z0-9_-]{4}/);
    expect(
      await page
        .getByTestId('integration-endpoints')
        .locator('tr[data-endpoint="http://127.0.0.1:9/hooks"]')
        .count(),
    ).toBe(1);
    expect(await fact(page, 'api-access')).toContain('Available');
    expect(await page.getByTestId('integration-diagnostics').locator('tbody tr').count()).toBe(2);
    expect(await page.getByRole('button', { name: /Rotate|Delete secret/ }).count()).toBe(0);

    // Credits before any grant: the plan's 500, one SMS sent.
    expect(await figure(page, 'allowance')).toBe('500');
    expect(await figure(page, 'granted')).toBe('0');
    expect(await figure(page, 'used')).toBe('1');
    expect(await figure(page, 'balance')).toBe('499');
    expect(await figure(page, 'remaining')).toBe('499');
    expect(await page.getByTestId('credit-uses').textContent()).toContain('1 by SMS, 0 by WhatsApp');
    expect(await page.getByTestId('grants-empty').count()).toBe(1);
    await expectAccessible(page, 'organization');

    // The plan: Enterprise, whose rates are agreed per organization; a wrong rate is refused beside its
    // field.
    const settings = page.getByRole('dialog', { name: /^Plan and API access of/ });
    await page.getByRole('button', { name: 'Change plan and access' }).click();
    expect(await settings.getByLabel('Plan').inputValue()).toBe('Business');
    expect(await settings.getByLabel('API requests per minute').count()).toBe(0);
    await settings.getByLabel('Plan').selectOption('Enterprise');
    await settings.getByLabel('API requests per minute').fill('1200');
    await settings.getByLabel('API uploads per minute').fill('lots');
    await settings.getByRole('button', { name: 'Save' }).click();
    await eventually(() => settings.locator('#settings-uploadRatePerMinute-error').textContent()).toBe(
      'Enter a whole number from 1 to 1,000,000.',
    );
    expect(await settings.getByLabel('API uploads per minute').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'plan dialog refused');
    await dialogScreenshot(page, 'backoffice-organization-plan-en-desktop');
    await settings.getByLabel('API uploads per minute').fill('150');
    await settings.getByRole('button', { name: 'Save' }).click();
    await eventually(() => said(page.locator('.app-success'))).toBe(`${RUN} Alpha Logistics was changed.`);
    expect(await settings.isVisible()).toBe(false);
    expect(await fact(page, 'plan-name')).toBe('Enterprise');
    expect(await fact(page, 'rate-requests')).toBe('1,200 (agreed)');
    expect(await fact(page, 'rate-uploads')).toBe('150 (agreed)');
    expect(await figure(page, 'allowance')).toBe('5,000');

    // The API flag off: the integrations say why the API is not available.
    await page.getByRole('button', { name: 'Change plan and access' }).click();
    expect(await settings.getByLabel('API requests per minute').inputValue()).toBe('1200');
    await settings.getByLabel('Allow API integrations').uncheck();
    await settings.getByRole('button', { name: 'Save' }).click();
    await eventually(() => fact(page, 'api-flag')).toContain('Off');
    expect(await fact(page, 'api-access')).toContain(
      "The Enterprise plan includes it, but the organization's API integrations are off.",
    );
    // Nothing changed: said in the dialog, nothing sent.
    await page.getByRole('button', { name: 'Change plan and access' }).click();
    await settings.getByRole('button', { name: 'Save' }).click();
    await eventually(() => settings.locator('#settings-error').textContent()).toBe(
      'Nothing was changed: change a setting, or cancel.',
    );
    await settings.getByRole('button', { name: 'Cancel' }).click();

    // Suspension: the dialog says envelopes already sent go on; the reason is kept; then reactivation.
    await page.getByRole('button', { name: 'Suspend' }).click();
    const suspend = page.getByRole('dialog', { name: /^Suspend .*Alpha Logistics/ });
    expect(await suspend.getByTestId('suspend-running').textContent()).toContain(
      'Envelopes already sent go on: their signers can still open and sign them',
    );
    await suspend.getByLabel('Internal reason (optional)').fill('Unpaid invoices (ticket 4411)');
    await expectAccessible(page, 'suspend dialog');
    await dialogScreenshot(page, 'backoffice-organization-suspend-en-desktop');
    await suspend.getByRole('button', { name: 'Suspend' }).click();
    await eventually(() => fact(page, 'organization-status')).toContain('Suspended');
    expect(await fact(page, 'suspended-reason')).toBe('Unpaid invoices (ticket 4411)');
    expect(await page.getByTestId('suspended-note').textContent()).toContain('envelopes already sent go on');
    expect(await said(page.locator('.app-success'))).toBe(`${RUN} Alpha Logistics is suspended.`);
    await page.getByRole('button', { name: 'Reactivate' }).click();
    const reactivate = page.getByRole('dialog', { name: /^Reactivate .*Alpha Logistics/ });
    await reactivate.getByRole('button', { name: 'Reactivate' }).click();
    await eventually(() => fact(page, 'organization-status')).toContain('Active');
    expect(await page.getByTestId('suspended-note').count()).toBe(0);

    // SMS credits: the amount and the reason are needed; then the grant, the ledger and the balance.
    await page.getByRole('button', { name: 'Add SMS credits' }).click();
    const add = page.getByRole('dialog', { name: /^Add SMS credits to .*Alpha Logistics/ });
    await add.getByLabel('Credits').fill('0');
    await add.getByRole('button', { name: 'Add credits' }).click();
    await eventually(() => add.locator('#credits-amount-error').textContent()).toBe(
      'Enter a whole number from 1 to 1,000,000.',
    );
    expect(await add.locator('#credits-reason-error').textContent()).toBe('Enter the reason.');
    await add.getByLabel('Credits').fill('250');
    await add.getByLabel('Reason').fill('Goodwill after the outage of the 3rd');
    await add.getByRole('button', { name: 'Add credits' }).click();
    await eventually(() => said(page.locator('.app-success'))).toBe(
      `250 SMS credits were given to ${RUN} Alpha Logistics. Remaining this month: 5,249.`,
    );
    expect(await figure(page, 'allowance')).toBe('5,000');
    expect(await figure(page, 'granted')).toBe('250');
    expect(await figure(page, 'used')).toBe('1');
    expect(await figure(page, 'balance')).toBe('5,249');
    expect(await figure(page, 'remaining')).toBe('5,249');
    const grant = page.getByTestId('credit-grants').locator('tbody tr');
    expect(await grant.count()).toBe(1);
    expect(await grant.textContent()).toContain('+250');
    expect(await grant.textContent()).toContain('Goodwill after the outage of the 3rd');
    expect((await grant.textContent())?.replace(/\s/g, '')).toContain(admin.email);
    // The same figure as the organization's own billing summary.
    expect((await usageSummary(harness.ctx, seeded.alpha)).remainingSmsCredits).toBe(5249);
    await expectAccessible(page, 'organization after changes');
    await browser.screenshot(page, 'backoffice-organization-en-desktop');

    // Deleting another organization: the confirmation says when its data is purged; then it is only under
    // Deleted.
    await page.getByRole('link', { name: 'All organizations' }).click();
    await waitForPath(page, '/backoffice/organizations');
    await waitForLoaded(page);
    await page.getByLabel('Search organizations').fill(RUN);
    await expectListed(page, ['Alpha Logistics', 'Beta Studio', 'Gamma Health']);
    await row(page, 'Beta Studio').getByRole('link').click();
    await waitForPath(page, `/backoffice/organizations/${seeded.beta}`);
    await waitForLoaded(page);
    // Starter has no API: the flag cannot be turned on.
    await page.getByRole('button', { name: 'Change plan and access' }).click();
    expect(await settings.getByLabel('Allow API integrations').isDisabled()).toBe(true);
    expect(await settings.locator('#settings-apiEnabled-hint').textContent()).toContain(
      'The Starter plan does not include the API',
    );
    await settings.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    const remove = page.getByRole('dialog', { name: /^Delete .*Beta Studio/ });
    expect(await remove.getByTestId('delete-purge').textContent()).toContain(
      'Its data is purged 30 days after the deletion',
    );
    await expectAccessible(page, 'delete dialog');
    await dialogScreenshot(page, 'backoffice-organization-delete-en-desktop');
    await remove.getByRole('button', { name: 'Delete' }).click();
    await eventually(() => fact(page, 'organization-status')).toContain('Deleted');
    expect(await page.getByTestId('deleted-note').textContent()).toContain('Its data is purged after');
    expect(await page.getByRole('button', { name: 'Change plan and access' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Add SMS credits' }).count()).toBe(0);
    await page.goto(`${baseUrl}/backoffice/organizations?search=${RUN}`);
    await waitForLoaded(page);
    await expectListed(page, ['Alpha Logistics', 'Gamma Health']);
    await page.getByLabel('Status').selectOption('deleted');
    await expectListed(page, ['Beta Studio']);
    expect(await row(page, 'Beta Studio').getByTestId('organization-standing').textContent()).toContain(
      'Deleted',
    );

    // Every change is in the backoffice audit log, in order, between the looks at the organization's page and its
    // integrations (each load of the page records both: staff access, docs/backoffice.md).
    expect(await auditActions(seeded.alpha, true)).toEqual(
      expect.arrayContaining(['organization.viewed', 'organization.integrations_viewed']),
    );
    expect(await auditActions(seeded.alpha)).toEqual([
      'organization.updated',
      'organization.updated',
      'organization.updated',
      'organization.updated',
      'organization.credits_granted',
    ]);
    expect(await auditActions(seeded.beta)).toEqual(['organization.deleted']);

    // An organization that does not exist: not found, inside the backoffice's shell (its navigation stays).
    await page.goto(`${baseUrl}/backoffice/organizations/${randomUUID()}`);
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    expect(await page.getByText('There is nothing at this address.').count()).toBe(1);

    // The overview lists the new areas.
    await backofficeNav(page).getByRole('link', { name: 'Overview' }).click();
    await waitForPath(page, '/backoffice');
    await eventually(() => page.getByTestId('backoffice-areas').getByRole('link').allTextContents()).toEqual([
      'Organizations',
      'Providers',
      'Notification templates',
      'Secure signatures',
      'Administrators',
      'Security',
      'Audit log',
    ]);
  });

  it('is right to left in Hebrew and fits a 375-pixel phone', async () => {
    const id = await organization('Delta Trading', 'Business', true);
    await createOAuthClient(harness.ctx, {
      organizationId: id,
      name: 'Warehouse sync',
      scopes: ['envelopes.read'],
    });
    const pages: [string, string, string][] = [
      [`/backoffice/organizations?search=${RUN}`, 'organizations', 'ארגונים'],
      [`/backoffice/organizations/${id}`, 'organization', `${RUN} Delta Trading`],
    ];
    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const page = await signedInBackofficePage(browser, harness, baseUrl, viewport, DOMAIN);
      for (const [path, name, hebrewTitle] of pages) {
        await page.goto(`${baseUrl}${path}${path.includes('?') ? '&' : '?'}lang=${language}`);
        await waitForPath(page, path.split('?')[0] ?? path);
        await waitForLoaded(page);
        await eventually(() => page.getByRole('heading', { level: 1 }).count()).toBe(1);
        expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
        if (language === 'he') {
          await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(hebrewTitle);
        }
        if (name === 'organizations') await eventually(() => rows(page).count()).toBeGreaterThan(0);
        expect(await pageWidth(page), `${name} ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
        await expectAccessible(page, `${name} (${language}, ${device})`);
        await browser.screenshot(page, `backoffice-${name}-${language}-${device}`);
      }
      // The organization's dialogs fit too: the plan (with Enterprise's rates) and the credits.
      await page
        .getByRole('button', { name: language === 'he' ? 'שינוי תוכנית וגישה' : 'Change plan and access' })
        .click();
      await page.locator('#settings-plan').selectOption('Enterprise');
      await eventually(() => page.locator('#settings-ratePerMinute').count()).toBe(1);
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `plan dialog (${language}, ${device})`);
      await dialogScreenshot(page, `backoffice-organization-plan-${language}-${device}`);
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: language === 'he' ? 'השעיה' : 'Suspend' }).click();
      await eventually(() => page.locator('#suspend-suspendedReason').isVisible()).toBe(true);
      await expectAccessible(page, `suspend dialog (${language}, ${device})`);
      await dialogScreenshot(page, `backoffice-organization-suspend-${language}-${device}`);
      await page.keyboard.press('Escape');
    }
  }, 360_000);
});
