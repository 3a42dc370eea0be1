// The organization's administration through HTTP with real signed-in sessions (docs/administration.md):
// users (invite → the email in the development capture → its link claimed and accepted; a resent invitation
// kills the old link; status, role and team changes; two-step verification shown on with an app or a passkey;
// soft deletion that keeps the name and removes the credentials, passkeys included), roles (built-in ones
// immutable, custom ones created, changed, refused while in use; nobody grants more than they hold), teams
// (deleting one unassigns its members), the plan's user and team limits, the last owner and owner-only
// grants, settings (validation that changes nothing, partial updates) and where the settings are used (the
// envelope email by SMTP, the invitation email, the signer view, the default expiry and the default
// authentication of new envelopes), and the security log (actors, subjects, newest first, pages).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationActivities } from '../../activities/notifications.ts';
import {
  AppUser,
  DevNotification,
  Organization,
  Passkey,
  Plan,
  SecurityEvent,
  UserSession,
} from '../../db/entities/index.ts';
import {
  BUILT_IN_ROLE_PERMISSIONS,
  BUILT_IN_ROLES,
  type BuiltInRole,
  PERMISSIONS,
} from '../../domain/permissions.ts';
import { accountEmailsSettled } from '../../services/accounts/account-emails.ts';
import { issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';
import { asUser, type Caller, callAs, expectError } from '../support/app-requests.ts';
import { APP_ORIGIN, newSession, type SignedInUser, signedInUser } from '../support/signed-in-user.ts';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink.ts';

let harness: ApiHarness;

beforeAll(async () => {
  harness = await openApiHarness();
});
afterAll(() => harness?.close());

/** The organization's roles by built-in name (and custom ones by name). */
async function roleIds(as: Caller): Promise<Record<string, string>> {
  const { roles } = await callAs(harness.app, as, 'GET', '/api/roles');
  return Object.fromEntries(
    roles.map((role: { id: string; name: string; builtIn: string | null }) => [
      role.builtIn ?? role.name,
      role.id,
    ]),
  );
}

const em = () => harness.ctx.orm.em.fork();
const newAddress = (name = 'user') => `${name}.${randomUUID().slice(0, 8)}@Example.com`;

/** The newest invitation captured for the address, and its link's token. */
async function invitationTo(address: string) {
  await accountEmailsSettled();
  const [row] = await em().find(
    DevNotification,
    { to: address.toLowerCase(), kind: 'invite' },
    { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], limit: 1 },
  );
  if (!row) throw new Error(`no invitation captured for ${address}`);
  const link = row.signingLink ?? '';
  expect(link).toMatch(/^http:\/\/localhost:3000\/app\/accept-invite\?token=[\w-]{43}$/);
  return { row, token: new URL(link).searchParams.get('token') as string };
}

async function eventsOf(organizationId: string, type?: string) {
  return em().find(
    SecurityEvent,
    { organizationId, ...(type ? { type } : {}) },
    { orderBy: [{ occurredAt: 'asc' }, { id: 'asc' }] },
  );
}

/**
 * Passkey rows for a user, as registration stores them (the listing and the cleanup only look at the rows; the
 * WebAuthn ceremony itself is test/integration/passkeys.test.ts's).
 */
