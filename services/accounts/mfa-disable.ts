// POST /api/auth/mfa/disable (docs/accounts.md, "Two-step verification"): turns two-step verification off
// after re-authentication (password and a current code or a backup code, mfa-reauthenticate.ts). Refused with
// 403 `mfa_required_by_organization` when the organization requires it. Clears the secret (and a pending one)
// and every backup code (and every passkey), ends the user's other sessions (whoever else is signed in as the user signed in with
// the second factor that no longer exists), records `user.mfa_disabled`.
import { MfaBackupCode, Passkey } from '../../db/entities/index.ts';
import type { ReauthenticateInput } from '../../domain/account.ts';
import type { ServiceContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { withReauthentication } from './mfa-reauthenticate.ts';
import { recordOwnEvent } from './security-log.ts';
import { endUserSessions, type SessionPrincipal } from './sessions.ts';

export async function disableMfa(
  ctx: ServiceContext,
  input: { principal: SessionPrincipal; credentials: ReauthenticateInput; ipAddress: string | null },
): Promise<void> {
  if (input.principal.organization.mfaRequired) {
    throw new AppError(
      403,
      'mfa_required_by_organization',
      'Your organization requires two-step verification: it cannot be turned off.',
    );
  }
  await withReauthentication(ctx, input, async ({ ctx: txCtx, user, session, method }) => {
    user.totpSecretEncrypted = null;
    user.totpPendingSecretEncrypted = null;
    user.totpEnabledAt = null;
    await txCtx.em.nativeDelete(MfaBackupCode, { userId: user.id });
    const passkeysRemoved = await txCtx.em.nativeDelete(Passkey, { userId: user.id });
    const ended = await endUserSessions(txCtx, user.id, 'mfa_disabled', session.id);
    recordOwnEvent(txCtx, user, input.ipAddress, {
      type: 'user.mfa_disabled',
      details: { method, otherSessionsEnded: ended, ...(passkeysRemoved ? { passkeysRemoved } : {}) },
    });
  });
}
