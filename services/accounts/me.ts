// GET /api/auth/me and PUT /api/auth/me/preferences: the signed-in user, their organization, role, team and
// permissions, and the session's state and limits; the user's language is their own to change.
import { MfaBackupCode, Passkey } from '../../db/entities/index.ts';
import type { Me } from '../../domain/account.ts';
import type { DataContext } from '../context.ts';
import type { SessionPrincipal } from './sessions.ts';

export async function describeMe(ctx: DataContext, principal: SessionPrincipal): Promise<Me> {
  const { user, organization, role, team, session, permissions } = principal;
  const passkeys = await ctx.em.count(Passkey, { userId: user.id });
  const backupCodesLeft =
    user.totpEnabledAt || passkeys > 0
      ? await ctx.em.count(MfaBackupCode, { userId: user.id, usedAt: null })
      : 0;
  return {
    user: {
      id: user.id,
      email: user.email,
      fullName: user.fullName,
      phone: user.phone ?? null,
      language: user.language === 'he' ? 'he' : 'en',
      mfa: {
        totp: user.totpEnabledAt !== null && user.totpEnabledAt !== undefined,
        backupCodesLeft,
        passkeys,
      },
      lastLoginAt: user.lastLoginAt ? user.lastLoginAt.toISOString() : null,
    },
    organization: {
      id: organization.id,
      name: organization.name,
      plan: organization.planName,
      mfaRequired: organization.mfaRequired,
    },
    role: { id: role.id, name: role.name, builtIn: role.builtIn ?? null },
    team: team ? { id: team.id, name: team.name } : null,
    permissions,
    session: {
      state: session.state === 'mfa_enrolment_required' ? 'mfa_enrolment_required' : 'active',
      idleTimeoutMinutes: organization.sessionTimeoutMinutes,
      expiresAt: session.expiresAt.toISOString(),
    },
  };
}

export async function updatePreferences(
  ctx: DataContext,
  principal: SessionPrincipal,
  input: { language: 'en' | 'he' },
): Promise<Me> {
  principal.user.language = input.language;
  await ctx.em.flush();
  return describeMe(ctx, principal);
}
