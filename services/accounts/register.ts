// POST /api/auth/register (docs/accounts.md, "Routes"): a new organization on the free plan (Starter: paid plans
// come from a platform administrator; RegisterRequest refuses any other) and its first
// user (active, the built-in `owner` role, email not yet verified), then the verification email. An address
// that already has an account gets the very same answer and no second account: its holder is emailed a
// notice that someone tried to register with it (at most one a minute), so registration cannot tell anyone
// whether an address is known. So that both take as long, both do the same work: hash the password and try
// to create the organization and the user in one transaction, which the unique index on the user's email
// refuses (rolling everything back) when the address is known. The email is the caller's to send, after
// answering (sendAccountEmailLater).
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { z } from 'zod';
import type { AppUser, Organization } from '../../db/entities/index.ts';
import type { RegisterRequest } from '../../domain/account.ts';
import type { ServiceContext } from '../context.ts';
import { createOrganization } from '../organizations/create-organization.ts';
import { hashPassword } from '../security/passwords.ts';
import { type AccountEmail, accountEmailTo, accountLink } from './account-emails.ts';
import { issueAccountToken } from './account-tokens.ts';
import { addOwner, findUserByEmail, requirePasswordNotEmail } from './account-users.ts';
import { takeEmailSlot } from './login-throttle.ts';
import { recordSecurityEvent } from './security-log.ts';

export type RegisterInput = z.output<typeof RegisterRequest>;

export async function register(
  ctx: ServiceContext,
  input: RegisterInput,
  meta: { ipAddress: string | null },
): Promise<{ email: AccountEmail | null }> {
  requirePasswordNotEmail(input.password, input.email);
  const passwordHash = await hashPassword(input.password);
  let created: { organization: Organization; token: string } | null;
  try {
    created = await ctx.em.transactional(async (tx) => {
      const txCtx = { ...ctx, em: tx };
      const organization = await createOrganization(txCtx, {
        name: input.organizationName,
        plan: input.plan,
        apiEnabled: false,
        defaultLanguage: input.language,
      });
      const user = await addOwner(txCtx, {
        organization,
        email: input.email,
        fullName: input.fullName,
        passwordHash,
        language: input.language,
        emailVerified: false,
      });
      // A known address fails here (app_user_email_unique), and the organization is rolled back with it.
      await tx.flush();
      const token = await issueAccountToken(txCtx, user.id, 'verify_email');
      recordSecurityEvent(txCtx, {
        organizationId: organization.id,
        type: 'user.registered',
        actorUserId: user.id,
        subjectEmail: user.email,
        ipAddress: meta.ipAddress,
        details: { organizationName: organization.name, plan: organization.planName },
      });
      await tx.flush();
      return { organization, token };
    });
  } catch (error) {
    if (!isEmailTaken(error)) throw error;
    created = null;
  }
  if (!created) return { email: await noticeExisting(ctx, await findUserByEmail(ctx, input.email)) };
  return {
    email: {
      kind: 'verify_email',
      to: input.email,
      fullName: input.fullName,
      language: input.language,
      organization: created.organization,
      link: accountLink(ctx.config, 'verify-email', created.token),
    },
  };
}

function isEmailTaken(error: unknown): boolean {
  return (
    error instanceof UniqueConstraintViolationException && error.message.includes('app_user_email_unique')
  );
}

/** The notice to the holder of a known address that someone tried to register with it (one a minute). */
async function noticeExisting(ctx: ServiceContext, user: AppUser | null): Promise<AccountEmail | null> {
  if (user?.status !== 'active') return null;
  if (!(await takeEmailSlot(ctx, 'registration_attempt', user.email))) return null;
  return accountEmailTo(ctx.em, user, 'registration_attempt', accountLink(ctx.config, 'sign-in'));
}
