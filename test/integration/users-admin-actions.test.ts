// An organization administrator's actions on other users through HTTP on real PostgreSQL (docs/administration.md):
// resetting a user's two-step verification (what it removes, the sessions it ends, the security log, the email in
// both languages, enrolment at the next sign-in when the organization requires it, the rank rules, another
// organization's user invisible), resending an invitation (a new link, the old one refused, the email again, at
// most one a minute), and the users list's search, filters, sort and pages (260 users).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AppUser,
  MfaBackupCode,
  Organization,
  Passkey,
  SecurityEvent,
  UserSession,
} from '../../db/entities/index.ts';
import { RESEND_LIMIT, resendInvitation } from '../../services/accounts/resend-invitation.ts';
import { resetMfa } from '../../services/accounts/reset-mfa.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectError } from '../support/app-requests.ts';
import { capturedTo } from '../support/auth-http.ts';
import { APP_ORIGIN, newSession, type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;

beforeAll(async () => {
  harness = await openApiHarness();
});
afterAll(() => harness?.close());

const em = () => harness.ctx.orm.em.fork();

const colleague = (owner: SignedInUser, role: string, extra: { fullName?: string; email?: string } = {}) =>
  signedInUser(harness, { role, organizationId: owner.organization.id, ...extra });

/** Gives the user an authenticator app, `codes` backup codes and `passkeys` passkeys, as enrolment stores them. */
async function giveSecondFactors(userId: string, codes: number, passkeys: number): Promise<void> {
  const fork = em();
  await fork.nativeUpdate(
    AppUser,
    { id: userId },
    { totpEnabledAt: new Date(), totpSecretEncrypted: 'v1:not-a-real-secret' },
  );
  for (let index = 0; index < codes; index += 1) {
    fork.create(MfaBackupCode, { id: randomUUID(), userId, codeHash: `hash-${randomUUID()}`, usedAt: null });
  }
  for (let index = 0; index < passkeys; index += 1) {
    fork.create(Passkey, {
      id: randomUUID(),
      userId,
      credentialId: randomUUID().replaceAll('-', ''),
      publicKey: 'cHVibGljLWtleQ',
      counter: 0,
      transports: ['internal'],
      name: `Passkey ${index + 1}`,
      createdAt: new Date(),
      lastUsedAt: null,
    });
  }
  await fork.flush();
}

/** What the user has left of two-step verification, and their open sessions. */
async function factorsOf(userId: string) {
  const fork = em();
  const user = await fork.findOneOrFail(AppUser, { id: userId });
  return {
    totp: user.totpEnabledAt !== null || user.totpSecretEncrypted !== null,
    backupCodes: await fork.count(MfaBackupCode, { userId }),
    passkeys: await fork.count(Passkey, { userId }),
    openSessions: await fork.count(UserSession, { userId, endedAt: null }),
  };
}

const resetPath = (userId: string) => `/api/users/${userId}/reset-mfa`;

describe('resetting a user’s two-step verification', () => {
  it('removes the app, backup codes and passkeys, ends every session, logs it and emails the user', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Olivia Owner' });
    const admin = await colleague(owner, 'administrator', { fullName: 'Adam Admin' });
    const target = await colleague(owner, 'sender', { fullName: 'Sam Sender' });
    await giveSecondFactors(target.user.id, 10, 2);
    await newSession(harness, target.user);
    expect(await factorsOf(target.user.id)).toEqual({
      totp: true,
      backupCodes: 10,
      passkeys: 2,
      openSessions: 2,
    });

    const reset = await callAs(harness.app, admin, 'POST', resetPath(target.user.id));
    expect(reset).toMatchObject({ id: target.user.id, status: 'active', mfaEnabled: false });
    expect(await factorsOf(target.user.id)).toEqual({
      totp: false,
      backupCodes: 0,
      passkeys: 0,
      openSessions: 0,
    });
    // The user's old session no longer works; the administrator's does.
    expectError(await asUser(harness.app, target, 'GET', '/api/auth/me'), 401, 'unauthorized');
    await callAs(harness.app, admin, 'GET', '/api/users');

    const [event, ...more] = await em().find(SecurityEvent, {
      organizationId: owner.organization.id,
      type: 'user.mfa_reset',
    });
    expect(more).toEqual([]);
    expect(event).toMatchObject({
      actorUserId: admin.user.id,
      subjectUserId: target.user.id,
      subjectEmail: target.email,
      details: { authenticatorApp: true, backupCodesRemoved: 10, passkeysRemoved: 2, sessionsEnded: 2 },
    });
    // The organization's security log shows it, naming both.
    const log = await callAs(harness.app, owner, 'GET', '/api/organization/security-log');
    expect(log.events[0]).toMatchObject({
      type: 'user.mfa_reset',
      actor: { id: admin.user.id },
      subject: { id: target.user.id },
    });

    const [email] = (await capturedTo(harness.app, target.email)).filter((sent) => sent.kind === 'mfa_reset');
    expect(email?.subject).toBe('Your two-step verification was reset');
    expect(email?.body).toContain('Test org');
    expect(email?.signingLink).toBe(`${APP_ORIGIN}/app/sign-in`);
  });

  it('emails a Hebrew-speaking user in Hebrew', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const target = await colleague(owner, 'sender');
    await em().nativeUpdate(AppUser, { id: target.user.id }, { language: 'he' });
    await giveSecondFactors(target.user.id, 1, 0);
    await callAs(harness.app, owner, 'POST', resetPath(target.user.id));
    const [email] = (await capturedTo(harness.app, target.email)).filter((sent) => sent.kind === 'mfa_reset');
    expect(email?.subject).toBe('האימות הדו-שלבי שלך אופס');
  });

  it('makes the next sign-in set two-step verification up again when the organization requires it', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    await giveSecondFactors(owner.user.id, 1, 0);
    await em().nativeUpdate(Organization, { id: owner.organization.id }, { mfaRequired: true });
    const target = await colleague(owner, 'sender');
    await giveSecondFactors(target.user.id, 3, 0);
    const signIn = () =>
      callAs(harness.app, { headers: { origin: APP_ORIGIN } }, 'POST', '/api/auth/login', {
        email: target.email,
        password: target.password,
      });
    expect((await signIn()).status).toBe('mfa_required');
    await callAs(harness.app, owner, 'POST', resetPath(target.user.id));
    expect(await signIn()).toMatchObject({ status: 'mfa_enrolment_required' });
  });

  it('follows the rules of acting on another user, and changes nothing when refused', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const otherOwner = await colleague(owner, 'owner');
    const admin = await colleague(owner, 'administrator');
    const otherAdmin = await colleague(owner, 'administrator');
    const sender = await colleague(owner, 'sender');
    const member = await colleague(owner, 'member');
    for (const user of [owner, otherOwner, admin, otherAdmin, sender]) {
      await giveSecondFactors(user.user.id, 2, 1);
    }
    const unchanged = async (user: SignedInUser) =>
      expect(await factorsOf(user.user.id)).toMatchObject({ totp: true, backupCodes: 2, passkeys: 1 });

    // Nobody resets their own here.
    expectError(
      await asUser(harness.app, admin, 'POST', resetPath(admin.user.id)),
      409,
      'cannot_change_self',
    );
    await unchanged(admin);
    // An administrator cannot reset an owner; an owner can.
    expectError(await asUser(harness.app, admin, 'POST', resetPath(owner.user.id)), 403, 'forbidden');
    await unchanged(owner);
    // Roles without users:manage cannot.
    for (const caller of [sender, member]) {
      expectError(await asUser(harness.app, caller, 'POST', resetPath(otherAdmin.user.id)), 403, 'forbidden');
    }
    await unchanged(otherAdmin);
    // An administrator may reset another administrator; an owner another owner.
    await callAs(harness.app, admin, 'POST', resetPath(otherAdmin.user.id));
    await callAs(harness.app, owner, 'POST', resetPath(otherOwner.user.id));
    expect(await factorsOf(otherOwner.user.id)).toMatchObject({ totp: false, passkeys: 0 });
    // Nothing left to reset; an invited user has none either.
    expectError(
      await asUser(harness.app, owner, 'POST', resetPath(otherAdmin.user.id)),
      409,
      'mfa_not_enabled',
    );
    const invited = await callAs(harness.app, owner, 'POST', '/api/users/invite', {
      fullName: 'Ina Invited',
      email: `ina-${randomUUID().slice(0, 8)}@example.com`,
      roleId: sender.role.id,
    });
    expectError(await asUser(harness.app, owner, 'POST', resetPath(invited.id)), 409, 'invitation_pending');
    // A malformed or unknown id: 404.
    expectError(await asUser(harness.app, owner, 'POST', resetPath(randomUUID())), 404, 'not_found');
    expectError(
      await asUser(harness.app, owner, 'POST', '/api/users/not-an-id/reset-mfa'),
      400,
      'invalid_request',
    );
  });

  it('a custom role with users:manage cannot reset someone who holds more than it', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const role = await callAs(harness.app, owner, 'POST', '/api/roles', {
      name: `Managers ${randomUUID().slice(0, 6)}`,
      permissions: ['users:read', 'users:manage'],
    });
    const manager = await colleague(owner, role.id);
    const admin = await colleague(owner, 'administrator');
    const peer = await colleague(owner, role.id);
    await giveSecondFactors(admin.user.id, 1, 0);
    await giveSecondFactors(peer.user.id, 1, 0);
    const refused = expectError(
      await asUser(harness.app, manager, 'POST', resetPath(admin.user.id)),
      403,
      'forbidden',
    );
    expect(refused.details.map((detail) => detail.permission)).toContain('documents:read');
    expect((await factorsOf(admin.user.id)).totp).toBe(true);
    await callAs(harness.app, manager, 'POST', resetPath(peer.user.id));
    expect((await factorsOf(peer.user.id)).totp).toBe(false);
  });

  it('another organization’s user is not found, and keeps their second factors', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const stranger = await signedInUser(harness, { role: 'sender' });
    await giveSecondFactors(stranger.user.id, 2, 1);
    expectError(await asUser(harness.app, owner, 'POST', resetPath(stranger.user.id)), 404, 'not_found');
    expect(await factorsOf(stranger.user.id)).toMatchObject({
      totp: true,
      backupCodes: 2,
      passkeys: 1,
      openSessions: 1,
    });
    expect(
      await em().count(SecurityEvent, { organizationId: owner.organization.id, type: 'user.mfa_reset' }),
    ).toBe(0);
  });

  it('platform staff reset with a reason, recorded in both logs', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const target = await colleague(owner, 'sender');
    await giveSecondFactors(target.user.id, 2, 1);
    const staff = {
      kind: 'platform_staff' as const,
      admin: { id: randomUUID(), email: 'support@sigil.test' },
      organizationId: owner.organization.id,
      ipAddress: '198.51.100.7',
    };
    const services = { em: em(), config: harness.ctx.config, clock: () => new Date() };
    await expect(resetMfa(services, { ...staff, reason: '   ' }, target.user.id)).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
    });
    // Another organization's user, named with this organization: not found.
    const stranger = await signedInUser(harness, { role: 'sender' });
    await giveSecondFactors(stranger.user.id, 1, 0);
    await expect(
      resetMfa({ ...services, em: em() }, { ...staff, reason: 'lost phone' }, stranger.user.id),
    ).rejects.toMatchObject({ status: 404 });
    expect((await factorsOf(stranger.user.id)).totp).toBe(true);
    expect((await factorsOf(target.user.id)).totp).toBe(true);

    await resetMfa(
      { ...services, em: em() },
      { ...staff, reason: 'Lost phone, ticket 4711' },
      target.user.id,
    );
    expect(await factorsOf(target.user.id)).toMatchObject({ totp: false, backupCodes: 0, passkeys: 0 });
    const event = await em().findOneOrFail(SecurityEvent, {
      subjectUserId: target.user.id,
      type: 'user.mfa_reset',
    });
    expect(event).toMatchObject({
      actorUserId: null,
      ipAddress: '198.51.100.7',
      details: { byPlatformStaff: 'support@sigil.test', reason: 'Lost phone, ticket 4711' },
    });
    const [audit] = await em()
      .getConnection()
      .execute('select action, actor_email, details from backoffice_audit_event where target_id = ?', [
        target.user.id,
      ]);
    expect(audit).toMatchObject({
      action: 'user.mfa_reset',
      actor_email: 'support@sigil.test',
      details: { reason: 'Lost phone, ticket 4711', organizationId: owner.organization.id },
    });
  });
});