async function givePasskeys(userId: string, count: number): Promise<void> {
  const fork = em();
  for (let index = 0; index < count; index += 1) {
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

/** A second user of the owner's organization. */
const colleague = (owner: SignedInUser, role: BuiltInRole | string, fullName?: string) =>
  signedInUser(harness, { role, organizationId: owner.organization.id, ...(fullName ? { fullName } : {}) });

describe('users and invitations', () => {
  it('invites a user by email; the link is claimed and accepted; a resent invitation kills the old link', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Olivia Owner' });
    const roles = await roleIds(owner);
    const team = await callAs(harness.app, owner, 'POST', '/api/teams', { name: 'Sales' });
    const address = newAddress('Noa');

    const invited = await callAs(harness.app, owner, 'POST', '/api/users/invite', {
      fullName: 'Noa Bar',
      email: address,
      roleId: roles.sender,
      teamId: team.id,
    });
    expect(invited).toMatchObject({
      email: address.toLowerCase(),
      fullName: 'Noa Bar',
      status: 'invited',
      role: { id: roles.sender, name: 'Sender' },
      team: { id: team.id, name: 'Sales' },
      mfaEnabled: false,
      lastLoginAt: null,
    });
    expect(Date.parse(invited.invitedAt)).toBeGreaterThan(Date.now() - 60_000);
    const { users } = await callAs(harness.app, owner, 'GET', '/api/users');
    expect(users.map((user: { email: string; status: string }) => [user.email, user.status]).sort()).toEqual(
      [
        [owner.email, 'active'],
        [address.toLowerCase(), 'invited'],
      ].sort(),
    );
    // An invited user has no password yet.
    expect((await em().findOneOrFail(AppUser, { id: invited.id })).passwordHash).toBeNull();

    // The email went to the development capture, with the inviter and a link to the web app's page.
    const first = await invitationTo(address);
    expect(first.row.subject).toContain(owner.organization.name);
    expect(first.row.body).toContain('Invited by Olivia Owner.');
    expect(first.row.body).toContain(first.row.signingLink);
    const claimed = await callAs(harness.app, null, 'POST', '/api/auth/accept-invite/claim', {
      token: first.token,
    });
    expect(claimed).toEqual({
      email: address.toLowerCase(),
      fullName: 'Noa Bar',
      organizationName: owner.organization.name,
      roleName: 'Sender',
    });

    // Resent: a new link; the first one stops working.
    const resent = await callAs(harness.app, owner, 'POST', `/api/users/${invited.id}/resend-invitation`);
    expect(resent.status).toBe('invited');
    const second = await invitationTo(address);
    expect(second.token).not.toBe(first.token);
    expectError(
      await asUser(harness.app, null, 'POST', '/api/auth/accept-invite/claim', { token: first.token }),
      400,
      'invalid_token',
    );
    expectError(
      await asUser(harness.app, null, 'POST', '/api/auth/accept-invite', {
        token: first.token,
        fullName: 'Noa Bar',
        password: 'a long enough password',
      }),
      400,
      'invalid_token',
    );

    // Accepted with the new link: active, signed in, with the role and team given.
    const accepted = await asUser(harness.app, null, 'POST', '/api/auth/accept-invite', {
      token: second.token,
      fullName: 'Noa Bar-Levi',
      password: 'a long enough password',
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const cookie = accepted.cookies.find((candidate) => candidate.name === 'sigil_session')?.value;
    expect(cookie).toBeTruthy();
    const asNoa = { headers: { cookie: `sigil_session=${cookie}`, origin: APP_ORIGIN } };
    // A sender reads users but manages none.
    const seen = (await callAs(harness.app, asNoa, 'GET', '/api/users')).users.find(
      (user: { id: string }) => user.id === invited.id,
    );
    expect(seen).toMatchObject({ status: 'active', fullName: 'Noa Bar-Levi', team: { name: 'Sales' } });
    expectError(
      await asUser(harness.app, asNoa, 'POST', '/api/users/invite', {
        fullName: 'X',
        email: newAddress(),
        roleId: roles.member,
      }),
      403,
      'forbidden',
    );

    // Nothing left to resend.
    expectError(
      await asUser(harness.app, owner, 'POST', `/api/users/${invited.id}/resend-invitation`, undefined),
      409,
      'not_invited',
    );

    const events = await eventsOf(owner.organization.id);
    expect(events.map((event) => event.type).slice(0, 3)).toEqual([
      'team.created',
      'user.invited',
      'user.invitation_resent',
    ]);
    // Accepting records both in one transaction, at the same instant: their order is not defined.
    expect(
      events
        .map((event) => event.type)
        .slice(3)
        .sort(),
    ).toEqual(['user.invitation_accepted', 'user.signed_in']);
    expect(events[1]).toMatchObject({
      actorUserId: owner.user.id,
      subjectUserId: invited.id,
      subjectEmail: address.toLowerCase(),
      details: { role: 'Sender', team: 'Sales' },
    });
  });

  it('refuses an address a user of the organization has, a role or team of another organization, and bad input, changing nothing', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const other = await signedInUser(harness, { role: 'owner' });
    const roles = await roleIds(owner);
    const otherRoles = await roleIds(other);
    const otherTeam = await callAs(harness.app, other, 'POST', '/api/teams', { name: 'Elsewhere' });
    const count = async () => em().count(AppUser, { organizationId: owner.organization.id });
    const before = await count();

    // The organization's own user's address, in another case (another organization's is invited: see below).
    const taken = expectError(
      await asUser(harness.app, owner, 'POST', '/api/users/invite', {
        fullName: 'Twin',
        email: owner.email.toUpperCase(),
        roleId: roles.member,
      }),
      409,
      'email_taken',
    );
    expect(taken.details).toEqual([{ field: 'body.email', message: expect.any(String) }]);
    expect(taken.message).toMatch(/already a user of this organization/);
    const foreignRole = expectError(
      await asUser(harness.app, owner, 'POST', '/api/users/invite', {
        fullName: 'Someone',
        email: newAddress(),
        roleId: otherRoles.member,
      }),
      400,
      'invalid_request',
    );
    expect(foreignRole.details.map((detail) => detail.field)).toEqual(['body.roleId']);
    const foreignTeam = expectError(
      await asUser(harness.app, owner, 'POST', '/api/users/invite', {
        fullName: 'Someone',
        email: newAddress(),
        roleId: roles.member,
        teamId: otherTeam.id,
      }),
      400,
      'invalid_request',
    );
    expect(foreignTeam.details.map((detail) => detail.field)).toEqual(['body.teamId']);
    for (const [body, field] of [
      [{ fullName: 'A', email: 'not-an-address', roleId: roles.member }, 'body.email'],
      [{ fullName: '', email: newAddress(), roleId: roles.member }, 'body.fullName'],
      [{ fullName: 'A', email: newAddress(), roleId: 'nope' }, 'body.roleId'],
    ] as const) {
      const error = expectError(
        await asUser(harness.app, owner, 'POST', '/api/users/invite', body),
        400,
        'invalid_request',
      );
      expect(error.details.map((detail) => detail.field)).toContain(field);
    }
    expectError(
      await asUser(harness.app, owner, 'PUT', '/api/users/not-a-uuid', { status: 'active' }),
      400,
      'invalid_request',
    );
    expectError(
      await asUser(harness.app, owner, 'PUT', `/api/users/${owner.user.id}`, { status: 'deleted' }),
      400,
      'invalid_request',
    );
    expect(await count()).toBe(before);
    expect(await em().count(DevNotification, { organizationId: owner.organization.id })).toBe(0);
  });

  it('invites an address that has an account in another organization like any other, and tells its holder instead (issue 30)', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Olivia Owner' });
    const roles = await roleIds(owner);
    const elsewhere = await signedInUser(harness, { role: 'owner' });
    const holder = await colleague(elsewhere, 'member', 'Hila Holder');
    const fresh = newAddress('fresh');
    const shape = (view: Record<string, unknown>) => ({
      ...view,
      id: 'id',
      email: 'email',
      fullName: 'name',
      invitedAt: 'time',
      createdAt: 'time',
    });

    // The same answer for an address held elsewhere (in another case) and for a new one.
    const held = await callAs(harness.app, owner, 'POST', '/api/users/invite', {
      fullName: 'Hila H.',
      email: holder.email.toUpperCase(),
      roleId: roles.member,
    });
    const unknown = await callAs(harness.app, owner, 'POST', '/api/users/invite', {
      fullName: 'Fresh F.',
      email: fresh,
      roleId: roles.member,
    });
    expect(shape(held)).toEqual(shape(unknown));
    expect(held).toMatchObject({
      email: holder.email,
      status: 'invited',
      role: { name: 'Read-only member' },
    });
    const listed = (await callAs(harness.app, owner, 'GET', '/api/users')).users.map(
      (user: { email: string; status: string }) => [user.email, user.status],
    );
    expect(listed).toEqual(
      expect.arrayContaining([
        [holder.email, 'invited'],
        [fresh.toLowerCase(), 'invited'],
      ]),
    );
    expect((await eventsOf(owner.organization.id, 'user.invited')).map((event) => event.details)).toEqual([
      { role: 'Read-only member', team: null },
      { role: 'Read-only member', team: null },
    ]);

    // The holder gets no link (their address is theirs), but a notice naming the organization and the inviter.
    await accountEmailsSettled();
    const toHolder = await em().find(
      DevNotification,
      { to: holder.email },
      { orderBy: { createdAt: 'asc' } },
    );
    expect(toHolder.map((row) => row.kind)).toEqual(['invitation_attempt']);
    expect(toHolder[0]?.subject).toContain(owner.organization.name);
    expect(toHolder[0]?.body).toContain('Olivia Owner');
    expect(toHolder[0]?.body).toMatch(/one organization only/);
    expect(toHolder[0]?.signingLink).toBe('http://localhost:3000/app/sign-in');
    expect((await invitationTo(fresh)).row.kind).toBe('invite');

    // The holder's own account is untouched: they sign in to their organization as before.
    const signIn = await asUser(harness.app, null, 'POST', '/api/auth/login', {
      email: holder.email,
      password: holder.password,
    });
    expect(signIn.statusCode, signIn.body).toBe(200);
    expect(signIn.json().status).toBe('signed_in');
    const session = await em().findOneOrFail(
      UserSession,
      { userId: holder.user.id, endedAt: null },
      { orderBy: { createdAt: 'desc' } },
    );
    expect(session.organizationId).toBe(elsewhere.organization.id);
    // Inviting it again here is refused like any invited address of the organization.
    expectError(
      await asUser(harness.app, owner, 'POST', '/api/users/invite', {
        fullName: 'Again',
        email: holder.email,
        roleId: roles.member,
      }),
      409,
      'email_taken',
    );

    // Resent while the address is held: the same answer; within the minute, no second notice.
    expect((await callAs(harness.app, owner, 'POST', `/api/users/${held.id}/resend-invitation`)).status).toBe(
      'invited',
    );
    await accountEmailsSettled();
    expect(await em().count(DevNotification, { to: holder.email })).toBe(1);

    // Once the other account is deleted, a resent invitation carries a link, which the person accepts.
    await callAs(harness.app, elsewhere, 'DELETE', `/api/users/${holder.user.id}`);
    await callAs(harness.app, owner, 'POST', `/api/users/${held.id}/resend-invitation`);
    const { token } = await invitationTo(holder.email);
    const accepted = await asUser(harness.app, null, 'POST', '/api/auth/accept-invite', {
      token,
      fullName: 'Hila Holder',
      password: 'a long enough password',
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(await em().findOneOrFail(AppUser, { id: held.id })).toMatchObject({
      status: 'active',
      organizationId: owner.organization.id,
      emailHeldElsewhere: false,
    });
  });

  it('changes roles, teams and status: deactivation and role changes end sessions, the events say what changed', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const member = await colleague(owner, 'member', 'Mia Member');
    const roles = await roleIds(owner);
    const blue = await callAs(harness.app, owner, 'POST', '/api/teams', { name: 'Blue' });
    const green = await callAs(harness.app, owner, 'POST', '/api/teams', { name: 'Green' });
    const url = `/api/users/${member.user.id}`;

    // Team: set, moved, removed (null); the member's session goes on.
    expect((await callAs(harness.app, owner, 'PUT', url, { teamId: blue.id })).team).toEqual({
      id: blue.id,
      name: 'Blue',
    });
    expect((await callAs(harness.app, owner, 'PUT', url, { teamId: green.id })).team).toEqual({
      id: green.id,
      name: 'Green',
    });
    expect((await callAs(harness.app, owner, 'PUT', url, { teamId: null })).team).toBeNull();
    expect((await asUser(harness.app, member, 'GET', '/api/users')).statusCode).toBe(200);

    // Role: the member's sessions end (a privilege change means signing in again).
    const promoted = await callAs(harness.app, owner, 'PUT', url, { roleId: roles.administrator });
    expect(promoted.role).toEqual({ id: roles.administrator, name: 'Administrator' });
    expect((await asUser(harness.app, member, 'GET', '/api/users')).statusCode).toBe(401);
    const again = { headers: await newSession(harness, member.user) };
    expect((await asUser(harness.app, again, 'GET', '/api/roles')).statusCode).toBe(200);

    // Deactivated: sessions end and the old cookie stays dead after reactivation; a new sign-in works.
    expect((await callAs(harness.app, owner, 'PUT', url, { status: 'deactivated' })).status).toBe(
      'deactivated',
    );
    expect((await asUser(harness.app, again, 'GET', '/api/users')).statusCode).toBe(401);
    expect(
      await em().count(UserSession, { userId: member.user.id, endedAt: null }),
      'no session of a deactivated user stays open',
    ).toBe(0);
    expect((await callAs(harness.app, owner, 'PUT', url, { status: 'active' })).status).toBe('active');
    expect((await asUser(harness.app, again, 'GET', '/api/users')).statusCode).toBe(401);
    expect(
      (await asUser(harness.app, { headers: await newSession(harness, member.user) }, 'GET', '/api/users'))
        .statusCode,
    ).toBe(200);

    // Nothing to change: no event.
    await callAs(harness.app, owner, 'PUT', url, {
      roleId: roles.administrator,
      teamId: null,
      status: 'active',
    });

    const events = (await eventsOf(owner.organization.id)).filter((event) => event.type.startsWith('user.'));
    expect(events.map((event) => [event.type, event.details])).toEqual([
      ['user.updated', { team: { from: null, to: 'Blue' } }],
      ['user.updated', { team: { from: 'Blue', to: 'Green' } }],
      ['user.updated', { team: { from: 'Green', to: null } }],
      ['user.updated', { role: { from: 'Read-only member', to: 'Administrator' } }],
      ['user.deactivated', {}],
      ['user.reactivated', {}],
    ]);
    for (const event of events) {
      expect(event).toMatchObject({ actorUserId: owner.user.id, subjectUserId: member.user.id });
    }
    // Nobody deactivates themselves.
    expectError(
      await asUser(harness.app, owner, 'PUT', `/api/users/${owner.user.id}`, { status: 'deactivated' }),
      409,
      'cannot_change_self',
    );
    // An invited user has no status to change.
    const invited = await callAs(harness.app, owner, 'POST', '/api/users/invite', {
      fullName: 'Ivy Invited',
      email: newAddress(),
      roleId: roles.member,
    });
    expectError(
      await asUser(harness.app, owner, 'PUT', `/api/users/${invited.id}`, { status: 'active' }),
      409,
      'invitation_pending',
    );
  });

  it('keeps the last active owner, and lets only owners give, take or act on the owner role', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'First Owner' });
    const admin = await colleague(owner, 'administrator');
    const member = await colleague(owner, 'member');
    const roles = await roleIds(owner);

    // An administrator can neither give the owner role, nor take it, nor deactivate or delete an owner.
    for (const [method, url, body] of [
      ['PUT', `/api/users/${member.user.id}`, { roleId: roles.owner }],
      ['PUT', `/api/users/${owner.user.id}`, { roleId: roles.member }],
      ['PUT', `/api/users/${owner.user.id}`, { status: 'deactivated' }],
      ['DELETE', `/api/users/${owner.user.id}`, undefined],
      ['POST', '/api/users/invite', { fullName: 'New Owner', email: newAddress(), roleId: roles.owner }],
    ] as const) {
      expectError(await asUser(harness.app, admin, method, url, body), 403, 'forbidden');
    }
    // …but manages everyone else.
    expect(
      (await callAs(harness.app, admin, 'PUT', `/api/users/${member.user.id}`, { roleId: roles.sender })).role
        .name,
    ).toBe('Sender');

    // The last active owner cannot step down (nor deactivate or delete themselves).
    const last = expectError(
      await asUser(harness.app, owner, 'PUT', `/api/users/${owner.user.id}`, { roleId: roles.administrator }),
      409,
      'last_owner',
    );
    expect(last.message).toMatch(/last active owner/);
    expectError(
      await asUser(harness.app, owner, 'DELETE', `/api/users/${owner.user.id}`, undefined),
      409,
      'cannot_change_self',
    );

    // An owner makes another owner; then the first may step down (and must sign in again).
    await callAs(harness.app, owner, 'PUT', `/api/users/${admin.user.id}`, { roleId: roles.owner });
    const secondOwner = { headers: await newSession(harness, admin.user) };
    await callAs(harness.app, owner, 'PUT', `/api/users/${owner.user.id}`, { roleId: roles.administrator });
    expect((await asUser(harness.app, owner, 'GET', '/api/users')).statusCode).toBe(401);
    // Now the second owner is the last one.
    expectError(
      await asUser(harness.app, secondOwner, 'PUT', `/api/users/${admin.user.id}`, { roleId: roles.member }),
      409,
      'last_owner',
    );
    // A deactivated owner does not count as one.
    const thirdOwner = await colleague(owner, 'owner');
    await callAs(harness.app, secondOwner, 'PUT', `/api/users/${thirdOwner.user.id}`, {
      status: 'deactivated',
    });
    expectError(
      await asUser(harness.app, secondOwner, 'PUT', `/api/users/${admin.user.id}`, { roleId: roles.member }),
      409,
      'last_owner',
    );
    const active = await em().count(AppUser, {
      organizationId: owner.organization.id,
      roleId: roles.owner,
      status: 'active',
    });
    expect(active).toBe(1);
  });

  it('lets nobody act on a user who holds more than they do: no deactivation, deletion, team move or re-invitation (issue 30)', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const roles = await roleIds(owner);
    const managers = await callAs(harness.app, owner, 'POST', '/api/roles', {
      name: 'User managers',
      permissions: ['users:read', 'users:manage'],
    });
    const readers = await callAs(harness.app, owner, 'POST', '/api/roles', {
      name: 'Directory',
      permissions: ['users:read'],
    });
    const manager = await colleague(owner, managers.id, 'Uma Manager');
    const admin = await colleague(owner, 'administrator', 'Ada Admin');
    const team = await callAs(harness.app, owner, 'POST', '/api/teams', { name: 'Ops' });
    const invitedAdmin = await callAs(harness.app, owner, 'POST', '/api/users/invite', {
      fullName: 'Ian Invited',
      email: newAddress('invited-admin'),
      roleId: roles.administrator,
    });
    const before = await em().findOneOrFail(AppUser, { id: admin.user.id });

    for (const [method, url, body] of [
      ['PUT', `/api/users/${admin.user.id}`, { status: 'deactivated' }],
      ['DELETE', `/api/users/${admin.user.id}`, undefined],
      ['PUT', `/api/users/${admin.user.id}`, { teamId: team.id }],
      ['PUT', `/api/users/${admin.user.id}`, { roleId: readers.id }],
      ['POST', `/api/users/${invitedAdmin.id}/resend-invitation`, undefined],
      ['DELETE', `/api/users/${invitedAdmin.id}`, undefined],
    ] as const) {
      const refusal = expectError(await asUser(harness.app, manager, method, url, body), 403, 'forbidden');
      expect(refusal.message, `${method} ${url}`).toMatch(/holds permissions your own role does not have/);
      expect(refusal.details.map((detail) => detail.permission)).toContain('documents:read_all');
    }
    // Nothing changed: the administrator is active, in no team, with the role and the session they had.
    expect(await em().findOneOrFail(AppUser, { id: admin.user.id })).toMatchObject({
      status: 'active',
      teamId: null,
      roleId: before.roleId,
    });
    expect((await asUser(harness.app, admin, 'GET', '/api/roles')).statusCode).toBe(200);
    expect(await em().findOneOrFail(AppUser, { id: invitedAdmin.id })).toMatchObject({ status: 'invited' });
    expect(await eventsOf(owner.organization.id, 'user.invitation_resent')).toEqual([]);

    // A user who holds no more than the manager is theirs to manage: team, status, re-invitation, deletion.
    const peer = await colleague(owner, readers.id, 'Pat Peer');
    expect(
      (await callAs(harness.app, manager, 'PUT', `/api/users/${peer.user.id}`, { teamId: team.id })).team
        .name,
    ).toBe('Ops');
    expect(
      (await callAs(harness.app, manager, 'PUT', `/api/users/${peer.user.id}`, { status: 'deactivated' }))
        .status,
    ).toBe('deactivated');
    const invitedPeer = await callAs(harness.app, owner, 'POST', '/api/users/invite', {
      fullName: 'Ivo Invited',
      email: newAddress('invited-peer'),
      roleId: readers.id,
    });
    await callAs(harness.app, manager, 'POST', `/api/users/${invitedPeer.id}/resend-invitation`);
    await callAs(harness.app, manager, 'DELETE', `/api/users/${peer.user.id}`);
  });

  it('soft-deletes a user: the name stays attributable, the address is free again, sessions and links die', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const roles = await roleIds(owner);
    const leaver = await colleague(owner, 'sender', 'Lee Leaver');
    const address = leaver.email;
    await callAs(harness.app, owner, 'PUT', `/api/users/${leaver.user.id}`, { status: 'deactivated' });
    await callAs(harness.app, owner, 'PUT', `/api/users/${leaver.user.id}`, { status: 'active' });
    const session = { headers: await newSession(harness, leaver.user) };

    expect(await callAs(harness.app, owner, 'DELETE', `/api/users/${leaver.user.id}`)).toEqual({ ok: true });
    expect((await asUser(harness.app, session, 'GET', '/api/users')).statusCode).toBe(401);
    const row = await em().findOneOrFail(AppUser, { id: leaver.user.id });
    expect(row).toMatchObject({
      status: 'deleted',
      fullName: 'Lee Leaver',
      email: `deleted+${leaver.user.id}@invalid`,
      passwordHash: null,
    });
    expect(row.deletedAt).toBeInstanceOf(Date);
    const { users } = await callAs(harness.app, owner, 'GET', '/api/users');
    expect(users.map((user: { id: string }) => user.id)).not.toContain(leaver.user.id);
    // Gone for every route: 404 like an unknown id.
    expectError(
      await asUser(harness.app, owner, 'PUT', `/api/users/${leaver.user.id}`, { roleId: roles.member }),
      404,
      'not_found',
    );
    expectError(
      await asUser(harness.app, owner, 'DELETE', `/api/users/${leaver.user.id}`, undefined),
      404,
      'not_found',
    );

    // The log still names them: the earlier events by name, the deletion with the address they had.
    const log = await callAs(harness.app, owner, 'GET', '/api/organization/security-log');
    const deleted = log.events.find((event: { type: string }) => event.type === 'user.deleted');
    expect(deleted).toMatchObject({
      actor: { id: owner.user.id, email: owner.email },
      subject: { id: leaver.user.id, email: address },
      details: { role: 'Sender', status: 'active' },
    });
    // The address can be invited again, and a deleted invitation's link no longer works.
    const reinvited = await callAs(harness.app, owner, 'POST', '/api/users/invite', {
      fullName: 'Lee Again',
      email: address,
      roleId: roles.member,
    });
    const { token } = await invitationTo(address);
    await callAs(harness.app, owner, 'DELETE', `/api/users/${reinvited.id}`);
    expectError(
      await asUser(harness.app, null, 'POST', '/api/auth/accept-invite/claim', { token }),
      400,
      'invalid_token',
    );
    // Nobody deletes themselves.
    expectError(
      await asUser(harness.app, owner, 'DELETE', `/api/users/${owner.user.id}`, undefined),
      409,
      'cannot_change_self',
    );
  });
});

