// The business app's administration pages (/app/admin/…) in a real browser against a real Sigil app: an owner
// creates, renames and deletes teams; invites a user, who accepts the invitation in another browser (the link
// from the development capture), is signed in, and later signs in with the password they chose; changes their
// team, deactivates (their session ends) and reactivates them, and withdraws another invitation. A custom role
// is created with the permission checklist (Manage ticks View); its holder sees only the pages it opens, and
// when the owner takes a permission away, the page becomes forbidden — naming the permission — and leaves the
// navigation; a role in use cannot be deleted (the server's message is shown). The organization settings' choice to
// attach the signed PDF to the completed email is saved and read back, in English and Hebrew. Every screen passes axe-core's
// WCAG 2.1 AA rules; screenshots go to test/artifacts/web/.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { Role } from '../../db/entities/index.ts';
import { COMPLETED_EMAIL_ATTACHMENT_MAX_BYTES } from '../../domain/account.ts';
import type { ApiHarness } from '../support/api.ts';
import {
  emailedLink,
  eventually,
  expectAccessible,
  signedInPage,
  signIn,
  signOut,
  submitSignIn,
  useAppBrowser,
  waitForPath,
} from '../support/app-pages.ts';
import { callAs } from '../support/app-requests.ts';
import { DESKTOP, PHONE, pageWidth, type TestBrowser } from '../support/browser.ts';
import { signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let browser: TestBrowser;
let baseUrl: string;

useAppBrowser((opened) => ({ harness, browser, baseUrl } = opened));

function nav(page: Page) {
  return page.getByRole('navigation', { name: 'Business app' });
}

function userRow(page: Page, email: string) {
  return page.locator(`tr[data-user="${email}"]`);
}

async function openUsers(page: Page): Promise<void> {
  await page.goto(`${baseUrl}/app/admin/users`);
  await eventually(() => page.getByTestId('users').count()).toBe(1);
}

describe('the business app: administration', () => {
  it('manages teams, invites a user who accepts in another browser, and changes, deactivates and deletes users', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Avi Owner' });
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, owner.email, owner.password);

    // Teams: create two, rename one, delete it after a confirmation.
    await nav(page).getByRole('link', { name: 'Teams' }).click();
    await waitForPath(page, '/app/admin/teams');
    await eventually(() => page.getByText('There are no teams yet.').count()).toBe(1);
    await page.getByRole('button', { name: 'Create' }).click();
    await eventually(() => page.locator('#team-new-error').textContent()).toBe('Enter a name for the team.');
    for (const name of ['Sales', 'Support']) {
      await page.getByLabel('New team').fill(name);
      await page.getByRole('button', { name: 'Create' }).click();
      await eventually(() => page.locator(`tr[data-team="${name}"]`).count()).toBe(1);
    }
    // A name already taken: the server's message.
    await page.getByLabel('New team').fill('Sales');
    await page.getByRole('button', { name: 'Create' }).click();
    await eventually(() => page.locator('#team-new-error').textContent()).toMatch(/Sales/);
    await page.getByRole('button', { name: 'Rename: Support' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename the team Support' });
    await rename.getByLabel('Name').fill('Customer care');
    await expectAccessible(page, 'rename team');
    await rename.getByRole('button', { name: 'Save' }).click();
    await eventually(() => page.locator('tr[data-team="Customer care"]').count()).toBe(1);
    await page.getByRole('button', { name: 'Delete: Customer care' }).click();
    const confirmDelete = page.getByRole('dialog', { name: 'Delete this team?' });
    await confirmDelete.getByRole('button', { name: 'Delete' }).click();
    await eventually(() => page.locator('tr[data-team]').count()).toBe(1);
    expect(await page.locator('.app-success').textContent()).toContain('The team Customer care was deleted.');
    await page.getByLabel('New team').fill('Support');
    await page.getByRole('button', { name: 'Create' }).click();
    await eventually(() => page.locator('.app-success').textContent()).toBe('The team Support was created.');
    await expectAccessible(page, 'teams');
    await browser.screenshot(page, 'app-teams-en-desktop');

    // Users: the owner is listed as "You"; an empty invitation is refused in the page.
    await nav(page).getByRole('link', { name: 'Users' }).click();
    await waitForPath(page, '/app/admin/users');
    await eventually(() => userRow(page, owner.email).count()).toBe(1);
    expect(await userRow(page, owner.email).textContent()).toContain('You');
    await page.getByRole('button', { name: 'Invite a user' }).click();
    const invite = page.getByRole('dialog', { name: 'Invite a user' });
    await invite.getByRole('button', { name: 'Send the invitation' }).click();
    await eventually(() => invite.locator('#invite-fullName-error').textContent()).toBe('Enter a full name.');
    expect(await page.evaluate('document.activeElement?.id')).toBe('invite-fullName');
    await expectAccessible(page, 'invitation form');

    const invitedEmail = `invited-${randomUUID()}@example.com`;
    await invite.getByLabel('Full name').fill('Gal Invited');
    await invite.getByLabel('Email address').fill(invitedEmail);
    await invite.getByLabel('Role').selectOption({ label: 'Sender' });
    await invite.getByLabel('Team').selectOption({ label: 'Sales' });
    await browser.screenshot(page, 'app-users-invite-en-desktop');
    await invite.getByRole('button', { name: 'Send the invitation' }).click();
    await eventually(() => userRow(page, invitedEmail).count()).toBe(1);
    expect(await page.locator('.app-success').textContent()).toContain(
      `An invitation was sent to ${invitedEmail}.`,
    );
    expect(await userRow(page, invitedEmail).getByTestId('user-status').textContent()).toContain('Invited');
    expect(await userRow(page, invitedEmail).textContent()).toContain('Sales');
    // The same address again: the server's message, in the dialog.
    await page.getByRole('button', { name: 'Invite a user' }).click();
    await invite.getByLabel('Full name').fill('Gal Again');
    await invite.getByLabel('Email address').fill(invitedEmail);
    await invite.getByRole('button', { name: 'Send the invitation' }).click();
    await eventually(() => invite.locator('#invite-error').textContent()).toContain(
      'is already a user of this organization',
    );
    await invite.getByRole('button', { name: 'Cancel' }).click();

    await userRow(page, invitedEmail).getByRole('button', { name: 'Resend invitation' }).click();
    await page
      .getByRole('dialog', { name: 'Send the invitation again?' })
      .getByRole('button', { name: 'Resend invitation' })
      .click();
    await eventually(() => page.locator('.app-success').textContent()).toContain(
      `The invitation was sent to ${invitedEmail} again.`,
    );

    // The invited person, in a browser of their own: the organization and role are shown, the name prefilled.
    const invited = await browser.newPage(DESKTOP);
    await invited.goto(await emailedLink(baseUrl, invitedEmail, 'invite'));
    const card = invited.locator('.auth-card');
    await eventually(() => card.textContent()).toContain(owner.organization.name);
    expect(await card.textContent()).toContain('Sender');
    expect(await invited.getByLabel('Full name').inputValue()).toBe('Gal Invited');
    await expectAccessible(invited, 'accept invitation');
    await browser.screenshot(invited, 'app-accept-invite-en-desktop');
    await invited.getByLabel('Full name').fill('Gal Cohen');
    await invited.getByLabel('Choose a password').fill('short');
    await invited.getByRole('button', { name: 'Join' }).click();
    await eventually(() => invited.locator('#invite-password-error').textContent()).toContain('at least 10');
    await invited.getByLabel('Choose a password').fill('gal chooses a long password');
    await invited.getByRole('button', { name: 'Join' }).click();
    await waitForPath(invited, '/app');
    await eventually(() => invited.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Welcome, Gal Cohen',
    );
    expect(await invited.getByTestId('overview-role').textContent()).toBe('Sender');
    // A sender reads users and teams, and nothing else of the administration.
    expect(await nav(invited).getByRole('link').allTextContents()).toEqual([
      'Overview',
      'Documents',
      'Templates',
      'Contacts',
      'Reports',
      'Your profile',
      'My stamps',
      'Users',
      'Teams',
    ]);
    await signOut(invited);
    await signIn(invited, baseUrl, invitedEmail, 'gal chooses a long password');

    // Back with the owner: the user is active; change their team; a sender sees the list but no actions.
    await openUsers(page);
    await eventually(() => userRow(page, invitedEmail).getByTestId('user-status').textContent()).toContain(
      'Active',
    );
    await userRow(page, invitedEmail).getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Role and team of Gal Cohen' });
    await edit.getByLabel('Team').selectOption({ label: 'No team' });
    await edit.getByRole('button', { name: 'Save' }).click();
    await eventually(() => page.locator('.app-success').textContent()).toContain('Gal Cohen was updated.');
    expect(await userRow(page, invitedEmail).locator('td').nth(3).textContent()).toBe('—');
    await expectAccessible(page, 'users');
    await browser.screenshot(page, 'app-users-en-desktop');

    await invited.goto(`${baseUrl}/app/admin/users`);
    await eventually(() => invited.getByTestId('users').count()).toBe(1);
    expect(await invited.getByRole('button', { name: 'Invite a user' }).count()).toBe(0);
    expect(await invited.getByRole('button', { name: /^Delete/ }).count()).toBe(0);

    // The owner cannot deactivate themselves: the server's message.
    await userRow(page, owner.email).getByRole('button', { name: 'Deactivate' }).click();
    const deactivate = page.getByRole('dialog', { name: 'Deactivate this user?' });
    await deactivate.getByRole('button', { name: 'Deactivate' }).click();
    await eventually(() => deactivate.locator('.app-alert').textContent()).toContain(
      'You cannot deactivate yourself',
    );
    await deactivate.getByRole('button', { name: 'Cancel' }).click();

    // Deactivating ends the user's session: their next page goes to sign-in, and signing in is refused.
    await userRow(page, invitedEmail).getByRole('button', { name: 'Deactivate' }).click();
    expect(await deactivate.textContent()).toContain('Gal Cohen is signed out everywhere');
    await deactivate.getByRole('button', { name: 'Deactivate' }).click();
    await eventually(() => userRow(page, invitedEmail).getByTestId('user-status').textContent()).toContain(
      'Deactivated',
    );
    await invited.goto(`${baseUrl}/app/profile`);
    await waitForPath(invited, '/app/sign-in');
    await userRow(page, invitedEmail).getByRole('button', { name: 'Reactivate' }).click();
    await eventually(() => userRow(page, invitedEmail).getByTestId('user-status').textContent()).toContain(
      'Active',
    );
    // Signed in again, they are back on the page they asked for.
    await submitSignIn(invited, baseUrl, invitedEmail, 'gal chooses a long password');
    await waitForPath(invited, '/app/profile');

    // Withdrawing an invitation: delete, after a confirmation naming the user.
    const withdrawn = `withdrawn-${randomUUID()}@example.com`;
    await page.getByRole('button', { name: 'Invite a user' }).click();
    await invite.getByLabel('Full name').fill('Rina Withdrawn');
    await invite.getByLabel('Email address').fill(withdrawn);
    await invite.getByRole('button', { name: 'Send the invitation' }).click();
    await eventually(() => userRow(page, withdrawn).count()).toBe(1);
    await userRow(page, withdrawn).getByRole('button', { name: 'Delete' }).click();
    const deleteUser = page.getByRole('dialog', { name: 'Delete this user?' });
    expect(await deleteUser.textContent()).toContain(`Rina Withdrawn (${withdrawn})`);
    await expectAccessible(page, 'delete user');
    await deleteUser.getByRole('button', { name: 'Delete' }).click();
    await eventually(() => userRow(page, withdrawn).count()).toBe(0);
    expect(await page.locator('.app-success').textContent()).toContain('Rina Withdrawn was deleted.');

    // The security log lists it all, newest first, and loads older events on demand.
    await nav(page).getByRole('link', { name: 'Security log' }).click();
    const log = page.getByTestId('security-log');
    await eventually(() => log.locator('tbody tr').count()).toBeGreaterThan(8);
    const events = await log
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-event')));
    expect(events[0]).toBe('user.deleted');
    expect(events).toEqual(
      expect.arrayContaining([
        'team.created',
        'team.updated',
        'team.deleted',
        'user.invited',
        'user.invitation_resent',
        'user.invitation_accepted',
        'user.updated',
        'user.deactivated',
        'user.reactivated',
      ]),
    );
    // Older events further down: the first invitation is the last of them.
    expect(await log.locator('tr[data-event="user.invited"]').last().textContent()).toContain(invitedEmail);
    await expectAccessible(page, 'security log');
    await browser.screenshot(page, 'app-security-log-en-desktop');
  });

  it("lets a custom role's permissions decide what its holder sees, and refuses deleting a role in use", async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Yael Owner' });
    const page = await browser.newPage(DESKTOP);
    await signIn(page, baseUrl, owner.email, owner.password);
    await nav(page).getByRole('link', { name: 'Roles' }).click();
    await waitForPath(page, '/app/admin/roles');
    const roles = page.getByTestId('roles');
    await eventually(() => roles.locator('[data-role]').count()).toBe(4);
    // The built-in roles are shown with what they may do, and cannot be edited.
    const sender = roles.locator('[data-role="Sender"]');
    expect(await sender.textContent()).toContain('Built-in');
    expect(await sender.textContent()).toMatch(/Documents\s*View, Manage/);
    expect(await roles.getByRole('button', { name: /^Edit/ }).count()).toBe(0);
    await expectAccessible(page, 'roles');

    await page.getByRole('button', { name: 'New role' }).click();
    const form = page.getByRole('dialog', { name: 'New role' });
    await form.getByRole('button', { name: 'Save' }).click();
    await eventually(() => form.locator('#role-name-error').textContent()).toBe('Enter a name for the role.');
    await form.getByLabel('Name').fill('Auditors');
    const area = (name: string) => form.getByRole('group', { name, exact: true });
    // Ticking Manage ticks View; clearing View clears Manage.
    await area('Users').getByLabel('Manage').check();
    expect(await area('Users').getByLabel('View').isChecked()).toBe(true);
    await area('Users').getByLabel('View').uncheck();
    expect(await area('Users').getByLabel('Manage').isChecked()).toBe(false);
    await area('Users').getByLabel('View').check();
    await area('Security log').getByLabel('View').check();
    expect(await area('Security log').getByLabel('Manage').count()).toBe(0);
    await expectAccessible(page, 'role form');
    await browser.screenshot(page, 'app-role-form-en-desktop');
    await form.getByRole('button', { name: 'Save' }).click();
    const auditors = roles.locator('[data-role="Auditors"]');
    await eventually(() => auditors.count()).toBe(1);
    expect(await auditors.textContent()).toContain('Users View');
    expect(await auditors.textContent()).toContain('Security log View');
    expect(await auditors.textContent()).toContain('No users');
    await browser.screenshot(page, 'app-roles-en-desktop');

    // A holder of the role sees Users and the security log, and nothing else of the administration.
    const role = await harness.ctx.orm.em
      .fork()
      .findOneOrFail(Role, { organizationId: owner.organization.id, name: 'Auditors' });
    const auditor = await signedInUser(harness, {
      role: role.id,
      organizationId: owner.organization.id,
      fullName: 'Eli Auditor',
    });
    const other = await browser.newPage(DESKTOP);
    await signIn(other, baseUrl, auditor.email, auditor.password);
    expect(await other.getByTestId('overview-role').textContent()).toBe('Auditors');
    expect(await nav(other).getByRole('link').allTextContents()).toEqual([
      'Overview',
      'Your profile',
      'My stamps',
      'Users',
      'Security log',
    ]);
    // A page the role does not open says which permission it needs.
    await other.goto(`${baseUrl}/app/admin/roles`);
    const forbidden = other.getByTestId('forbidden');
    await eventually(() => forbidden.count()).toBe(1);
    // The failed load says so in the page's heading, inside the shell.
    expect(await other.getByRole('heading', { level: 1 }).textContent()).toContain(
      'You do not have permission to see this page',
    );
    expect(await forbidden.textContent()).toContain('Roles · View (roles:read)');
    await expectAccessible(other, 'forbidden');
    await browser.screenshot(other, 'app-forbidden-en-desktop');
    await nav(other).getByRole('link', { name: 'Users' }).click();
    await eventually(() => other.getByTestId('users').count()).toBe(1);
    await nav(other).getByRole('link', { name: 'Overview' }).click();
    await waitForPath(other, '/app');

    // The owner takes Users away from the role.
    await auditors.getByRole('button', { name: 'Edit: Auditors' }).click();
    const editForm = page.getByRole('dialog', { name: 'Edit the role Auditors' });
    expect(
      await editForm.getByRole('group', { name: 'Users', exact: true }).getByLabel('View').isChecked(),
    ).toBe(true);
    await editForm.getByRole('group', { name: 'Users', exact: true }).getByLabel('View').uncheck();
    await editForm.getByRole('button', { name: 'Save' }).click();
    await eventually(() => auditors.textContent()).not.toContain('Users View');
    expect(await auditors.textContent()).toContain('One user');

    // The holder's next page: Users is refused (by the server, naming the permission) and leaves the navigation.
    await nav(other).getByRole('link', { name: 'Users' }).click();
    await eventually(() => other.getByTestId('forbidden').count()).toBe(1);
    expect(await other.getByTestId('forbidden').textContent()).toContain('(users:read)');
    await eventually(() => nav(other).getByRole('link').allTextContents()).toEqual([
      'Overview',
      'Your profile',
      'My stamps',
      'Security log',
    ]);
    await other.reload();
    await eventually(() => other.getByTestId('forbidden').count()).toBe(1);
    expect(await other.getByTestId('users').count()).toBe(0);

    // A role in use cannot be deleted: the server's message, in the confirmation.
    await auditors.getByRole('button', { name: 'Delete: Auditors' }).click();
    const confirmDelete = page.getByRole('dialog', { name: 'Delete this role?' });
    await confirmDelete.getByRole('button', { name: 'Delete' }).click();
    await eventually(() => confirmDelete.locator('.app-alert').textContent()).toContain(
      'The role "Auditors" is assigned to 1 user',
    );
    await expectAccessible(page, 'role in use');
    await confirmDelete.getByRole('button', { name: 'Cancel' }).click();
    expect(await auditors.count()).toBe(1);
  });
  it('saves whether the completed email attaches the signed PDF, in English on a desktop and in Hebrew on a phone', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Avi Owner' });
    const attaches = async () =>
      (
        await callAs<{ attachFinalPdfToCompletedEmail: boolean }>(
          baseUrl,
          owner,
          'GET',
          '/api/organization/settings',
        )
      ).attachFinalPdfToCompletedEmail;
    expect(await attaches()).toBe(false);

    const page = await signedInPage(browser, baseUrl, owner, DESKTOP, 'en');
    await page.goto(`${baseUrl}/app/admin/settings`);
    const attach = page.getByLabel('Attach the signed PDF to the completed email');
    await eventually(() => attach.count()).toBe(1);
    expect(await attach.isChecked()).toBe(false);
    // The hint names the server's limit (domain/account.ts).
    expect(await page.locator('#settings-attachFinalPdfToCompletedEmail-hint').textContent()).toContain(
      `Up to ${COMPLETED_EMAIL_ATTACHMENT_MAX_BYTES / (1024 * 1024)} MB;`,
    );
    await attach.check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await eventually(() => page.locator('#settings-saved').textContent()).toContain(
      'The settings are saved.',
    );
    expect(await attaches()).toBe(true);
    await page.reload();
    await eventually(() => attach.isChecked()).toBe(true);
    await expectAccessible(page, 'settings with the attachment on');
    await browser.screenshot(page, 'app-settings-attach-pdf-en-desktop');

    for (const language of ['en', 'he'] as const) {
      const phone = await signedInPage(browser, baseUrl, owner, PHONE, language);
      await phone.goto(`${baseUrl}/app/admin/settings`);
      const label =
        language === 'he'
          ? 'צירוף ה-PDF החתום להודעת הדוא"ל על ההשלמה'
          : 'Attach the signed PDF to the completed email';
      const checkbox = phone.getByLabel(label);
      await eventually(() => checkbox.isChecked()).toBe(true);
      await checkbox.scrollIntoViewIfNeeded();
      expect(await pageWidth(phone), `settings ${language} phone`).toBeLessThanOrEqual(PHONE.width);
      await browser.screenshot(phone, `app-settings-attach-pdf-${language}-phone`);
      if (language === 'he') {
        await checkbox.uncheck();
        await phone.getByRole('button', { name: 'שמירת ההגדרות' }).click();
        await eventually(() => phone.locator('#settings-saved').textContent()).toContain('ההגדרות נשמרו.');
        expect(await attaches()).toBe(false);
      }
    }
  });
});
