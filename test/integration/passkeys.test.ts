// Passkeys (WebAuthn) as a second factor through HTTP (docs/accounts.md, "Two-step verification", "Passkeys"),
// with the browser's side done by real Chromium and a virtual authenticator of the DevTools protocol on a page
// of the test server's own origin (PUBLIC_BASE_URL is that origin, so the origin and the RP ID the server
// expects are the ones Chromium signs). Covered: registration (first passkey: backup codes and
// `user.mfa_enabled`), the sign-in's second step with a passkey (a new cookie; a replayed assertion, one over
// another challenge and one of another user's passkey are 401; a counter that went backwards too), an
// organization requiring MFA (a session held at enrolment leaves it with a new cookie; its last passkey cannot
// be removed), and removing a passkey (re-authentication; another user's passkey is 404; the last one takes
// the backup codes with it).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../config/config.ts';
import { Organization, Passkey } from '../../db/entities/index.ts';
import { freePort } from '../../scripts/ports.ts';
import { SESSION_COOKIE } from '../../services/accounts/sessions.ts';
import { buildTestApp } from '../support/api.ts';
import { asUser } from '../support/app-requests.ts';
import { launchTestBrowser, type TestBrowser } from '../support/browser.ts';
import { openTestContext, TEST_ENCRYPTION_KEY, type TestContext } from '../support/context.ts';
import { signedInUser } from '../support/signed-in-user.ts';
import { addVirtualAuthenticator } from '../support/virtual-authenticator.ts';

let ctx: TestContext;
let app: FastifyInstance;
let baseUrl: string;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  ctx = await openTestContext();
  const port = await freePort();
  // `localhost`, not 127.0.0.1: an IP address cannot be a WebAuthn RP ID.
  baseUrl = `http://localhost:${port}`;
  const config = loadConfig({
    SIGIL_ENV: 'test',
    SECRETS_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
    SIGNING_RATE_LIMIT_PER_MINUTE: '1000000',
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    PUBLIC_BASE_URL: baseUrl,
  });
  app = await buildTestApp(ctx, config);
  await app.listen({ host: 'localhost', port });
  browser = await launchTestBrowser();
  page = await browser.newPage();
  await page.goto(`${baseUrl}/plans`);
  await addVirtualAuthenticator(page);
});
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await ctx?.close();
});

// ---- The browser's side ---------------------------------------------------------------------------------------

/** Base64url ⇄ ArrayBuffer in the page, and the JSON of a PublicKeyCredential (as its toJSON() gives). */
const PAGE_HELPERS = `
  const toBuffer = (value) => {
    const base64 = value.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(value.length / 4) * 4, '=');
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  };
  const toBase64Url = (buffer) => {
    let binary = '';
    for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
    return btoa(binary).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  };
  const descriptors = (list) => (list ?? []).map((item) => ({ ...item, id: toBuffer(item.id) }));
`;

/** navigator.credentials.create() with the server's creation options: the RegistrationResponseJSON. */
async function createCredential(options: Record<string, unknown>): Promise<Record<string, unknown>> {
  return page.evaluate(`(async (options) => {
    ${PAGE_HELPERS}
    const credential = await navigator.credentials.create({
      publicKey: {
        ...options,
        challenge: toBuffer(options.challenge),
        user: { ...options.user, id: toBuffer(options.user.id) },
        excludeCredentials: descriptors(options.excludeCredentials),
      },
    });
    return {
      id: credential.id,
      rawId: toBase64Url(credential.rawId),
      type: credential.type,
      response: {
        clientDataJSON: toBase64Url(credential.response.clientDataJSON),
        attestationObject: toBase64Url(credential.response.attestationObject),
        transports: credential.response.getTransports(),
      },
      clientExtensionResults: credential.getClientExtensionResults(),
    };
  })(${JSON.stringify(options)})`);
}

/** navigator.credentials.get() with the server's request options: the AuthenticationResponseJSON. */
async function getAssertion(options: Record<string, unknown>): Promise<Record<string, unknown>> {
  return page.evaluate(`(async (options) => {
    ${PAGE_HELPERS}
    const credential = await navigator.credentials.get({
      publicKey: {
        ...options,
        challenge: toBuffer(options.challenge),
        allowCredentials: descriptors(options.allowCredentials),
      },
    });
    const { response } = credential;
    return {
      id: credential.id,
      rawId: toBase64Url(credential.rawId),
      type: credential.type,
      response: {
        clientDataJSON: toBase64Url(response.clientDataJSON),
        authenticatorData: toBase64Url(response.authenticatorData),
        signature: toBase64Url(response.signature),
        ...(response.userHandle ? { userHandle: toBase64Url(response.userHandle) } : {}),
      },
      clientExtensionResults: credential.getClientExtensionResults(),
    };
  })(${JSON.stringify(options)})`);
}

