// The backoffice pages for helping a customer (docs/backoffice.md, "Users of an organization", "New
// organization", "Plans") in a real browser against a real Sigil app. An administrator creates an organization
// (refusals beside the fields first), opens its users, resends the owner's invitation and unlocks a locked
// member's sign-in — each with a reason, an empty one refused beside the field; a lock that ended meanwhile is
// the 409's words in the dialog — and changes a plan: a lowered
// limit names the organization over it and is applied on "Confirm and apply"; a change made meanwhile by
// someone else is said and the plans are read again. Support sees the safe actions only. The pages in Hebrew
// (right to left) and on a 375-pixel phone; axe-core's WCAG 2.1 AA rules on every screen; screenshots go to
// test/artifacts/web/.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { AppUser, BackofficeAuditEvent, Organization } from '../../db/entities/index.ts';
import type { ApiHarness } from '../support/api.ts';
import {
  eventually,
  expectAccessible,
  useAppBrowser,
  waitForLoaded,
  waitForPath,
} from '../support/app-pages.ts';
import { callAs } from '../support/app-requests.ts';
import { signedInAdmin } from '../support/backoffice.ts';
import { plain, signedInBackofficePage } from '../support/backoffice-pages.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

const RUN = randomUUID().slice(0, 8);
const DOMAIN = `support-${RUN}.example.test`;
const em = () => harness.ctx.orm.em.fork();
const sql = (statement: string, params: unknown[] = []) => em().execute(statement, params);

/** A plan of its own with one organization on it using 3 of its 10 users. */
async function planWithOrganization() {
  const plan = `Test ${randomUUID().slice(0, 8)}`;
  await sql(
    `insert into plan (name, api_access, webhook_access, monthly_document_limit, user_limit, team_limit,
                       sms_credits_included, rate_limit_per_minute, upload_rate_limit_per_minute, support_level, sort_order)
     values (?, false, false, 100, 10, 5, 0, null, null, 'Standard', 95)`,
    [plan],
  );
  const owner = await signedInUser(harness, { role: 'owner' });
  await sql('update organization set plan_name = ?, name = ? where id = ?', [
    plan,
    `Over Limit ${RUN}`,
    owner.organization.id,
  ]);
  for (let n = 0; n < 2; n += 1) {
    await signedInUser(harness, { role: 'sender', organizationId: owner.organization.id });
  }
  return { plan, organizationId: owner.organization.id };
}

/** A member of the organization whose sign-in is locked after failed attempts. */
async function lockedMember(organizationId: string) {
  const member = await signedInUser(harness, {
    role: 'sender',
    organizationId,
    fullName: 'Noa Locked',
    email: `noa-${randomUUID().slice(0, 8)}@example.com`,
  });
  await sql(
    `insert into login_throttle (key, failures, first_failure_at, last_failure_at, locked_until)
     values (?, 10, now(), now(), now() + interval '15 minutes')`,
    [`account:${member.email}`],
  );
  return member;
}

const dialog = (page: Page) => page.getByRole('dialog');

/** Opens a user's action, checks an empty reason is refused beside the field, then sends `reason`. */
async function actWithReason(page: Page, email: string, action: string, button: string, reason: string) {
  await page.locator(`[data-user="${email}"] [data-action="${action}"]`).click();
  await eventually(() => page.locator('#user-action-reason').isVisible()).toBe(true);
  await dialog(page).getByRole('button', { name: button }).click();
  await eventually(() => page.locator('#user-action-reason-error').isVisible()).toBe(true);
  await page.locator('#user-action-reason').fill(reason);
  await dialog(page).getByRole('button', { name: button }).click();
  await eventually(() => dialog(page).count()).toBe(0);
}

