// The emailed links through HTTP (docs/accounts.md, "Emailed links"), read from the development capture:
// a password reset link says whose account it is without being used, works once and for one hour, ends
// every session of the user, confirms the address and lifts a lock; a newer link replaces an older one;
// verification links expire after 48 hours; an invitation link says who is invited where, makes the user
// active and signs them in (MFA enrolment first when the organization requires it). Also: a user with an
// authenticator app gets `mfa_required` and a session that can only finish the sign-in or sign out.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { AppUser, Organization, Role, SecurityEvent, UserSession } from '../../db/entities/index.ts';
import { sendAccountEmail } from '../../services/accounts/account-emails.ts';
import { issueAccountToken } from '../../services/accounts/account-tokens.ts';
import {
  capturedTo,
  linkTokenFor,
  newBrowser,
  newEmail,
  PASSWORD,
  registerVerified,
  registration,
  signedIn,
  testClock,
  useAccountsApp,
} from '../support/auth-http.ts';
import type { TestContext } from '../support/context.ts';

let ctx: TestContext;
let app: FastifyInstance;
const clock = testClock();
const NEW_PASSWORD = 'a brand new passphrase';

useAccountsApp({ clock: clock.now }, (opened) => ({ ctx, app } = opened));

const em = () => ctx.orm.em.fork();

async function resetLink(email: string): Promise<string> {
  const response = await newBrowser(app).post('/api/auth/forgot-password', { email });
  expect(response.statusCode).toBe(200);
  return linkTokenFor(app, email, 'reset_password');
}

describe('password reset', () => {
  it('claims without using, resets once, ends every session and signs in with the new password only', async () => {
    const email = await registerVerified(app);
    const first = await signedIn(app, email);
    const second = await signedIn(app, email);
    const token = await resetLink(email);
    const [captured] = await capturedTo(app, email);
    expect(captured?.signingLink).toBe(`http://localhost:3000/app/reset-password?token=${token}`);

    const browser = newBrowser(app);
    for (let claim = 0; claim < 2; claim += 1) {
      const claimed = await browser.post('/api/auth/reset-password/claim', { token });
      expect(claimed.statusCode, claimed.body).toBe(200);
      expect(claimed.json()).toEqual({ email, fullName: 'Dana Levi' });
    }
    const reset = await browser.post('/api/auth/reset-password', { token, password: NEW_PASSWORD });
    expect(reset.statusCode, reset.body).toBe(200);
    expect(reset.json()).toEqual({ ok: true });

    for (const [url, body] of [
      ['/api/auth/reset-password', { token, password: 'yet another password' }],
      ['/api/auth/reset-password/claim', { token }],
    ] as const) {
      const again = await browser.post(url, body);
      expect(again.statusCode, url).toBe(400);
      expect(again.json().error.code).toBe('invalid_token');
    }

    expect((await first.get('/api/auth/me')).statusCode).toBe(401);
    expect((await second.get('/api/auth/me')).statusCode).toBe(401);
    const user = await em().findOneOrFail(AppUser, { email });
    expect(await em().count(UserSession, { userId: user.id, endedReason: 'password_reset' })).toBe(2);
    expect((await browser.post('/api/auth/login', { email, password: PASSWORD })).statusCode).toBe(401);
    expect((await browser.post('/api/auth/login', { email, password: NEW_PASSWORD })).statusCode).toBe(200);
    const types = (await em().find(SecurityEvent, { organizationId: user.organizationId })).map(
      (e) => e.type,
    );
    expect(types).toContain('user.password_reset_requested');
    expect(types).toContain('user.password_reset');
  });

  it('refuses an expired link, a replaced link and an unknown token with one answer', async () => {
    const email = await registerVerified(app);
    const expired = await resetLink(email);
    clock.advance(61 * 60_000);
    const browser = newBrowser(app);
    const late = await browser.post('/api/auth/reset-password', { token: expired, password: NEW_PASSWORD });
    expect(late.statusCode).toBe(400);
    const lateBody = late.json().error;
    expect(lateBody.code).toBe('invalid_token');

    const older = await resetLink(email);
    clock.advance(61_000);
    const newer = await resetLink(email);
    expect(newer).not.toBe(older);
    const replaced = await browser.post('/api/auth/reset-password/claim', { token: older });
    const unknown = await browser.post('/api/auth/reset-password/claim', { token: 'A'.repeat(43) });
    for (const response of [replaced, unknown]) {
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ code: lateBody.code, message: lateBody.message });
    }
    expect((await browser.post('/api/auth/reset-password/claim', { token: newer })).statusCode).toBe(200);
    // The old password still works: nothing was reset.
    expect((await browser.post('/api/auth/login', { email, password: PASSWORD })).statusCode).toBe(200);
  });

  it('confirms the address and lifts a lock', async () => {
    const email = newEmail('unconfirmed');
    const browser = newBrowser(app);
    expect((await browser.post('/api/auth/register', registration(email))).statusCode).toBe(200);
    for (let failure = 1; failure <= 10; failure += 1) {
      const response = await browser.post('/api/auth/login', { email, password: 'wrong password!' });
      if (response.statusCode === 429) clock.advance(Number(response.headers['retry-after']) * 1000);
      else expect(response.statusCode).toBe(401);
      if (response.statusCode === 429) failure -= 1;
    }
    const locked = await browser.post('/api/auth/login', { email, password: PASSWORD });
    expect(locked.json().error.code).toBe('account_locked');

    const token = await resetLink(email);
    expect(
      (await browser.post('/api/auth/reset-password', { token, password: NEW_PASSWORD })).statusCode,
    ).toBe(200);
    const login = await browser.post('/api/auth/login', { email, password: NEW_PASSWORD });
    expect(login.statusCode, login.body).toBe(200);
    expect((await em().findOneOrFail(AppUser, { email })).emailVerifiedAt).toBeInstanceOf(Date);
  });

  it('refuses a new password equal to the email address, naming body.password, and keeps the link', async () => {
    const email = await registerVerified(app);
    const token = await resetLink(email);
    const browser = newBrowser(app);
    const refused = await browser.post('/api/auth/reset-password', { token, password: email.toUpperCase() });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.details).toEqual([
      { field: 'body.password', message: 'password must not be your email address' },
    ]);
    expect((await browser.post('/api/auth/reset-password/claim', { token })).statusCode).toBe(200);
  });
});