/** Invites a new address as `by`, with the sender role; the invited user and the address. */
async function invite(by: SignedInUser, roleId: string) {
  const address = `ina-${randomUUID().slice(0, 8)}@example.com`;
  const user = await callAs(harness.app, by, 'POST', '/api/users/invite', {
    fullName: 'Ina Invited',
    email: address,
    roleId,
  });
  return { user, address };
}

/** The newest invitation link's token captured for the address. */
async function invitationToken(address: string): Promise<string> {
  const [email] = (await capturedTo(harness.app, address)).filter((sent) => sent.kind === 'invite');
  const token = email?.signingLink ? new URL(email.signingLink).searchParams.get('token') : null;
  if (!token) throw new Error(`no invitation captured for ${address}`);
  return token;
}

const resendPath = (userId: string) => `/api/users/${userId}/resend-invitation`;

describe('resending an invitation', () => {
  it('emails a new link, refuses the old one, and allows 3 resends an hour', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Olivia Owner' });
    const { user, address } = await invite(owner, (await colleague(owner, 'sender')).role.id);
    const first = await invitationToken(address);
    const tokens = [first];
    for (let resend = 1; resend <= RESEND_LIMIT.count; resend += 1) {
      expect(await callAs(harness.app, owner, 'POST', resendPath(user.id))).toMatchObject({
        status: 'invited',
      });
      const token = await invitationToken(address);
      expect(tokens).not.toContain(token);
      tokens.push(token);
    }
    const emails = (await capturedTo(harness.app, address)).filter((sent) => sent.kind === 'invite');
    expect(emails).toHaveLength(1 + RESEND_LIMIT.count);
    expect(emails[0]?.body).toContain('Olivia Owner');
    // Every earlier link is refused; the newest works.
    for (const old of tokens.slice(0, -1)) {
      expectError(
        await asUser(harness.app, null, 'POST', '/api/auth/accept-invite/claim', { token: old }),
        400,
        'invalid_token',
      );
    }
    // The fourth resend within the hour: 429 with Retry-After, no email, no new link.
    const refused = await asUser(harness.app, owner, 'POST', resendPath(user.id));
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    expect((await capturedTo(harness.app, address)).filter((sent) => sent.kind === 'invite')).toHaveLength(
      1 + RESEND_LIMIT.count,
    );
    expect(await invitationToken(address)).toBe(tokens.at(-1));
    const accepted = await asUser(harness.app, null, 'POST', '/api/auth/accept-invite/claim', {
      token: tokens.at(-1),
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    // An hour later it may be sent again.
    await em()
      .getConnection()
      .execute(
        "update login_throttle set first_failure_at = first_failure_at - interval '61 minutes' where key = ?",
        [`invite-resend:${user.id}`],
      );
    await callAs(harness.app, owner, 'POST', resendPath(user.id));
    expect(await invitationToken(address)).not.toBe(tokens.at(-1));
  });

  it('follows the rules of acting on another user; another organization’s invitation is not found', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const sender = await colleague(owner, 'sender');
    const admin = await colleague(owner, 'administrator');
    const { user } = await invite(owner, sender.role.id);
    expectError(await asUser(harness.app, sender, 'POST', resendPath(user.id)), 403, 'forbidden');
    const stranger = await signedInUser(harness, { role: 'owner' });
    expectError(await asUser(harness.app, stranger, 'POST', resendPath(user.id)), 404, 'not_found');
    expectError(await asUser(harness.app, admin, 'POST', resendPath(sender.user.id)), 409, 'not_invited');
    expect(await em().count(SecurityEvent, { subjectUserId: user.id, type: 'user.invitation_resent' })).toBe(
      0,
    );
    await callAs(harness.app, admin, 'POST', resendPath(user.id));
    expect(await em().count(SecurityEvent, { subjectUserId: user.id, type: 'user.invitation_resent' })).toBe(
      1,
    );
  });

  it('platform staff resend with a reason, recorded in both logs and signed by the first inviter', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Olivia Owner' });
    const sender = await colleague(owner, 'sender');
    const { user, address } = await invite(owner, sender.role.id);
    const first = await invitationToken(address);
    const staff = {
      kind: 'platform_staff' as const,
      admin: { id: randomUUID(), email: 'support@sigil.test' },
      organizationId: owner.organization.id,
      ipAddress: null,
    };
    const services = () => ({ em: em(), config: harness.ctx.config, clock: () => new Date() });
    await expect(resendInvitation(services(), { ...staff, reason: '' }, user.id)).rejects.toMatchObject({
      status: 400,
    });
    const resent = await resendInvitation(services(), { ...staff, reason: 'Invitation got lost' }, user.id);
    expect(resent.email).toMatchObject({
      kind: 'invite',
      to: address.toLowerCase(),
      invitedBy: 'Olivia Owner',
    });
    expect(resent.email?.link).not.toContain(first);
    const event = await em().findOneOrFail(SecurityEvent, {
      subjectUserId: user.id,
      type: 'user.invitation_resent',
    });
    expect(event).toMatchObject({ actorUserId: null, details: { byPlatformStaff: 'support@sigil.test' } });
    const [audit] = await em()
      .getConnection()
      .execute('select action, details from backoffice_audit_event where target_id = ?', [user.id]);
    expect(audit).toMatchObject({
      action: 'user.invitation_resent',
      details: { reason: 'Invitation got lost' },
    });
  });
});

