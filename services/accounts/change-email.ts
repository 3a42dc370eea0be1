// Changing the signed-in user's email address (docs/accounts.md, "Your account"), in two steps:
// - POST /api/auth/me/email: with the current password (current-password.ts), a link that works once for 24 hours
//   goes to the NEW address (an `account_token` of kind `change_email` carrying it; a newer request ends the
//   earlier links) and the OLD address is told (`email_change_requested`). The address does not change yet. The
//   answer is the same whether or not the new address has an account, as at sign-up: a taken address is found
//   out only by whoever holds its mailbox, at the link. At most one link a minute goes to an address.
// - POST /api/auth/confirm-email-change: the link's token. The address changes (lower-cased, verified: the link
//   proved it), every other session of the user ends (the browser's own stays, when it is the user's), and the
//   old address is told (`email_changed`). An address that has an account by now is 409 `email_taken`.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppUser, type UserSession } from '../../db/entities/index.ts';
import type { RequestEmailChangeRequest } from '../../domain/account-profile.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict, InvalidRequest } from '../errors.ts';
import { type AccountEmail, accountEmailTo, accountLink } from './account-emails.ts';
import { findAccountToken, issueAccountToken } from './account-tokens.ts';
import { findUserByEmail } from './account-users.ts';
import { requireCurrentPassword } from './current-password.ts';
import { invalidToken, spendAccountToken } from './link-tokens.ts';
import { takeEmailSlot } from './login-throttle.ts';
import { recordOwnEvent } from './security-log.ts';
import { endUserSessions, nowOf, type SessionPrincipal } from './sessions.ts';

const emailTaken = () =>
  new Conflict(
    'This email address already belongs to a Sigil account, so it cannot be given to another one.',
    [{ field: 'body.token', message: 'the new address already has an account' }],
    'email_taken',
  );

/** Asks for the change: answers the emails to send after the commit (the link to the new address first). */
export async function requestEmailChange(
  ctx: ServiceContext,
  input: { principal: SessionPrincipal; request: RequestEmailChangeRequest; ipAddress: string },
): Promise<AccountEmail[]> {
  const { user } = input.principal;
  const newEmail = input.request.newEmail.toLowerCase();
  if (newEmail === user.email) {
    throw new InvalidRequest('Invalid request: body.newEmail: this is already your email address', [
      {
        field: 'body.newEmail',
        message: 'this is already your email address',
        code: 'custom',
        params: { key: 'sameEmail' },
      },
    ]);
  }
  await requireCurrentPassword(ctx, user, input.request.currentPassword, input.ipAddress);
  const token = await ctx.em.transactional(async (tx) => {
    const txCtx = { ...ctx, em: tx };
    // One link a minute to an address: the answer is the same, the earlier link keeps working.
    if (!(await takeEmailSlot(txCtx, 'email_change', newEmail))) return null;
    const issued = await issueAccountToken(txCtx, user.id, 'change_email', newEmail);
    recordOwnEvent(txCtx, user, input.ipAddress, {
      type: 'user.email_change_requested',
      subjectEmail: user.email,
      details: { newEmail },
    });
    return issued;
  });
  if (token === null) return [];
  const link = await accountEmailTo(
    ctx.em,
    {
      email: newEmail,
      fullName: user.fullName,
      language: user.language,
      organizationId: user.organizationId,
    },
    'email_change',
    accountLink(ctx.config, 'confirm-email-change', token),
  );
  const notice = await accountEmailTo(
    ctx.em,
    user,
    'email_change_requested',
    accountLink(ctx.config, 'forgot-password'),
  );
  return [link, notice];
}

/** Uses the link: the address changes. Answers the new address and the notice to send to the old one. */
export async function confirmEmailChange(
  ctx: ServiceContext,
  input: { token: string; currentSession: UserSession | null; ipAddress: string | null },
): Promise<{ email: string; notice: AccountEmail }> {
  const found = await findAccountToken(ctx, input.token, 'change_email');
  const user = found ? await ctx.em.findOne(AppUser, { id: found.userId, status: 'active' }) : null;
  if (!found?.newEmail || !user) throw invalidToken();
  const newEmail = found.newEmail;
  const oldEmail = user.email;
  const holder = await findUserByEmail(ctx, newEmail);
  if (holder && holder.id !== user.id) throw emailTaken();
  const keep = input.currentSession?.userId === user.id ? input.currentSession.id : undefined;
  try {
    await ctx.em.transactional(async (tx) => {
      const txCtx = { ...ctx, em: tx };
      await spendAccountToken(txCtx, found);
      await tx.nativeUpdate(AppUser, { id: user.id }, { email: newEmail, emailVerifiedAt: nowOf(ctx) });
      const ended = await endUserSessions(txCtx, user.id, 'email_changed', keep);
      recordOwnEvent(txCtx, user, input.ipAddress, {
        type: 'user.email_changed',
        subjectEmail: newEmail,
        details: { from: oldEmail, to: newEmail, otherSessionsEnded: ended },
      });
    });
  } catch (error) {
    // Another account took the address between the look-up and the update (app_user_email_unique).
    if (error instanceof UniqueConstraintViolationException) throw emailTaken();
    throw error;
  }
  const notice = await accountEmailTo(
    ctx.em,
    {
      email: oldEmail,
      fullName: user.fullName,
      language: user.language,
      organizationId: user.organizationId,
    },
    'email_changed',
    accountLink(ctx.config, 'sign-in'),
  );
  return { email: newEmail, notice };
}
