// Two-step verification through HTTP (docs/accounts.md, "Two-step verification"): enrolment (setup → confirm
// with a code computed here from the secret the setup answered → ten backup codes), the sign-in's second step
// with a TOTP code or a backup code (a new session cookie; wrong codes 401 and counted; the fifth ends the
// pending session; ten per user in 15 minutes answer 429), codes accepted once (replay, also when two requests
// race), the ±1 step window, new backup codes and turning MFA off (both need the password and a code), the
// organization's requirement (a session held at enrolment until the user has MFA, then a new cookie), and the
// secret stored encrypted with SECRETS_ENCRYPTION_KEY. Users are made with the services; every sign-in and
// sign-out goes through POST /api/auth/login and /logout. Time moves by an injected clock, never by sleeping.
import { createHash } from 'node:crypto';
import type { Connection } from '@temporalio/client';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app.ts';
import { decryptSecret } from '../../config/secrets-encryption.ts';
import { AppUser, Organization, Role } from '../../db/entities/index.ts';
import { SESSION_COOKIE } from '../../services/accounts/sessions.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { hashPassword } from '../../services/security/passwords.ts';
import { asUser, sessionCaller } from '../support/app-requests.ts';
import { openTestContext, TEST_ENCRYPTION_KEY, type TestContext, testConfig } from '../support/context.ts';

const ORIGIN = { origin: 'http://localhost:3000' };
const PASSWORD = 'correct horse battery staple';
const BACKUP_CODE_PATTERN = /^[abcdefghjkmnpqrstuvwxyz23456789]{5}-[abcdefghjkmnpqrstuvwxyz23456789]{5}$/;

let ctx: TestContext;
let app: FastifyInstance;
/** The app's clock: tests move it forward to reach the next TOTP step or pass the 15-minute window. */
let nowMs = Date.now();
const advance = (ms: number) => {
  nowMs += ms;
};

beforeAll(async () => {
  ctx = await openTestContext();
  app = await buildApp({
    config: testConfig(),
    orm: ctx.orm,
    temporal: {
      connection: ctx.temporal.connection as Connection,
      client: ctx.temporal,
      namespace: inject('namespace'),
    },
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    clock: () => new Date(nowMs),
  });
});
afterAll(async () => {
  await app?.close();
  await ctx?.close();
});

// ---- Helpers ------------------------------------------------------------------------------------------------

interface TestUser {
  id: string;
  email: string;
  organizationId: string;
}

