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
