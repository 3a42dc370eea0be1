// The signed-in user's own account on the profile (docs/accounts.md, "Your account"), through HTTP on real
// PostgreSQL with a real SMTP server (smtp-server, parsed with mailparser): the name and phone (E.164, audited),
// a new password (the current one required and counted like a failed sign-in, the sign-up policy, the other
// sessions ended, the user emailed) and a new email address (a link to the new address, the old one told when
// the change is asked and when it is done, the address changed only by the link, lower-cased, never to an
// address that has an account, the other sessions ended). Each refusal changes nothing.
import type { FastifyInstance } from 'fastify';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppUser, SecurityEvent, UserSession } from '../../db/entities/index.ts';
import { accountEmailsSettled } from '../../services/accounts/account-emails.ts';
import { asUser, type Caller, callAs, expectError } from '../support/app-requests.ts';
import { buildAccountsApp, newEmail } from '../support/auth-http.ts';
import { openTestContext, type TestContext, testConfig } from '../support/context.ts';
import { APP_ORIGIN, newSession, type SignedInUser, signedInUser } from '../support/signed-in-user.ts';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink.ts';

const SMTP_USER = 'sigil-mailer';
const SMTP_PASSWORD = 'smtp-Pa55word-for-profiles';
const NEW_PASSWORD = 'a brand new passphrase 42';

let ctx: TestContext;
let smtp: SmtpSink;
let app: FastifyInstance;

beforeAll(async () => {
  ctx = await openTestContext();
  smtp = await startSmtpSink({ user: SMTP_USER, password: SMTP_PASSWORD });
  app = await buildAccountsApp(ctx, {
    config: testConfig({
      PUBLIC_BASE_URL: APP_ORIGIN,
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtp.port),
      SMTP_SECURE: 'false',
      SMTP_USER,
      SMTP_PASSWORD,
      MAIL_FROM: 'accounts@sigil.example',
    }),
  });
});
afterAll(async () => {
  await accountEmailsSettled();
  await app?.close();
  await smtp?.close();
  await ctx?.close();
});

const em = () => ctx.orm.em.fork();
const harness = {
  get ctx() {
    return ctx;
  },
};
const signedOut: Caller = { headers: { origin: APP_ORIGIN } };

async function member(): Promise<SignedInUser> {
  return signedInUser(harness, { role: 'member', email: newEmail('profile') });
}

/** Every email received so far to an address, once the routes' queued emails are sent. */
async function mailsTo(address: string): Promise<ParsedMail[]> {
  await accountEmailsSettled();
  return smtp.received.filter((mail) => mail.envelopeTo.includes(address)).map((mail) => mail.parsed);
}

function linkOf(mail: ParsedMail, page: string): string {
  const match = new RegExp(`${APP_ORIGIN}/app/${page}(\\?token=[\\w-]+)?`).exec(mail.text ?? '');
  if (!match) throw new Error(`no ${page} link in: ${mail.text}`);
  return match[0];
}

async function eventsOf(userId: string, type: string) {
  return em().find(SecurityEvent, { actorUserId: userId, type }, { orderBy: { occurredAt: 'asc' } });
}

const me = (caller: Caller) => asUser(app, caller, 'GET', '/api/auth/me');
const login = (email: string, password: string) =>
  asUser(app, signedOut, 'POST', '/api/auth/login', { email, password });

