// Sends an OTP recipient a new one-time code: throttled per recipient, stored only as a hash, older open
// codes superseded. The message goes through the channel's provider (Twilio, see docs/notifications.md);
// without one, development and test capture it (notifications/dev-capture.ts) and production refuses with
// 503. Every send is recorded in `notification`. The workflow then records the step.
import { randomUUID } from 'node:crypto';
import { OtpCode } from '../../db/entities/index.ts';
import { releaseMessageCredit, takeTextCredit } from '../../db/usage-reservations.ts';
import { notificationLanguage } from '../../notifications/catalog.ts';
import {
  type AttemptRecord,
  channelName,
  deliver,
  deliveryContext,
  type Route,
  recordAttempt,
  routeFor,
} from '../../notifications/deliver.ts';
import { NotificationError, redactedMessage } from '../../notifications/errors.ts';
import { senderName } from '../../notifications/messages.ts';
import type { SentMessage } from '../../notifications/providers.ts';
import { storedTemplate } from '../../notifications/templates.ts';
import { recipientAuthenticationUpdate, type SignerActionOrigin } from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { updateEnvelope } from '../envelopes/envelope-update.ts';
import { Conflict, RateLimited, ServiceUnavailable } from '../errors.ts';
import { smsCredits, smsCreditsExhausted } from '../usage/sms-credits.ts';
import { codeMessage, generateCode, hashCode, maskPhone, OTP_POLICY } from './otp-policy.ts';
import { lockSigningRecipient } from './recipient-lock.ts';
import { openSigningSession, requireOtpRecipient, requireReady } from './signing-session.ts';

export interface OneTimeCodeSent {
  channel: 'Sms' | 'WhatsApp';
  /** The phone the code went to, masked. */
  sentTo: string;
  expiresAt: string;
  /** When the next code may be requested (the resend interval, or the hourly cap). */
  resendAvailableAt: string;
}

