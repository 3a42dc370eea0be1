// Reminds one recipient of a sent envelope (POST /api/v1/envelopes/{id}/recipients/{recipientId}/remind): the
// envelope-wide reminder's rules (services/envelopes/remind-envelope.ts, the workflow's whyCannotRemind), for one
// recipient who may act now; anyone else (completed, waiting for their turn, a Cc, a finished envelope) is a 409
// with the workflow's reason. Recorded as `envelope.reminded` with that recipient alone.
import { type EnvelopeState, remindEnvelopeUpdate } from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict, NotFound } from '../errors.ts';
import { updateEnvelope } from './envelope-update.ts';
import { findEnvelope } from './find-envelope.ts';

export async function remindRecipient(
  ctx: ServiceContext,
  organizationId: string,
  envelopeId: string,
  recipientId: string,
): Promise<EnvelopeState> {
  const { envelope, recipients } = await findEnvelope(ctx, organizationId, envelopeId);
  if (!recipients.some((recipient) => recipient.id === recipientId)) {
    throw new NotFound(`Recipient ${recipientId} was not found on envelope ${envelopeId}.`);
  }
  if (envelope.status === 'Draft') throw new Conflict(`Envelope ${envelope.id} is Draft: send it first.`);
  return updateEnvelope(ctx, envelope, remindEnvelopeUpdate, { recipientId });
}
