// Signing in to the backoffice (docs/backoffice.md, "Signing in"): the address and password first
// (POST /api/backoffice/platform-admins/otp), which send a 6-digit code by email, valid 10 minutes; then the
// code (POST /api/backoffice/session), which starts a backoffice session. The accounts' abuse protections
// hold (services/accounts/login-throttle.ts) in a realm of their own: the keys `account:backoffice:<email>`
// and `address:backoffice:<ip>`, so organization sign-ins failing from an address never refuse the backoffice
// there, nor the other way round. An unknown address and a wrong password are one answer (401
// `invalid_credentials`) in about the same time (a padding hash is checked for an unknown address), and count
// alike; a wrong, expired or used-up code and an unknown address are one answer too (401 `invalid_code`). A
// code takes at most 5 wrong attempts, then it is used up; a new code replaces the previous one.
import { createHash, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { PlatformAdmin, PlatformAdminCode } from '../../db/entities/index.ts';
import { BACKOFFICE_SECURITY } from '../../domain/backoffice.ts';
import { deliver, deliveryContext, routeFor } from '../../notifications/deliver.ts';
import { renderPlatformAdminCode } from '../../notifications/messages.ts';
import { storedTemplate } from '../../notifications/templates.ts';
import { checkLoginThrottle, clearLoginThrottle, recordLoginFailure } from '../accounts/login-throttle.ts';
import { nowOf, type SessionClock } from '../accounts/sessions.ts';
import type { ServiceContext } from '../context.ts';
import { ServiceUnavailable, Unauthorized } from '../errors.ts';
import { PADDING_PASSWORD_HASH, verifyPassword } from '../security/passwords.ts';
import { recordBackofficeEvent } from './audit-log.ts';
import { startBackofficeSession } from './backoffice-sessions.ts';

type SignInContext = Pick<ServiceContext, 'em' | 'config'> & SessionClock;

interface Visitor {
  ipAddress: string;
  userAgent: string | null;
}

/** The login throttle's realm of platform administrators: apart from organization users, by email and by address. */
const REALM = 'backoffice';

export const invalidBackofficeCredentials = () =>
  new Unauthorized('Email or password is wrong.', 'invalid_credentials');
export const invalidBackofficeCode = () =>
  new Unauthorized(
    'The code is wrong, has expired or was tried too often: sign in again for a new one.',
    'invalid_code',
  );

const codeHashOf = (codeId: string, code: string) =>
  createHash('sha256').update(`${codeId}:${code}`).digest('hex');

/** The first step: the right address and password email a new code. */
export async function requestPlatformAdminOtp(
  ctx: SignInContext,
  input: { email: string; password: string; language?: 'en' | 'he' | undefined },
  visitor: Visitor,
): Promise<{ sent: true; expiresAt: string }> {
  const email = input.email.toLowerCase();
  await checkLoginThrottle(ctx, email, visitor.ipAddress, REALM);
  const admin = await ctx.em.findOne(PlatformAdmin, { email });
  const passwordRight = await verifyPassword(
    input.password,
    admin?.passwordHash ?? (await PADDING_PASSWORD_HASH),
  );
  if (!admin || !passwordRight) {
    const { failures } = await recordLoginFailure(ctx, email, visitor.ipAddress, REALM);
    recordBackofficeEvent(
      ctx,
      { kind: 'visitor', email, ipAddress: visitor.ipAddress },
      {
        action: 'sign_in.password_refused',
        targetId: admin?.id ?? null,
        details: { failures, knownAddress: admin !== null },
      },
    );
    await ctx.em.flush();
    throw invalidBackofficeCredentials();
  }
  const now = nowOf(ctx);
  const code = String(randomInt(0, 10 ** BACKOFFICE_SECURITY.codeDigits)).padStart(
    BACKOFFICE_SECURITY.codeDigits,
    '0',
  );
  const id = randomUUID();
  const expiresAt = new Date(now.getTime() + BACKOFFICE_SECURITY.codeLifetimeMinutes * 60 * 1000);
  await ctx.em.transactional(async (em) => {
    // A new code replaces any earlier one still open.
    await em.nativeUpdate(PlatformAdminCode, { adminId: admin.id, usedAt: null }, { usedAt: now });
    em.create(PlatformAdminCode, {
      id,
      adminId: admin.id,
      codeHash: codeHashOf(id, code),
      createdAt: now,
      expiresAt,
      attempts: 0,
      usedAt: null,
      ipAddress: visitor.ipAddress,
    });
    recordBackofficeEvent(
      { ...ctx, em },
      { kind: 'visitor', email, ipAddress: visitor.ipAddress },
      {
        action: 'sign_in.code_sent',
        targetId: admin.id,
        details: { expiresAt: expiresAt.toISOString() },
      },
    );
  });
  await sendCode(ctx, admin, code, input.language ?? 'en');
  return { sent: true, expiresAt: expiresAt.toISOString() };
}

/**
 * The code email, in the sign-in page's language, from the stored `platform_admin_code` template when there is
 * one (docs/backoffice.md, "Notification templates"); it carries no link.
 */
async function sendCode(
  ctx: SignInContext,
  admin: PlatformAdmin,
  code: string,
  language: string,
): Promise<void> {
  const email = renderPlatformAdminCode(
    {
      language,
      recipientName: admin.fullName,
      code,
      minutes: BACKOFFICE_SECURITY.codeLifetimeMinutes,
    },
    await storedTemplate(ctx.em, 'platform_admin_code', language),
  );
  try {
    await deliver(
      ctx.em.fork(),
      routeFor(await deliveryContext(ctx.em, ctx.config), 'Email'),
      {
        channel: 'Email',
        to: admin.email,
        text: email.text,
        email: {
          subject: email.subject,
          html: email.html,
          fromName: 'Sigil',
          replyTo: null,
          language: email.language,
        },
      },
      { kind: 'platform_admin_code', otpCode: code },
    );
  } catch {
    // The provider's answer is not shown (it may name the server); the code row stays, unusable without it.
    throw new ServiceUnavailable('The sign-in code could not be emailed: try again in a minute.');
  }
}

/** The second step: the emailed code starts a backoffice session. */
export async function signInPlatformAdmin(
  ctx: SignInContext,
  input: { email: string; code: string },
  visitor: Visitor,
) {
  const email = input.email.toLowerCase();
  await checkLoginThrottle(ctx, email, visitor.ipAddress, REALM);
  const now = nowOf(ctx);
  const admin = await ctx.em.findOne(PlatformAdmin, { email });
  // The newest code is the one that counts: a new one marks the earlier ones used.
  const code = admin
    ? await ctx.em.findOne(PlatformAdminCode, { adminId: admin.id }, { orderBy: { createdAt: 'desc' } })
    : null;
  const open =
    code !== null &&
    !code.usedAt &&
    code.expiresAt > now &&
    code.attempts < BACKOFFICE_SECURITY.codeMaxAttempts;
  const given = Buffer.from(codeHashOf(code?.id ?? randomUUID(), input.code), 'hex');
  const right = open && timingSafeEqual(given, Buffer.from(code.codeHash, 'hex'));
  if (!admin || !code || !right) {
    if (code && open) {
      code.attempts += 1;
      if (code.attempts >= BACKOFFICE_SECURITY.codeMaxAttempts) code.usedAt = now;
    }
    const { failures } = await recordLoginFailure(ctx, email, visitor.ipAddress, REALM);
    recordBackofficeEvent(
      ctx,
      { kind: 'visitor', email, ipAddress: visitor.ipAddress },
      {
        action: 'sign_in.code_refused',
        targetId: admin?.id ?? null,
        details: {
          reason: !code
            ? 'no_code'
            : open
              ? 'wrong_code'
              : code.attempts >= BACKOFFICE_SECURITY.codeMaxAttempts
                ? 'used_up'
                : code.usedAt
                  ? 'already_used'
                  : 'expired',
          failures,
        },
      },
    );
    await ctx.em.flush();
    throw invalidBackofficeCode();
  }
  code.usedAt = now;
  admin.lastSignInAt = now;
  admin.lastSignInIp = visitor.ipAddress;
  await clearLoginThrottle(ctx, email, REALM);
  const started = await startBackofficeSession(ctx, {
    admin,
    ipAddress: visitor.ipAddress,
    userAgent: visitor.userAgent,
  });
  recordBackofficeEvent(
    ctx,
    { kind: 'platform_admin', admin, ipAddress: visitor.ipAddress },
    {
      action: 'sign_in.succeeded',
      targetId: admin.id,
      details: { sessionId: started.session.id },
    },
  );
  await ctx.em.flush();
  return { admin, ...started };
}