describe('email verification links', () => {
  it('expire after 48 hours, and a new one replaces the old', async () => {
    const email = newEmail('late');
    const browser = newBrowser(app);
    expect((await browser.post('/api/auth/register', registration(email))).statusCode).toBe(200);
    const first = await linkTokenFor(app, email, 'verify_email');
    clock.advance(48 * 3600_000 + 60_000);
    const expired = await browser.post('/api/auth/verify-email', { token: first });
    expect(expired.statusCode).toBe(400);
    expect(expired.json().error.code).toBe('invalid_token');

    expect((await browser.post('/api/auth/resend-verification', { email })).statusCode).toBe(200);
    const second = await linkTokenFor(app, email, 'verify_email');
    expect(second).not.toBe(first);
    expect((await browser.post('/api/auth/verify-email', { token: second })).statusCode).toBe(200);
    expect((await browser.post('/api/auth/login', { email, password: PASSWORD })).statusCode).toBe(200);
  });
});

/** An invited user of the organization of `ownerEmail`, and the emailed invitation (what users.invite does). */
async function invite(ownerEmail: string, roleBuiltIn = 'sender') {
  const tx = em();
  const owner = await tx.findOneOrFail(AppUser, { email: ownerEmail });
  const organization = await tx.findOneOrFail(Organization, { id: owner.organizationId });
  const role = await tx.findOneOrFail(Role, { organizationId: organization.id, builtIn: roleBuiltIn });
  const email = newEmail('invited');
  const user = tx.create(AppUser, {
    id: randomUUID(),
    organizationId: organization.id,
    email,
    fullName: 'Sam Cohen',
    passwordHash: null,
    status: 'invited',
    emailVerifiedAt: null,
    roleId: role.id,
    teamId: null,
    language: 'en',
    totpSecretEncrypted: null,
    totpPendingSecretEncrypted: null,
    totpEnabledAt: null,
    invitedAt: new Date(),
    invitedBy: owner.id,
    lastLoginAt: null,
    deletedAt: null,
  });
  await tx.flush();
  const services = { ...ctx, em: tx, clock: clock.now };
  const token = await issueAccountToken(services, user.id, 'invite');
  await tx.flush();
  const sent = await sendAccountEmail(services, {
    kind: 'invite',
    to: email,
    fullName: user.fullName,
    language: 'en',
    organization,
    link: `http://localhost:3000/app/accept-invite?token=${token}`,
    invitedBy: owner.fullName,
  });
  expect(sent.status).toBe('sent');
  return { email, user, organization, role, token };
}