describe('name and phone', () => {
  it('changes both, with the phone in E.164 as the contacts have it, and logs which fields changed', async () => {
    const user = await member();
    const answer = await callAs(app, user, 'PUT', '/api/auth/me/profile', {
      fullName: '  Dana Levi-Cohen ',
      phone: '+972 50-123-4567',
    });
    expect(answer.user).toMatchObject({ fullName: 'Dana Levi-Cohen', phone: '+972501234567' });
    expect((await callAs(app, user, 'GET', '/api/auth/me')).user.phone).toBe('+972501234567');
    const events = await eventsOf(user.user.id, 'user.profile_updated');
    expect(events.map((event) => event.details)).toEqual([{ changed: ['fullName', 'phone'] }]);
    // The same again changes nothing and logs nothing; null removes the phone.
    await callAs(app, user, 'PUT', '/api/auth/me/profile', {
      fullName: 'Dana Levi-Cohen',
      phone: '+972501234567',
    });
    expect(await eventsOf(user.user.id, 'user.profile_updated')).toHaveLength(1);
    const cleared = await callAs(app, user, 'PUT', '/api/auth/me/profile', {
      fullName: 'Dana Levi-Cohen',
      phone: null,
    });
    expect(cleared.user.phone).toBeNull();
  });

  it('refuses a phone not in international form and an empty name, naming the field, and changes nothing', async () => {
    const user = await member();
    const before = await em().findOneOrFail(AppUser, { id: user.user.id });
    const phone = expectError(
      await asUser(app, user, 'PUT', '/api/auth/me/profile', {
        fullName: 'Somebody Else',
        phone: '050-1234567',
      }),
      400,
      'invalid_request',
    );
    expect(phone.details.map((detail) => detail.field)).toEqual(['body.phone']);
    const name = expectError(
      await asUser(app, user, 'PUT', '/api/auth/me/profile', { fullName: '  ', phone: null }),
      400,
      'invalid_request',
    );
    expect(name.details.map((detail) => detail.field)).toEqual(['body.fullName']);
    const after = await em().findOneOrFail(AppUser, { id: user.user.id });
    expect({ fullName: after.fullName, phone: after.phone }).toEqual({
      fullName: before.fullName,
      phone: null,
    });
    expect(await eventsOf(user.user.id, 'user.profile_updated')).toEqual([]);
  });

  it('is for a signed-in user only', async () => {
    expectError(
      await asUser(app, signedOut, 'PUT', '/api/auth/me/profile', { fullName: 'X', phone: null }),
      401,
      'unauthorized',
    );
  });
});

describe('changing the password', () => {
  it('needs the current password: a wrong one is 400 naming currentPassword, counted like a failed sign-in', async () => {
    const user = await member();
    const refused = expectError(
      await asUser(app, user, 'POST', '/api/auth/me/password', {
        currentPassword: 'not the password at all',
        newPassword: NEW_PASSWORD,
      }),
      400,
      'invalid_request',
    );
    expect(refused.details).toEqual([
      expect.objectContaining({ field: 'body.currentPassword', params: { key: 'currentPasswordWrong' } }),
    ]);
    const rows = await em()
      .getConnection()
      .execute<{ failures: number }[]>('select failures from login_throttle where key = ?', [
        `account:${user.email}`,
      ]);
    expect(rows).toEqual([{ failures: 1 }]);
    // Nothing changed: the old password still signs in (which also clears the count), the new one does not.
    expect((await login(user.email, NEW_PASSWORD)).statusCode).toBe(401);
    expect((await login(user.email, user.password)).statusCode).toBe(200);
    expect(await mailsTo(user.email)).toEqual([]);
  });

  it('applies the sign-up policy to the new password', async () => {
    const user = await member();
    const short = expectError(
      await asUser(app, user, 'POST', '/api/auth/me/password', {
        currentPassword: user.password,
        newPassword: 'short',
      }),
      400,
      'invalid_request',
    );
    expect(short.details.map((detail) => detail.field)).toEqual(['body.newPassword']);
    const asEmail = expectError(
      await asUser(app, user, 'POST', '/api/auth/me/password', {
        currentPassword: user.password,
        newPassword: user.email.toUpperCase(),
      }),
      400,
      'invalid_request',
    );
    expect(asEmail.details.map((detail) => detail.field)).toEqual(['body.newPassword']);
    expect((await login(user.email, user.password)).statusCode).toBe(200);
  });

  it('sets it, ends every other session (this one stays), logs it and emails the user', async () => {
    const user = await member();
    const other = await newSession(harness, user.user);
    const otherCaller: Caller = { headers: other };
    expect((await me(otherCaller)).statusCode).toBe(200);
    await callAs(app, user, 'POST', '/api/auth/me/password', {
      currentPassword: user.password,
      newPassword: NEW_PASSWORD,
    });
    expect((await me(user)).statusCode).toBe(200);
    expect((await me(otherCaller)).statusCode).toBe(401);
    expect((await login(user.email, user.password)).statusCode).toBe(401);
    expect((await login(user.email, NEW_PASSWORD)).statusCode).toBe(200);
    const ended = await em().find(UserSession, { userId: user.user.id, endedReason: 'password_changed' });
    expect(ended).toHaveLength(1);
    const [event] = await eventsOf(user.user.id, 'user.password_changed');
    expect(event?.details).toEqual({ otherSessionsEnded: 1 });
    expect(JSON.stringify(event)).not.toContain(NEW_PASSWORD);
    const mails = await mailsTo(user.email);
    expect(mails.map((mail) => mail.subject)).toEqual(['Your Sigil password was changed']);
    expect(linkOf(mails[0] as ParsedMail, 'forgot-password')).toBe(`${APP_ORIGIN}/app/forgot-password`);
    expect(mails[0]?.text).not.toContain(NEW_PASSWORD);
  });
});