describe('the users list', () => {
  type Listed = {
    id: string;
    email: string;
    fullName: string;
    status: string;
    role: { id: string };
    team: { id: string } | null;
  };
  type Page = { users: Listed[]; total: number; nextOffset: number | null };
  const list = (as: SignedInUser, query = '') => callAs<Page>(harness.app, as, 'GET', `/api/users${query}`);

  it('pages 260 users in a stable order, 100 at most a page, each user once', async () => {
    const owner = await signedInUser(harness, { role: 'owner', plan: 'Enterprise', fullName: 'Aaron Owner' });
    const fork = em();
    const now = Date.now();
    for (let index = 0; index < 259; index += 1) {
      fork.create(AppUser, {
        id: randomUUID(),
        organizationId: owner.organization.id,
        email: `bulk-${index}-${randomUUID().slice(0, 6)}@example.com`,
        // Every fifth name repeats: the order must still be total (then by id).
        fullName: `Bulk User ${String(index - (index % 5)).padStart(3, '0')}`,
        passwordHash: null,
        status: 'active',
        emailVerifiedAt: new Date(),
        roleId: owner.role.id,
        teamId: null,
        language: 'en',
        totpSecretEncrypted: null,
        totpPendingSecretEncrypted: null,
        totpEnabledAt: null,
        invitedAt: null,
        invitedBy: null,
        lastLoginAt: null,
        deletedAt: null,
        createdAt: new Date(now - 60_000 - index * 1000),
      });
    }
    await fork.flush();
    const seen: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const page: Page = await list(owner, `?limit=100&offset=${offset}`);
      expect(page.total).toBe(260);
      expect(page.users.length).toBeLessThanOrEqual(100);
      seen.push(...page.users.map((user) => user.id));
      offset = page.nextOffset;
      pages += 1;
    }
    expect(pages).toBe(3);
    expect(seen).toHaveLength(260);
    expect(new Set(seen).size).toBe(260);
    // The same order as one sort of everything by name, then id.
    const all = await em().find(AppUser, { organizationId: owner.organization.id });
    const expected = all
      .sort(
        (a, b) => a.fullName.toLowerCase().localeCompare(b.fullName.toLowerCase()) || (a.id < b.id ? -1 : 1),
      )
      .map((user) => user.id);
    expect(seen[0]).toBe(owner.user.id);
    expect(seen).toEqual(expected);
    // Default page: 50; past the end: empty with the total; more than 100: refused.
    expect((await list(owner)).users).toHaveLength(50);
    expect(await list(owner, '?offset=1000')).toEqual({ users: [], total: 260, nextOffset: null });
    const tooMany = expectError(
      await asUser(harness.app, owner, 'GET', '/api/users?limit=101'),
      400,
      'invalid_request',
    );
    expect(tooMany.details[0]?.field).toBe('querystring.limit');
    // Newest first by creation.
    const newest = await list(owner, '?sort=createdAt&order=desc&limit=2');
    expect(newest.users[0]?.id).toBe(owner.user.id);
  });

  it('searches names and addresses, and filters by role, team and status', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Olivia Owner' });
    const team = await callAs(harness.app, owner, 'POST', '/api/teams', { name: 'Sales' });
    const sender = await colleague(owner, 'sender', {
      fullName: 'Dana Levi',
      email: `dana.levi-${randomUUID().slice(0, 6)}@example.com`,
    });
    const admin = await colleague(owner, 'administrator', { fullName: 'Yossi Cohen' });
    const gone = await colleague(owner, 'sender', { fullName: 'Dov Deactivated' });
    const locked = await colleague(owner, 'member', { fullName: 'Lea Locked' });
    await callAs(harness.app, owner, 'PUT', `/api/users/${sender.user.id}`, { teamId: team.id });
    await callAs(harness.app, owner, 'PUT', `/api/users/${gone.user.id}`, { status: 'deactivated' });
    const { user: invited } = await invite(owner, sender.role.id);
    await em()
      .getConnection()
      .execute(
        `insert into login_throttle (key, failures, first_failure_at, last_failure_at, locked_until)
         values (?, 10, now(), now(), now() + interval '15 minutes')`,
        [`account:${locked.email}`],
      );
    const ids = async (query: string) => (await list(owner, query)).users.map((user) => user.id);

    expect(await ids('?search=dana')).toEqual([sender.user.id]);
    expect(await ids('?search=LEVI%20dana')).toEqual([sender.user.id]);
    expect(await ids(`?search=${encodeURIComponent(sender.email.slice(0, 12))}`)).toEqual([sender.user.id]);
    expect(await ids('?search=%25')).toEqual([]);
    expect(await ids(`?roleId=${admin.role.id}`)).toEqual([admin.user.id]);
    expect(await ids(`?teamId=${team.id}`)).toEqual([sender.user.id]);
    expect((await ids('?teamId=none')).sort()).toEqual(
      [owner.user.id, admin.user.id, gone.user.id, locked.user.id, invited.id].sort(),
    );
    expect(await ids('?status=invited')).toEqual([invited.id]);
    expect(await ids('?status=deactivated')).toEqual([gone.user.id]);
    expect(await ids('?status=locked')).toEqual([locked.user.id]);
    expect((await ids('?status=active')).sort()).toEqual(
      [owner.user.id, sender.user.id, admin.user.id].sort(),
    );
    expect(await ids(`?status=active&roleId=${sender.role.id}&search=levi`)).toEqual([sender.user.id]);
    expect((await list(owner, '?status=active')).total).toBe(3);
    for (const [query, field] of [
      ['?status=deleted', 'querystring.status'],
      ['?roleId=nope', 'querystring.roleId'],
      ['?sort=password', 'querystring.sort'],
      [`?search=${'x'.repeat(101)}`, 'querystring.search'],
      ['?color=red', 'querystring'],
    ] as const) {
      const refused = expectError(
        await asUser(harness.app, owner, 'GET', `/api/users${query}`),
        400,
        'invalid_request',
      );
      expect(refused.details.map((detail) => detail.field).join(' ')).toContain(field);
    }
    // Another organization's users never appear, whatever the search.
    const stranger = await signedInUser(harness, { role: 'owner', fullName: 'Dana Stranger' });
    expect(await ids('?search=dana')).toEqual([sender.user.id]);
    expect((await list(stranger, '?search=dana')).users.map((user) => user.id)).toEqual([stranger.user.id]);
    // A member reads the list (users:read) but cannot reset or resend.
    const member = await colleague(owner, 'member');
    expect((await list(member, '?search=dana')).total).toBe(1);
  });
});