describe('two-step verification in the users list', () => {
  it('shows it on for an authenticator app or a passkey (one row per user), and deleting a user removes their passkeys', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const roles = await roleIds(owner);
    const withApp = await colleague(owner, 'member', 'Ada App');
    const withPasskeys = await colleague(owner, 'member', 'Pat Passkey');
    const without = await colleague(owner, 'member', 'Nat None');
    await em().nativeUpdate(AppUser, { id: withApp.user.id }, { totpEnabledAt: new Date() });
    await givePasskeys(withPasskeys.user.id, 3);
    // Another organization's passkeys count for nobody here.
    const stranger = await signedInUser(harness, { role: 'owner' });
    await givePasskeys(stranger.user.id, 1);

    const { users } = await callAs(harness.app, owner, 'GET', '/api/users');
    const mfaByName = Object.fromEntries(
      users.map((user: { fullName: string; mfaEnabled: boolean }) => [user.fullName, user.mfaEnabled]),
    );
    expect(mfaByName).toMatchObject({ 'Ada App': true, 'Pat Passkey': true, 'Nat None': false });
    expect(mfaByName[owner.user.fullName]).toBe(false);
    expect(users).toHaveLength(4);
    // An update's answer says it too.
    const updated = await callAs(harness.app, owner, 'PUT', `/api/users/${withPasskeys.user.id}`, {
      roleId: roles.sender,
    });
    expect(updated).toMatchObject({ mfaEnabled: true, role: { name: 'Sender' } });
    expect(
      (await callAs(harness.app, owner, 'PUT', `/api/users/${without.user.id}`, { roleId: roles.sender }))
        .mfaEnabled,
    ).toBe(false);

    // Deleting the user clears their credentials, passkeys with the rest; others' stay.
    expect(await callAs(harness.app, owner, 'DELETE', `/api/users/${withPasskeys.user.id}`)).toEqual({
      ok: true,
    });
    expect(await em().count(Passkey, { userId: withPasskeys.user.id })).toBe(0);
    expect(await em().count(Passkey, { userId: stranger.user.id })).toBe(1);
    const after = await callAs(harness.app, owner, 'GET', '/api/users');
    expect(after.users.map((user: { fullName: string }) => user.fullName)).not.toContain('Pat Passkey');
  });
});

