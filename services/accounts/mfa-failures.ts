// Wrong second factors (docs/accounts.md, "Two-step verification"): each is counted on the session it was
// given with, and the fifth ends that session (a pending sign-in then starts again with the password); each is
// also a `user.mfa_failed` security event, and ten of those for one user within 15 minutes, over any number of
// sessions, refuse further codes for the rest of those 15 minutes (429) — so someone who knows the password
// cannot try codes by signing in again and again.

import { type AppUser, SecurityEvent, UserSession } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { AppError, RateLimited } from '../errors.ts';
import { sha256Hex } from '../security/secrets.ts';
import { recordOwnEvent } from './security-log.ts';
import { nowOf, type SessionClock } from './sessions.ts';

/** Wrong codes one session may give; the last one ends it. */
export const MFA_SESSION_FAILURE_LIMIT = 5;
/** Wrong codes one user may give within MFA_USER_FAILURE_WINDOW_MS, whatever the sessions. */
export const MFA_USER_FAILURE_LIMIT = 10;
export const MFA_USER_FAILURE_WINDOW_MS = 15 * 60 * 1000;

export type SecondFactorMethod = 'totp' | 'passkey' | 'backup_code';

/**
 * 401: the code (or, when re-authenticating, the password or the code) was wrong. `attemptsLeft` 0: the
 * session was ended with it (the transport clears its cookie).
 */
export class SecondFactorRefused extends AppError {
  readonly attemptsLeft: number;

  constructor(code: 'invalid_code' | 'invalid_credentials', message: string, attemptsLeft: number) {
    const ended =
      attemptsLeft === 0
        ? code === 'invalid_code'
          ? ' Too many wrong codes: sign in again.'
          : ' Too many wrong attempts: this session has ended; sign in again.'
        : '';
    super(401, code, `${message}${ended}`, [
      {
        ...(code === 'invalid_code' ? { field: 'code' } : {}),
        message:
          attemptsLeft === 0
            ? 'session ended'
            : `${attemptsLeft} ${attemptsLeft === 1 ? 'attempt' : 'attempts'} left`,
        attemptsLeft,
      },
    ]);
    this.attemptsLeft = attemptsLeft;
  }

  /** Whether the session that gave the wrong code has ended. */
  get sessionEnded(): boolean {
    return this.attemptsLeft === 0;
  }
}

/** Why a session ends at its MFA_SESSION_FAILURE_LIMIT-th wrong second factor. */
export const ENDED_BY_WRONG_FACTORS = 'mfa_failed';

/**
 * The answer to a sign-in's second step whose pending session wrong codes have ended — the fifth code's own
 * answer (401 `invalid_code`, `attemptsLeft: 0`) again, for every later attempt with that cookie and for one
 * that raced the fifth — or null when the cookie's session did not end so (docs/accounts.md).
 */
export async function endedByWrongFactors(
  ctx: DataContext,
  token: string,
): Promise<SecondFactorRefused | null> {
  const ended = await ctx.em.count(UserSession, {
    tokenHash: sha256Hex(token),
    state: 'mfa_pending',
    endedReason: ENDED_BY_WRONG_FACTORS,
  });
  return ended > 0 ? signInEnded() : null;
}

/** The 401 of a pending sign-in that wrong second factors ended. */
export const signInEnded = () => new SecondFactorRefused('invalid_code', 'This sign-in has ended.', 0);

/** 429 while the user has given MFA_USER_FAILURE_LIMIT wrong codes within the window. */
export async function refuseWhileThrottled(ctx: DataContext & SessionClock, user: AppUser): Promise<void> {
  const now = nowOf(ctx);
  const recent = await ctx.em.find(
    SecurityEvent,
    {
      organizationId: user.organizationId,
      actorUserId: user.id,
      type: 'user.mfa_failed',
      occurredAt: { $gt: new Date(now.getTime() - MFA_USER_FAILURE_WINDOW_MS) },
    },
    { orderBy: { occurredAt: 'desc' }, limit: MFA_USER_FAILURE_LIMIT, fields: ['occurredAt'] },
  );
  const oldest = recent[MFA_USER_FAILURE_LIMIT - 1];
  if (!oldest) return;
  const retryAfterMs = oldest.occurredAt.getTime() + MFA_USER_FAILURE_WINDOW_MS - now.getTime();
  throw new RateLimited(
    'Too many wrong codes for this account: wait a few minutes before trying again.',
    Math.max(1, Math.ceil(retryAfterMs / 1000)),
  );
}

/**
 * Counts a wrong second factor on `session` (locked by the caller) and records `user.mfa_failed`; the
 * MFA_SESSION_FAILURE_LIMIT-th ends the session. Returns the attempts left (0: ended). The caller flushes.
 */
export function countSecondFactorFailure(
  ctx: DataContext & SessionClock,
  input: {
    user: AppUser;
    session: UserSession;
    method: SecondFactorMethod | 'password';
    /** What the code was for: the sign-in's second step, or re-authentication for an MFA change. */
    purpose: 'sign_in' | 'reauthentication';
    ipAddress: string | null;
  },
): number {
  const { user, session } = input;
  session.mfaFailures += 1;
  const attemptsLeft = Math.max(0, MFA_SESSION_FAILURE_LIMIT - session.mfaFailures);
  if (attemptsLeft === 0 && !session.endedAt) {
    session.endedAt = nowOf(ctx);
    session.endedReason = ENDED_BY_WRONG_FACTORS;
  }
  recordOwnEvent(ctx, user, input.ipAddress, {
    type: 'user.mfa_failed',
    details: { method: input.method, purpose: input.purpose, attemptsLeft },
  });
  return attemptsLeft;
}
