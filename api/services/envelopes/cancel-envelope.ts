// Cancels an envelope in progress: its workflow ends and the old signing links can no longer complete.
import {
  cancelEnvelopeUpdate,
  type EnvelopeState,
  envelopeWorkflowId,
} from '../../../workflows/contracts.ts';
import { Conflict } from '../../errors.ts';
import type { ServiceContext } from '../context.ts';
import { findEnvelope } from './find-envelope.ts';
import { toServiceError } from './workflow-errors.ts';

export async function cancelEnvelope(
  ctx: ServiceContext,
  organizationId: string,
  envelopeId: string,
  reason?: string,
): Promise<EnvelopeState> {
  const { envelope } = await findEnvelope(ctx, organizationId, envelopeId);
  if (envelope.status === 'Draft') {
    throw new Conflict(`Envelope ${envelope.id} has not been sent; a draft is deleted, not cancelled.`);
  }
  try {
    return await ctx.temporal.workflow
      .getHandle(envelopeWorkflowId(envelope.id))
      .executeUpdate(cancelEnvelopeUpdate, { args: [reason ? { reason } : {}] });
  } catch (error) {
    throw toServiceError(error, envelope.id, envelope.status);
  }
}