describe('plan limits', () => {
  it("refuses users beyond the plan's limit (active and invited count), and teams beyond it", async () => {
    const starter = await em().findOneOrFail(Plan, { name: 'Starter' });
    const userLimit = starter.userLimit as number;
    const teamLimit = starter.teamLimit as number;
    expect(userLimit).toBeGreaterThanOrEqual(2);
    const owner = await signedInUser(harness, { role: 'owner', plan: 'Starter' });
    const member = await colleague(owner, 'member');
    const roles = await roleIds(owner);
    const invite = () =>
      asUser(harness.app, owner, 'POST', '/api/users/invite', {
        fullName: 'Extra',
        email: newAddress(),
        roleId: roles.member,
      });

    for (let seated = 2; seated < userLimit; seated += 1) expect((await invite()).statusCode).toBe(200);
    const full = await invite();
    expect(full.statusCode, full.body).toBe(409);
    expect(full.json().error).toMatchObject({ code: 'plan_limit' });
    expect(full.json().error.message).toContain(`The Starter plan allows ${userLimit} users`);

    // A deactivated user frees a seat; reactivating them needs one again.
    await callAs(harness.app, owner, 'PUT', `/api/users/${member.user.id}`, { status: 'deactivated' });
    expect((await invite()).statusCode).toBe(200);
    const back = expectError(
      await asUser(harness.app, owner, 'PUT', `/api/users/${member.user.id}`, { status: 'active' }),
      409,
      'plan_limit',
    );
    expect(back.message).toContain('Starter');

    for (let index = 0; index < teamLimit; index += 1)
      await callAs(harness.app, owner, 'POST', '/api/teams', { name: `Team ${index}` });
    const teams = expectError(
      await asUser(harness.app, owner, 'POST', '/api/teams', { name: 'One too many' }),
      409,
      'plan_limit',
    );
    expect(teams.message).toContain(`The Starter plan allows ${teamLimit} teams`);
    expect(
      await em().count(AppUser, {
        organizationId: owner.organization.id,
        status: { $in: ['active', 'invited'] },
      }),
    ).toBe(userLimit);
  });
});

