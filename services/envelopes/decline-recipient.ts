// Records that a recipient declined, with their reason. The envelope's workflow decides whether they may
// (it is their turn and the envelope is in progress); the envelope then ends Declined.
import type { z } from 'zod';
import { DeclineRequest } from '../../domain/envelope.ts';
import {
  declineRecipientUpdate,
  type EnvelopeState,
  type SignerActionOrigin,
} from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict, NotFound } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { updateEnvelope } from './envelope-update.ts';
import { findEnvelope } from './find-envelope.ts';

export async function declineRecipient(
  ctx: ServiceContext,
  organizationId: string,
  envelopeId: string,
  recipientId: string,
  input: z.input<typeof DeclineRequest>,
  origin: SignerActionOrigin = {},
): Promise<EnvelopeState> {
  const { reason } = parseInput(DeclineRequest, input, 'decline');
  const { envelope, recipients } = await findEnvelope(ctx, organizationId, envelopeId);
  if (!recipients.some((r) => r.id === recipientId)) {
    throw new NotFound(`Recipient ${recipientId} was not found on envelope ${envelope.id}.`);
  }
  if (envelope.status === 'Draft')
    throw new Conflict(`Envelope ${envelope.id} is Draft: it has not been sent.`);
  return updateEnvelope(ctx, envelope, declineRecipientUpdate, { recipientId, reason, ...origin });
}
