// Single sign-on with OpenID Connect through HTTP on the real PostgreSQL (docs/sso.md), against a real OpenID
// provider (oidc-provider) this file starts on a loopback port: the settings (secret encrypted at rest and never
// answered, discovery, domains one organization's, no Owner for just-in-time accounts), the full authorization
// code flow with PKCE followed by hand through the provider, a just-in-time account, linking only by a verified
// address at an allowed domain of THIS organization, a deactivated user, a forged and a replayed state, an
// expired ID token, and "SSO required" refusing password sign-in and reset but for the break-glass owner.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptSecret } from '../../config/secrets-encryption.ts';
import { AppUser, OrganizationSso, Role, SecurityEvent, SsoSignIn } from '../../db/entities/index.ts';
import { sha256Hex } from '../../services/security/secrets.ts';
import {
  type Browser,
  capturedTo,
  newBrowser,
  ORIGIN,
  PASSWORD,
  testClock,
  useAccountsApp,
} from '../support/auth-http.ts';
import { TEST_ENCRYPTION_KEY, type TestContext } from '../support/context.ts';
import { startTestProvider, type TestAccount, type TestProvider } from '../support/oidc-provider.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let ctx: TestContext;
let app: FastifyInstance;
let provider: TestProvider;
const clock = testClock();
const REDIRECT_URI = `${ORIGIN}/app/sso/callback`;

useAccountsApp({ clock: clock.now }, (opened) => ({ ctx, app } = opened));
beforeAll(async () => {
  provider = await startTestProvider({ redirectUri: REDIRECT_URI });
});
afterAll(async () => {
  await provider?.close();
});

const em = () => ctx.orm.em.fork();
const newDomain = () => `sso-${randomUUID().slice(0, 8)}.test`;

interface Organization {
  owner: SignedInUser;
  domain: string;
}

async function putSso(owner: SignedInUser, body: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'PUT', url: '/api/organization/sso', headers: owner.headers, payload: body });
}

function settings(domain: string, extra: Record<string, unknown> = {}) {
  return {
    issuer: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    allowedDomains: [domain],
    jitEnabled: false,
    jitRoleId: null,
    ssoRequired: false,
    breakGlassUserId: null,
    ...extra,
  };
}

/** A new organization with its owner and its provider set up (an allowed domain of its own). */
async function organizationWithSso(
  extra: (org: Organization) => Record<string, unknown> = () => ({}),
): Promise<Organization> {
  const domain = newDomain();
  const owner = await signedInUser({ ctx }, { role: 'owner', email: `owner@${domain}` });
  const org = { owner, domain };
  const saved = await putSso(owner, settings(domain, extra(org)));
  expect(saved.statusCode, saved.body).toBe(200);
  return org;
}

async function member(org: Organization, local: string, role = 'member'): Promise<SignedInUser> {
  return signedInUser(
    { ctx },
    { role, organizationId: org.owner.organization.id, email: `${local}@${org.domain}` },
  );
}

/** Starts a sign-in for `email`, signs `account` in at the provider, and answers where it sent the browser back. */
async function throughProvider(
  browser: Browser,
  email: string,
  account: Omit<TestAccount, 'sub'>,
): Promise<URL> {
  const started = await browser.post('/api/auth/sso/start', { email });
  expect(started.statusCode, started.body).toBe(200);
  provider.signInAs(account);
  return provider.follow(started.json().authorizationUrl, REDIRECT_URI);
}

function callbackBody(back: URL) {
  return {
    state: back.searchParams.get('state') ?? '',
    code: back.searchParams.get('code') ?? undefined,
    iss: back.searchParams.get('iss') ?? undefined,
  };
}

/** The whole sign-in: start, the provider, the callback (the browser keeps the cookie it sets). */
async function ssoSignIn(browser: Browser, email: string, account: Omit<TestAccount, 'sub'>) {
  const back = await throughProvider(browser, email, account);
  return browser.post('/api/auth/sso/callback', callbackBody(back));
}

const eventsOf = (organizationId: string, type: string) =>
  em().find(SecurityEvent, { organizationId, type }, { orderBy: { occurredAt: 'desc' } });