describe('roles', () => {
  it('lists built-in roles with their permissions from code, and refuses to change or delete them', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    await colleague(owner, 'sender');
    const list = await callAs(harness.app, owner, 'GET', '/api/roles');
    expect(list.permissions).toEqual([...PERMISSIONS]);
    expect(list.roles.map((role: { builtIn: string }) => role.builtIn)).toEqual([...BUILT_IN_ROLES]);
    for (const role of list.roles) {
      expect([...role.permissions].sort()).toEqual(
        [...BUILT_IN_ROLE_PERMISSIONS[role.builtIn as BuiltInRole]].sort(),
      );
      expect(role.userCount).toBe(role.builtIn === 'owner' || role.builtIn === 'sender' ? 1 : 0);
      expectError(
        await asUser(harness.app, owner, 'PUT', `/api/roles/${role.id}`, { name: 'Mine now' }),
        409,
        'built_in_role',
      );
      expectError(
        await asUser(harness.app, owner, 'DELETE', `/api/roles/${role.id}`, undefined),
        409,
        'built_in_role',
      );
    }
  });

  it('creates, changes and deletes custom roles; a change reaches holders at their next request', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const created = await callAs(harness.app, owner, 'POST', '/api/roles', {
      name: 'Reviewer',
      permissions: ['users:read', 'documents:read', 'documents:read'],
    });
    expect(created).toMatchObject({
      name: 'Reviewer',
      builtIn: null,
      permissions: ['documents:read', 'users:read'],
      userCount: 0,
    });
    expectError(
      await asUser(harness.app, owner, 'POST', '/api/roles', { name: 'reviewer', permissions: [] }),
      409,
      'name_taken',
    );
    expectError(
      await asUser(harness.app, owner, 'POST', '/api/roles', { name: 'Owner', permissions: [] }),
      409,
      'name_taken',
    );
    const bad = expectError(
      await asUser(harness.app, owner, 'POST', '/api/roles', { name: 'X', permissions: ['everything'] }),
      400,
      'invalid_request',
    );
    expect(bad.details[0]?.field).toBe('body.permissions.0');

    const reviewer = await colleague(owner, created.id);
    expectError(await asUser(harness.app, reviewer, 'GET', '/api/teams', undefined), 403, 'forbidden');
    const updated = await callAs(harness.app, owner, 'PUT', `/api/roles/${created.id}`, {
      name: 'Senior reviewer',
      permissions: ['documents:read', 'teams:read'],
    });
    expect(updated).toMatchObject({
      name: 'Senior reviewer',
      permissions: ['documents:read', 'teams:read'],
      userCount: 1,
    });
    // The same session, the new permissions.
    expect((await asUser(harness.app, reviewer, 'GET', '/api/teams')).statusCode).toBe(200);
    expectError(await asUser(harness.app, reviewer, 'GET', '/api/users', undefined), 403, 'forbidden');

    const inUse = expectError(
      await asUser(harness.app, owner, 'DELETE', `/api/roles/${created.id}`, undefined),
      409,
      'role_in_use',
    );
    expect(inUse.message).toContain('assigned to 1 user');
    await callAs(harness.app, owner, 'DELETE', `/api/users/${reviewer.user.id}`);
    expect(await callAs(harness.app, owner, 'DELETE', `/api/roles/${created.id}`)).toEqual({ ok: true });
    expect((await roleIds(owner))['Senior reviewer']).toBeUndefined();
    expectError(
      await asUser(harness.app, owner, 'PUT', `/api/roles/${created.id}`, { name: 'Back' }),
      404,
      'not_found',
    );
    // The deleted holder keeps a role (the built-in member role) and their row.
    const member = (await roleIds(owner)).member;
    expect((await em().findOneOrFail(AppUser, { id: reviewer.user.id })).roleId).toBe(member);

    const events = (await eventsOf(owner.organization.id)).filter((event) => event.type.startsWith('role.'));
    expect(events.map((event) => [event.type, event.details])).toEqual([
      ['role.created', { role: 'Reviewer', permissions: ['documents:read', 'users:read'] }],
      [
        'role.updated',
        {
          role: 'Senior reviewer',
          name: { from: 'Reviewer', to: 'Senior reviewer' },
          added: ['teams:read'],
          removed: ['users:read'],
        },
      ],
      ['role.deleted', { role: 'Senior reviewer', permissions: ['documents:read', 'teams:read'] }],
    ]);
  });

  it('lets nobody grant a permission they do not hold', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const admin = await colleague(owner, 'administrator');
    const refusal = expectError(
      await asUser(harness.app, admin, 'POST', '/api/roles', {
        name: 'Billing clerk',
        permissions: ['billing:read', 'billing:manage'],
      }),
      403,
      'forbidden',
    );
    expect(refusal.details).toEqual([expect.objectContaining({ permission: 'billing:manage' })]);
    // An owner may; the administrator may then neither extend such a role nor hand it out.
    const clerk = await callAs(harness.app, owner, 'POST', '/api/roles', {
      name: 'Billing clerk',
      permissions: ['billing:manage'],
    });
    const plain = await callAs(harness.app, admin, 'POST', '/api/roles', {
      name: 'Plain',
      permissions: ['documents:read'],
    });
    expectError(
      await asUser(harness.app, admin, 'PUT', `/api/roles/${plain.id}`, { permissions: ['billing:manage'] }),
      403,
      'forbidden',
    );
    expectError(
      await asUser(harness.app, admin, 'POST', '/api/users/invite', {
        fullName: 'Clerk',
        email: newAddress(),
        roleId: clerk.id,
      }),
      403,
      'forbidden',
    );
    expectError(
      await asUser(harness.app, admin, 'PUT', `/api/users/${admin.user.id}`, { roleId: clerk.id }),
      403,
      'forbidden',
    );
    // Renaming a role or removing a permission is fine.
    expect(
      (await callAs(harness.app, admin, 'PUT', `/api/roles/${clerk.id}`, { name: 'Clerk', permissions: [] }))
        .permissions,
    ).toEqual([]);
  });
});