describe('changing the email address', () => {
  it('emails a link to the new address and tells the old one; the address changes only when the link is opened', async () => {
    const user = await member();
    const other = await newSession(harness, user.user);
    const target = newEmail('moved');
    await callAs(app, user, 'POST', '/api/auth/me/email', {
      currentPassword: user.password,
      newEmail: target.toUpperCase(),
    });
    const [link] = await mailsTo(target);
    expect(link?.subject).toBe('Confirm your new email address for Sigil');
    expect((await mailsTo(user.email)).map((mail) => mail.subject)).toEqual([
      'A change of your Sigil email address was requested',
    ]);
    // Not yet: the old address still signs in, the new one does not, both sessions work.
    expect((await callAs(app, user, 'GET', '/api/auth/me')).user.email).toBe(user.email);
    expect((await login(target, user.password)).statusCode).toBe(401);
    expect((await me({ headers: other })).statusCode).toBe(200);
    expect(
      (await eventsOf(user.user.id, 'user.email_change_requested')).map((event) => event.details),
    ).toEqual([{ newEmail: target }]);

    // The link, opened in the browser that asked: the address is the new one, lower-cased, and verified.
    const url = new URL(linkOf(link as ParsedMail, 'confirm-email-change'));
    const token = url.searchParams.get('token');
    const confirmed = await callAs(app, user, 'POST', '/api/auth/confirm-email-change', { token });
    expect(confirmed).toEqual({ email: target });
    expect((await callAs(app, user, 'GET', '/api/auth/me')).user.email).toBe(target);
    expect((await me({ headers: other })).statusCode).toBe(401);
    expect((await login(target, user.password)).statusCode).toBe(200);
    expect((await login(user.email, user.password)).statusCode).toBe(401);
    const changed = await em().findOneOrFail(AppUser, { id: user.user.id });
    expect(changed.emailVerifiedAt).not.toBeNull();
    const [event] = await eventsOf(user.user.id, 'user.email_changed');
    expect(event?.details).toEqual({ from: user.email, to: target, otherSessionsEnded: 1 });
    const toOld = await mailsTo(user.email);
    expect(toOld.map((mail) => mail.subject)).toEqual([
      'A change of your Sigil email address was requested',
      'Your Sigil email address was changed',
    ]);
    // Once only.
    expectError(
      await asUser(app, signedOut, 'POST', '/api/auth/confirm-email-change', { token }),
      400,
      'invalid_token',
    );
  });

  it('opened without a session of the user, it ends every session', async () => {
    const user = await member();
    const target = newEmail('elsewhere');
    await callAs(app, user, 'POST', '/api/auth/me/email', {
      currentPassword: user.password,
      newEmail: target,
    });
    const [link] = await mailsTo(target);
    const token = new URL(linkOf(link as ParsedMail, 'confirm-email-change')).searchParams.get('token');
    await callAs(app, signedOut, 'POST', '/api/auth/confirm-email-change', { token });
    expect((await me(user)).statusCode).toBe(401);
  });

  it('refuses a wrong password and the present address, naming the field, and sends nothing', async () => {
    const user = await member();
    const target = newEmail('never');
    const wrong = expectError(
      await asUser(app, user, 'POST', '/api/auth/me/email', {
        currentPassword: 'wrong password!',
        newEmail: target,
      }),
      400,
      'invalid_request',
    );
    expect(wrong.details.map((detail) => detail.field)).toEqual(['body.currentPassword']);
    const same = expectError(
      await asUser(app, user, 'POST', '/api/auth/me/email', {
        currentPassword: user.password,
        newEmail: user.email.toUpperCase(),
      }),
      400,
      'invalid_request',
    );
    expect(same.details).toEqual([
      expect.objectContaining({ field: 'body.newEmail', params: { key: 'sameEmail' } }),
    ]);
    const invalid = expectError(
      await asUser(app, user, 'POST', '/api/auth/me/email', {
        currentPassword: user.password,
        newEmail: 'nope',
      }),
      400,
      'invalid_request',
    );
    expect(invalid.details.map((detail) => detail.field)).toEqual(['body.newEmail']);
    expect(await mailsTo(target)).toEqual([]);
    expect(await mailsTo(user.email)).toEqual([]);
    expect(await eventsOf(user.user.id, 'user.email_change_requested')).toEqual([]);
  });

  it('answers alike for an address that has an account, and its link is refused with 409 email_taken', async () => {
    const user = await member();
    const holder = await signedInUser(harness, { role: 'owner', email: newEmail('holder') });
    const free = newEmail('free');
    const taken = await asUser(app, user, 'POST', '/api/auth/me/email', {
      currentPassword: user.password,
      newEmail: holder.email,
    });
    const open = await asUser(app, user, 'POST', '/api/auth/me/email', {
      currentPassword: user.password,
      newEmail: free,
    });
    expect({ status: taken.statusCode, body: taken.json() }).toEqual({
      status: open.statusCode,
      body: open.json(),
    });
    const [link] = await mailsTo(holder.email);
    expect(link?.subject).toBe('Confirm your new email address for Sigil');
    const token = new URL(linkOf(link as ParsedMail, 'confirm-email-change')).searchParams.get('token');
    // The second request replaced the first link: it no longer works.
    expectError(
      await asUser(app, signedOut, 'POST', '/api/auth/confirm-email-change', { token }),
      400,
      'invalid_token',
    );
    // A fresh request to the taken address, once its minute has passed, reaches the link: 409.
    await em()
      .getConnection()
      .execute('delete from login_throttle where key = ?', [`mail:email_change:${holder.email}`]);
    await callAs(app, user, 'POST', '/api/auth/me/email', {
      currentPassword: user.password,
      newEmail: holder.email,
    });
    const latest = (await mailsTo(holder.email)).at(-1) as ParsedMail;
    const latestToken = new URL(linkOf(latest, 'confirm-email-change')).searchParams.get('token');
    expectError(
      await asUser(app, signedOut, 'POST', '/api/auth/confirm-email-change', { token: latestToken }),
      409,
      'email_taken',
    );
    expect((await em().findOneOrFail(AppUser, { id: user.user.id })).email).toBe(user.email);
    expect((await me(user)).statusCode).toBe(200);
  });

  it('refuses a link that is not one', async () => {
    expectError(
      await asUser(app, signedOut, 'POST', '/api/auth/confirm-email-change', { token: 'made-up-token' }),
      400,
      'invalid_token',
    );
  });
});