describe('the backoffice pages for supporting a customer', () => {
  it('creates an organization, resends its owner’s invitation and unlocks a member, each with a reason', async () => {
    const page = await signedInBackofficePage(browser, harness, baseUrl, DESKTOP, DOMAIN);
    await page.goto(`${baseUrl}/backoffice/organizations`);
    await waitForLoaded(page);
    await page.getByTestId('new-organization').click();
    await waitForPath(page, '/backoffice/organizations/new');
    await waitForLoaded(page);
    await expectAccessible(page, 'new organization (en, desktop)');

    // Refusals beside the fields: the plan (the page's own check), then the server's name and address.
    const submit = page.getByRole('button', { name: 'Create organization and invite owner' });
    await submit.click();
    await eventually(() => page.locator('[id="new-organization-plan-error"]').textContent()).toBe(
      "Choose the organization's plan.",
    );
    await page.getByLabel('Plan', { exact: true }).selectOption('Business');
    await page.getByLabel('Email address').fill('not an address');
    await submit.click();
    await eventually(() => page.locator('[id="new-organization-name-error"]').isVisible()).toBe(true);
    expect(await page.locator('[id="new-organization-owner.email-error"]').isVisible()).toBe(true);
    await expectAccessible(page, 'new organization refused (en, desktop)');
    await browser.screenshot(page, 'backoffice-new-organization-refused-en-desktop');

    const name = `Acme Legal ${RUN}`;
    const ownerEmail = `owner-${RUN}@example.com`;
    await page.getByLabel('Organization name').fill(name);
    await page.getByLabel('Full name').fill('Dana Owner');
    await page.getByLabel('Email address').fill(ownerEmail);
    await submit.click();
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(name);
    const organization = await em().findOneOrFail(Organization, { name });
    expect(organization.planName).toBe('Business');
    expect(new URL(page.url()).pathname).toBe(`/backoffice/organizations/${organization.id}`);

    // Its users: the owner, invited; the invitation resent with a reason.
    await page.getByTestId('organization-users-link').click();
    await waitForPath(page, `/backoffice/organizations/${organization.id}/users`);
    await waitForLoaded(page);
    const ownerRow = page.locator(`[data-user="${ownerEmail}"]`);
    await eventually(() => ownerRow.getByTestId('user-status').textContent()).toContain('Invited');
    expect(
      await ownerRow.locator('[data-action]').evaluateAll((buttons) => buttons.map((b) => b.dataset.action)),
    ).toEqual(['resend-invitation']);
    await expectAccessible(page, 'users (en, desktop)');
    await browser.screenshot(page, 'backoffice-users-en-desktop');
    await page.locator(`[data-user="${ownerEmail}"] [data-action="resend-invitation"]`).click();
    await eventually(() => page.locator('#user-action-reason').isVisible()).toBe(true);
    await dialog(page).getByRole('button', { name: 'Resend invitation' }).click();
    await eventually(() => page.locator('#user-action-reason-error').isVisible()).toBe(true);
    await expectAccessible(page, 'user action refused (en, desktop)');
    await browser.screenshot(page, 'backoffice-user-action-en-desktop');
    await page.locator('#user-action-reason').fill('Ticket 7781: the invitation went to spam');
    await dialog(page).getByRole('button', { name: 'Resend invitation' }).click();
    await eventually(async () => plain(await page.getByRole('status').first().textContent())).toContain(
      'A new invitation was sent to Dana Owner.',
    );
    const owner = await em().findOneOrFail(AppUser, { email: ownerEmail });
    const resent = await em().find(BackofficeAuditEvent, {
      action: 'user.invitation_resent',
      targetId: owner.id,
    });
    expect(resent.map((event) => event.details.reason)).toEqual(['Ticket 7781: the invitation went to spam']);

    // A locked member, found by the search kept in the address, unlocked with a reason.
    const member = await lockedMember(organization.id);
    await page.getByLabel('Search users').fill('noa-');
    await waitForPath(page, `/backoffice/organizations/${organization.id}/users`);
    await eventually(async () => new URL(page.url()).searchParams.get('search')).toBe('noa-');
    const memberRow = page.locator(`[data-user="${member.email}"]`);
    await eventually(() => memberRow.getByTestId('user-locked').count()).toBe(1);
    expect(await page.locator('[data-user]').count()).toBe(1);
    await actWithReason(
      page,
      member.email,
      'unlock',
      'Unlock sign-in',
      'Ticket 7782: locked out, identity checked',
    );
    await eventually(() => memberRow.getByTestId('user-locked').count()).toBe(0);
    const unlocked = await em().find(BackofficeAuditEvent, {
      action: 'user.unlocked',
      targetId: member.user.id,
    });
    expect(unlocked.map((event) => event.details.reason)).toEqual([
      'Ticket 7782: locked out, identity checked',
    ]);
    const throttled = await sql(
      'select locked_until from login_throttle where key = ? and locked_until > now()',
      [`account:${member.email}`],
    );
    expect(throttled).toHaveLength(0);
    // A 409 in the page's words: the lock ended (another member of staff) while the dialog was open.
    const second = await lockedMember(organization.id);
    await page.reload();
    await waitForLoaded(page);
    await page.locator(`[data-user="${second.email}"] [data-action="unlock"]`).click();
    await eventually(() => page.locator('#user-action-reason').isVisible()).toBe(true);
    await sql('delete from login_throttle where key = ?', [`account:${second.email}`]);
    await page.locator('#user-action-reason').fill('Ticket 7783: locked out');
    await dialog(page).getByRole('button', { name: 'Unlock sign-in' }).click();
    await eventually(async () => plain(await dialog(page).textContent())).toContain(
      "This user's sign-in is not locked (any more).",
    );
  }, 240_000);

  it('changes a plan: the organizations over a lowered limit listed and confirmed; a change made meanwhile said', async () => {
    const { plan, organizationId } = await planWithOrganization();
    const page = await signedInBackofficePage(browser, harness, baseUrl, DESKTOP, DOMAIN);
    await page.goto(`${baseUrl}/backoffice/plans`);
    await waitForLoaded(page);
    const section = page.getByTestId(`plan-${plan}`);
    await eventually(() => section.count()).toBe(1);
    expect(await page.getByTestId(`plan-history-${plan}`).textContent()).toContain('Not changed');

    await section.getByRole('button', { name: `Change the ${plan} plan` }).click();
    await eventually(() => page.locator('#plan-userLimit').isVisible()).toBe(true);
    await page.locator('#plan-userLimit').fill('2');
    await page.locator('#plan-reason').fill('Ticket 9001: the plan gets smaller');
    await dialog(page).getByRole('button', { name: 'Save the plan' }).click();
    const over = page.getByTestId('plan-over-limit');
    await eventually(() => over.count()).toBe(1);
    expect(plain(await over.textContent()).replace(/\s+/g, ' ')).toContain(
      `Over Limit ${RUN}: Users: 3 used, new limit 2`,
    );
    await expectAccessible(page, 'plan over limit (en, desktop)');
    await page.evaluate('window.scrollTo(0, 0)');
    await browser.screenshot(page, 'backoffice-plan-over-limit-en-desktop');
    await dialog(page).getByRole('button', { name: 'Confirm and apply' }).click();
    await eventually(() => dialog(page).count()).toBe(0);
    await eventually(async () => plain(await page.getByRole('status').first().textContent())).toContain(
      `The ${plan} plan was changed.`,
    );
    const history = page.getByTestId(`plan-history-${plan}`);
    await eventually(async () => plain(await history.textContent())).toContain('Users: 10 → 2');
    expect(await history.textContent()).toContain('Ticket 9001: the plan gets smaller');
    const [event] = await em().find(
      BackofficeAuditEvent,
      { action: 'plan.updated' },
      { orderBy: { occurredAt: 'desc' } },
    );
    expect(event?.details.confirmedOrganizations).toEqual([organizationId]);

    // Someone else changes the plan while the dialog is open: the change is refused, said, and the plans read again.
    await section.getByRole('button', { name: `Change the ${plan} plan` }).click();
    await eventually(() => page.locator('#plan-teamLimit').isVisible()).toBe(true);
    const other = await signedInAdmin(harness, 'other');
    await callAs(harness.app, other, 'PUT', `/api/backoffice/plans/${encodeURIComponent(plan)}`, {
      version: 2,
      smsCreditsIncluded: 40,
      reason: 'Ticket 9002: credits',
    });
    await page.locator('#plan-teamLimit').fill('4');
    await dialog(page).getByRole('button', { name: 'Save the plan' }).click();
    await eventually(() => dialog(page).count()).toBe(0);
    expect(plain(await page.locator('.app-alert').first().textContent())).toContain(
      `Someone else changed the ${plan} plan while you were editing it.`,
    );
    await eventually(async () => plain(await history.textContent())).toContain(
      'SMS credits per month: 0 → 40',
    );
    const rows = (await sql('select team_limit, version from plan where name = ?', [plan])) as {
      team_limit: number;
      version: number;
    }[];
    expect(rows).toEqual([{ team_limit: 5, version: 3 }]);
    await expectAccessible(page, 'plans (en, desktop)');
    await browser.screenshot(page, 'backoffice-plans-en-desktop');
  }, 240_000);

  it('shows support the safe actions only: no deactivation, no new organization, no plan changes', async () => {
    const member = await signedInUser(harness, { role: 'owner' });
    await sql('update app_user set email_verified_at = null where id = ?', [member.user.id]);
    const page = await signedInBackofficePage(browser, harness, baseUrl, DESKTOP, DOMAIN, 'support');
    await page.goto(`${baseUrl}/backoffice/organizations/${member.organization.id}/users`);
    await waitForLoaded(page);
    const row = page.locator(`[data-user="${member.email}"]`);
    await eventually(() => row.count()).toBe(1);
    expect(await row.locator('[data-action="deactivate"]').count()).toBe(0);
    expect(await row.locator('[data-action="resend-verification"]').count()).toBe(1);
    await page.goto(`${baseUrl}/backoffice/plans`);
    await waitForLoaded(page);
    await eventually(() => page.locator('[data-testid^="plan-facts-"]').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-edit-plan]').count()).toBe(0);
    await page.goto(`${baseUrl}/backoffice/organizations`);
    await waitForLoaded(page);
    await eventually(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Organizations');
    expect(await page.getByTestId('new-organization').count()).toBe(0);
    // The navigation offers support only the areas its role may read: no providers, templates, administrators,
    // security or audit log.
    const areas = await page
      .locator('#backoffice-nav a')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(areas).toEqual([
      '/backoffice',
      '/backoffice/organizations',
      '/backoffice/plans',
      '/backoffice/envelopes',
      '/backoffice/secure-signatures',
    ]);

    // An administrator sees deactivation on the same user.
    const admin = await signedInBackofficePage(browser, harness, baseUrl, DESKTOP, DOMAIN);
    await admin.goto(`${baseUrl}/backoffice/organizations/${member.organization.id}/users`);
    await waitForLoaded(admin);
    await eventually(() =>
      admin.locator(`[data-user="${member.email}"] [data-action="deactivate"]`).count(),
    ).toBe(1);
  }, 120_000);

  it('is right to left in Hebrew and fits a 375-pixel phone', async () => {
    const { plan, organizationId } = await planWithOrganization();
    await lockedMember(organizationId);
    for (const [language, viewport, device] of [
      ['he', DESKTOP, 'desktop'],
      ['en', PHONE, 'phone'],
      ['he', PHONE, 'phone'],
    ] as const) {
      const page = await signedInBackofficePage(browser, harness, baseUrl, viewport, DOMAIN);
      for (const [path, name] of [
        ['/backoffice/organizations/new', 'new-organization'],
        [`/backoffice/organizations/${organizationId}/users`, 'users'],
        ['/backoffice/plans', 'plans'],
      ] as const) {
        await page.goto(`${baseUrl}${path}?lang=${language}`);
        await waitForPath(page, path);
        await waitForLoaded(page);
        await eventually(() => page.getByRole('heading', { level: 1 }).count()).toBe(1);
        expect(await page.locator('html').getAttribute('dir')).toBe(language === 'he' ? 'rtl' : 'ltr');
        expect(await pageWidth(page), `${name} ${language} ${device}`).toBeLessThanOrEqual(viewport.width);
        await expectAccessible(page, `${name} (${language}, ${device})`);
        await browser.screenshot(page, `backoffice-${name}-${language}-${device}`);
        if (name === 'users') {
          await page.locator('[data-action="unlock"]').first().click();
          await eventually(() => page.locator('#user-action-reason').isVisible()).toBe(true);
          expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
          await expectAccessible(page, `user action (${language}, ${device})`);
          await browser.screenshot(page, `backoffice-user-action-${language}-${device}`);
          await page.keyboard.press('Escape');
        }
        if (name === 'plans') {
          await page.locator(`[data-edit-plan="${plan}"]`).click();
          await eventually(() => page.locator('#plan-userLimit').isVisible()).toBe(true);
          expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
          await expectAccessible(page, `plan dialog (${language}, ${device})`);
          await browser.screenshot(page, `backoffice-plan-dialog-${language}-${device}`);
          await page.keyboard.press('Escape');
        }
      }
    }
  }, 360_000);
});
