// POST /api/auth/mfa/totp/confirm (docs/accounts.md, "Two-step verification"): the first code of the app the
// user set up proves it holds the pending secret (a step either side of now accepted), which becomes the
// user's TOTP secret; ten backup codes are made and answered once; `user.mfa_enabled` is recorded. The step of
// that first code is remembered, so the same code cannot sign in afterwards. A session the organization held
// at `mfa_enrolment_required` is replaced by a new `active` one (a privilege change gets a new token).
import type { ServiceContext } from '../context.ts';
import { AppError, Conflict } from '../errors.ts';
import { lockedUser } from './locked-user.ts';
import { replaceBackupCodes } from './mfa-backup-codes.ts';
import { matchingStep, openTotpSecret } from './mfa-totp.ts';
import { recordOwnEvent } from './security-log.ts';
import { nowOf, type SessionPrincipal, type StartedSession, sessionAfterEnrolment } from './sessions.ts';

export interface ConfirmTotpInput {
  principal: SessionPrincipal;
  code: string;
  ipAddress: string | null;
  userAgent: string | null;
}

export interface ConfirmedTotp {
  backupCodes: string[];
  /** The new session when the old one was waiting for enrolment (its cookie must be set), else null. */
  newSession: StartedSession | null;
}

export async function confirmTotp(ctx: ServiceContext, input: ConfirmTotpInput): Promise<ConfirmedTotp> {
  const { principal } = input;
  return ctx.em.transactional(async (tx) => {
    const txCtx = { ...ctx, em: tx };
    const user = await lockedUser(tx, principal.user.id);
    if (user.totpEnabledAt) {
      throw new Conflict('Two-step verification is already on.', [], 'mfa_already_enabled');
    }
    if (!user.totpPendingSecretEncrypted) {
      throw new Conflict(
        'No authenticator app is being set up: start with POST /api/auth/mfa/totp/setup.',
        [],
        'no_totp_setup',
      );
    }
    const now = nowOf(ctx);
    const step = matchingStep(openTotpSecret(ctx.config, user.totpPendingSecretEncrypted), input.code, now);
    if (step === null) {
      throw new AppError(
        400,
        'invalid_code',
        'That code does not match: enter the code your app shows now (check that the phone’s clock is right).',
        [{ field: 'code', message: 'not the current code of the secret being set up' }],
      );
    }
    user.totpSecretEncrypted = user.totpPendingSecretEncrypted;
    user.totpPendingSecretEncrypted = null;
    user.totpEnabledAt = now;
    if (user.totpLastStep == null || user.totpLastStep < step) user.totpLastStep = step;
    const backupCodes = await replaceBackupCodes(txCtx, user.id);
    recordOwnEvent(txCtx, user, input.ipAddress, {
      type: 'user.mfa_enabled',
      details: { method: 'totp', backupCodes: backupCodes.length },
    });
    const newSession = await sessionAfterEnrolment(txCtx, principal.session.id, user, input);
    await tx.flush();
    return { backupCodes, newSession };
  });
}
