// POST /api/auth/mfa/totp/setup (docs/accounts.md, "Two-step verification"): a new authenticator-app secret
// for the signed-in user, stored encrypted as the pending secret until its first code confirms it
// (mfa-totp-confirm.ts). Answers the secret in base32, the otpauth:// URL and that URL as an SVG QR code;
// asking again replaces the pending secret. Refused while TOTP is on (turn it off first).
import QRCode from 'qrcode';
import type { ServiceContext } from '../context.ts';
import { Conflict } from '../errors.ts';
import { lockedUser } from './locked-user.ts';
import { newTotpSecret, sealTotpSecret, totpOf } from './mfa-totp.ts';
import type { SessionPrincipal } from './sessions.ts';

export interface TotpSetupAnswer {
  secret: string;
  otpauthUrl: string;
  qrCodeSvg: string;
}

export async function setUpTotp(ctx: ServiceContext, principal: SessionPrincipal): Promise<TotpSetupAnswer> {
  const secret = newTotpSecret();
  await ctx.em.transactional(async (tx) => {
    const user = await lockedUser(tx, principal.user.id);
    if (user.totpEnabledAt) {
      throw new Conflict(
        'Two-step verification with an authenticator app is already on: turn it off first to change apps.',
        [],
        'mfa_already_enabled',
      );
    }
    user.totpPendingSecretEncrypted = sealTotpSecret(ctx.config, secret);
  });
  const otpauthUrl = totpOf(secret, principal.user.email).toString();
  const qrCodeSvg = await QRCode.toString(otpauthUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { secret, otpauthUrl, qrCodeSvg };
}
