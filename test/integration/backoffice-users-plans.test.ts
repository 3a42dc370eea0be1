// The backoffice's users of an organization, onboarding and plans on the real PostgreSQL and Temporal (issue 35;
// docs/backoffice.md, "Users of an organization", "New organization", "Plans"): each action on a user through
// HTTP with its reason, its row in the organization's security log and the backoffice audit log, and its effect
// (a locked sign-in unlocked, a verification link that verifies, a deactivated user's session ended); a new
// organization whose owner's emailed invitation is accepted; a plan's edit applied to an organization's limit at
// once, refused over a limit already used until confirmed, versioned, and two simultaneous edits never both
// applied. Organization users get 401 on every route.
//
// The database is shared with files running at the same time: the plans edited here are this file's own (added
// as an operator adds one), never the shipped ones.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackofficeAuditEvent, DevNotification, SecurityEvent } from '../../db/entities/index.ts';
import { accountEmailsSettled } from '../../services/accounts/account-emails.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectError } from '../support/app-requests.ts';
import { type SignedInAdmin, signedInAdmin } from '../support/backoffice.ts';
import { APP_ORIGIN, type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let admin: SignedInAdmin;
let owner: SignedInUser;
const REASON = 'Ticket 4412: the customer asked by phone';

beforeAll(async () => {
  harness = await openApiHarness();
  admin = await signedInAdmin(harness, 'support');
  owner = await signedInUser(harness, { role: 'owner' });
});
afterAll(() => harness?.close());

const em = () => harness.ctx.orm.em.fork();
const sql = <T = unknown>(statement: string, params: unknown[] = []) =>
  em().execute(statement, params) as Promise<T[]>;
const usersOf = (organizationId: string) => `/api/backoffice/organizations/${organizationId}/users`;
const action = (user: SignedInUser, name: string) =>
  `${usersOf(user.organization.id)}/${user.user.id}/${name}`;

/** Another user of the owner's organization (a sender), with a session. */
const member = (fields: { fullName?: string } = {}) =>
  signedInUser(harness, { role: 'sender', organizationId: owner.organization.id, ...fields });

async function securityEvents(organizationId: string, type: string, subjectUserId: string) {
  return em().find(
    SecurityEvent,
    { organizationId, type, subjectUserId },
    { orderBy: { occurredAt: 'asc' } },
  );
}

async function auditEvents(action: string, targetId: string) {
  return em().find(BackofficeAuditEvent, { action, targetId }, { orderBy: { occurredAt: 'asc' } });
}

/** The newest account email of a kind captured for the address, and its link's token. */
async function emailTo(address: string, kind: string) {
  await accountEmailsSettled();
  const rows = await em().find(
    DevNotification,
    { to: address.toLowerCase(), kind },
    { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] },
  );
  return rows.map((row) => ({
    row,
    token: new URL(row.signingLink ?? 'http://x/').searchParams.get('token'),
  }));
}

function expectRecorded(event: SecurityEvent | undefined) {
  expect(event).toMatchObject({
    actorUserId: null,
    ipAddress: expect.any(String),
    details: expect.objectContaining({ byPlatformStaff: admin.admin.email, reason: REASON }),
  });
}

