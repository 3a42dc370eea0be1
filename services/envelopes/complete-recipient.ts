// Records that a recipient completed. The envelope's workflow decides whether it is their turn.
import {
  completeRecipientUpdate,
  type EnvelopeState,
  type SignerActionOrigin,
} from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict, NotFound } from '../errors.ts';
import { updateEnvelope } from './envelope-update.ts';
import { findEnvelope } from './find-envelope.ts';

export async function completeRecipient(
  ctx: ServiceContext,
  organizationId: string,
  envelopeId: string,
  recipientId: string,
  origin: SignerActionOrigin = {},
): Promise<EnvelopeState> {
  const { envelope, recipients } = await findEnvelope(ctx, organizationId, envelopeId);
  if (!recipients.some((r) => r.id === recipientId)) {
    throw new NotFound(`Recipient ${recipientId} was not found on envelope ${envelope.id}.`);
  }
  if (envelope.status === 'Draft') throw new Conflict(`Envelope ${envelope.id} has not been sent.`);
  return updateEnvelope(ctx, envelope, completeRecipientUpdate, { recipientId, ...origin });
}
