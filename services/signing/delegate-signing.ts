// A recipient hands their part to another person (POST /api/signing/{token}/delegate, docs/signing.md "Handing
// your part to someone else"), when the sender allowed it on the envelope (or its template). The delegate is
// checked by a create request's recipient rules; the workflow decides (delegateRecipient: the setting, the
// recipient's turn, nothing done yet) and records `recipient.delegated`; its projection makes the delegate the
// recipient and ends this link; the delegate's invitation goes out after that. A text-message invitation holds
// its SMS credit first, as a send does — and so does the delegate's first one-time code — and gives them back
// when the workflow refuses.
import {
  type CreditPurpose,
  hasUnusedHold,
  holdCredits,
  lockOrganization,
  releaseHolds,
} from '../../db/usage-reservations.ts';
import { RECIPIENT_RULE_KEYS } from '../../domain/envelope.ts';
import { DelegateSigningRequest, type DelegationOutcome } from '../../domain/signing.ts';
import {
  type DelegationParty,
  delegateRecipientUpdate,
  type SignerActionOrigin,
} from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { updateEnvelope } from '../envelopes/envelope-update.ts';
import { AppError, Forbidden, InvalidRequest } from '../errors.ts';
import { smsCredits, smsCreditsExhausted } from '../usage/sms-credits.ts';
import { parseInput } from '../validation.ts';
import { otpChannel } from './otp-policy.ts';
import { openSigningSession, requireActing } from './signing-session.ts';

const ACTION = 'hand this part to someone else';

export async function delegateSigning(
  ctx: ServiceContext,
  token: string,
  body: unknown,
  origin: SignerActionOrigin,
  signerSession?: string,
): Promise<DelegationOutcome> {
  const delegate = parseInput(DelegateSigningRequest, body, 'delegation');
  const session = await openSigningSession(ctx, token, signerSession);
  requireActing(session, ACTION);
  const { envelope, recipient, organization } = session;
  if (!envelope.allowDelegation) {
    throw new Forbidden(
      `Cannot ${ACTION}: the sender of this envelope does not allow recipients to assign someone else.`,
      [{ field: 'allowDelegation', message: 'off for this envelope' }],
    );
  }
  const deliveryChannel = delegate.deliveryChannel ?? 'Email';
  // The recipient's identity check stays with their part: a one-time code needs the delegate's number.
  if (otpChannel(recipient.authenticationMethod) && !delegate.phone) {
    throw new InvalidRequest(
      `Invalid delegation: phone: the delegate must verify a one-time code by phone.`,
      [
        {
          field: 'phone',
          message: 'phone is required for one-time-code authentication',
          params: {
            key: RECIPIENT_RULE_KEYS.phoneForAuthentication,
            authenticationMethod: recipient.authenticationMethod,
          },
        },
      ],
    );
  }
  if (delegate.language && !organization.supportedLanguages.includes(delegate.language)) {
    throw new InvalidRequest(`Invalid delegation: language: "${delegate.language}" is not offered.`, [
      {
        field: 'language',
        message: `"${delegate.language}" is not a language of this organization (${organization.supportedLanguages.join(', ')})`,
      },
    ]);
  }

  const from: DelegationParty = {
    fullName: recipient.fullName,
    email: recipient.email ?? null,
    phone: recipient.phone ?? null,
    deliveryChannel: recipient.deliveryChannel,
  };
  const to: DelegationParty = {
    fullName: delegate.fullName,
    email: delegate.email ?? null,
    phone: delegate.phone ?? null,
    deliveryChannel,
    ...(delegate.language ? { language: delegate.language } : {}),
  };
  const holds = await holdDelegateCredits(ctx, envelope, recipient.id, {
    invitation: deliveryChannel !== 'Email',
    code: otpChannel(recipient.authenticationMethod) !== null,
  });
  let state: Awaited<ReturnType<typeof updateEnvelope>>;
  try {
    state = await updateEnvelope(ctx, envelope, delegateRecipientUpdate, {
      recipientId: recipient.id,
      from,
      to,
      ...origin,
    });
  } catch (error) {
    // Refused (the workflow said no): nothing will be sent, so the credit goes back. When the outcome is not
    // known (503), the hold stays: the invitation may be on its way.
    if (error instanceof AppError && error.status < 500) await releaseHolds(ctx.em, holds);
    throw error;
  }
  return {
    state: 'delegated',
    envelopeStatus: state.status,
    delegate: { fullName: to.fullName, deliveryChannel },
  };
}

/**
 * Holds the SMS credits the delegate's first messages need, under the organization's lock (409 when too few are
 * left): one for a text-message invitation, and one for the first one-time code unless the recipient's own
 * first-code hold is still unused (the delegate inherits it: the same recipient). None for an emailed
 * invitation without a code.
 */
async function holdDelegateCredits(
  ctx: ServiceContext,
  envelope: { id: string; organizationId: string },
  recipientId: string,
  needs: { invitation: boolean; code: boolean },
): Promise<string[]> {
  if (!needs.invitation && !needs.code) return [];
  return ctx.em.transactional(async (tx) => {
    await lockOrganization(tx, envelope.organizationId);
    const holds: { recipientId: string; purpose: CreditPurpose }[] = [];
    if (needs.invitation) holds.push({ recipientId, purpose: 'invitation' });
    if (needs.code && !(await hasUnusedHold(tx, envelope.id, recipientId, 'code'))) {
      holds.push({ recipientId, purpose: 'code' });
    }
    if (holds.length === 0) return [];
    const credits = await smsCredits(tx, envelope.organizationId);
    if (credits.remaining < holds.length) throw smsCreditsExhausted(credits, holds.length, ACTION);
    return holdCredits(tx, envelope.organizationId, envelope.id, holds);
  });
}
