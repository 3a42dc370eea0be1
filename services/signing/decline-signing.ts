// A recipient declines, with their reason; the workflow decides whether they may (their turn, the envelope
// in progress), and the envelope then ends Declined.
import { DeclineRequest } from '../../domain/envelope.ts';
import type { SigningOutcome } from '../../domain/signing.ts';
import { declineRecipientUpdate, type SignerActionOrigin } from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { updateEnvelope } from '../envelopes/envelope-update.ts';
import { parseInput } from '../validation.ts';
import { signingOutcome } from './signing-outcome.ts';
import { openSigningSession, requireActing } from './signing-session.ts';

export async function declineSigning(
  ctx: ServiceContext,
  token: string,
  reason: string,
  origin: SignerActionOrigin,
  signerSession?: string,
): Promise<SigningOutcome> {
  const input = parseInput(DeclineRequest, { reason }, 'decline');
  const session = await openSigningSession(ctx, token, signerSession);
  requireActing(session, 'decline');
  const { envelope, recipient } = session;
  const state = await updateEnvelope(ctx, envelope, declineRecipientUpdate, {
    recipientId: recipient.id,
    reason: input.reason,
    ...origin,
  });
  return signingOutcome(state, recipient.id);
}