describe('teams', () => {
  it('creates, renames and deletes teams; deleting one leaves its members without a team', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const member = await colleague(owner, 'member');
    const team = await callAs(harness.app, owner, 'POST', '/api/teams', { name: 'Support' });
    expect(team).toEqual({ id: expect.any(String), name: 'Support', memberCount: 0 });
    expectError(
      await asUser(harness.app, owner, 'POST', '/api/teams', { name: 'support' }),
      409,
      'name_taken',
    );
    const error = expectError(
      await asUser(harness.app, owner, 'POST', '/api/teams', { name: '' }),
      400,
      'invalid_request',
    );
    expect(error.details[0]?.field).toBe('body.name');
    await callAs(harness.app, owner, 'PUT', `/api/users/${member.user.id}`, { teamId: team.id });
    expect((await callAs(harness.app, owner, 'GET', '/api/teams')).teams).toEqual([
      { id: team.id, name: 'Support', memberCount: 1 },
    ]);
    expect(
      await callAs(harness.app, owner, 'PUT', `/api/teams/${team.id}`, { name: 'Customer care' }),
    ).toEqual({
      id: team.id,
      name: 'Customer care',
      memberCount: 1,
    });
    // A member reads teams, manages none.
    expect((await callAs(harness.app, member, 'GET', '/api/teams')).teams).toHaveLength(1);
    expectError(
      await asUser(harness.app, member, 'PUT', `/api/teams/${team.id}`, { name: 'Mine' }),
      403,
      'forbidden',
    );

    expect(await callAs(harness.app, owner, 'DELETE', `/api/teams/${team.id}`)).toEqual({ ok: true });
    expect((await callAs(harness.app, owner, 'GET', '/api/teams')).teams).toEqual([]);
    const users = (await callAs(harness.app, owner, 'GET', '/api/users')).users;
    expect(users.find((user: { id: string }) => user.id === member.user.id).team).toBeNull();
    expectError(
      await asUser(harness.app, owner, 'PUT', `/api/teams/${team.id}`, { name: 'Again' }),
      404,
      'not_found',
    );
    const events = (await eventsOf(owner.organization.id)).filter((event) => event.type.startsWith('team.'));
    expect(events.map((event) => [event.type, event.details])).toEqual([
      ['team.created', { team: 'Support' }],
      ['team.updated', { team: 'Customer care', name: { from: 'Support', to: 'Customer care' } }],
      ['team.deleted', { team: 'Customer care', membersUnassigned: 1 }],
    ]);
  });
});

describe('organization settings', () => {
  const DEFAULTS = {
    senderDisplayName: null,
    replyToEmail: null,
    emailFooter: null,
    mfaRequired: false,
    sessionTimeoutMinutes: 60,
    defaultAuthenticationMethod: 'SecureLink',
    defaultExpirationDays: null,
    consentText: null,
    privacyNotice: null,
    retention: { completedDays: null, unfinishedDays: null, deletedDays: null },
    attachFinalPdfToCompletedEmail: false,
    reminderIntervalDays: null,
    maxAutomaticReminders: 3,
    expiringSoonDays: 0,
    expiredExtensionGraceDays: 30,
    defaultLanguage: 'en',
    supportedLanguages: ['en', 'he'],
  };

  it('reads and changes settings partially: absent stays, null clears; refused input changes nothing', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    expect(await callAs(harness.app, owner, 'GET', '/api/organization/settings')).toEqual(DEFAULTS);

    const changed = await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      senderDisplayName: '  Acme Signing ',
      replyToEmail: 'Contracts@Acme.example',
      sessionTimeoutMinutes: 30,
      retention: { completedDays: 365 },
    });
    expect(changed).toEqual({
      ...DEFAULTS,
      senderDisplayName: 'Acme Signing',
      replyToEmail: 'contracts@acme.example',
      sessionTimeoutMinutes: 30,
      retention: { completedDays: 365, unfinishedDays: null, deletedDays: null },
    });
    const cleared = await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      senderDisplayName: null,
      retention: { unfinishedDays: 90, deletedDays: 7 },
    });
    expect(cleared).toEqual({
      ...changed,
      senderDisplayName: null,
      retention: { completedDays: 365, unfinishedDays: 90, deletedDays: 7 },
    });
    expect(await callAs(harness.app, owner, 'GET', '/api/organization/settings')).toEqual(cleared);

    for (const [body, field] of [
      [{ sessionTimeoutMinutes: 2, senderDisplayName: 'Not saved' }, 'body.sessionTimeoutMinutes'],
      [{ sessionTimeoutMinutes: 1441 }, 'body.sessionTimeoutMinutes'],
      [{ replyToEmail: 'nope', emailFooter: 'Not saved' }, 'body.replyToEmail'],
      [{ defaultAuthenticationMethod: 'Carrier pigeon' }, 'body.defaultAuthenticationMethod'],
      [{ defaultExpirationDays: 0 }, 'body.defaultExpirationDays'],
      [{ defaultExpirationDays: 1.5 }, 'body.defaultExpirationDays'],
      [{ retention: { completedDays: 0 } }, 'body.retention.completedDays'],
      [{ retention: { deletedDays: 0 } }, 'body.retention.deletedDays'],
      [{ retention: { deletedDays: 3651 } }, 'body.retention.deletedDays'],
      [{ mfaRequired: 'yes' }, 'body.mfaRequired'],
      [{ attachFinalPdfToCompletedEmail: 'on' }, 'body.attachFinalPdfToCompletedEmail'],
      [{ senderDisplayName: 'Two\nlines' }, 'body.senderDisplayName'],
      [{ consentText: 'x'.repeat(5001) }, 'body.consentText'],
    ] as const) {
      const error = expectError(
        await asUser(harness.app, owner, 'PUT', '/api/organization/settings', body),
        400,
        'invalid_request',
      );
      expect(
        error.details.map((detail) => detail.field),
        JSON.stringify(body),
      ).toContain(field);
      expect(error.message).toContain(field);
    }
    expect(await callAs(harness.app, owner, 'GET', '/api/organization/settings')).toEqual(cleared);

    const events = await eventsOf(owner.organization.id, 'settings.updated');
    expect(events.map((event) => event.details)).toEqual([
      { changed: ['senderDisplayName', 'replyToEmail', 'sessionTimeoutMinutes', 'retention.completedDays'] },
      { changed: ['senderDisplayName', 'retention.unfinishedDays', 'retention.deletedDays'] },
    ]);
    // Readers read; only settings:manage changes.
    const sender = await colleague(owner, 'sender');
    expectError(
      await asUser(harness.app, sender, 'GET', '/api/organization/settings', undefined),
      403,
      'forbidden',
    );
    const admin = await colleague(owner, 'administrator');
    expect(
      (await callAs(harness.app, admin, 'GET', '/api/organization/settings')).sessionTimeoutMinutes,
    ).toBe(30);
  });

  it('sets every setting back to its default with null, also those that always have a value (issue 30)', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    // The owner has a second factor, so requiring MFA does not hold their own session at enrolment.
    await harness.ctx.orm.em
      .fork()
      .nativeUpdate(AppUser, { id: owner.user.id }, { totpEnabledAt: new Date() });
    const set = await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      mfaRequired: true,
      sessionTimeoutMinutes: 15,
      defaultAuthenticationMethod: 'OtpSms',
      retention: { completedDays: 30, unfinishedDays: 60, deletedDays: 7 },
      attachFinalPdfToCompletedEmail: true,
    });
    expect(set).toMatchObject({
      mfaRequired: true,
      sessionTimeoutMinutes: 15,
      defaultAuthenticationMethod: 'OtpSms',
      retention: { completedDays: 30, unfinishedDays: 60, deletedDays: 7 },
      attachFinalPdfToCompletedEmail: true,
    });
    // One at a time, so each null is seen to apply on its own.
    for (const [field, value] of [
      ['mfaRequired', false],
      ['sessionTimeoutMinutes', 60],
      ['defaultAuthenticationMethod', 'SecureLink'],
      ['attachFinalPdfToCompletedEmail', false],
    ] as const) {
      const answer = await callAs(harness.app, owner, 'PUT', '/api/organization/settings', { [field]: null });
      expect(answer[field], field).toBe(value);
    }
    const cleared = await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      retention: null,
    });
    expect(cleared).toEqual(DEFAULTS);
    expect(await callAs(harness.app, owner, 'GET', '/api/organization/settings')).toEqual(DEFAULTS);
    expect(
      (await eventsOf(owner.organization.id, 'settings.updated')).map((event) => event.details.changed),
    ).toEqual([
      [
        'mfaRequired',
        'sessionTimeoutMinutes',
        'defaultAuthenticationMethod',
        'retention.completedDays',
        'retention.unfinishedDays',
        'retention.deletedDays',
        'attachFinalPdfToCompletedEmail',
      ],
      ['mfaRequired'],
      ['sessionTimeoutMinutes'],
      ['defaultAuthenticationMethod'],
      ['attachFinalPdfToCompletedEmail'],
      ['retention.completedDays', 'retention.unfinishedDays', 'retention.deletedDays'],
    ]);
    // A null for a setting already at its default changes nothing, and is no event.
    await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      mfaRequired: null,
      retention: null,
    });
    expect(await eventsOf(owner.organization.id, 'settings.updated')).toHaveLength(6);
  });
});