describe('invitations', () => {
  it('say who is invited where, make the user active and sign them in', async () => {
    const owner = await registerVerified(app);
    const { email, user, organization, token } = await invite(owner);
    const [captured] = await capturedTo(app, email);
    expect(captured).toMatchObject({ kind: 'invite' });
    expect(captured?.subject).toBe(`You are invited to join ${organization.name} on Sigil`);
    expect(captured?.body).toContain('Invited by Dana Levi.');
    expect(await linkTokenFor(app, email, 'invite')).toBe(token);

    const browser = newBrowser(app);
    // Not signed in before accepting: the same answer as a wrong password.
    const early = await browser.post('/api/auth/login', { email, password: PASSWORD });
    expect(early.json().error.code).toBe('invalid_credentials');

    const claimed = await browser.post('/api/auth/accept-invite/claim', { token });
    expect(claimed.statusCode, claimed.body).toBe(200);
    expect(claimed.json()).toEqual({
      email,
      fullName: 'Sam Cohen',
      organizationName: organization.name,
      roleName: 'Sender',
    });
    const accepted = await browser.post('/api/auth/accept-invite', {
      token,
      fullName: 'Samuel Cohen',
      password: NEW_PASSWORD,
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toEqual({ status: 'signed_in', methods: [] });
    const me = await browser.get('/api/auth/me');
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({
      user: { id: user.id, fullName: 'Samuel Cohen' },
      role: { builtIn: 'sender' },
      session: { state: 'active' },
    });
    const active = await em().findOneOrFail(AppUser, { id: user.id });
    expect(active.status).toBe('active');
    expect(active.emailVerifiedAt).toBeInstanceOf(Date);

    const again = await newBrowser(app).post('/api/auth/accept-invite', {
      token,
      fullName: 'Someone Else',
      password: 'another password here',
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.code).toBe('invalid_token');
    expect((await newBrowser(app).post('/api/auth/accept-invite/claim', { token })).statusCode).toBe(400);
    const types = (await em().find(SecurityEvent, { actorUserId: user.id })).map((event) => event.type);
    expect(types).toEqual(expect.arrayContaining(['user.invitation_accepted', 'user.signed_in']));
    expect((await browser.post('/api/auth/login', { email, password: NEW_PASSWORD })).statusCode).toBe(200);
  });

  it('sign in to MFA enrolment first when the organization requires it', async () => {
    const owner = await registerVerified(app);
    const { token, organization } = await invite(owner, 'member');
    const orgEm = em();
    const loaded = await orgEm.findOneOrFail(Organization, { id: organization.id });
    loaded.mfaRequired = true;
    await orgEm.flush();
    const browser = newBrowser(app);
    const accepted = await browser.post('/api/auth/accept-invite', {
      token,
      fullName: 'Sam Cohen',
      password: NEW_PASSWORD,
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json()).toEqual({ status: 'mfa_enrolment_required', methods: [] });
    const me = await browser.get('/api/auth/me');
    expect(me.statusCode).toBe(200);
    expect(me.json().session.state).toBe('mfa_enrolment_required');
    // The owner too signs in to enrolment now.
    const ownerLogin = await newBrowser(app).post('/api/auth/login', { email: owner, password: PASSWORD });
    expect(ownerLogin.json()).toEqual({ status: 'mfa_enrolment_required', methods: [] });
  });
});

describe('a user with an authenticator app', () => {
  it('gets mfa_required and a session that only finishes the sign-in or signs out', async () => {
    const email = await registerVerified(app);
    const userEm = em();
    const user = await userEm.findOneOrFail(AppUser, { email });
    user.totpEnabledAt = new Date();
    await userEm.flush();

    const browser = newBrowser(app);
    const login = await browser.post('/api/auth/login', { email, password: PASSWORD });
    expect(login.statusCode, login.body).toBe(200);
    expect(login.json()).toEqual({ status: 'mfa_required', methods: ['totp', 'backup_code'] });
    expect(browser.cookie).toBeTruthy();
    const [session] = await em().find(UserSession, { userId: user.id, endedAt: null });
    expect(session?.state).toBe('mfa_pending');
    expect((await browser.get('/api/auth/me')).statusCode).toBe(401);
    // Not signed in yet: the second step records the sign-in.
    expect((await em().findOneOrFail(AppUser, { id: user.id })).lastLoginAt).toBeNull();
    expect(await em().count(SecurityEvent, { actorUserId: user.id, type: 'user.signed_in' })).toBe(0);

    const logout = await browser.post('/api/auth/logout');
    expect(logout.statusCode).toBe(200);
    expect(browser.cookie).toBeNull();
    const ended = await em().findOneOrFail(UserSession, { id: session?.id as string });
    expect(ended.endedReason).toBe('signed_out');
  });
});