describe('users of an organization', () => {
  it('lists them with search, status filter and pages; an unknown organization is 404', async () => {
    const word = `srch${randomUUID().slice(0, 6)}`;
    const alpha = await member({ fullName: `Alpha ${word}` });
    const beta = await member({ fullName: `Beta ${word}` });
    await sql(`update app_user set status = 'deactivated' where id = ?`, [beta.user.id]);

    const found = await callAs(harness.app, admin, 'GET', `${usersOf(owner.organization.id)}?search=${word}`);
    expect(found.users.map((user: { id: string }) => user.id)).toEqual([alpha.user.id, beta.user.id]);
    expect(found.users[0]).toMatchObject({
      email: alpha.email,
      status: 'active',
      emailVerified: true,
      lockedUntil: null,
    });

    const active = await callAs(
      harness.app,
      admin,
      'GET',
      `${usersOf(owner.organization.id)}?search=${word}&status=active`,
    );
    expect(active.users.map((user: { id: string }) => user.id)).toEqual([alpha.user.id]);

    const first = await callAs(
      harness.app,
      admin,
      'GET',
      `${usersOf(owner.organization.id)}?search=${word}&limit=1`,
    );
    expect(first.users.map((user: { id: string }) => user.id)).toEqual([alpha.user.id]);
    const second = await callAs(
      harness.app,
      admin,
      'GET',
      `${usersOf(owner.organization.id)}?search=${word}&limit=1&cursor=${first.nextCursor}`,
    );
    expect(second.users.map((user: { id: string }) => user.id)).toEqual([beta.user.id]);
    expect(second.nextCursor).toBeNull();
    // Each look is recorded for the organization's owner to see (support.accessed in its security log).
    const looks = await harness.ctx.orm.em
      .fork()
      .find(SecurityEvent, { organizationId: owner.organization.id, type: 'support.accessed' });
    const viewed = looks.filter((event) => event.details.action === 'organization.users_viewed');
    expect(viewed).toHaveLength(4);
    expect(viewed[0]?.details).toMatchObject({ staff: admin.admin.email, targetId: owner.organization.id });

    expectError(await asUser(harness.app, admin, 'GET', usersOf(randomUUID())), 404, 'not_found');
    expectError(
      await asUser(harness.app, admin, 'GET', `${usersOf(owner.organization.id)}?status=gone`),
      400,
      'invalid_request',
    );
  });

  it('unlocks a locked sign-in with a reason, recorded in both logs; without a reason nothing changes', async () => {
    const locked = await member();
    await sql(
      `insert into login_throttle (key, failures, first_failure_at, last_failure_at, locked_until)
       values (?, 10, now(), now(), now() + interval '15 minutes')`,
      [`account:${locked.email}`],
    );
    const login = () =>
      asUser(harness.app, null, 'POST', '/api/auth/login', {
        email: locked.email,
        password: locked.password,
      });
    expectError(await login(), 429, 'account_locked');
    const listed = await callAs(
      harness.app,
      admin,
      'GET',
      `${usersOf(owner.organization.id)}?search=${locked.email}`,
    );
    expect(listed.users[0].lockedUntil).toEqual(expect.any(String));

    const refused = expectError(
      await asUser(harness.app, admin, 'POST', action(locked, 'unlock'), {}),
      400,
      'invalid_request',
    );
    expect(refused.details.map((detail) => detail.field)).toContain('body.reason');
    expectError(await login(), 429, 'account_locked');

    const unlocked = await callAs(harness.app, admin, 'POST', action(locked, 'unlock'), { reason: REASON });
    expect(unlocked).toMatchObject({ user: { id: locked.user.id, lockedUntil: null }, emailed: true });
    // The user is told they can sign in again, with a link to the sign-in page.
    const [told] = await emailTo(locked.email, 'account_unlocked');
    expect(told?.row.subject).toBe('You can sign in to Sigil again');
    expect((await login()).statusCode).toBe(200);
    const [event] = await securityEvents(owner.organization.id, 'user.unlocked', locked.user.id);
    expectRecorded(event);
    expect(await auditEvents('user.unlocked', locked.user.id)).toHaveLength(1);

    expectError(
      await asUser(harness.app, admin, 'POST', action(locked, 'unlock'), { reason: REASON }),
      409,
      'not_locked',
    );
  });

  it('emails an unverified user a new verification link that verifies the address', async () => {
    const unverified = await member();
    await sql('update app_user set email_verified_at = null where id = ?', [unverified.user.id]);
    const sent = await callAs(harness.app, admin, 'POST', action(unverified, 'resend-verification'), {
      reason: REASON,
    });
    expect(sent).toMatchObject({ user: { emailVerified: false }, emailed: true });
    const [email] = await emailTo(unverified.email, 'verify_email');
    expect(email?.token).toEqual(expect.any(String));
    await callAs(harness.app, null, 'POST', '/api/auth/verify-email', { token: email?.token });
    const after = await callAs(
      harness.app,
      admin,
      'GET',
      `${usersOf(owner.organization.id)}?search=${unverified.email}`,
    );
    expect(after.users[0].emailVerified).toBe(true);
    expectRecorded(
      (await securityEvents(owner.organization.id, 'user.verification_resent', unverified.user.id))[0],
    );
    expect(await auditEvents('user.verification_resent', unverified.user.id)).toHaveLength(1);

    expectError(
      await asUser(harness.app, admin, 'POST', action(unverified, 'resend-verification'), { reason: REASON }),
      409,
      'not_unverified',
    );
  });

  it('deactivates a user (their session ends) but never the last active owner; another organization’s user is 404', async () => {
    const leaving = await member();
    const asLeaving = { headers: leaving.headers };
    await callAs(harness.app, asLeaving, 'GET', '/api/auth/me');
    const done = await callAs(harness.app, admin, 'POST', action(leaving, 'deactivate'), { reason: REASON });
    expect(done.user.status).toBe('deactivated');
    expect((await asUser(harness.app, asLeaving, 'GET', '/api/auth/me')).statusCode).toBe(401);
    expectRecorded((await securityEvents(owner.organization.id, 'user.deactivated', leaving.user.id))[0]);
    expect(await auditEvents('user.deactivated', leaving.user.id)).toHaveLength(1);
    expectError(
      await asUser(harness.app, admin, 'POST', action(leaving, 'deactivate'), { reason: REASON }),
      409,
      'already_deactivated',
    );

    const lone = await signedInUser(harness, { role: 'owner' });
    expectError(
      await asUser(harness.app, admin, 'POST', action(lone, 'deactivate'), { reason: REASON }),
      409,
      'last_owner',
    );
    // The user of another organization under this organization's path: not found, and untouched.
    expectError(
      await asUser(
        harness.app,
        admin,
        'POST',
        `${usersOf(owner.organization.id)}/${lone.user.id}/deactivate`,
        { reason: REASON },
      ),
      404,
      'not_found',
    );
    expect((await callAs(harness.app, { headers: lone.headers }, 'GET', '/api/auth/me')).user.id).toBe(
      lone.user.id,
    );
  });

  it('resets a user’s two-step verification (sessions end, the user is emailed), recorded in both logs', async () => {
    const locked = await member();
    await sql(`update app_user set totp_enabled_at = now(), totp_secret_encrypted = 'sealed' where id = ?`, [
      locked.user.id,
    ]);
    const asLocked = { headers: locked.headers };
    await callAs(harness.app, asLocked, 'GET', '/api/auth/me');
    const reset = await callAs(harness.app, admin, 'POST', action(locked, 'reset-mfa'), { reason: REASON });
    expect(reset).toMatchObject({ user: { id: locked.user.id, mfaEnabled: false }, emailed: true });
    expect((await asUser(harness.app, asLocked, 'GET', '/api/auth/me')).statusCode).toBe(401);
    expect(await emailTo(locked.email, 'mfa_reset')).toHaveLength(1);
    expectRecorded((await securityEvents(owner.organization.id, 'user.mfa_reset', locked.user.id))[0]);
    expect(await auditEvents('user.mfa_reset', locked.user.id)).toHaveLength(1);
    expectError(
      await asUser(harness.app, admin, 'POST', action(locked, 'reset-mfa'), { reason: REASON }),
      409,
      'mfa_not_enabled',
    );
  });

  it('refuses reset-mfa and resend-invitation in a deleted organization (404), changing nothing', async () => {
    const gone = await signedInUser(harness, { role: 'owner' });
    await sql(`update app_user set totp_enabled_at = now(), totp_secret_encrypted = 'sealed' where id = ?`, [
      gone.user.id,
    ]);
    await sql('update organization set deleted_at = now() where id = ?', [gone.organization.id]);
    for (const name of ['reset-mfa', 'resend-invitation']) {
      expectError(
        await asUser(harness.app, admin, 'POST', action(gone, name), { reason: REASON }),
        404,
        'not_found',
      );
    }
    const [row] = await harness.ctx.orm.em
      .fork()
      .getConnection()
      .execute('select totp_enabled_at from app_user where id = ?', [gone.user.id]);
    expect(row?.totp_enabled_at).not.toBeNull();
  });

  it('resends an invitation: a new link, the old one ends, recorded in both logs', async () => {
    const roles = await callAs(harness.app, { headers: owner.headers }, 'GET', '/api/roles');
    const sender = roles.roles.find((role: { builtIn: string | null }) => role.builtIn === 'sender').id;
    const address = `invited.${randomUUID().slice(0, 8)}@example.com`;
    const invited = await callAs(harness.app, { headers: owner.headers }, 'POST', '/api/users/invite', {
      email: address,
      fullName: 'Noa Invited',
      roleId: sender,
    });
    const [first] = await emailTo(address, 'invite');
    const path = `${usersOf(owner.organization.id)}/${invited.id}/resend-invitation`;
    const resent = await callAs(harness.app, admin, 'POST', path, { reason: REASON });
    expect(resent).toMatchObject({ user: { id: invited.id, status: 'invited' }, emailed: true });
    const emails = await emailTo(address, 'invite');
    expect(emails).toHaveLength(2);
    expect(emails[0]?.token).not.toBe(first?.token);
    expectError(
      await asUser(harness.app, null, 'POST', '/api/auth/accept-invite/claim', { token: first?.token }),
      400,
      'invalid_token',
    );
    await callAs(harness.app, null, 'POST', '/api/auth/accept-invite/claim', { token: emails[0]?.token });
    const [event] = (
      await securityEvents(owner.organization.id, 'user.invitation_resent', invited.id)
    ).filter((candidate) => candidate.details.byPlatformStaff);
    expectRecorded(event);
    expect(await auditEvents('user.invitation_resent', invited.id)).toHaveLength(1);
  });

  it('lets support take the safe actions but not deactivate, onboard or change a plan (403)', async () => {
    const support = await signedInAdmin(harness, 'helpdesk', 'support');
    const target = await member();
    expect((await asUser(harness.app, support, 'GET', usersOf(owner.organization.id))).statusCode).toBe(200);
    expectError(
      await asUser(harness.app, support, 'POST', action(target, 'unlock'), { reason: REASON }),
      409,
      'not_locked',
    );
    expectError(
      await asUser(harness.app, support, 'POST', action(target, 'deactivate'), { reason: REASON }),
      403,
      'forbidden',
    );
    expect(
      (await callAs(harness.app, admin, 'GET', `${usersOf(owner.organization.id)}?search=${target.email}`))
        .users[0].status,
    ).toBe('active');
    expect((await asUser(harness.app, support, 'GET', '/api/backoffice/plans')).statusCode).toBe(200);
    expectError(
      await asUser(harness.app, support, 'PUT', '/api/backoffice/plans/Starter', {
        version: 1,
        userLimit: 1,
      }),
      403,
      'forbidden',
    );
    expectError(
      await asUser(harness.app, support, 'POST', '/api/backoffice/organizations', {}),
      403,
      'forbidden',
    );
  });

  it('answers 401 to an organization user on every route', async () => {
    const target = await member();
    const asOwner = { headers: owner.headers };
    expectError(
      await asUser(harness.app, asOwner, 'GET', usersOf(owner.organization.id)),
      401,
      'unauthorized',
    );
    for (const name of ['unlock', 'resend-verification', 'deactivate']) {
      expectError(
        await asUser(harness.app, asOwner, 'POST', action(target, name), { reason: REASON }),
        401,
        'unauthorized',
      );
    }
    expectError(await asUser(harness.app, asOwner, 'GET', '/api/backoffice/plans'), 401, 'unauthorized');
  });
});

