// Checks a one-time code against the recipient's latest one. The right code opens a signer session (a
// 256-bit token for the X-Signing-Session header, stored as SHA-256); a wrong, expired or exhausted code
// is a 400 saying what to do next. Every decision is committed before the workflow records it, so a failed
// guess counts even when the answer is an error.
import { OtpCode, SignerSession } from '../../db/entities/index.ts';
import {
  type RecipientAuthenticationRequest,
  recipientAuthenticationUpdate,
  type SignerActionOrigin,
} from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { updateEnvelope } from '../envelopes/envelope-update.ts';
import { Conflict, InvalidRequest } from '../errors.ts';
import { randomToken, sha256Hex } from '../security/secrets.ts';
import { codeMatches, OTP_POLICY } from './otp-policy.ts';
import { lockSigningRecipient } from './recipient-lock.ts';
import { openSigningSession, requireOtpRecipient, requireReady } from './signing-session.ts';

export interface SignerSessionIssued {
  /** Send as `X-Signing-Session` with every signer request of this recipient. */
  sessionToken: string;
  expiresAt: string;
}

type Failure = NonNullable<RecipientAuthenticationRequest['reason']>;
type Decision =
  | { verified: true; sessionToken: string; tokenHash: string; expiresAt: Date }
  | { verified: false; reason: Failure; attemptsLeft: number; record: boolean };

export async function verifyOneTimeCode(
  ctx: ServiceContext,
  token: string,
  code: string,
  origin: SignerActionOrigin,
): Promise<SignerSessionIssued> {
  const session = await openSigningSession(ctx, token);
  requireOtpRecipient(session, 'verify a one-time code');
  requireReady(session, 'verify a one-time code');
  const { envelope, recipient } = session;
  const now = new Date();

  const decision = await ctx.em.transactional(async (tx): Promise<Decision> => {
    // One verification per recipient at a time: attempts are counted exactly.
    await lockSigningRecipient(tx, envelope.id, recipient.id);
    const latest = await tx.findOne(
      OtpCode,
      { recipientId: recipient.id },
      { orderBy: { createdAt: 'desc' } },
    );
    if (!latest) {
      throw new Conflict(
        'No one-time code was requested for this recipient: request one first (POST /api/signing/{token}/otp).',
      );
    }
    if (latest.closedReason === 'verified') {
      throw new Conflict('This one-time code was already used: request a new one to open another session.');
    }
    if (latest.closedReason === 'too_many_attempts' || latest.closedReason === 'expired') {
      return { verified: false, reason: latest.closedReason, attemptsLeft: 0, record: false };
    }
    if (latest.expiresAt.getTime() <= now.getTime()) {
      latest.closedAt = now;
      latest.closedReason = 'expired';
      return { verified: false, reason: 'expired', attemptsLeft: 0, record: true };
    }
    if (codeMatches(latest.id, code, latest.codeHash)) {
      latest.closedAt = now;
      latest.closedReason = 'verified';
      const sessionToken = randomToken();
      const tokenHash = sha256Hex(sessionToken);
      const expiresAt = new Date(now.getTime() + OTP_POLICY.sessionLifetimeMs);
      await tx.nativeDelete(SignerSession, { recipientId: recipient.id, expiresAt: { $lte: now } });
      tx.create(SignerSession, {
        tokenHash,
        recipientId: recipient.id,
        envelopeId: envelope.id,
        organizationId: envelope.organizationId,
        createdAt: now,
        expiresAt,
      });
      return { verified: true, sessionToken, tokenHash, expiresAt };
    }
    latest.attempts += 1;
    if (latest.attempts >= OTP_POLICY.maxAttempts) {
      latest.closedAt = now;
      latest.closedReason = 'too_many_attempts';
      return { verified: false, reason: 'too_many_attempts', attemptsLeft: 0, record: true };
    }
    return {
      verified: false,
      reason: 'wrong_code',
      attemptsLeft: OTP_POLICY.maxAttempts - latest.attempts,
      record: true,
    };
  });

  if (decision.verified) {
    try {
      await updateEnvelope(ctx, envelope, recipientAuthenticationUpdate, {
        recipientId: recipient.id,
        outcome: 'verified',
        ...origin,
      });
    } catch (error) {
      // The workflow would not let this recipient act: the session must not outlive that answer.
      await ctx.em.nativeDelete(SignerSession, { tokenHash: decision.tokenHash });
      throw error;
    }
    return { sessionToken: decision.sessionToken, expiresAt: decision.expiresAt.toISOString() };
  }

  if (decision.record) {
    await updateEnvelope(ctx, envelope, recipientAuthenticationUpdate, {
      recipientId: recipient.id,
      outcome: 'failed',
      reason: decision.reason,
      ...origin,
    });
  }
  throw failure(decision.reason, decision.attemptsLeft);
}

function failure(reason: Failure, attemptsLeft: number): InvalidRequest {
  if (reason === 'wrong_code') {
    return new InvalidRequest(
      `The code is not correct: ${attemptsLeft} ${attemptsLeft === 1 ? 'attempt' : 'attempts'} left.`,
      [{ field: 'code', message: 'incorrect', attemptsLeft }],
      'invalid_code',
    );
  }
  if (reason === 'expired') {
    return new InvalidRequest(
      `The code has expired (codes are valid for ${OTP_POLICY.codeLifetimeMs / 60_000} minutes): request a new one.`,
      [{ field: 'code', message: 'expired' }],
      'code_expired',
    );
  }
  return new InvalidRequest(
    `Too many wrong attempts (${OTP_POLICY.maxAttempts}): this code no longer works. Request a new one.`,
    [{ field: 'code', message: 'too many attempts' }],
    'too_many_attempts',
  );
}
