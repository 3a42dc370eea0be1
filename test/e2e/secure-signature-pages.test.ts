// The secure-signature pages (docs/sealing.md) in a real browser against a real Sigil app, whose test
// configuration has the development CA and no timestamp authority. In the business app, an organization's
// owner finds the policy in the organization settings: every level offered with what it adds, no timestamp at
// B-B; chooses B-T with a timestamp required and is told the platform cannot meet it (no timestamp authority
// answers), which the send page says too, before sending; the change is in the security log. When the
// platform restricts the levels while the page is open, the owner's choice of a level no longer allowed is
// refused beside the level. A role that may only read the settings sees the policy read-only. In the
// backoffice, an administrator finds "Secure signatures" in the navigation: the platform's readiness (the
// development CA's certificate and its chain, the timestamp authority's check failed as not configured, B-B
// the highest level), checked again on request; on an organization's page, a bound refused beside its field,
// then the allowed levels restricted and the audit trail's seal made mandatory — the owner's page then offers
// only those levels, the seal locked on — and a mandatory timestamp, which moves the policy off B-B and makes
// the organization's readiness fail; every change is in the backoffice audit log in words. In English and in
// Hebrew (right to left), on a desktop and on a 375-pixel phone; axe-core's WCAG 2.1 AA rules on every
// screen. Screenshots go to /tmp/shots-sealing/ (and test/artifacts/web/).
//
// The database is shared with files running at the same time: every organization here is this file's own,
// and nothing platform-wide is changed.
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SecureSignaturePolicy } from '../../domain/secure-signature.ts';
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
import { signedInAdmin } from '../support/backoffice.ts';
import { backofficeNav, plain, signedInBackofficePage } from '../support/backoffice-pages.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { signedInUser } from '../support/signed-in-user.ts';

const SHOTS = '/tmp/shots-sealing';
const RUN = `ss${randomUUID().slice(0, 8)}`;
const DOMAIN = `sealing-${RUN}.example.test`;
const OWN_POLICY = '/api/organization/secure-signature-policy';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
});

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  await browser.screenshot(page, name);
}