describe('settings', () => {
  it('stores the client secret encrypted, never answers it, and keeps it when a change leaves it out', async () => {
    const org = await organizationWithSso();
    const row = await em().findOneOrFail(OrganizationSso, { organizationId: org.owner.organization.id });
    expect(row.clientSecretEncrypted).not.toContain(provider.clientSecret);
    expect(decryptSecret(Buffer.from(TEST_ENCRYPTION_KEY, 'base64'), row.clientSecretEncrypted)).toBe(
      provider.clientSecret,
    );
    const read = await app.inject({
      method: 'GET',
      url: '/api/organization/sso',
      headers: org.owner.headers,
    });
    expect(read.statusCode).toBe(200);
    expect(read.body).not.toContain(provider.clientSecret);
    expect(read.json()).toMatchObject({
      configured: true,
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecretSet: true,
      allowedDomains: [org.domain],
      redirectUri: REDIRECT_URI,
    });
    const { clientSecret: _left, ...withoutSecret } = settings(org.domain, { jitEnabled: false });
    const kept = await putSso(org.owner, { ...withoutSecret, allowedDomains: [org.domain, newDomain()] });
    expect(kept.statusCode, kept.body).toBe(200);
    const after = await em().findOneOrFail(OrganizationSso, { organizationId: org.owner.organization.id });
    expect(after.clientSecretEncrypted).toBe(row.clientSecretEncrypted);
    expect(after.allowedDomains).toHaveLength(2);
    const logged = await eventsOf(org.owner.organization.id, 'settings.updated');
    expect(JSON.stringify(logged.map((event) => event.details))).not.toContain(provider.clientSecret);
    expect(logged[0]?.details).toEqual({ changed: ['sso.allowedDomains'] });
  });

  it('refuses an issuer without OpenID metadata, an Owner just-in-time role, a missing break-glass owner and a taken domain, changing nothing', async () => {
    const domain = newDomain();
    const owner = await signedInUser({ ctx }, { role: 'owner', email: `owner@${domain}` });
    const wrongIssuer = await putSso(owner, settings(domain, { issuer: 'http://127.0.0.1:9/nothing' }));
    expect(wrongIssuer.statusCode).toBe(400);
    expect(wrongIssuer.json().error.details[0].field).toBe('body.issuer');
    const ownerRole = await em().findOneOrFail(Role, {
      organizationId: owner.organization.id,
      builtIn: 'owner',
    });
    const ownerJit = await putSso(owner, settings(domain, { jitEnabled: true, jitRoleId: ownerRole.id }));
    expect(ownerJit.statusCode).toBe(400);
    expect(ownerJit.json().error.details[0].field).toBe('body.jitRoleId');
    const noBreakGlass = await putSso(owner, settings(domain, { ssoRequired: true }));
    expect(noBreakGlass.statusCode).toBe(400);
    expect(noBreakGlass.json().error.details[0].field).toBe('body.breakGlassUserId');
    const other = await organizationWithSso();
    const taken = await putSso(owner, settings(other.domain));
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.code).toBe('sso_domain_taken');
    expect(await em().count(OrganizationSso, { organizationId: owner.organization.id })).toBe(0);
  });

  it('is read and changed only with the settings permissions', async () => {
    const org = await organizationWithSso();
    const sender = await member(org, 'sender', 'sender');
    const read = await app.inject({ method: 'GET', url: '/api/organization/sso', headers: sender.headers });
    expect(read.statusCode).toBe(403);
    const change = await putSso(sender, settings(org.domain));
    expect(change.statusCode).toBe(403);
  });
});

