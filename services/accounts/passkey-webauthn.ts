// What the passkey services share (docs/accounts.md, "Two-step verification", "Passkeys"): the relying party
// (PUBLIC_BASE_URL's host name is the RP ID, its origin the only origin accepted), the one WebAuthn challenge a
// session holds at a time (prefixed with what it is for, valid five minutes, taken once: whatever the answer,
// a challenge never serves twice), the user's passkeys, and which second factors a user has.
import { type AppUser, Passkey, UserSession } from '../../db/entities/index.ts';
import type { PasskeyView } from '../../domain/account.ts';
import type { DataContext, ServiceConfig } from '../context.ts';
import { nowOf, type SessionClock } from './sessions.ts';

export const WEBAUTHN_CHALLENGE_LIFETIME_MS = 5 * 60 * 1000;
export const WEBAUTHN_RP_NAME = 'Sigil';
/** At most this many passkeys per user. */
export const PASSKEY_LIMIT = 20;

/**
 * The COSE algorithms accepted: EdDSA, ES256, RS256. Named rather than left to the library, whose default asks
 * Node's experimental SubtleCrypto.supports() about ML-DSA (a warning on stderr, and an unsettled API).
 */
export const PASSKEY_ALGORITHMS = [-8, -7, -257];

export type ChallengePurpose = 'register' | 'sign_in';

/** The relying party of PUBLIC_BASE_URL: its host name (the RP ID) and its origin. */
export function relyingPartyOf(config: Pick<ServiceConfig, 'publicBaseUrl'>): {
  rpID: string;
  origin: string;
} {
  const url = new URL(config.publicBaseUrl);
  return { rpID: url.hostname, origin: url.origin };
}

/** Keeps `challenge` on the session for `purpose` (replacing any earlier one). Flushes. */
export async function storeChallenge(
  ctx: DataContext & SessionClock,
  sessionId: string,
  purpose: ChallengePurpose,
  challenge: string,
): Promise<void> {
  await ctx.em.nativeUpdate(
    UserSession,
    { id: sessionId },
    {
      webauthnChallenge: `${purpose}:${challenge}`,
      webauthnChallengeExpiresAt: new Date(nowOf(ctx).getTime() + WEBAUTHN_CHALLENGE_LIFETIME_MS),
    },
  );
}

/**
 * Takes the session's challenge for `purpose` off it (one conditional update, so two answers cannot both
 * have it): the challenge, or null when there is none, it is for something else or it has expired.
 */
export async function takeChallenge(
  ctx: DataContext & SessionClock,
  session: UserSession,
  purpose: ChallengePurpose,
): Promise<string | null> {
  const stored = session.webauthnChallenge;
  const expiresAt = session.webauthnChallengeExpiresAt;
  if (!stored) return null;
  const taken = await ctx.em.nativeUpdate(
    UserSession,
    { id: session.id, webauthnChallenge: stored },
    { webauthnChallenge: null, webauthnChallengeExpiresAt: null },
  );
  if (taken !== 1) return null;
  if (!expiresAt || expiresAt <= nowOf(ctx)) return null;
  const prefix = `${purpose}:`;
  return stored.startsWith(prefix) ? stored.slice(prefix.length) : null;
}

export function passkeysOf(ctx: DataContext, userId: string): Promise<Passkey[]> {
  return ctx.em.find(Passkey, { userId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

export const countPasskeys = (ctx: DataContext, userId: string) => ctx.em.count(Passkey, { userId });

/** Whether the user has a second factor: an authenticator app or a passkey. */
export async function hasSecondFactor(ctx: DataContext, user: AppUser): Promise<boolean> {
  return Boolean(user.totpEnabledAt) || (await countPasskeys(ctx, user.id)) > 0;
}

export function passkeyView(passkey: Passkey): PasskeyView {
  return {
    id: passkey.id,
    name: passkey.name,
    createdAt: passkey.createdAt.toISOString(),
    lastUsedAt: passkey.lastUsedAt ? passkey.lastUsedAt.toISOString() : null,
  };
}

/** The user's passkeys as the browser's WebAuthn call names them: a new one must not repeat them, a sign-in may use any. */
export const credentialDescriptors = (passkeys: readonly Passkey[]) =>
  passkeys.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports }));

export const fromBase64Url = (value: string) => new Uint8Array(Buffer.from(value, 'base64url'));
export const toBase64Url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