describe('settings in use', () => {
  let acme: Integrator;
  let owner: SignedInUser;
  let smtp: SmtpSink;
  const SMTP = { user: 'sigil-mailer', password: 'smtp-Pa55word-never-logged' };

  beforeAll(async () => {
    acme = await newIntegrator(harness);
    owner = await signedInUser(harness, { role: 'owner', organizationId: acme.organizationId });
    smtp = await startSmtpSink(SMTP);
  });
  afterAll(() => smtp?.close());

  async function createEnvelope(body: Record<string, unknown>) {
    const response = await harness.app.inject({
      method: 'POST',
      url: '/api/v1/envelopes/from-template',
      headers: await acme.auth(),
      payload: { title: 'Settings in use', templateId: acme.templateId, ...body },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  async function send(envelopeId: string) {
    const response = await harness.app.inject({
      method: 'POST',
      url: `/api/v1/envelopes/${envelopeId}/send`,
      headers: await acme.auth(),
    });
    expect(response.statusCode, response.body).toBe(200);
  }

  it('signs emails with the sender name, Reply-To and footer set through the settings', async () => {
    const footer = 'Acme Ltd. · 1 Harbour Street\nQuestions? contracts@acme.example';
    await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      senderDisplayName: 'Acme Signing Desk',
      replyToEmail: 'contracts@acme.example',
      emailFooter: footer,
    });
    const envelope = await createEnvelope({
      recipients: [
        {
          roleName: 'Client',
          fullName: 'Sam Client',
          email: 'sam@client.example',
          deliveryChannel: 'ManualLink',
        },
        {
          roleName: 'Provider',
          fullName: 'Pia Provider',
          email: 'pia@provider.example',
          deliveryChannel: 'ManualLink',
        },
      ],
    });
    await send(envelope.id);
    const { sendNotification } = createNotificationActivities({
      orm: harness.ctx.orm,
      config: {
        env: 'test',
        publicBaseUrl: 'http://localhost:3000',
        notifications: {
          email: {
            transport: { host: '127.0.0.1', port: smtp.port, secure: false, ...SMTP },
            from: 'sign@sigil.example',
          },
          twilio: null,
        },
      },
    });
    const before = smtp.received.length;
    await sendNotification({
      notificationId: randomUUID(),
      organizationId: acme.organizationId,
      envelopeId: envelope.id,
      kind: 'invitation',
      recipientId: envelope.recipients[0].id,
      channel: 'Email',
    });
    const [mail] = (await smtp.waitFor(before + 1)).slice(before);
    expect(mail?.parsed.from?.value).toEqual([{ name: 'Acme Signing Desk', address: 'sign@sigil.example' }]);
    expect(mail?.parsed.replyTo?.value[0]?.address).toBe('contracts@acme.example');
    expect(mail?.parsed.subject).toContain('Acme Signing Desk');
    expect(mail?.parsed.text).toContain(footer);

    // The account emails too: an invitation carries the same name and footer.
    const address = newAddress('branded');
    const roles = await roleIds(owner);
    await callAs(harness.app, owner, 'POST', '/api/users/invite', {
      fullName: 'Bran Ded',
      email: address,
      roleId: roles.member,
    });
    const { row } = await invitationTo(address);
    expect(row.subject).toBe('You are invited to join Acme Signing Desk on Sigil');
    expect(row.body).toContain(footer);

    // Cleared: the organization's name again.
    await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      senderDisplayName: null,
      emailFooter: null,
    });
    await sendNotification({
      notificationId: randomUUID(),
      organizationId: acme.organizationId,
      envelopeId: envelope.id,
      kind: 'invitation',
      recipientId: envelope.recipients[1].id,
      channel: 'Email',
    });
    const [plain] = (await smtp.waitFor(before + 2)).slice(before + 1);
    const name = (await em().findOneOrFail(Organization, { id: acme.organizationId })).name;
    expect(plain?.parsed.from?.value[0]?.name).toBe(name);
    expect(plain?.parsed.text).not.toContain(footer);
  });

  it('gives new envelopes the default expiry and authentication, and shows signers the consent text and privacy notice', async () => {
    const day = 24 * 60 * 60 * 1000;
    // Before any setting: 30 days and SecureLink, as always.
    const plain = await createEnvelope({
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', phone: '+972501234567' },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
      ],
    });
    expect(Date.parse(plain.expiresAt) - Date.now()).toBeGreaterThan(29.9 * day);
    expect(Date.parse(plain.expiresAt) - Date.now()).toBeLessThan(30.1 * day);
    expect(plain.recipients.map((r: { authenticationMethod: string }) => r.authenticationMethod)).toEqual([
      'SecureLink',
      'SecureLink',
    ]);

    const consentText = 'I, the signer, accept Acme’s electronic signature terms.\nSecond line.';
    const privacyNotice = 'Acme keeps your name and address for seven years. Ask privacy@acme.example.';
    await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      defaultExpirationDays: 10,
      defaultAuthenticationMethod: 'OtpSms',
      consentText,
      privacyNotice,
    });
    const explicitExpiry = new Date(Date.now() + 3 * day).toISOString();
    const envelope = await createEnvelope({
      recipients: [
        // A phone: the organization's one-time codes.
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', phone: '+972501234567' },
        // No phone: a secure link rather than a refusal.
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
        // Named by the request: kept.
        {
          roleName: 'Provider',
          fullName: 'Avi Named',
          email: 'avi@example.com',
          phone: '+972501234568',
          authenticationMethod: 'SecureLink',
          type: 'Viewer',
        },
      ],
    });
    expect(Date.parse(envelope.expiresAt) - Date.now()).toBeGreaterThan(9.9 * day);
    expect(Date.parse(envelope.expiresAt) - Date.now()).toBeLessThan(10.1 * day);
    expect(envelope.recipients.map((r: { authenticationMethod: string }) => r.authenticationMethod)).toEqual([
      'OtpSms',
      'SecureLink',
      'SecureLink',
    ]);
    // An expiresAt the request gives wins.
    const given = await createEnvelope({
      expiresAt: explicitExpiry,
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
      ],
    });
    expect(Date.parse(given.expiresAt)).toBe(Date.parse(explicitExpiry));

    // The signer page's view: the organization's consent text and privacy notice.
    await send(envelope.id);
    const links = await issueSigningLinks(harness.ctx, acme.organizationId, envelope.id);
    const tokenOf = (name: string) =>
      (links.find((link) => link.fullName === name)?.url ?? '').split('/sign/')[1];
    const dana = (
      await harness.app.inject({ method: 'GET', url: `/api/signing/${tokenOf('Dana Levi')}` })
    ).json();
    expect(dana).toMatchObject({
      consentRequired: true,
      consentText,
      privacyNotice,
      authenticationRequired: true,
      authenticationMethod: 'OtpSms',
    });
    const viewer = (
      await harness.app.inject({ method: 'GET', url: `/api/signing/${tokenOf('Avi Named')}` })
    ).json();
    expect(viewer).toMatchObject({ consentRequired: false, consentText: null, privacyNotice });

    // Cleared: the default consent again, no notice.
    await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      consentText: null,
      privacyNotice: null,
    });
    const again = (
      await harness.app.inject({ method: 'GET', url: `/api/signing/${tokenOf('Sam Cohen')}` })
    ).json();
    expect(again.consentText).toMatch(/electronically/);
    expect(again.privacyNotice).toBeNull();
    await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      defaultExpirationDays: null,
      defaultAuthenticationMethod: 'SecureLink',
    });
  });
});