describe('signing in through the provider', () => {
  it('signs in the user of this organization with a verified address at an allowed domain (code flow with PKCE)', async () => {
    const org = await organizationWithSso();
    const dana = await member(org, 'dana');
    const browser = newBrowser(app);
    const started = await browser.post('/api/auth/sso/start', { email: dana.email });
    expect(started.statusCode, started.body).toBe(200);
    const authorization = new URL(started.json().authorizationUrl);
    expect(authorization.origin).toBe(provider.issuer);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(authorization.searchParams.get('redirect_uri')).toBe(REDIRECT_URI);
    const state = authorization.searchParams.get('state') ?? '';
    expect(state.length).toBeGreaterThan(40);
    // Only the state's SHA-256 is stored, with the nonce the provider was sent.
    const stored = await em().findOneOrFail(SsoSignIn, { stateHash: sha256Hex(state) });
    expect(stored.nonce).toBe(authorization.searchParams.get('nonce'));

    provider.signInAs({ email: dana.email, email_verified: true, name: 'Dana at the IdP' });
    const back = await provider.follow(authorization.href, REDIRECT_URI);
    const signed = await browser.post('/api/auth/sso/callback', callbackBody(back));
    expect(signed.statusCode, signed.body).toBe(200);
    expect(signed.json()).toEqual({ status: 'signed_in', methods: [] });
    const me = await browser.get('/api/auth/me');
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().user.email).toBe(dana.email);
    const [event] = await eventsOf(org.owner.organization.id, 'user.signed_in');
    expect(event).toMatchObject({ actorUserId: dana.user.id, details: { method: 'sso' } });
  });

  it('refuses a replayed state and a forged one, signing nobody in', async () => {
    const org = await organizationWithSso();
    const dana = await member(org, 'dana');
    const browser = newBrowser(app);
    const back = await throughProvider(browser, dana.email, { email: dana.email, email_verified: true });
    expect((await browser.post('/api/auth/sso/callback', callbackBody(back))).statusCode).toBe(200);

    const replayer = newBrowser(app);
    const replayed = await replayer.post('/api/auth/sso/callback', callbackBody(back));
    expect(replayed.statusCode).toBe(400);
    expect(replayed.json().error.code).toBe('sso_state_invalid');
    expect(replayer.cookie).toBeNull();

    const forger = newBrowser(app);
    const fresh = await throughProvider(forger, dana.email, { email: dana.email, email_verified: true });
    const forged = await forger.post('/api/auth/sso/callback', {
      ...callbackBody(fresh),
      state: fresh.searchParams.get('state')?.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
    });
    expect(forged.statusCode).toBe(400);
    expect(forged.json().error.code).toBe('sso_state_invalid');
    expect(forger.cookie).toBeNull();
  });

  it('makes a just-in-time account with the default role, and none when just-in-time accounts are off', async () => {
    const org = await organizationWithSso();
    const noJit = newBrowser(app);
    const refused = await ssoSignIn(noJit, `new@${org.domain}`, {
      email: `new@${org.domain}`,
      email_verified: true,
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('sso_no_account');
    expect(await em().count(AppUser, { email: `new@${org.domain}` })).toBe(0);

    const sender = await em().findOneOrFail(Role, {
      organizationId: org.owner.organization.id,
      builtIn: 'sender',
    });
    const senderRoleId = sender.id;
    const on = await putSso(org.owner, settings(org.domain, { jitEnabled: true, jitRoleId: senderRoleId }));
    expect(on.statusCode, on.body).toBe(200);
    const browser = newBrowser(app);
    const signed = await ssoSignIn(browser, `new@${org.domain}`, {
      email: `new@${org.domain}`,
      email_verified: true,
      name: 'Noa Cohen',
    });
    expect(signed.statusCode, signed.body).toBe(200);
    const made = await em().findOneOrFail(AppUser, { email: `new@${org.domain}` });
    expect(made).toMatchObject({
      organizationId: org.owner.organization.id,
      roleId: senderRoleId,
      status: 'active',
      passwordHash: null,
      fullName: 'Noa Cohen',
    });
    expect(made.emailVerifiedAt).not.toBeNull();
    expect((await browser.get('/api/auth/me')).json().role.builtIn).toBe('sender');
    const [event] = await eventsOf(org.owner.organization.id, 'user.provisioned');
    expect(event).toMatchObject({ subjectUserId: made.id, details: { method: 'sso' } });
  });

  it('links only a verified address at an allowed domain of this organization', async () => {
    const org = await organizationWithSso();
    const dana = await member(org, 'dana');

    const unverified = newBrowser(app);
    const notVerified = await ssoSignIn(unverified, dana.email, { email: dana.email, email_verified: false });
    expect(notVerified.statusCode).toBe(403);
    expect(notVerified.json().error.code).toBe('sso_email_not_verified');
    expect(unverified.cookie).toBeNull();

    // The provider vouches for an address at a domain this organization did not allow.
    const foreign = newBrowser(app);
    const foreignDomain = await ssoSignIn(foreign, dana.email, {
      email: `dana@elsewhere-${org.domain}`,
      email_verified: true,
    });
    expect(foreignDomain.statusCode).toBe(403);
    expect(foreignDomain.json().error.code).toBe('sso_domain_not_allowed');
    expect(foreign.cookie).toBeNull();

    // An address at an allowed domain whose account belongs to another organization is not linked.
    const elsewhere = await signedInUser({ ctx }, { role: 'member', email: `moved@${org.domain}` });
    const other = newBrowser(app);
    const otherOrg = await ssoSignIn(other, elsewhere.email, {
      email: elsewhere.email,
      email_verified: true,
    });
    expect(otherOrg.statusCode).toBe(403);
    expect(otherOrg.json().error.code).toBe('sso_no_account');
    expect(other.cookie).toBeNull();

    const failures = await eventsOf(org.owner.organization.id, 'user.sign_in_failed');
    expect(failures.map((event) => event.details.reason)).toEqual(
      expect.arrayContaining(['email_not_verified', 'domain_not_allowed', 'other_organization']),
    );
  });

  it('refuses a deactivated user', async () => {
    const org = await organizationWithSso();
    const dana = await member(org, 'dana');
    await em().nativeUpdate(AppUser, { id: dana.user.id }, { status: 'deactivated' });
    const browser = newBrowser(app);
    const refused = await ssoSignIn(browser, dana.email, { email: dana.email, email_verified: true });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('sso_account_disabled');
    expect(browser.cookie).toBeNull();
    const [event] = await eventsOf(org.owner.organization.id, 'user.sign_in_failed');
    expect(event).toMatchObject({
      subjectUserId: dana.user.id,
      details: { method: 'sso', reason: 'deactivated' },
    });
  });

  it('answers 404 for an address whose domain no organization signs in with', async () => {
    const started = await newBrowser(app).post('/api/auth/sso/start', { email: `someone@${newDomain()}` });
    expect(started.statusCode).toBe(404);
    expect(started.json().error.code).toBe('sso_not_configured');
  });
});

describe('SSO required', () => {
  it('refuses password sign-in and password reset but for the break-glass owner', async () => {
    const org = await organizationWithSso((o) => ({ ssoRequired: true, breakGlassUserId: o.owner.user.id }));
    const dana = await member(org, 'dana');
    const refused = await newBrowser(app).post('/api/auth/login', { email: dana.email, password: PASSWORD });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('sso_required');
    const owner = newBrowser(app);
    const ownerIn = await owner.post('/api/auth/login', { email: org.owner.email, password: PASSWORD });
    expect(ownerIn.statusCode, ownerIn.body).toBe(200);
    expect(owner.cookie).toBeTruthy();

    const reset = await newBrowser(app).post('/api/auth/forgot-password', { email: dana.email });
    expect(reset.statusCode).toBe(200);
    expect((await capturedTo(app, dana.email)).filter((email) => email.kind === 'reset_password')).toEqual(
      [],
    );
    const ownerReset = await newBrowser(app).post('/api/auth/forgot-password', { email: org.owner.email });
    expect(ownerReset.statusCode).toBe(200);
    expect((await capturedTo(app, org.owner.email)).some((email) => email.kind === 'reset_password')).toBe(
      true,
    );

    // Dana still signs in through the provider.
    const signed = await ssoSignIn(newBrowser(app), dana.email, { email: dana.email, email_verified: true });
    expect(signed.statusCode, signed.body).toBe(200);
  });
});

describe('the ID token', () => {
  it('refuses an expired ID token (the provider issues them for 60 seconds)', async () => {
    const org = await organizationWithSso();
    const dana = await member(org, 'dana');
    const browser = newBrowser(app);
    const back = await throughProvider(browser, dana.email, { email: dana.email, email_verified: true });
    // Three minutes pass (within the state's ten): the token is past its expiry and openid-client's tolerance.
    clock.advance(3 * 60 * 1000);
    const refused = await browser.post('/api/auth/sso/callback', callbackBody(back));
    expect(refused.statusCode, refused.body).toBe(401);
    expect(refused.json().error.code).toBe('sso_token_rejected');
    expect(browser.cookie).toBeNull();
  });
});
