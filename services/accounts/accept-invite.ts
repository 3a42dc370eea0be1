// The invitation link (docs/accounts.md, "Emailed links"): POST /api/auth/accept-invite/claim says who was
// invited to which organization with which role (the page shows it) without using the token;
// POST /api/auth/accept-invite makes the invited user active with their name and password, marks the address
// verified (the link proved it), uses the token and signs them in like a login (MFA enrolment first when the
// organization requires it). Invitations are made by the administration (users.invite, issueAccountToken).
import { AppUser, Organization, Role, UserSession } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { hashPassword } from '../security/passwords.ts';
import { findAccountToken } from './account-tokens.ts';
import { requirePasswordNotEmail, type SignedIn, signIn } from './account-users.ts';
import { invalidToken, spendAccountToken } from './link-tokens.ts';
import { recordSecurityEvent } from './security-log.ts';
import { nowOf, type SessionClock } from './sessions.ts';

async function claimed(ctx: DataContext & SessionClock, token: string) {
  const found = await findAccountToken(ctx, token, 'invite');
  const user = found ? await ctx.em.findOne(AppUser, { id: found.userId, status: 'invited' }) : null;
  if (!found || !user) throw invalidToken();
  const [organization, role] = await Promise.all([
    ctx.em.findOneOrFail(Organization, { id: user.organizationId }),
    ctx.em.findOneOrFail(Role, { id: user.roleId }),
  ]);
  return { found, user, organization, role };
}

export async function claimInvite(
  ctx: DataContext & SessionClock,
  token: string,
): Promise<{ email: string; fullName: string; organizationName: string; roleName: string }> {
  const { user, organization, role } = await claimed(ctx, token);
  return {
    email: user.email,
    fullName: user.fullName,
    organizationName: organization.name,
    roleName: role.name,
  };
}

export async function acceptInvite(
  ctx: DataContext & SessionClock,
  input: { token: string; fullName: string; password: string },
  meta: { ipAddress: string | null; userAgent: string | null; currentSession: UserSession | null },
): Promise<SignedIn> {
  const { found, user, organization } = await claimed(ctx, input.token);
  requirePasswordNotEmail(input.password, user.email);
  const passwordHash = await hashPassword(input.password);
  return ctx.em.transactional(async (tx) => {
    const txCtx = { ...ctx, em: tx };
    await spendAccountToken(txCtx, found);
    // Still invited: an invitation revoked (the user deleted) meanwhile is not accepted.
    const invited = await tx.findOne(AppUser, { id: user.id, status: 'invited' });
    if (!invited) throw invalidToken();
    invited.status = 'active';
    invited.fullName = input.fullName;
    invited.passwordHash = passwordHash;
    invited.emailVerifiedAt = nowOf(ctx);
    recordSecurityEvent(txCtx, {
      organizationId: invited.organizationId,
      type: 'user.invitation_accepted',
      actorUserId: invited.id,
      subjectEmail: invited.email,
      ipAddress: meta.ipAddress,
      details: { invitedBy: invited.invitedBy },
    });
    const replaces = meta.currentSession
      ? await tx.findOne(UserSession, { id: meta.currentSession.id, endedAt: null })
      : null;
    return signIn(txCtx, {
      user: invited,
      organization,
      replaces,
      ipAddress: meta.ipAddress,
      userAgent: meta.userAgent,
      method: 'invitation',
    });
  });
}
