// Registering a passkey as a second factor (docs/accounts.md, "Two-step verification", "Passkeys"):
// POST /api/auth/mfa/passkeys/registration-options answers the creation options (the user, their passkeys to
// exclude, user verification preferred) and keeps their challenge on the session; POST /api/auth/mfa/passkeys
// verifies the browser's answer against that challenge, PUBLIC_BASE_URL's origin and RP ID, and stores the
// credential. When it is the user's first second factor: ten backup codes (answered once), `user.mfa_enabled`
// with `{ method: 'passkey' }`, and a session held at `mfa_enrolment_required` becomes a new `active` one
// (a privilege change gets a new token). GET /api/auth/mfa/passkeys lists them.
import { randomUUID } from 'node:crypto';
import {
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type RegistrationResponseJSON,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { Passkey, UserSession } from '../../db/entities/index.ts';
import type { PasskeyView } from '../../domain/account.ts';
import type { ServiceContext } from '../context.ts';
import { AppError, Conflict } from '../errors.ts';
import { lockedUser } from './locked-user.ts';
import { replaceBackupCodes } from './mfa-backup-codes.ts';
import {
  countPasskeys,
  credentialDescriptors,
  PASSKEY_ALGORITHMS,
  PASSKEY_LIMIT,
  passkeysOf,
  passkeyView,
  relyingPartyOf,
  storeChallenge,
  takeChallenge,
  toBase64Url,
  WEBAUTHN_CHALLENGE_LIFETIME_MS,
  WEBAUTHN_RP_NAME,
} from './passkey-webauthn.ts';
import { recordOwnEvent } from './security-log.ts';
import { nowOf, type SessionPrincipal, type StartedSession, sessionAfterEnrolment } from './sessions.ts';

export async function passkeyRegistrationOptions(
  ctx: ServiceContext,
  principal: SessionPrincipal,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const { user } = principal;
  const existing = await passkeysOf(ctx, user.id);
  if (existing.length >= PASSKEY_LIMIT) {
    throw new Conflict(`You have ${PASSKEY_LIMIT} passkeys: remove one first.`, [], 'too_many_passkeys');
  }
  const { rpID } = relyingPartyOf(ctx.config);
  const options = await generateRegistrationOptions({
    rpName: WEBAUTHN_RP_NAME,
    rpID,
    userID: new TextEncoder().encode(user.id),
    userName: user.email,
    userDisplayName: user.fullName,
    timeout: WEBAUTHN_CHALLENGE_LIFETIME_MS,
    attestationType: 'none',
    excludeCredentials: credentialDescriptors(existing),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
  });
  await storeChallenge(ctx, principal.session.id, 'register', options.challenge);
  return options;
}

export interface RegisterPasskeyInput {
  principal: SessionPrincipal;
  name: string;
  response: RegistrationResponseJSON;
  ipAddress: string | null;
  userAgent: string | null;
}

export interface RegisteredPasskey {
  passkey: PasskeyView;
  /** Ten backup codes when the passkey is the user's first second factor, else null. */
  backupCodes: string[] | null;
  /** The new session when the old one was held for enrolment (its cookie must be set), else null. */
  newSession: StartedSession | null;
}

/** AuthenticatorTransport values of WebAuthn Level 3. */
const KNOWN_TRANSPORTS = new Set<string>(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

const refusedResponse = (reason: string) =>
  new AppError(400, 'invalid_passkey', `The passkey could not be registered: ${reason}`, [
    { field: 'response', message: reason },
  ]);

export async function registerPasskey(
  ctx: ServiceContext,
  input: RegisterPasskeyInput,
): Promise<RegisteredPasskey> {
  const { principal } = input;
  const session = await ctx.em.findOneOrFail(UserSession, { id: principal.session.id }, { refresh: true });
  const challenge = await takeChallenge(ctx, session, 'register');
  if (!challenge) {
    throw new Conflict(
      'No passkey registration is waiting (or it took longer than five minutes): ask for new options.',
      [],
      'no_passkey_challenge',
    );
  }
  const { rpID, origin } = relyingPartyOf(ctx.config);
  let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verification = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: false,
      supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    });
  } catch (error) {
    throw refusedResponse(error instanceof Error ? error.message : 'the response is not valid');
  }
  if (!verification.verified) throw refusedResponse('the response is not valid');
  const { credential } = verification.registrationInfo;

  return ctx.em.transactional(async (tx) => {
    const txCtx = { ...ctx, em: tx };
    const user = await lockedUser(tx, principal.user.id);
    if (await tx.count(Passkey, { credentialId: credential.id })) {
      throw new Conflict('This passkey is registered already.', [], 'passkey_already_registered');
    }
    const passkeysBefore = await countPasskeys(txCtx, user.id);
    if (passkeysBefore >= PASSKEY_LIMIT) {
      throw new Conflict(`You have ${PASSKEY_LIMIT} passkeys: remove one first.`, [], 'too_many_passkeys');
    }
    const firstFactor = !user.totpEnabledAt && passkeysBefore === 0;
    const now = nowOf(ctx);
    const passkey = tx.create(Passkey, {
      id: randomUUID(),
      userId: user.id,
      credentialId: credential.id,
      publicKey: toBase64Url(credential.publicKey),
      counter: credential.counter,
      // Only the transports WebAuthn defines: a browser's unknown value is a hint nobody can use.
      transports: (credential.transports ?? []).filter((transport) => KNOWN_TRANSPORTS.has(transport)),
      name: input.name,
      createdAt: now,
      lastUsedAt: null,
    });
    await tx.flush();
    // Backup codes come with the first second factor (any earlier ones belonged to one since removed).
    const backupCodes = firstFactor ? await replaceBackupCodes(txCtx, user.id) : null;
    if (firstFactor) {
      recordOwnEvent(txCtx, user, input.ipAddress, {
        type: 'user.mfa_enabled',
        details: { method: 'passkey', backupCodes: backupCodes?.length ?? 0 },
      });
    }
    const newSession = await sessionAfterEnrolment(txCtx, principal.session.id, user, input);
    await tx.flush();
    return { passkey: passkeyView(passkey), backupCodes, newSession };
  });
}

export async function listPasskeys(ctx: ServiceContext, principal: SessionPrincipal): Promise<PasskeyView[]> {
  return (await passkeysOf(ctx, principal.user.id)).map(passkeyView);
}