// ---- HTTP -------------------------------------------------------------------------------------------------------

function sessionCookieOf(response: LightMyRequestResponse): string | undefined {
  return response.cookies.find((cookie) => cookie.name === SESSION_COOKIE)?.value;
}

/** Headers of the app's origin with the session `cookie` (null: none yet), as the browser sends them. */
function sessionOf(cookie: string | null) {
  return { headers: { origin: baseUrl, ...(cookie ? { cookie: `${SESSION_COOKIE}=${cookie}` } : {}) } };
}

interface User {
  id: string;
  email: string;
  password: string;
  organizationId: string;
  cookie: string;
}

/** A new owner of a new organization, signed in (an active session unless the organization requires MFA). */
async function newUser(options: { mfaRequired?: boolean } = {}): Promise<User> {
  const made = await signedInUser({ ctx }, { role: 'owner' });
  const user = {
    id: made.user.id,
    email: made.email,
    password: made.password,
    organizationId: made.organization.id,
    cookie: made.cookie.slice(`${SESSION_COOKIE}=`.length),
  };
  if (!options.mfaRequired) return user;
  await ctx.em.nativeUpdate(Organization, { id: user.organizationId }, { mfaRequired: true });
  const login = await signIn(user);
  expect(login.status).toBe('mfa_enrolment_required');
  return { ...user, cookie: login.cookie };
}

async function signIn(user: Pick<User, 'email' | 'password'>) {
  const response = await asUser(app, sessionOf(null), 'POST', '/api/auth/login', {
    email: user.email,
    password: user.password,
  });
  expect(response.statusCode, response.body).toBe(200);
  const cookie = sessionCookieOf(response);
  expect(cookie).toBeTruthy();
  return { ...(response.json() as { status: string; methods: string[] }), cookie: cookie as string };
}

/** Registration options → the virtual authenticator → registration: the answer. */
async function registerPasskey(cookie: string, name = 'Laptop') {
  const options = await asUser(
    app,
    sessionOf(cookie),
    'POST',
    '/api/auth/mfa/passkeys/registration-options',
    {},
  );
  expect(options.statusCode, options.body).toBe(200);
  const response = await createCredential(options.json());
  return {
    options: options.json(),
    answer: await asUser(app, sessionOf(cookie), 'POST', '/api/auth/mfa/passkeys', { name, response }),
  };
}

async function me(cookie: string) {
  return asUser(app, sessionOf(cookie), 'GET', '/api/auth/me');
}

async function eventsOf(userId: string) {
  return ctx.em
    .getConnection()
    .execute<{ type: string; details: Record<string, unknown> }[]>(
      'select type, details from security_event where actor_user_id = ? order by occurred_at, id',
      [userId],
    );
}

/** Password step, then passkey options for the pending session. */
async function pendingWithOptions(user: User) {
  const login = await signIn(user);
  expect(login.status).toBe('mfa_required');
  const options = await asUser(
    app,
    sessionOf(login.cookie),
    'POST',
    '/api/auth/login/mfa/passkey-options',
    {},
  );
  expect(options.statusCode, options.body).toBe(200);
  return { pending: login.cookie, methods: login.methods, options: options.json() };
}

// ---- Tests ------------------------------------------------------------------------------------------------------

