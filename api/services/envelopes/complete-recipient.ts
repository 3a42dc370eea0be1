// Records that a recipient completed. The envelope's workflow decides whether it is their turn.
import {
  completeRecipientUpdate,
  type EnvelopeState,
  envelopeWorkflowId,
  type SignerActionOrigin,
} from '../../../workflows/contracts.ts';
import { Conflict, NotFound } from '../../errors.ts';
import type { ServiceContext } from '../context.ts';
import { findEnvelope } from './find-envelope.ts';
import { toServiceError } from './workflow-errors.ts';

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
  try {
    return await ctx.temporal.workflow
      .getHandle(envelopeWorkflowId(envelope.id))
      .executeUpdate(completeRecipientUpdate, { args: [{ recipientId, ...origin }] });
  } catch (error) {
    throw toServiceError(error, envelope.id, envelope.status);
  }
}
