// POST /api/auth/mfa/backup-codes (docs/accounts.md, "Two-step verification"): ten new backup codes after
// re-authentication (mfa-reauthenticate.ts); the earlier ones, used or not, stop working. Answered once;
// records `user.backup_codes_regenerated`.
import type { ReauthenticateInput } from '../../domain/account.ts';
import type { ServiceContext } from '../context.ts';
import { replaceBackupCodes } from './mfa-backup-codes.ts';
import { withReauthentication } from './mfa-reauthenticate.ts';
import { recordOwnEvent } from './security-log.ts';
import type { SessionPrincipal } from './sessions.ts';

export function regenerateBackupCodes(
  ctx: ServiceContext,
  input: { principal: SessionPrincipal; credentials: ReauthenticateInput; ipAddress: string | null },
): Promise<string[]> {
  return withReauthentication(ctx, input, async ({ ctx: txCtx, user, method }) => {
    const codes = await replaceBackupCodes(txCtx, user.id);
    recordOwnEvent(txCtx, user, input.ipAddress, {
      type: 'user.backup_codes_regenerated',
      details: { method, backupCodes: codes.length },
    });
    return codes;
  });
}