/** A picture of one part of the page (the settings page is long). */
async function partShot(locator: Locator, name: string): Promise<void> {
  await locator.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** An element's text as read: white space collapsed, without the isolates around names. */
async function said(locator: Locator): Promise<string> {
  return plain(await locator.textContent())
    .replace(/\s+/g, ' ')
    .trim();
}

/** The levels a policy form offers (its radio buttons' values), in order. */
function offeredLevels(form: Locator): Promise<string[]> {
  return form.locator('input[type="radio"]').evaluateAll((inputs) => inputs.map((input) => input.value));
}

async function chosenLevel(form: Locator): Promise<string> {
  return form.locator('input[type="radio"]:checked').inputValue();
}

/** The organization settings page, its secure-signature form loaded. */
async function openSettings(page: Page): Promise<Locator> {
  await page.goto(`${baseUrl}/app/admin/settings`);
  const form = page.getByTestId('policy-form');
  await eventually(() => form.count()).toBe(1);
  await waitForLoaded(page);
  return form;
}

/** A backoffice PUT as an administrator (a change made elsewhere while a page is open). */
async function asOperator(organizationId: string, change: unknown): Promise<LightMyRequestResponse> {
  const admin = await signedInAdmin(harness, 'sealing');
  return harness.app.inject({
    method: 'PUT',
    url: `/api/backoffice/organizations/${organizationId}/secure-signature-policy`,
    headers: admin.headers,
    payload: change as object,
  }) as unknown as Promise<LightMyRequestResponse>;
}

describe('the secure-signature pages', () => {
  it('lets an owner choose the policy, warns that it cannot be met there and on the send page, and shows a refusal beside the level', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Noa Owner' });
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, owner.email, owner.password);
    const form = await openSettings(page);
    const section = page.locator('#secure-signatures');
    expect(await section.getByRole('heading', { level: 2 }).textContent()).toBe('Secure signatures');
    // The defaults: B-B, every level offered with what it adds, no timestamp at B-B, the audit trail sealed.
    expect(await offeredLevels(form)).toEqual(['B-B', 'B-T', 'B-LT', 'B-LTA']);
    expect(await chosenLevel(form)).toBe('B-B');
    expect(await said(form.locator('[data-level="B-T"]'))).toBe(
      'B-T · With a timestamp Adds a trusted timestamp from a timestamp authority, proving when the document was sealed.',
    );
    const timestamp = page.getByLabel('Require a timestamp');
    expect(await timestamp.isDisabled()).toBe(true);
    expect(await timestamp.isChecked()).toBe(false);
    expect(await said(page.locator('#policy-timestampRequired-hint'))).toBe(
      'B-B carries no timestamp: choose B-T or higher to require one.',
    );
    expect(await page.getByLabel('Seal the audit trail too').isChecked()).toBe(true);
    expect(await said(page.getByTestId('policy-updated'))).toBe('Never changed: the default policy.');
    expect(await page.getByTestId('policy-problems').count()).toBe(0);
    expect(await section.getByRole('link', { name: 'Verify a document' }).getAttribute('href')).toBe(
      '/verify',
    );
    await expectAccessible(page, 'settings: policy');
    await partShot(section, 'policy-en-desktop-default');

    // B-T with a timestamp required: saved, and the platform cannot meet it (no timestamp authority).
    await form.locator('[data-level="B-T"]').click();
    expect(await timestamp.isDisabled()).toBe(false);
    expect(await said(page.locator('#policy-timestampRequired-hint'))).toContain(
      'when no timestamp authority answers, completed documents wait for one',
    );
    await timestamp.check();
    await page.getByRole('button', { name: 'Save the policy' }).click();
    await eventually(() => page.locator('#policy-saved').textContent()).toBe('The policy is saved.');
    expect(await page.evaluate('document.activeElement.id')).toBe('policy-saved');
    const problems = page.getByTestId('policy-problems');
    expect(await said(problems)).toContain('Documents cannot be sealed as this policy asks right now');
    expect(await said(problems)).toContain(
      'No timestamp authority answers, and the policy requires a timestamp (B-T): completed envelopes will wait in finalization until one answers.',
    );
    expect(await said(page.getByTestId('policy-updated'))).toMatch(/^Last changed /);
    const saved = await callAs<SecureSignaturePolicy>(baseUrl, owner, 'GET', OWN_POLICY);
    expect(saved).toMatchObject({ level: 'B-T', timestampRequired: true, sealAuditTrail: true });
    expect(saved.satisfiable).toBe(false);
    await expectAccessible(page, 'settings: unsatisfiable policy');
    await partShot(section, 'policy-en-desktop-unsatisfiable');
    await shot(page, 'settings-en-desktop');

    // The security log says so.
    await page.goto(`${baseUrl}/app/admin/security-log`);
    await eventually(() => page.getByText('Secure-signature policy changed').count()).toBeGreaterThan(0);

    // The send page warns before anything is sent, with the same problem; sending is not blocked.
    await page.goto(`${baseUrl}/app/send`);
    await waitForLoaded(page);
    const warning = page.getByRole('status').filter({ has: page.getByTestId('sealing-warning') });
    await eventually(() => warning.count()).toBe(1);
    expect(await said(warning)).toContain(
      "Documents cannot be sealed as your organization's policy asks right now",
    );
    expect(await said(warning)).toContain(
      'No timestamp authority answers, and the policy requires a timestamp',
    );
    expect(await said(warning)).toContain('You can still send.');
    expect(
      await warning.getByRole('link', { name: 'See the secure-signature policy' }).getAttribute('href'),
    ).toBe('/app/admin/settings#secure-signatures');
    expect(await page.getByRole('button', { name: 'Send', exact: true }).count()).toBe(1);
    await expectAccessible(page, 'send: sealing warning');
    await shot(page, 'send-en-desktop-warning');

    // The platform restricts the levels while the settings page is open: the level chosen there is refused
    // beside the level, with the focus on it, and nothing changes.
    const open = await openSettings(page);
    expect(await offeredLevels(open)).toEqual(['B-B', 'B-T', 'B-LT', 'B-LTA']);
    const restricted = await asOperator(owner.organization.id, { bounds: { allowedLevels: ['B-B', 'B-T'] } });
    expect(restricted.statusCode, restricted.body).toBe(200);
    await open.locator('[data-level="B-LT"]').click();
    await page.getByRole('button', { name: 'Save the policy' }).click();
    const levelError = page.locator('#policy-level-error');
    await eventually(() => levelError.textContent()).toBe(
      'B-LT is not allowed for this organization (allowed: B-B, B-T)',
    );
    expect(await page.evaluate('document.activeElement.value')).toBe('B-LT');
    expect(await said(page.locator('#policy-error'))).toBe('Some fields need your attention.');
    expect(await open.locator('fieldset[aria-describedby~="policy-level-error"]').count()).toBe(1);
    expect((await callAs<SecureSignaturePolicy>(baseUrl, owner, 'GET', OWN_POLICY)).level).toBe('B-T');
    await expectAccessible(page, 'settings: refused level');
    await partShot(section, 'policy-en-desktop-refused');
    // Opened again, the page offers only what is allowed.
    const fresh = await openSettings(page);
    expect(await offeredLevels(fresh)).toEqual(['B-B', 'B-T']);
    expect(await said(fresh.getByTestId('policy-not-offered'))).toBe(
      "Not available to your organization: B-LT, B-LTA. Sigil's operators set which levels it may use.",
    );
  });

  it('shows the policy in Hebrew and on a phone, and read-only to a role that may only read the settings', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Yael Owner' });
    await callAs(baseUrl, owner, 'PUT', OWN_POLICY, { level: 'B-LT', timestampRequired: false });
    const hebrew = await signedInPage(browser, baseUrl, owner, DESKTOP, 'he');
    const form = await openSettings(hebrew);
    expect(await hebrew.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await hebrew.locator('#secure-signatures h2').textContent()).toBe('חתימות מאובטחות');
    expect(await chosenLevel(form)).toBe('B-LT');
    expect(await said(hebrew.getByTestId('policy-problems'))).toContain(
      'כרגע אי אפשר לחתום מסמכים כפי שהמדיניות הזו דורשת',
    );
    expect(await said(hebrew.getByTestId('policy-problems'))).toContain(
      'No timestamp authority answers: documents will be sealed at B-B instead of B-LT.',
    );
    await expectAccessible(hebrew, 'settings he: policy');
    await partShot(hebrew.locator('#secure-signatures'), 'policy-he-desktop');
    await hebrew.goto(`${baseUrl}/app/send`);
    await eventually(() => hebrew.getByTestId('sealing-warning').count()).toBe(1);
    expect(await said(hebrew.getByTestId('sealing-warning'))).toContain('עדיין אפשר לשלוח.');
    await waitForLoaded(hebrew);
    await expectAccessible(hebrew, 'send he: sealing warning');
    await shot(hebrew, 'send-he-desktop-warning');

    for (const language of ['he', 'en'] as const) {
      const phone = await signedInPage(browser, baseUrl, owner, PHONE, language);
      await openSettings(phone);
      await phone.locator('#secure-signatures').scrollIntoViewIfNeeded();
      expect(await pageWidth(phone), language).toBeLessThanOrEqual(PHONE.width);
      await expectAccessible(phone, `settings ${language}: phone`);
      await partShot(phone.locator('#secure-signatures'), `policy-${language}-phone`);
      await phone.goto(`${baseUrl}/app/send`);
      await eventually(() => phone.getByTestId('sealing-warning').count()).toBe(1);
      await waitForLoaded(phone);
      expect(await pageWidth(phone), language).toBeLessThanOrEqual(PHONE.width);
      await expectAccessible(phone, `send ${language}: phone`);
      await shot(phone, `send-${language}-phone-warning`);
    }

    // A role that may read the settings but not change them.
    const role = await callAs<{ id: string }>(baseUrl, owner, 'POST', '/api/roles', {
      name: 'Settings readers',
      permissions: ['settings:read'],
    });
    const reader = await signedInUser(harness, {
      role: role.id,
      organizationId: owner.organization.id,
      fullName: 'Eli Reader',
    });
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, reader.email, reader.password);
    const readOnly = await openSettings(page);
    expect(await chosenLevel(readOnly)).toBe('B-LT');
    for (const radio of await readOnly.locator('input[type="radio"]').all()) {
      expect(await radio.isDisabled()).toBe(true);
    }
    expect(await page.getByLabel('Seal the audit trail too').isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save the policy' }).count()).toBe(0);
    expect(await said(page.getByTestId('policy-problems'))).toContain(
      "or your organization's administrators can choose a policy it can meet now.",
    );
    await expectAccessible(page, 'settings: read-only policy');
    await partShot(page.locator('#secure-signatures'), 'policy-en-desktop-read-only');
  });

  it("shows the platform's readiness in the backoffice and restricts an organization's policy", async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Dan Owner' });
    const organizationId = owner.organization.id;
    const page = await signedInBackofficePage(browser, harness, baseUrl, DESKTOP, DOMAIN);
    const readinessRequests: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/backoffice/secure-signatures/readiness') readinessRequests.push(url.search);
    });
    await page.goto(`${baseUrl}/backoffice`);
    await waitForLoaded(page);
    await backofficeNav(page).getByRole('link', { name: 'Secure signatures' }).click();
    await waitForPath(page, '/backoffice/secure-signatures');
    const report = page.getByTestId('platform-readiness');
    await eventually(() => report.count()).toBe(1);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Secure signatures');
    expect(await said(page.getByTestId('platform-ready'))).toBe('Not fully ready');
    expect(await said(page.getByTestId('platform-highest'))).toBe('Can seal up to: B-B · Basic signature');
    const check = (name: string) => page.getByTestId('platform-checks').locator(`[data-check="${name}"]`);
    expect(await check('certificate').getAttribute('data-ok')).toBe('true');
    expect(await said(check('certificate'))).toContain('Seal certificate Passed');
    expect(await check('private_key').getAttribute('data-ok')).toBe('true');
    expect(await check('revocation').getAttribute('data-ok')).toBe('true');
    expect(await said(check('revocation'))).toMatch(/Took \d+ ms/);
    expect(await check('timestamp_authority').getAttribute('data-ok')).toBe('false');
    expect(await said(check('timestamp_authority'))).toContain('Timestamp authority Failed');
    expect(await said(check('timestamp_authority'))).toContain(
      'No timestamp authority is configured (TIMESTAMP_AUTHORITY_URLS): documents can be sealed at B-B only.',
    );
    expect(await check('policy').count()).toBe(0);
    // The development CA's certificate, its fingerprint and its chain up to the root.
    expect(await said(page.getByTestId('platform-source'))).toContain('Development CA');
    expect(await said(page.getByTestId('platform-subject'))).toContain('Sigil Document Seal');
    expect(await said(page.getByTestId('platform-fingerprint'))).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(await said(page.getByTestId('platform-validity'))).toMatch(/^From .+ until .+$/);
    const chain = await page.getByTestId('platform-chain').locator('li').allTextContents();
    expect(chain.length).toBeGreaterThanOrEqual(2);
    expect(chain[0]).toContain('Sigil Document Seal');
    expect(await said(page.getByTestId('platform-issuer'))).toBe(chain[1]?.trim());
    await expectAccessible(page, 'backoffice: readiness');
    await shot(page, 'backoffice-readiness-en-desktop');
    // Checked again on request.
    expect(readinessRequests).toEqual(['']);
    await page.getByRole('button', { name: 'Check again' }).click();
    await eventually(async () => readinessRequests.length).toBe(2);
    await eventually(() => page.getByRole('button', { name: 'Check again' }).isEnabled()).toBe(true);

    // The organization's page: its bounds and policy, and whether it can be met.
    await page.goto(`${baseUrl}/backoffice/organizations/${organizationId}`);
    const section = page.getByTestId('organization-sealing');
    const form = section.getByTestId('organization-policy-form');
    await eventually(() => form.count()).toBe(1);
    await eventually(() => section.getByTestId('organization-readiness').count()).toBe(1);
    await waitForLoaded(page);
    const allowed = (level: string) =>
      form.locator(`input[name="organization-policy-allowed"][value="${level}"]`);
    for (const level of ['B-B', 'B-T', 'B-LT', 'B-LTA']) expect(await allowed(level).isChecked()).toBe(true);
    expect(await offeredLevels(form)).toEqual(['B-B', 'B-T', 'B-LT', 'B-LTA']);
    const policyCheck = section.getByTestId('organization-checks').locator('[data-check="policy"]');
    expect(await policyCheck.getAttribute('data-ok')).toBe('true');
    expect(await said(policyCheck)).toContain('The policy (B-B) can be met.');
    // The organization's B-B asks nothing of a timestamp authority: that check is not its concern.
    expect(
      await section.getByTestId('organization-checks').locator('[data-check="timestamp_authority"]').count(),
    ).toBe(0);

    // No level allowed: refused beside the allowed levels, with the focus on them.
    for (const level of ['B-B', 'B-T', 'B-LT', 'B-LTA']) await allowed(level).uncheck();
    expect(await said(form.locator('.app-field-error').first())).toBe(
      'No level can be chosen with these bounds.',
    );
    expect(await said(form.getByTestId('organization-policy-not-offered'))).toBe(
      'Allow at least one level above.',
    );
    expect(await form.locator('.moved').count()).toBe(0);
    await form.getByRole('button', { name: 'Save the policy' }).click();
    const boundsError = page.locator('#organization-policy-bounds-allowedLevels-error');
    await eventually(() => boundsError.textContent()).toBe('Choose at least one.');
    expect(await page.evaluate('document.activeElement.name')).toBe('organization-policy-allowed');
    await expectAccessible(page, 'backoffice: refused bounds');
    await partShot(section, 'backoffice-organization-refused');

    // B-B and B-T allowed, the audit trail's seal mandatory.
    await allowed('B-B').check();
    await allowed('B-T').check();
    // The level saved comes back once it is allowed again.
    expect(await chosenLevel(form)).toBe('B-B');
    await form.getByLabel('Audit trail seal mandatory').check();
    expect(await offeredLevels(form)).toEqual(['B-B', 'B-T']);
    await form.getByRole('button', { name: 'Save the policy' }).click();
    await eventually(() => page.locator('#organization-policy-saved').textContent()).toBe(
      'The policy is saved.',
    );
    expect(await boundsError.count()).toBe(0);
    const bounded = await callAs<SecureSignaturePolicy>(baseUrl, owner, 'GET', OWN_POLICY);
    expect(bounded.bounds).toEqual({
      allowedLevels: ['B-B', 'B-T'],
      timestampMandatory: false,
      auditTrailSealMandatory: true,
    });

    // The owner's page offers only those levels, the audit trail's seal locked on.
    const ownerPage = await browser.newPage(DESKTOP);
    await signIn(ownerPage, baseUrl, owner.email, owner.password);
    const ownerForm = await openSettings(ownerPage);
    expect(await offeredLevels(ownerForm)).toEqual(['B-B', 'B-T']);
    expect(await ownerPage.getByLabel('Seal the audit trail too').isDisabled()).toBe(true);
    expect(await ownerPage.getByLabel('Seal the audit trail too').isChecked()).toBe(true);
    expect(await said(ownerPage.locator('#policy-sealAuditTrail-hint'))).toBe(
      'The platform requires the audit trail to be sealed for this organization: it stays on.',
    );
    await expectAccessible(ownerPage, 'settings: bounded policy');
    await partShot(ownerPage.locator('#secure-signatures'), 'policy-en-desktop-bounded');

    // A mandatory timestamp: B-B is no longer offered, the level moves to B-T, and the platform cannot meet it.
    await form.getByLabel('Timestamp mandatory').check();
    expect(await offeredLevels(form)).toEqual(['B-T']);
    expect(await chosenLevel(form)).toBe('B-T');
    expect(await said(form.locator('.moved'))).toBe('The level is now B-T: B-B is no longer available.');
    expect(await form.getByLabel('Require a timestamp').isChecked()).toBe(true);
    expect(await form.getByLabel('Require a timestamp').isDisabled()).toBe(true);
    await form.getByRole('button', { name: 'Save the policy' }).click();
    await eventually(() => page.locator('#organization-policy-saved').textContent()).toBe(
      'The policy is saved.',
    );
    await eventually(() => section.getByTestId('organization-policy-problems').count()).toBe(1);
    expect(await said(section.getByTestId('organization-policy-problems'))).toContain(
      'No timestamp authority answers, and the policy requires a timestamp (B-T)',
    );
    // The readiness is checked again for the new policy.
    await eventually(() => policyCheck.getAttribute('data-ok')).toBe('false');
    expect(await said(policyCheck)).toContain('No timestamp authority answers');
    expect(
      await section
        .getByTestId('organization-checks')
        .locator('[data-check="timestamp_authority"]')
        .getAttribute('data-ok'),
    ).toBe('false');
    // Once when the page opened, once after each saved change.
    expect(readinessRequests.filter((search) => search === `?organizationId=${organizationId}`).length).toBe(
      3,
    );
    await expectAccessible(page, 'backoffice: organization policy');
    await partShot(section, 'backoffice-organization-sealing-en-desktop');
    await shot(page, 'backoffice-organization-en-desktop');

    // The owner's page now offers B-T alone, the timestamp locked on.
    const locked = await openSettings(ownerPage);
    expect(await offeredLevels(locked)).toEqual(['B-T']);
    expect(await ownerPage.getByLabel('Require a timestamp').isDisabled()).toBe(true);
    expect(await ownerPage.getByLabel('Require a timestamp').isChecked()).toBe(true);

    // The backoffice audit log, in words.
    await page.goto(`${baseUrl}/backoffice/audit-log`);
    const rows = page.locator('tr[data-action="organization.secure_signature_policy.updated"]');
    // The log is the platform's, fifty events a page: test files running meanwhile write to it too (a full run
    // pushed the first change off the first page), so older pages are read until both changes are listed.
    const loadMore = page.getByRole('button', { name: 'Load more' });
    await eventually(async () => {
      const count = await rows.count();
      if (count < 2 && (await loadMore.count()) === 1 && (await loadMore.isEnabled())) await loadMore.click();
      return count;
    }).toBeGreaterThanOrEqual(2);
    const logged = (await rows.allTextContents()).map((text) => text.replace(/\s+/g, ' '));
    expect(logged.join('\n')).toContain("Changed an organization's secure-signature policy");
    expect(logged.join('\n')).toContain(
      'bounds.allowedLevels: B-B, B-T, B-LT, B-LTA → B-B, B-T · bounds.auditTrailSealMandatory: false → true',
    );
    expect(logged.join('\n')).toContain('level: B-B → B-T');
  });

  it('shows the backoffice pages in Hebrew and on a phone', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    for (const [viewport, name] of [
      [DESKTOP, 'desktop'],
      [PHONE, 'phone'],
    ] as const) {
      const page = await signedInBackofficePage(browser, harness, baseUrl, viewport, DOMAIN);
      await page.goto(`${baseUrl}/backoffice/secure-signatures?lang=he`);
      await eventually(() => page.getByTestId('platform-readiness').count()).toBe(1);
      await waitForLoaded(page);
      expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('חתימות מאובטחות');
      expect(await said(page.getByTestId('platform-ready'))).toBe('לא מוכן במלואו');
      expect(await said(page.getByTestId('platform-highest'))).toBe('אפשר לחתום עד: B-B · חתימה בסיסית');
      expect(await pageWidth(page), name).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `backoffice he ${name}: readiness`);
      await shot(page, `backoffice-readiness-he-${name}`);

      await page.goto(`${baseUrl}/backoffice/organizations/${owner.organization.id}?lang=he`);
      await eventually(() => page.getByTestId('organization-readiness').count()).toBe(1);
      await waitForLoaded(page);
      expect(await said(page.getByTestId('organization-sealing').locator('h2'))).toBe('חתימות מאובטחות');
      expect(await pageWidth(page), name).toBeLessThanOrEqual(viewport.width);
      await expectAccessible(page, `backoffice he ${name}: organization`);
      await partShot(page.getByTestId('organization-sealing'), `backoffice-organization-sealing-he-${name}`);
    }
    const english = await signedInBackofficePage(browser, harness, baseUrl, PHONE, DOMAIN);
    await english.goto(`${baseUrl}/backoffice/secure-signatures?lang=en`);
    await eventually(() => english.getByTestId('platform-readiness').count()).toBe(1);
    await waitForLoaded(english);
    expect(await pageWidth(english)).toBeLessThanOrEqual(PHONE.width);
    await expectAccessible(english, 'backoffice en phone: readiness');
    await shot(english, 'backoffice-readiness-en-phone');
  });
});