describe('a new organization', () => {
  it('is created with its plan and languages, and its first owner accepts the emailed invitation', async () => {
    const address = `founder.${randomUUID().slice(0, 8)}@example.com`;
    const made = await callAs(harness.app, admin, 'POST', '/api/backoffice/organizations', {
      name: 'Enterprise onboarding',
      plan: 'Enterprise',
      apiEnabled: true,
      defaultLanguage: 'he',
      supportedLanguages: ['he', 'en'],
      owner: { email: address, fullName: 'Dana Founder' },
    });
    expect(made).toMatchObject({
      organization: { name: 'Enterprise onboarding', plan: 'Enterprise', apiEnabled: true },
      owner: { email: address, status: 'invited' },
      emailed: true,
    });
    const organizationId = made.organization.id as string;
    const [invitation] = await emailTo(address, 'invite');
    // The organization's default language is Hebrew: so is its first owner's invitation.
    expect(invitation?.row.body).toMatch(/[\u0590-\u05FF]/);
    const accepted = await asUser(harness.app, null, 'POST', '/api/auth/accept-invite', {
      token: invitation?.token,
      fullName: 'Dana Founder',
      password: 'a long enough password',
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const cookie = accepted.cookies.find((candidate) => candidate.name === 'sigil_session')?.value;
    const asFounder = { headers: { cookie: `sigil_session=${cookie}`, origin: APP_ORIGIN } };
    const me = await callAs(harness.app, asFounder, 'GET', '/api/auth/me');
    expect(me.organization).toMatchObject({ id: organizationId });
    const settings = await callAs(harness.app, asFounder, 'GET', '/api/organization/settings');
    expect(settings).toMatchObject({ defaultLanguage: 'he', supportedLanguages: ['en', 'he'] });
    const users = await callAs(harness.app, admin, 'GET', usersOf(organizationId));
    expect(users.users).toEqual([
      expect.objectContaining({
        email: address,
        status: 'active',
        role: expect.objectContaining({ name: expect.any(String) }),
      }),
    ]);
    expect(
      (await em().find(SecurityEvent, { organizationId, type: 'user.invited' }))[0]?.details,
    ).toMatchObject({
      byPlatformStaff: admin.admin.email,
    });
    expect(await auditEvents('organization.created', organizationId)).toHaveLength(1);
  });

  it('refuses bad input naming the field and creates nothing', async () => {
    const name = `Refused ${randomUUID().slice(0, 8)}`;
    const refused = expectError(
      await asUser(harness.app, admin, 'POST', '/api/backoffice/organizations', {
        name,
        plan: 'Starter',
        apiEnabled: false,
        defaultLanguage: 'he',
        supportedLanguages: ['en'],
        owner: { email: 'not an address', fullName: 'X' },
      }),
      400,
      'invalid_request',
    );
    expect(refused.details.map((detail) => detail.field)).toEqual(
      expect.arrayContaining(['body.owner.email', 'body.defaultLanguage']),
    );
    expect(await sql('select id from organization where name = ?', [name])).toEqual([]);
    expectError(
      await asUser(harness.app, admin, 'POST', '/api/backoffice/organizations', {
        name,
        plan: 'Starter',
        apiEnabled: true,
        owner: { email: `x.${randomUUID().slice(0, 8)}@example.com`, fullName: 'X' },
      }),
      400,
      'invalid_request',
    );
    expect(await sql('select id from organization where name = ?', [name])).toEqual([]);
  });
});

describe('plans', () => {
  /** A plan of this test's own, with an organization on it: the owner, two more users and a team. */
  async function planWithOrganization() {
    const plan = `Test ${randomUUID().slice(0, 8)}`;
    await sql(
      `insert into plan (name, api_access, webhook_access, monthly_document_limit, user_limit, team_limit,
                         sms_credits_included, rate_limit_per_minute, upload_rate_limit_per_minute, support_level, sort_order)
       values (?, false, false, 100, 10, 5, 0, null, null, 'Standard', 95)`,
      [plan],
    );
    const first = await signedInUser(harness, { role: 'owner' });
    await sql('update organization set plan_name = ? where id = ?', [plan, first.organization.id]);
    for (let n = 0; n < 2; n += 1) {
      await signedInUser(harness, { role: 'sender', organizationId: first.organization.id });
    }
    const roles = await callAs(harness.app, { headers: first.headers }, 'GET', '/api/roles');
    const sender = roles.roles.find((role: { builtIn: string | null }) => role.builtIn === 'sender')
      .id as string;
    return { plan, owner: first, sender, url: `/api/backoffice/plans/${encodeURIComponent(plan)}` };
  }

  const planIn = async (name: string) =>
    (await callAs(harness.app, admin, 'GET', '/api/backoffice/plans')).plans.find(
      (plan: { name: string }) => plan.name === name,
    );

  it('applies an edit to the organizations on the plan at once, and keeps who changed what', async () => {
    const { plan, owner: planOwner, sender, url } = await planWithOrganization();
    expect(await planIn(plan)).toMatchObject({ version: 1, userLimit: 10, organizations: 1, history: [] });
    const invite = () =>
      asUser(harness.app, { headers: planOwner.headers }, 'POST', '/api/users/invite', {
        email: `n.${randomUUID().slice(0, 8)}@example.com`,
        fullName: 'New Member',
        roleId: sender,
      });
    // Three users now; the limit lowered to three (not below what is used): the next invitation is refused.
    const changed = await callAs(harness.app, admin, 'PUT', url, {
      version: 1,
      userLimit: 3,
      smsCreditsIncluded: 50,
      supportLevel: 'Priority',
      reason: 'Pricing 2027',
    });
    expect(changed).toMatchObject({
      version: 2,
      userLimit: 3,
      smsCreditsIncluded: 50,
      supportLevel: 'Priority',
    });
    expect(changed.history[0]).toMatchObject({
      version: 2,
      changedBy: { administratorId: admin.admin.id, email: admin.admin.email },
      reason: 'Pricing 2027',
      changes: {
        userLimit: { from: 10, to: 3 },
        smsCreditsIncluded: { from: 0, to: 50 },
        supportLevel: { from: 'Standard', to: 'Priority' },
      },
    });
    expectError(await invite(), 409, 'plan_limit');
    const billing = await callAs(harness.app, { headers: planOwner.headers }, 'GET', '/api/billing/summary');
    expect(JSON.stringify(billing)).toContain('"userLimit":3');

    await callAs(harness.app, admin, 'PUT', url, { version: 2, userLimit: 4 });
    expect((await invite()).statusCode).toBe(200);
    const events = await em().find(BackofficeAuditEvent, { action: 'plan.updated' });
    expect(events.filter((event) => event.details.plan === plan)).toHaveLength(2);
  });

  it('refuses a limit below what an organization already uses until the change confirms those organizations', async () => {
    const { plan, owner: planOwner, url } = await planWithOrganization();
    const over = expectError(
      await asUser(harness.app, admin, 'PUT', url, { version: 1, userLimit: 2 }),
      409,
      'plan_limit_exceeded',
    );
    expect(over.details).toEqual([
      expect.objectContaining({
        field: 'body.userLimit',
        organizationId: planOwner.organization.id,
        used: 3,
        limit: 2,
      }),
    ]);
    expect(await planIn(plan)).toMatchObject({ version: 1, userLimit: 10 });
    // A confirmation that does not name the organization is no confirmation.
    expectError(
      await asUser(harness.app, admin, 'PUT', url, { version: 1, userLimit: 2, confirm: [randomUUID()] }),
      409,
      'plan_limit_exceeded',
    );
    const confirmed = await callAs(harness.app, admin, 'PUT', url, {
      version: 1,
      userLimit: 2,
      confirm: [planOwner.organization.id],
    });
    expect(confirmed).toMatchObject({ version: 2, userLimit: 2 });
    const [event] = (await em().find(BackofficeAuditEvent, { action: 'plan.updated' })).filter(
      (candidate) => candidate.details.plan === plan,
    );
    expect(event?.details.confirmedOrganizations).toEqual([planOwner.organization.id]);
  });

  it('never applies two simultaneous edits of one version: one is 409 version_conflict', async () => {
    const { plan, url } = await planWithOrganization();
    const answers = await Promise.all([
      asUser(harness.app, admin, 'PUT', url, { version: 1, teamLimit: 7 }),
      asUser(harness.app, admin, 'PUT', url, { version: 1, monthlyDocumentLimit: 200 }),
    ]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
    expect(answers.find((answer) => answer.statusCode === 409)?.json().error.code).toBe('version_conflict');
    const after = await planIn(plan);
    expect(after.version).toBe(2);
    expect(after.history).toHaveLength(1);
    // Exactly the winner's change: the loser's field kept its value.
    expect([after.teamLimit === 7, after.monthlyDocumentLimit === 200].filter(Boolean)).toHaveLength(1);

    expectError(
      await asUser(harness.app, admin, 'PUT', url, { version: 1, teamLimit: 8 }),
      409,
      'version_conflict',
    );
    expectError(
      await asUser(harness.app, admin, 'PUT', '/api/backoffice/plans/NoSuchPlan', {
        version: 1,
        teamLimit: 8,
      }),
      404,
      'not_found',
    );
    expectError(
      await asUser(harness.app, admin, 'PUT', url, { version: 2, teamLimit: -1 }),
      400,
      'invalid_request',
    );
  });
});
