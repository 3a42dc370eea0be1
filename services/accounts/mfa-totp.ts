// Authenticator-app codes (TOTP, RFC 6238) of two-step verification (docs/accounts.md, "Two-step
// verification"): SHA-1, six digits, 30-second steps, and a code of the step before or after the current one
// accepted too (clocks drift, typing takes time). Secrets are 20 random bytes, shown once in base32 and stored
// encrypted (AES-256-GCM, config/secrets-encryption.ts). A code is accepted once: the step it was made for must be
// later than the last step accepted for the user (`app_user.totp_last_step`), claimed with one conditional
// update, so the same code sent twice at once passes once.
import { Secret, TOTP } from 'otpauth';
import { decryptSecret, encryptSecret } from '../../config/secrets-encryption.ts';
import { AppUser } from '../../db/entities/index.ts';
import type { DataContext, ServiceConfig } from '../context.ts';
import { nowOf, type SessionClock } from './sessions.ts';

export const TOTP_PARAMETERS = {
  issuer: 'Sigil',
  algorithm: 'SHA1',
  digits: 6,
  periodSeconds: 30,
  /** Steps accepted on either side of the current one. */
  window: 1,
  secretBytes: 20,
} as const;

/** The TOTP generator of a base32 secret, labelled with the user's email (what the app shows). */
export function totpOf(secretBase32: string, label = ''): TOTP {
  return new TOTP({
    issuer: TOTP_PARAMETERS.issuer,
    label,
    algorithm: TOTP_PARAMETERS.algorithm,
    digits: TOTP_PARAMETERS.digits,
    period: TOTP_PARAMETERS.periodSeconds,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new random secret in base32 (160 bits, as RFC 4226 recommends). */
export function newTotpSecret(): string {
  return new Secret({ size: TOTP_PARAMETERS.secretBytes }).base32;
}

/** The time step `code` was made for, when it is one of the accepted steps around `now`; else null. */
export function matchingStep(secretBase32: string, code: string, now: Date): number | null {
  const totp = totpOf(secretBase32);
  const timestamp = now.getTime();
  const delta = totp.validate({ token: code, timestamp, window: TOTP_PARAMETERS.window });
  return delta === null ? null : totp.counter({ timestamp }) + delta;
}

/** The key secrets at rest are encrypted with (SECRETS_ENCRYPTION_KEY, or the development key file). */
export function secretsKeyOf(config: Pick<ServiceConfig, 'secretsKey'>): Buffer {
  if (!config.secretsKey) throw new Error('the service context has no secrets key (config.secretsKey)');
  return config.secretsKey();
}

export const sealTotpSecret = (config: Pick<ServiceConfig, 'secretsKey'>, secretBase32: string) =>
  encryptSecret(secretsKeyOf(config), secretBase32);

export const openTotpSecret = (config: Pick<ServiceConfig, 'secretsKey'>, stored: string) =>
  decryptSecret(secretsKeyOf(config), stored);

/**
 * Whether `code` is a current code of the user's authenticator app not accepted before; when it is, its step
 * is claimed with one conditional update (in the caller's transaction, if any), so it never passes again. The
 * claim is written past the entity (`user.totpLastStep` keeps the value it was loaded with, so a later flush of
 * the user cannot write an older step back). Steps only grow; they are kept when TOTP is turned off.
 */
export async function acceptTotpCode(
  ctx: DataContext & SessionClock & { config: Pick<ServiceConfig, 'secretsKey'> },
  user: AppUser,
  code: string,
): Promise<boolean> {
  if (!user.totpSecretEncrypted || !user.totpEnabledAt) return false;
  const step = matchingStep(openTotpSecret(ctx.config, user.totpSecretEncrypted), code, nowOf(ctx));
  if (step === null) return false;
  const claimed = await ctx.em.nativeUpdate(
    AppUser,
    { id: user.id, $or: [{ totpLastStep: null }, { totpLastStep: { $lt: step } }] },
    { totpLastStep: step },
  );
  return claimed === 1;
}