export async function requestOneTimeCode(
  ctx: ServiceContext,
  token: string,
  origin: SignerActionOrigin,
): Promise<OneTimeCodeSent> {
  const session = await openSigningSession(ctx, token);
  const channel = requireOtpRecipient(session, 'send a one-time code');
  requireReady(session, 'send a one-time code');
  const { envelope, recipient, organization } = session;
  const phone = recipient.phone;
  if (!phone) {
    throw new Conflict(
      'Cannot send a one-time code: the recipient has no phone number. Ask the sender to correct the recipient.',
      [{ field: 'phone', message: 'missing' }],
    );
  }
  const name = channelName(channel);
  let route: Route;
  try {
    route = routeFor(await deliveryContext(ctx.em, ctx.config), channel);
  } catch (error) {
    if (!(error instanceof NotificationError)) throw error;
    throw new ServiceUnavailable(
      `One-time codes cannot be sent by ${name}: this server has no ${name} provider configured.`,
    );
  }

  const now = new Date();
  const code = generateCode();
  const id = randomUUID();
  const expiresAt = new Date(now.getTime() + OTP_POLICY.codeLifetimeMs);
  const message = {
    channel,
    to: phone,
    text: codeMessage(
      session.language,
      senderName({ organizationName: organization.name, senderDisplayName: organization.senderDisplayName }),
      code,
      await storedTemplate(ctx.em, 'otp', session.language),
    ),
  };
  // The notification record shares the code's id.
  const attempt = (outcome: AttemptRecord['outcome'], provider: string): AttemptRecord => ({
    id,
    organizationId: envelope.organizationId,
    envelopeId: envelope.id,
    recipientId: recipient.id,
    kind: 'otp',
    channel,
    to: phone,
    language: notificationLanguage(session.language),
    provider,
    outcome,
  });
  const resendAvailableAt = await ctx.em.transactional(async (tx) => {
    // One request per recipient at a time, so two quick requests cannot both pass the throttle.
    await lockSigningRecipient(tx, envelope.id, recipient.id);
    const windowStart = new Date(now.getTime() - OTP_POLICY.sendWindowMs);
    const recent = await tx.find(
      OtpCode,
      { recipientId: recipient.id, createdAt: { $gt: windowStart } },
      { orderBy: { createdAt: 'asc' } },
    );
    const last = recent.at(-1);
    if (last && last.createdAt.getTime() + OTP_POLICY.resendIntervalMs > now.getTime()) {
      throw tooSoon(last.createdAt.getTime() + OTP_POLICY.resendIntervalMs - now.getTime());
    }
    const oldestCounted = recent[recent.length - OTP_POLICY.maxCodesPerWindow];
    if (oldestCounted) {
      throw tooSoon(oldestCounted.createdAt.getTime() + OTP_POLICY.sendWindowMs - now.getTime());
    }

    await tx.nativeUpdate(
      OtpCode,
      { recipientId: recipient.id, closedAt: null },
      { closedAt: now, closedReason: 'superseded' },
    );
    tx.create(OtpCode, {
      id,
      recipientId: recipient.id,
      envelopeId: envelope.id,
      organizationId: envelope.organizationId,
      channel,
      codeHash: hashCode(id, code),
      attempts: 0,
      createdAt: now,
      expiresAt,
      closedAt: null,
      closedReason: null,
    });
    await tx.flush();
    // The code takes an SMS credit: the one the envelope holds for the recipient's first code, or one of the
    // month's (refused when none is left, and the code is not kept).
    const took = await takeTextCredit(tx, {
      organizationId: envelope.organizationId,
      envelopeId: envelope.id,
      recipientId: recipient.id,
      purpose: 'code',
      notificationId: id,
    });
    if (!took) {
      const credits = await smsCredits(tx, envelope.organizationId);
      throw smsCreditsExhausted(credits, 1, 'send a one-time code');
    }
    if (route.type === 'capture') {
      const captured = await deliver(tx, route, message, {
        kind: 'otp',
        otpCode: code,
        envelopeId: envelope.id,
        recipientId: recipient.id,
        organizationId: envelope.organizationId,
      });
      await recordAttempt(
        tx,
        attempt({ status: 'sent', providerMessageId: captured.providerMessageId }, 'dev-capture'),
      );
    }

    // The next code: after the resend interval, and once the hourly cap is reached, after the oldest
    // code of the window leaves it.
    const sent = [...recent.map((c) => c.createdAt.getTime()), now.getTime()];
    const capFreesAt =
      sent.length >= OTP_POLICY.maxCodesPerWindow
        ? (sent[sent.length - OTP_POLICY.maxCodesPerWindow] as number) + OTP_POLICY.sendWindowMs
        : 0;
    return new Date(Math.max(now.getTime() + OTP_POLICY.resendIntervalMs, capFreesAt));
  });

  // A provider is called after the code is committed, so no lock is held while it answers.
  if (route.type === 'provider') {
    const provider = route.provider;
    let sent: SentMessage;
    try {
      sent = await provider.send(message);
    } catch (error) {
      // The code never reached the recipient: forget it, so it is neither the latest code nor counted by the
      // resend limits, and the recipient may ask again at once.
      await ctx.em.nativeDelete(OtpCode, { id });
      await releaseMessageCredit(ctx.em, id);
      const failure = error instanceof NotificationError ? error : null;
      await recordAttempt(
        ctx.em,
        attempt(
          { status: 'failed', error: failure ? failure.message : redactedMessage(error) },
          provider.name,
        ),
      );
      if (failure && !failure.retryable) {
        throw new Conflict(
          `The ${name} provider refused to send a one-time code to this phone number. Ask the sender to check the recipient's phone number.`,
          [{ field: 'phone', message: 'refused by the provider' }],
        );
      }
      throw new ServiceUnavailable(
        `The one-time code could not be sent by ${name} just now. Try again in a moment.`,
      );
    }
    await recordAttempt(
      ctx.em,
      attempt({ status: 'sent', providerMessageId: sent.providerMessageId }, provider.name),
    );
  }

  await updateEnvelope(ctx, envelope, recipientAuthenticationUpdate, {
    recipientId: recipient.id,
    outcome: 'code_sent',
    channel,
    ...origin,
  });
  return {
    channel,
    sentTo: maskPhone(phone),
    expiresAt: expiresAt.toISOString(),
    resendAvailableAt: resendAvailableAt.toISOString(),
  };
}

function tooSoon(waitMs: number): RateLimited {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new RateLimited(
    `A new one-time code can be requested in ${seconds} seconds (at most one every ${OTP_POLICY.resendIntervalMs / 1000} seconds and ${OTP_POLICY.maxCodesPerWindow} per hour).`,
    seconds,
  );
}