/** A new organization with one active owner whose email is verified (and no MFA). */
async function newUser(options: { mfaRequired?: boolean } = {}): Promise<TestUser> {
  const organization = await createOrganization(ctx, {
    name: `MFA org ${Math.random().toString(36).slice(2, 8)}`,
    plan: 'Business',
    apiEnabled: false,
  });
  const em = ctx.em;
  const owner = await em.findOneOrFail(Role, { organizationId: organization.id, builtIn: 'owner' });
  const email = `mfa-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const user = em.create(AppUser, {
    id: crypto.randomUUID(),
    organizationId: organization.id,
    email,
    fullName: 'Noa Peretz',
    passwordHash: await hashPassword(PASSWORD),
    status: 'active',
    emailVerifiedAt: new Date(nowMs),
    roleId: owner.id,
    teamId: null,
    language: 'en',
    totpSecretEncrypted: null,
    totpPendingSecretEncrypted: null,
    totpEnabledAt: null,
    invitedAt: null,
    invitedBy: null,
    lastLoginAt: null,
    deletedAt: null,
  });
  if (options.mfaRequired) {
    await em.nativeUpdate(Organization, { id: organization.id }, { mfaRequired: true });
  }
  await em.flush();
  return { id: user.id, email, organizationId: organization.id };
}

/** The session cookie an answer sets ('' when it clears it), or undefined when it sets none. */
function sessionCookieOf(response: LightMyRequestResponse): string | undefined {
  return response.cookies.find((cookie) => cookie.name === SESSION_COOKIE)?.value;
}

/** The password step: POST /api/auth/login; its status and the session cookie it sets. */
async function signIn(user: TestUser, password = PASSWORD): Promise<{ status: string; cookie: string }> {
  const response = await asUser(app, sessionCaller(null), 'POST', '/api/auth/login', {
    email: user.email,
    password,
  });
  expect(response.statusCode, response.body).toBe(200);
  const cookie = sessionCookieOf(response);
  expect(cookie).toBeTruthy();
  return { status: response.json().status, cookie: cookie as string };
}

function totp(secret: string): TOTP {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
}

/** The code of `secret` for the clock's time moved by `offsetSteps` 30-second steps. */
const codeOf = (secret: string, offsetSteps = 0) =>
  totp(secret).generate({ timestamp: nowMs + offsetSteps * 30_000 });

/** Setup → confirm with a computed code: the user's base32 secret and backup codes. */
async function enrol(cookie: string): Promise<{ secret: string; backupCodes: string[]; cookie: string }> {
  const setup = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/totp/setup', {});
  expect(setup.statusCode, setup.body).toBe(200);
  const { secret } = setup.json() as { secret: string };
  const confirm = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/totp/confirm', {
    code: codeOf(secret),
  });
  expect(confirm.statusCode, confirm.body).toBe(200);
  // The code that confirmed is used: the next sign-in needs the next step's code.
  advance(30_000);
  return { secret, backupCodes: confirm.json().backupCodes, cookie: sessionCookieOf(confirm) ?? cookie };
}

async function signOut(cookie: string): Promise<void> {
  const response = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/logout', {});
  expect(response.statusCode, response.body).toBe(200);
}

/** A user with MFA on, signed out: the secret and the backup codes. */
async function enrolledUser(): Promise<TestUser & { secret: string; backupCodes: string[] }> {
  const user = await newUser();
  const { cookie } = await signIn(user);
  const enrolment = await enrol(cookie);
  await signOut(enrolment.cookie);
  expect(await signedInAccess(enrolment.cookie)).toEqual({ status: 401, code: 'unauthorized' });
  return { ...user, secret: enrolment.secret, backupCodes: enrolment.backupCodes };
}

async function userRow(id: string) {
  return ctx.em.findOneOrFail(AppUser, { id });
}

interface EventRow {
  type: string;
  details: Record<string, unknown>;
}

async function eventsOf(userId: string): Promise<EventRow[]> {
  return ctx.em
    .getConnection()
    .execute<EventRow[]>(
      'select type, details from security_event where actor_user_id = ? order by occurred_at, id',
      [userId],
    );
}

/** A signed-in-only route that changes nothing when its body is refused: tells whether a cookie gets past access. */
async function signedInAccess(cookie: string) {
  const response = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/backup-codes', {});
  return { status: response.statusCode, code: response.json().error?.code as string | undefined };
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

// ---- Enrolment -----------------------------------------------------------------------------------------------

describe('TOTP enrolment', () => {
  it('answers a secret, an otpauth URL and a QR code, confirms with the first code and answers ten backup codes', async () => {
    const user = await newUser();
    const { status, cookie } = await signIn(user);
    expect(status).toBe('signed_in');

    const setup = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/totp/setup', {});
    expect(setup.statusCode, setup.body).toBe(200);
    const { secret, otpauthUrl, qrCodeSvg } = setup.json() as {
      secret: string;
      otpauthUrl: string;
      qrCodeSvg: string;
    };
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(otpauthUrl);
    expect(url.protocol).toBe('otpauth:');
    expect(url.host).toBe('totp');
    expect(decodeURIComponent(url.pathname)).toBe(`/Sigil:${user.email}`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      issuer: 'Sigil',
      secret,
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
    expect(qrCodeSvg).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(qrCodeSvg).toContain('<path');

    // Stored encrypted as the pending secret; nothing is on yet.
    let row = await userRow(user.id);
    expect(row.totpEnabledAt).toBeNull();
    expect(row.totpSecretEncrypted).toBeNull();
    expect(row.totpPendingSecretEncrypted).toBeTruthy();

    // A wrong code does not confirm.
    const wrong = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/totp/confirm', {
      code: codeOf(secret, 3),
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.code).toBe('invalid_code');

    const confirm = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/totp/confirm', {
      code: codeOf(secret),
    });
    expect(confirm.statusCode, confirm.body).toBe(200);
    // An active session stays the same session.
    expect(sessionCookieOf(confirm)).toBeUndefined();
    const { backupCodes } = confirm.json() as { backupCodes: string[] };
    expect(backupCodes).toHaveLength(10);
    expect(new Set(backupCodes).size).toBe(10);
    for (const code of backupCodes) expect(code).toMatch(BACKUP_CODE_PATTERN);

    row = await userRow(user.id);
    expect(row.totpEnabledAt).not.toBeNull();
    expect(row.totpPendingSecretEncrypted).toBeNull();
    const stored = await ctx.em
      .getConnection()
      .execute<{ code_hash: string; used_at: Date | null }[]>(
        'select code_hash, used_at from mfa_backup_code where user_id = ? order by code_hash',
        [user.id],
      );
    expect(stored.map((code) => code.code_hash)).toEqual(
      backupCodes.map((code) => sha256(code.replace('-', ''))).sort(),
    );
    expect(stored.every((code) => code.used_at === null)).toBe(true);
    expect((await eventsOf(user.id)).map((event) => event.type)).toContain('user.mfa_enabled');

    // Once on, setup and confirm are refused.
    const again = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/totp/setup', {});
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('mfa_already_enabled');
    const reconfirm = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/totp/confirm', {
      code: codeOf(secret, 1),
    });
    expect(reconfirm.statusCode).toBe(409);
  });

  it('stores the secret encrypted with SECRETS_ENCRYPTION_KEY, never in the clear', async () => {
    const user = await newUser();
    const { cookie } = await signIn(user);
    const { secret } = await enrol(cookie);
    const [row] = await ctx.em
      .getConnection()
      .execute<{ totp_secret_encrypted: string; totp_pending_secret_encrypted: string | null }[]>(
        'select totp_secret_encrypted, totp_pending_secret_encrypted from app_user where id = ?',
        [user.id],
      );
    if (!row) throw new Error('no user row');
    expect(row.totp_pending_secret_encrypted).toBeNull();
    expect(row.totp_secret_encrypted).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(row.totp_secret_encrypted).not.toContain(secret);
    expect(row.totp_secret_encrypted.toLowerCase()).not.toContain(secret.toLowerCase());
    expect(decryptSecret(Buffer.from(TEST_ENCRYPTION_KEY, 'base64'), row.totp_secret_encrypted)).toBe(secret);
    expect(() => decryptSecret(Buffer.alloc(32, 7), row.totp_secret_encrypted)).toThrow();
  });

  it('refuses confirming without a setup, and a code that is not six digits', async () => {
    const user = await newUser();
    const { cookie } = await signIn(user);
    const confirm = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/totp/confirm', {
      code: '123456',
    });
    expect(confirm.statusCode).toBe(409);
    expect(confirm.json().error.code).toBe('no_totp_setup');
    const malformed = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/totp/confirm', {
      code: '12345',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.details[0].field).toBe('body.code');
    // Not signed in at all.
    expect((await asUser(app, sessionCaller(null), 'POST', '/api/auth/mfa/totp/setup', {})).statusCode).toBe(
      401,
    );
  });
});

// ---- The sign-in's second step ---------------------------------------------------------------------------------

describe('POST /api/auth/login/mfa', () => {
  it('signs in with the current code: a new cookie; a wrong code is 401 invalid_code; a code works once', async () => {
    const user = await enrolledUser();
    const login = await asUser(app, sessionCaller(null), 'POST', '/api/auth/login', {
      email: user.email,
      password: PASSWORD,
    });
    expect(login.json()).toEqual({ status: 'mfa_required', methods: ['totp', 'backup_code'] });
    const pending = { cookie: sessionCookieOf(login) as string };

    // The pending session opens nothing but the second step.
    expect(await signedInAccess(pending.cookie)).toEqual({ status: 401, code: 'unauthorized' });
    expect(
      (await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/mfa/totp/setup', {})).statusCode,
    ).toBe(401);

    const wrong = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret, 5),
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toMatchObject({
      code: 'invalid_code',
      details: [{ field: 'code', attemptsLeft: 4 }],
    });

    const code = codeOf(user.secret);
    const right = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', { code });
    expect(right.statusCode, right.body).toBe(200);
    expect(right.json()).toEqual({ status: 'signed_in', methods: [] });
    const signedIn = sessionCookieOf(right);
    expect(signedIn).toBeTruthy();
    expect(signedIn).not.toBe(pending.cookie);
    const cookie = right.cookies.find((candidate) => candidate.name === SESSION_COOKIE);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });

    // The new session is complete (its request gets past access to the input check); the pending one ended.
    expect(await signedInAccess(signedIn as string)).toEqual({ status: 400, code: 'invalid_request' });
    const reuse = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', { code });
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json().error.code).toBe('unauthorized');

    // The same code on a new sign-in within its 30 seconds: refused (replay).
    const second = await signIn(user);
    const replay = await asUser(app, sessionCaller(second.cookie), 'POST', '/api/auth/login/mfa', { code });
    expect(replay.statusCode).toBe(401);
    expect(replay.json().error.code).toBe('invalid_code');
    // The next step's code is accepted.
    advance(30_000);
    const next = await asUser(app, sessionCaller(second.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret),
    });
    expect(next.statusCode, next.body).toBe(200);

    const row = await userRow(user.id);
    expect(row.lastLoginAt?.getTime()).toBe(nowMs);
    const events = await eventsOf(user.id);
    expect(events.filter((event) => event.type === 'user.mfa_failed').map((event) => event.details)).toEqual([
      { method: 'totp', purpose: 'sign_in', attemptsLeft: 4 },
      { method: 'totp', purpose: 'sign_in', attemptsLeft: 4 },
    ]);
    expect(
      events.filter((event) => event.type === 'user.signed_in' && event.details.method === 'totp'),
    ).toHaveLength(2);
  });

  it('accepts a code of the step before or after the current one, not further, and never an earlier step', async () => {
    const user = await enrolledUser();
    advance(5 * 30_000);
    const first = await signIn(user);
    const tooOld = await asUser(app, sessionCaller(first.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret, -2),
    });
    expect(tooOld.statusCode).toBe(401);
    const tooNew = await asUser(app, sessionCaller(first.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret, 2),
    });
    expect(tooNew.statusCode).toBe(401);
    const previous = await asUser(app, sessionCaller(first.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret, -1),
    });
    expect(previous.statusCode, previous.body).toBe(200);

    const second = await signIn(user);
    const following = await asUser(app, sessionCaller(second.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret, 1),
    });
    expect(following.statusCode, following.body).toBe(200);

    // The current step's code was never used, but a later step's was: refused.
    const third = await signIn(user);
    const current = await asUser(app, sessionCaller(third.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret),
    });
    expect(current.statusCode).toBe(401);
    expect(current.json().error.code).toBe('invalid_code');
  });

  it('accepts the enrolment code only for enrolment, not for the sign-in that follows', async () => {
    const user = await newUser();
    const { cookie } = await signIn(user);
    const setup = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/totp/setup', {});
    const { secret } = setup.json() as { secret: string };
    const code = codeOf(secret);
    expect(
      (await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/totp/confirm', { code })).statusCode,
    ).toBe(200);
    const pending = await signIn(user);
    expect(pending.status).toBe('mfa_required');
    const replay = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', { code });
    expect(replay.statusCode).toBe(401);
  });

  it('lets one of simultaneous requests with the same code through', async () => {
    const user = await enrolledUser();
    const [a, b] = [await signIn(user), await signIn(user)];
    const code = codeOf(user.secret);
    const twoSessions = await Promise.all([
      asUser(app, sessionCaller(a.cookie), 'POST', '/api/auth/login/mfa', { code }),
      asUser(app, sessionCaller(b.cookie), 'POST', '/api/auth/login/mfa', { code }),
    ]);
    expect(twoSessions.map((answer) => answer.statusCode).sort()).toEqual([200, 401]);
    expect(twoSessions.find((answer) => answer.statusCode === 401)?.json().error.code).toBe('invalid_code');

    // One pending session, two right codes at once (a backup code each): one new session, not two.
    const c = await signIn(user);
    const [first, second] = user.backupCodes as [string, string];
    const oneSession = await Promise.all([
      asUser(app, sessionCaller(c.cookie), 'POST', '/api/auth/login/mfa', { backupCode: first }),
      asUser(app, sessionCaller(c.cookie), 'POST', '/api/auth/login/mfa', { backupCode: second }),
    ]);
    expect(oneSession.filter((answer) => answer.statusCode === 200)).toHaveLength(1);
    const refused = oneSession.find((answer) => answer.statusCode !== 200);
    // Refused at the access check (the session had ended) or inside (it ended while waiting for the lock).
    expect([401, 409]).toContain(refused?.statusCode);
    const [used] = await ctx.em
      .getConnection()
      .execute<{ n: string }[]>(
        'select count(*) as n from mfa_backup_code where user_id = ? and used_at is not null',
        [user.id],
      );
    expect(Number(used?.n)).toBe(1);
  });

  it('signs in with a backup code once; the second time it is refused', async () => {
    const user = await enrolledUser();
    const [backupCode, other] = user.backupCodes as [string, string];
    const pending = await signIn(user);
    // Typed in capitals and without the dash: the same code.
    const answer = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', {
      backupCode: backupCode.replace('-', '').toUpperCase(),
    });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().status).toBe('signed_in');
    expect(sessionCookieOf(answer)).not.toBe(pending.cookie);

    const used = await ctx.em
      .getConnection()
      .execute<{ n: string }[]>(
        'select count(*) as n from mfa_backup_code where user_id = ? and used_at is not null',
        [user.id],
      );
    expect(Number(used[0]?.n)).toBe(1);
    const me = await app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { cookie: `${SESSION_COOKIE}=${sessionCookieOf(answer)}` },
    });
    expect(me.json().user.mfa).toEqual({ totp: true, backupCodesLeft: 9, passkeys: 0 });

    const again = await signIn(user);
    const reuse = await asUser(app, sessionCaller(again.cookie), 'POST', '/api/auth/login/mfa', {
      backupCode,
    });
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json().error.code).toBe('invalid_code');
    const fresh = await asUser(app, sessionCaller(again.cookie), 'POST', '/api/auth/login/mfa', {
      backupCode: other,
    });
    expect(fresh.statusCode).toBe(200);

    const events = await eventsOf(user.id);
    expect(
      events.filter((event) => event.type === 'user.signed_in' && event.details.method === 'backup_code'),
    ).toHaveLength(2);
    expect(events.find((event) => event.type === 'user.mfa_failed')?.details).toEqual({
      method: 'backup_code',
      purpose: 'sign_in',
      attemptsLeft: 4,
    });
  });

  it('refuses a body with both factors or neither, naming the field', async () => {
    const user = await enrolledUser();
    const pending = await signIn(user);
    const both = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret),
      backupCode: user.backupCodes[0],
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().error.details[0].field).toBe('body.backupCode');
    const neither = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', {});
    expect(neither.statusCode).toBe(400);
    expect(neither.json().error.details[0].field).toBe('body.code');
    // Refused input is not a wrong code: the session still has its five attempts.
    const wrong = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret, 9),
    });
    expect(wrong.json().error.details[0].attemptsLeft).toBe(4);
  });

  it('ends the pending session at the fifth wrong code: 401, and the right code no longer helps', async () => {
    const user = await enrolledUser();
    const pending = await signIn(user);
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      const wrong = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', {
        code: codeOf(user.secret, 4),
      });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json().error.details[0].attemptsLeft).toBe(5 - attempt);
      expect(sessionCookieOf(wrong)).toBeUndefined();
    }
    const fifth = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', {
      backupCode: 'aaaaa-aaaaa',
    });
    expect(fifth.statusCode).toBe(401);
    expect(fifth.json().error).toMatchObject({ code: 'invalid_code', details: [{ attemptsLeft: 0 }] });
    expect(fifth.json().error.message).toMatch(/sign in again/);
    // The answer clears the cookie.
    expect(sessionCookieOf(fifth)).toBe('');

    // Later attempts with the ended session's cookie (a client that did not drop it) get the fifth's answer
    // again, attemptsLeft 0 as documented, not a bare "sign in first" (issue 30).
    for (const [url, body] of [
      ['/api/auth/login/mfa', { code: codeOf(user.secret) }],
      ['/api/auth/login/mfa', { backupCode: user.backupCodes[0] }],
      ['/api/auth/login/mfa/passkey-options', {}],
    ] as const) {
      const late = await asUser(app, sessionCaller(pending.cookie), 'POST', url, body);
      expect(late.statusCode, url).toBe(401);
      expect(late.json().error, url).toMatchObject({
        code: 'invalid_code',
        message: 'This sign-in has ended. Too many wrong codes: sign in again.',
        details: [{ field: 'code', attemptsLeft: 0 }],
      });
    }
    const [session] = await ctx.em
      .getConnection()
      .execute<{ ended_reason: string; mfa_failures: number }[]>(
        `select ended_reason, mfa_failures from user_session where user_id = ? and state = 'mfa_pending'`,
        [user.id],
      );
    expect(session).toEqual({ ended_reason: 'mfa_failed', mfa_failures: 5 });

    // Signing in again starts over.
    const again = await signIn(user);
    const right = await asUser(app, sessionCaller(again.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret),
    });
    expect(right.statusCode, right.body).toBe(200);
  });

  it('answers every one of six wrong codes sent at once with attemptsLeft, the fifth and the sixth with 0', async () => {
    const user = await enrolledUser();
    const pending = await signIn(user);
    const answers = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((step) =>
        asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', {
          code: codeOf(user.secret, 10 + step),
        }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(answers.map((answer) => answer.json().error.code)).toEqual(Array(6).fill('invalid_code'));
    expect(
      answers
        .map((answer) => answer.json().error.details[0].attemptsLeft)
        .sort((a: number, b: number) => a - b),
    ).toEqual([0, 0, 1, 2, 3, 4]);
    // Five were counted; the sixth found the session ended.
    const events = await eventsOf(user.id);
    expect(events.filter((event) => event.type === 'user.mfa_failed')).toHaveLength(5);
  });

  it('answers 429 after ten wrong codes for one user within 15 minutes, whatever the sessions', async () => {
    const user = await enrolledUser();
    for (let round = 0; round < 2; round += 1) {
      const pending = await signIn(user);
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const wrong = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', {
          code: codeOf(user.secret, 7),
        });
        expect(wrong.statusCode).toBe(401);
      }
      advance(60_000);
    }
    const pending = await signIn(user);
    const limited = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret),
    });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('rate_limited');
    // The first failure was two minutes ago: 13 minutes to wait.
    expect(Number(limited.headers['retry-after'])).toBe(13 * 60);

    // A pending sign-in lasts 10 minutes: sign in again once the window has passed.
    advance(13 * 60_000 + 1_000);
    const later = await signIn(user);
    const right = await asUser(app, sessionCaller(later.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret),
    });
    expect(right.statusCode, right.body).toBe(200);
  });
});

// ---- New backup codes and turning MFA off ---------------------------------------------------------------------

describe('POST /api/auth/mfa/backup-codes', () => {
  it('needs the password and a code; replaces every code', async () => {
    const user = await enrolledUser();
    const pending = await signIn(user);
    const signedIn = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret),
    });
    const cookie = sessionCookieOf(signedIn) as string;
    advance(30_000);

    const noCode = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/backup-codes', {
      password: PASSWORD,
    });
    expect(noCode.statusCode).toBe(400);
    expect(noCode.json().error.details[0].field).toBe('body.code');
    const wrongPassword = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/backup-codes', {
      password: 'not the password',
      code: codeOf(user.secret),
    });
    expect(wrongPassword.statusCode).toBe(401);
    expect(wrongPassword.json().error.code).toBe('invalid_credentials');
    const wrongCode = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/backup-codes', {
      password: PASSWORD,
      code: codeOf(user.secret, 3),
    });
    expect(wrongCode.statusCode).toBe(401);
    expect(wrongCode.json().error.code).toBe('invalid_credentials');

    // The code the wrong password came with was not used up.
    const regenerated = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/backup-codes', {
      password: PASSWORD,
      code: codeOf(user.secret),
    });
    expect(regenerated.statusCode, regenerated.body).toBe(200);
    const { backupCodes } = regenerated.json() as { backupCodes: string[] };
    expect(backupCodes).toHaveLength(10);
    for (const code of backupCodes) expect(code).toMatch(BACKUP_CODE_PATTERN);
    expect(backupCodes.filter((code) => user.backupCodes.includes(code))).toEqual([]);

    // A backup code re-authenticates too; old codes are gone.
    const withBackup = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/backup-codes', {
      password: PASSWORD,
      backupCode: user.backupCodes[0],
    });
    expect(withBackup.statusCode).toBe(401);
    const withNew = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/backup-codes', {
      password: PASSWORD,
      backupCode: backupCodes[0],
    });
    expect(withNew.statusCode, withNew.body).toBe(200);
    const latest = (withNew.json() as { backupCodes: string[] }).backupCodes;

    const again = await signIn(user);
    expect(
      (
        await asUser(app, sessionCaller(again.cookie), 'POST', '/api/auth/login/mfa', {
          backupCode: backupCodes[1],
        })
      ).statusCode,
    ).toBe(401);
    expect(
      (
        await asUser(app, sessionCaller(again.cookie), 'POST', '/api/auth/login/mfa', {
          backupCode: latest[1],
        })
      ).statusCode,
    ).toBe(200);

    const types = (await eventsOf(user.id)).map((event) => event.type);
    expect(types.filter((type) => type === 'user.backup_codes_regenerated')).toHaveLength(2);
  });

  it('ends the session at the fifth wrong re-authentication', async () => {
    const user = await enrolledUser();
    const pending = await signIn(user);
    const signedIn = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret),
    });
    const cookie = sessionCookieOf(signedIn) as string;
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const wrong = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/backup-codes', {
        password: `wrong ${attempt}`,
        code: codeOf(user.secret, 1),
      });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json().error).toMatchObject({
        code: 'invalid_credentials',
        details: [{ attemptsLeft: 5 - attempt }],
      });
    }
    expect(await signedInAccess(cookie)).toEqual({ status: 401, code: 'unauthorized' });
  });
});

describe('POST /api/auth/mfa/disable', () => {
  it('needs the password and a code; clears the secret and codes and ends the other sessions', async () => {
    const user = await enrolledUser();
    const signInFully = async () => {
      const pending = await signIn(user);
      const answer = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', {
        code: codeOf(user.secret),
      });
      expect(answer.statusCode, answer.body).toBe(200);
      advance(30_000);
      return sessionCookieOf(answer) as string;
    };
    const here = await signInFully();
    const elsewhere = await signInFully();

    const passwordOnly = await asUser(app, sessionCaller(here), 'POST', '/api/auth/mfa/disable', {
      password: PASSWORD,
    });
    expect(passwordOnly.statusCode).toBe(400);
    const wrongPassword = await asUser(app, sessionCaller(here), 'POST', '/api/auth/mfa/disable', {
      password: 'not the password',
      code: codeOf(user.secret),
    });
    expect(wrongPassword.statusCode).toBe(401);
    expect(wrongPassword.json().error.code).toBe('invalid_credentials');
    expect((await userRow(user.id)).totpEnabledAt).not.toBeNull();

    const disabled = await asUser(app, sessionCaller(here), 'POST', '/api/auth/mfa/disable', {
      password: PASSWORD,
      code: codeOf(user.secret),
    });
    expect(disabled.statusCode, disabled.body).toBe(200);
    expect(disabled.json()).toEqual({ ok: true });

    const row = await userRow(user.id);
    expect(row.totpEnabledAt).toBeNull();
    expect(row.totpSecretEncrypted).toBeNull();
    expect(row.totpPendingSecretEncrypted).toBeNull();
    const [codes] = await ctx.em
      .getConnection()
      .execute<{ n: string }[]>('select count(*) as n from mfa_backup_code where user_id = ?', [user.id]);
    expect(Number(codes?.n)).toBe(0);

    // This session goes on (MFA is off now: the routes that need it answer 409); the other one ended.
    const stillHere = await asUser(app, sessionCaller(here), 'POST', '/api/auth/mfa/backup-codes', {
      password: PASSWORD,
      code: codeOf(user.secret),
    });
    expect(stillHere.statusCode).toBe(409);
    expect(stillHere.json().error.code).toBe('mfa_not_enabled');
    expect(await signedInAccess(elsewhere)).toEqual({ status: 401, code: 'unauthorized' });

    const events = await eventsOf(user.id);
    expect(events.find((event) => event.type === 'user.mfa_disabled')?.details).toEqual({
      method: 'totp',
      otherSessionsEnded: 1,
    });

    // The next sign-in needs no second step; enrolling again works with a new secret.
    const next = await signIn(user);
    expect(next.status).toBe('signed_in');
    const enrolment = await enrol(next.cookie);
    expect(enrolment.secret).not.toBe(user.secret);
  });

  it('is refused when the organization requires MFA', async () => {
    const user = await newUser({ mfaRequired: true });
    const enrolling = await signIn(user);
    const { secret, cookie } = await enrol(enrolling.cookie);
    const refused = await asUser(app, sessionCaller(cookie), 'POST', '/api/auth/mfa/disable', {
      password: PASSWORD,
      code: codeOf(secret),
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('mfa_required_by_organization');
    expect((await userRow(user.id)).totpEnabledAt).not.toBeNull();
  });
});

// ---- The organization's requirement --------------------------------------------------------------------------

describe('an organization that requires MFA', () => {
  it('holds a session opened before the requirement at enrolment from its next request, as a new one (issue 30)', async () => {
    const user = await newUser();
    const before = await signIn(user);
    expect(before.status).toBe('signed_in');
    const getAs = (cookie: string, url: string) =>
      app.inject({ method: 'GET', url, headers: { cookie: `${SESSION_COOKIE}=${cookie}` } });
    expect((await getAs(before.cookie, '/api/users')).statusCode).toBe(200);
    expect(await signedInAccess(before.cookie)).toEqual({ status: 400, code: 'invalid_request' });

    // The owner turns the requirement on with this very session; its next request is held, like a new sign-in's.
    const turnedOn = await app.inject({
      method: 'PUT',
      url: '/api/organization/settings',
      headers: { ...ORIGIN, cookie: `${SESSION_COOKIE}=${before.cookie}` },
      payload: { mfaRequired: true },
    });
    expect(turnedOn.statusCode, turnedOn.body).toBe(200);
    const fresh = await signIn(user);
    expect(fresh.status).toBe('mfa_enrolment_required');
    for (const cookie of [before.cookie, fresh.cookie]) {
      expect(await signedInAccess(cookie)).toEqual({ status: 403, code: 'mfa_enrolment_required' });
      const users = await getAs(cookie, '/api/users');
      expect(users.statusCode).toBe(403);
      expect(users.json().error.code).toBe('mfa_enrolment_required');
      const me = await getAs(cookie, '/api/auth/me');
      expect(me.statusCode, me.body).toBe(200);
      expect(me.json().session.state).toBe('mfa_enrolment_required');
    }

    // Setting up the app from the old session ends it and gives a new, complete one.
    const { cookie: active } = await enrol(before.cookie);
    expect(active).not.toBe(before.cookie);
    expect(await signedInAccess(before.cookie)).toEqual({ status: 401, code: 'unauthorized' });
    expect((await getAs(active, '/api/users')).statusCode).toBe(200);
  });

  it('leaves the sessions of users who have a second factor as they are when MFA becomes required', async () => {
    const user = await enrolledUser();
    const pending = await signIn(user);
    const verified = await asUser(app, sessionCaller(pending.cookie), 'POST', '/api/auth/login/mfa', {
      code: codeOf(user.secret),
    });
    expect(verified.statusCode, verified.body).toBe(200);
    const cookie = sessionCookieOf(verified) as string;
    await ctx.em.nativeUpdate(Organization, { id: user.organizationId }, { mfaRequired: true });
    expect(await signedInAccess(cookie)).toEqual({ status: 400, code: 'invalid_request' });
  });

  it('holds a user without MFA at enrolment until it is set up, then gives a new session', async () => {
    const user = await newUser({ mfaRequired: true });
    const enrolling = await signIn(user);
    expect(enrolling.status).toBe('mfa_enrolment_required');
    // What the session may do: the user's own view, sign-out and enrolment.
    const me = await app.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { cookie: `${SESSION_COOKIE}=${enrolling.cookie}` },
    });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().session.state).toBe('mfa_enrolment_required');

    // A signed-in route is refused; enrolment is open.
    expect(await signedInAccess(enrolling.cookie)).toEqual({ status: 403, code: 'mfa_enrolment_required' });
    const setup = await asUser(app, sessionCaller(enrolling.cookie), 'POST', '/api/auth/mfa/totp/setup', {});
    expect(setup.statusCode, setup.body).toBe(200);
    const { secret } = setup.json() as { secret: string };
    const confirm = await asUser(app, sessionCaller(enrolling.cookie), 'POST', '/api/auth/mfa/totp/confirm', {
      code: codeOf(secret),
    });
    expect(confirm.statusCode, confirm.body).toBe(200);
    expect(confirm.json().backupCodes).toHaveLength(10);

    // A new cookie: the enrolment session ended, the new one is a full session.
    const active = sessionCookieOf(confirm);
    expect(active).toBeTruthy();
    expect(active).not.toBe(enrolling.cookie);
    expect(await signedInAccess(enrolling.cookie)).toEqual({ status: 401, code: 'unauthorized' });
    expect(await signedInAccess(active as string)).toEqual({ status: 400, code: 'invalid_request' });
    const [session] = await ctx.em
      .getConnection()
      .execute<{ state: string; ended_reason: string | null }[]>(
        `select state, ended_reason from user_session where user_id = ? and ended_at is null`,
        [user.id],
      );
    expect(session).toEqual({ state: 'active', ended_reason: null });

    // From now on the sign-in asks for a code.
    advance(30_000);
    const next = await signIn(user);
    expect(next.status).toBe('mfa_required');
    expect(
      (await asUser(app, sessionCaller(next.cookie), 'POST', '/api/auth/login/mfa', { code: codeOf(secret) }))
        .statusCode,
    ).toBe(200);
  });
});