describe('security log', () => {
  it('lists the events newest first with actor and subject, a page at a time', async () => {
    const owner = await signedInUser(harness, { role: 'owner', fullName: 'Lou Logger' });
    const roles = await roleIds(owner);
    const address = newAddress('subject');
    const invited = await callAs(harness.app, owner, 'POST', '/api/users/invite', {
      fullName: 'Sub Ject',
      email: address,
      roleId: roles.member,
    });
    await callAs(harness.app, owner, 'POST', '/api/teams', { name: 'Logged' });
    await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      mfaRequired: false,
      sessionTimeoutMinutes: 45,
    });
    await callAs(harness.app, owner, 'POST', `/api/users/${invited.id}/resend-invitation`);

    const log = await callAs(harness.app, owner, 'GET', '/api/organization/security-log');
    expect(log.nextBefore).toBeNull();
    expect(log.events.map((event: { type: string }) => event.type)).toEqual([
      'user.invitation_resent',
      'settings.updated',
      'team.created',
      'user.invited',
    ]);
    const actor = { id: owner.user.id, email: owner.email, fullName: 'Lou Logger' };
    expect(log.events[3]).toEqual({
      id: expect.any(String),
      type: 'user.invited',
      occurredAt: expect.any(String),
      actor,
      subject: { id: invited.id, email: address.toLowerCase() },
      ipAddress: '127.0.0.1',
      details: { role: 'Read-only member', team: null },
    });
    expect(log.events[2]).toMatchObject({ actor, subject: null, details: { team: 'Logged' } });
    expect(log.events[1]).toMatchObject({ details: { changed: ['sessionTimeoutMinutes'] } });
    const times = log.events.map((event: { occurredAt: string }) => Date.parse(event.occurredAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    // Pages of one, then of two.
    const pages: string[][] = [];
    let before: string | null = null;
    do {
      const query: string = before ? `?limit=1&before=${before}` : '?limit=1';
      const page = await callAs(harness.app, owner, 'GET', `/api/organization/security-log${query}`);
      pages.push(page.events.map((event: { id: string }) => event.id));
      before = page.nextBefore;
    } while (before);
    expect(pages).toEqual(log.events.map((event: { id: string }) => [event.id]));
    const firstTwo = await callAs(harness.app, owner, 'GET', '/api/organization/security-log?limit=2');
    expect(firstTwo.nextBefore).toBe(log.events[1].id);
    const nextTwo = await callAs(
      harness.app,
      owner,
      'GET',
      `/api/organization/security-log?limit=2&before=${firstTwo.nextBefore}`,
    );
    expect(nextTwo.events.map((event: { id: string }) => event.id)).toEqual(
      log.events.slice(2).map((e: { id: string }) => e.id),
    );
    expect(nextTwo.nextBefore).toBeNull();

    // Another organization's event is no page mark: not found, like an unknown one; malformed values are 400.
    const other = await signedInUser(harness, { role: 'owner' });
    await callAs(harness.app, other, 'POST', '/api/teams', { name: 'Theirs' });
    const theirs = (await callAs(harness.app, other, 'GET', '/api/organization/security-log')).events[0].id;
    expect((await callAs(harness.app, other, 'GET', '/api/organization/security-log')).events).toHaveLength(
      1,
    );
    for (const before of [theirs, randomUUID()]) {
      expectError(
        await asUser(harness.app, owner, 'GET', `/api/organization/security-log?before=${before}`, undefined),
        404,
        'not_found',
      );
    }
    for (const query of ['before=nope', 'limit=0', 'limit=201', 'limit=many']) {
      const error = expectError(
        await asUser(harness.app, owner, 'GET', `/api/organization/security-log?${query}`, undefined),
        400,
        'invalid_request',
      );
      expect(error.details[0]?.field).toMatch(/^querystring\.(before|limit)$/);
    }
    // Only security:read reads it.
    const admin = await colleague(owner, 'administrator');
    expect((await asUser(harness.app, admin, 'GET', '/api/organization/security-log')).statusCode).toBe(200);
    const sender = await colleague(owner, 'sender');
    const forbidden = expectError(
      await asUser(harness.app, sender, 'GET', '/api/organization/security-log', undefined),
      403,
      'forbidden',
    );
    expect(forbidden.details).toEqual([{ permission: 'security:read', message: 'requires security:read' }]);
  });
});