describe('passkeys as a second factor', () => {
  let user: User;
  let backupCodes: string[];
  let credentialId: string;

  it('registers a passkey with the virtual authenticator: backup codes and user.mfa_enabled the first time', async () => {
    user = await newUser();
    const { options, answer } = await registerPasskey(user.cookie);
    expect(options.rp).toEqual({ id: 'localhost', name: 'Sigil' });
    expect(options.user.name).toBe(user.email);
    expect(options.excludeCredentials).toEqual([]);
    expect(options.authenticatorSelection.userVerification).toBe('preferred');
    expect(answer.statusCode, answer.body).toBe(200);
    const registered = answer.json();
    expect(registered).toMatchObject({ name: 'Laptop', lastUsedAt: null });
    expect(registered.backupCodes).toHaveLength(10);
    backupCodes = registered.backupCodes;
    // An active session stays as it was.
    expect(sessionCookieOf(answer)).toBeUndefined();

    const stored = await ctx.em.findOneOrFail(Passkey, { id: registered.id });
    expect(stored.userId).toBe(user.id);
    credentialId = stored.credentialId;

    const list = await asUser(app, sessionOf(user.cookie), 'GET', '/api/auth/mfa/passkeys');
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().passkeys).toEqual([
      { id: registered.id, name: 'Laptop', createdAt: registered.createdAt, lastUsedAt: null },
    ]);
    expect((await me(user.cookie)).json().user.mfa).toEqual({
      totp: false,
      backupCodesLeft: 10,
      passkeys: 1,
    });
    expect(await eventsOf(user.id)).toContainEqual({
      type: 'user.mfa_enabled',
      details: { method: 'passkey', backupCodes: 10 },
    });

    // The next options exclude it; the answer of the same challenge is not taken twice.
    const again = await asUser(
      app,
      sessionOf(user.cookie),
      'POST',
      '/api/auth/mfa/passkeys/registration-options',
      {},
    );
    expect(again.json().excludeCredentials.map((item: { id: string }) => item.id)).toEqual([credentialId]);
    const replay = await asUser(app, sessionOf(user.cookie), 'POST', '/api/auth/mfa/passkeys', {
      name: 'Again',
      response: {},
    });
    expect(replay.statusCode).toBe(400);
  });

  it('signs in with the password, then the passkey: mfa_required names passkey, and a new cookie', async () => {
    expect((await asUser(app, sessionOf(user.cookie), 'POST', '/api/auth/logout', {})).statusCode).toBe(200);
    const { pending, methods, options } = await pendingWithOptions(user);
    expect(methods).toEqual(['passkey', 'backup_code']);
    expect(options.rpId).toBe('localhost');
    expect(options.allowCredentials.map((item: { id: string }) => item.id)).toEqual([credentialId]);
    // The pending session is not signed in.
    expect((await me(pending)).statusCode).toBe(401);

    const response = await getAssertion(options);
    const answer = await asUser(app, sessionOf(pending), 'POST', '/api/auth/login/mfa/passkey', { response });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json()).toEqual({ status: 'signed_in', methods: [] });
    const cookie = sessionCookieOf(answer) as string;
    expect(cookie).toBeTruthy();
    expect(cookie).not.toBe(pending);
    expect((await me(cookie)).statusCode).toBe(200);
    expect((await me(pending)).statusCode).toBe(401);
    const stored = await ctx.em.findOneOrFail(Passkey, { credentialId });
    expect(stored.lastUsedAt).not.toBeNull();
    expect(await eventsOf(user.id)).toContainEqual({
      type: 'user.signed_in',
      details: { method: 'passkey', state: 'active' },
    });
    user.cookie = cookie;

    // The same assertion again, with a new pending session and new options: another challenge, refused.
    const next = await pendingWithOptions(user);
    const replayed = await asUser(app, sessionOf(next.pending), 'POST', '/api/auth/login/mfa/passkey', {
      response,
    });
    expect(replayed.statusCode, replayed.body).toBe(401);
    expect(replayed.json().error.code).toBe('invalid_code');
    expect(replayed.json().error.details[0].attemptsLeft).toBe(4);
    // That challenge was taken by the wrong answer: a right assertion over it is refused too.
    const late = await asUser(app, sessionOf(next.pending), 'POST', '/api/auth/login/mfa/passkey', {
      response: await getAssertion(next.options),
    });
    expect(late.statusCode, late.body).toBe(401);
    // New options: it works.
    const fresh = await asUser(
      app,
      sessionOf(next.pending),
      'POST',
      '/api/auth/login/mfa/passkey-options',
      {},
    );
    const ok = await asUser(app, sessionOf(next.pending), 'POST', '/api/auth/login/mfa/passkey', {
      response: await getAssertion(fresh.json()),
    });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('refuses an assertion of another user’s passkey, and a counter that went backwards', async () => {
    const other = await newUser();
    const { answer } = await registerPasskey(other.cookie, 'Other laptop');
    expect(answer.statusCode, answer.body).toBe(200);
    const otherCredential = (await ctx.em.findOneOrFail(Passkey, { id: answer.json().id })).credentialId;

    // The user's challenge, signed with the other user's passkey.
    const { pending, options } = await pendingWithOptions(user);
    const foreign = await getAssertion({
      ...options,
      allowCredentials: [{ id: otherCredential, type: 'public-key' }],
    });
    expect(foreign.id).toBe(otherCredential);
    const refused = await asUser(app, sessionOf(pending), 'POST', '/api/auth/login/mfa/passkey', {
      response: foreign,
    });
    expect(refused.statusCode, refused.body).toBe(401);
    expect(refused.json().error.code).toBe('invalid_code');

    // A stored counter above the authenticator's: a cloned authenticator, refused.
    await ctx.em.nativeUpdate(Passkey, { credentialId }, { counter: 1_000_000 });
    const options2 = await asUser(app, sessionOf(pending), 'POST', '/api/auth/login/mfa/passkey-options', {});
    const backwards = await asUser(app, sessionOf(pending), 'POST', '/api/auth/login/mfa/passkey', {
      response: await getAssertion(options2.json()),
    });
    expect(backwards.statusCode, backwards.body).toBe(401);
    expect((await ctx.em.findOneOrFail(Passkey, { credentialId })).counter).toBe(1_000_000);
    // The same authenticator with the counter put back: accepted (so the refusal was the counter's).
    await ctx.em.nativeUpdate(Passkey, { credentialId }, { counter: 0 });
    const options3 = await asUser(app, sessionOf(pending), 'POST', '/api/auth/login/mfa/passkey-options', {});
    const accepted = await asUser(app, sessionOf(pending), 'POST', '/api/auth/login/mfa/passkey', {
      response: await getAssertion(options3.json()),
    });
    expect(accepted.statusCode, accepted.body).toBe(200);

    // Another user's passkey id is not found for removal, even with the right re-authentication.
    const removal = await asUser(
      app,
      sessionOf(user.cookie),
      'POST',
      `/api/auth/mfa/passkeys/${answer.json().id}/remove`,
      {
        password: user.password,
        backupCode: backupCodes[0],
      },
    );
    expect(removal.statusCode, removal.body).toBe(404);
    expect(removal.json().error.code).toBe('not_found');
    expect(await ctx.em.count(Passkey, { id: answer.json().id })).toBe(1);
  });

  it('removes the last passkey only after re-authentication; the backup codes go with it', async () => {
    const [passkey] = (await asUser(app, sessionOf(user.cookie), 'GET', '/api/auth/mfa/passkeys')).json()
      .passkeys;
    const url = `/api/auth/mfa/passkeys/${passkey.id}/remove`;
    expect(
      (await asUser(app, sessionOf(user.cookie), 'POST', url, { password: user.password })).statusCode,
    ).toBe(400);
    const wrong = await asUser(app, sessionOf(user.cookie), 'POST', url, {
      password: 'not the password',
      backupCode: backupCodes[1],
    });
    expect(wrong.statusCode, wrong.body).toBe(401);
    expect(wrong.json().error.code).toBe('invalid_credentials');

    const removed = await asUser(app, sessionOf(user.cookie), 'POST', url, {
      password: user.password,
      backupCode: backupCodes[1],
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(
      (await asUser(app, sessionOf(user.cookie), 'GET', '/api/auth/mfa/passkeys')).json().passkeys,
    ).toEqual([]);
    expect((await me(user.cookie)).json().user.mfa).toEqual({ totp: false, backupCodesLeft: 0, passkeys: 0 });
    expect(await eventsOf(user.id)).toContainEqual(
      expect.objectContaining({
        type: 'user.mfa_disabled',
        details: expect.objectContaining({ method: 'passkey' }),
      }),
    );
    // No second factor left: the password alone signs in.
    expect((await signIn(user)).status).toBe('signed_in');
  });
});

describe('an organization that requires MFA', () => {
  it('lets a user held at enrolment enrol with a passkey (a new cookie) and keeps the last one', async () => {
    const user = await newUser({ mfaRequired: true });
    expect((await me(user.cookie)).json().session.state).toBe('mfa_enrolment_required');
    expect((await asUser(app, sessionOf(user.cookie), 'GET', '/api/auth/mfa/passkeys')).statusCode).toBe(200);

    const { answer } = await registerPasskey(user.cookie, 'Security key');
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().backupCodes).toHaveLength(10);
    const cookie = sessionCookieOf(answer) as string;
    expect(cookie).toBeTruthy();
    expect(cookie).not.toBe(user.cookie);
    expect((await me(user.cookie)).statusCode).toBe(401);
    const after = await me(cookie);
    expect(after.json().session.state).toBe('active');
    expect(after.json().user.mfa.passkeys).toBe(1);

    // The last second factor stays: refused before the re-authentication is even looked at.
    const removal = await asUser(
      app,
      sessionOf(cookie),
      'POST',
      `/api/auth/mfa/passkeys/${answer.json().id}/remove`,
      {
        password: user.password,
        backupCode: answer.json().backupCodes[0],
      },
    );
    expect(removal.statusCode, removal.body).toBe(403);
    expect(removal.json().error.code).toBe('mfa_required_by_organization');
    expect(await ctx.em.count(Passkey, { id: answer.json().id })).toBe(1);

    // And the next sign-in asks for it.
    const login = await signIn(user);
    expect(login).toMatchObject({ status: 'mfa_required', methods: ['passkey', 'backup_code'] });
    // A backup code does for a passkey-only user too.
    const withCode = await asUser(app, sessionOf(login.cookie), 'POST', '/api/auth/login/mfa', {
      backupCode: answer.json().backupCodes[1],
    });
    expect(withCode.statusCode, withCode.body).toBe(200);
    expect(sessionCookieOf(withCode)).toBeTruthy();
  });
});
