// Records that a recipient declined, with their reason. The envelope's workflow decides whether they may
// (it is their turn and the envelope is in progress); the envelope then ends Declined.
import { z } from 'zod';
import {
  declineRecipientUpdate,
  type EnvelopeState,
  envelopeWorkflowId,
  type SignerActionOrigin,
} from '../../../workflows/contracts.ts';
import { Conflict, NotFound } from '../../errors.ts';
import type { ServiceContext } from '../context.ts';
import { parseInput } from '../validation.ts';
import { findEnvelope } from './find-envelope.ts';
import { toServiceError } from './workflow-errors.ts';

const DeclineInput = z.object({
  reason: z.string().trim().min(1, 'a reason is required to decline').max(1000),
});

export async function declineRecipient(
  ctx: ServiceContext,
  organizationId: string,
  envelopeId: string,
  recipientId: string,
  input: z.input<typeof DeclineInput>,
  origin: SignerActionOrigin = {},
): Promise<EnvelopeState> {
  const { reason } = parseInput(DeclineInput, input, 'decline');
  const { envelope, recipients } = await findEnvelope(ctx, organizationId, envelopeId);
  if (!recipients.some((r) => r.id === recipientId)) {
    throw new NotFound(`Recipient ${recipientId} was not found on envelope ${envelope.id}.`);
  }
  if (envelope.status === 'Draft')
    throw new Conflict(`Envelope ${envelope.id} is Draft: it has not been sent.`);
  try {
    return await ctx.temporal.workflow
      .getHandle(envelopeWorkflowId(envelope.id))
      .executeUpdate(declineRecipientUpdate, { args: [{ recipientId, reason, ...origin }] });
  } catch (error) {
    throw toServiceError(error, envelope.id, envelope.status);
  }
}
