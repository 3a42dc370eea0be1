// Cancels an envelope in progress: its workflow ends and the old signing links can no longer complete.
import { CancelEnvelopeRequest } from '../../domain/envelope.ts';
import { cancelEnvelopeUpdate, type EnvelopeState } from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { updateEnvelope } from './envelope-update.ts';
import { findEnvelope } from './find-envelope.ts';

export async function cancelEnvelope(
  ctx: ServiceContext,
  organizationId: string,
  envelopeId: string,
  reason?: string,
  /** The business app's user who cancels: the envelope's sender is told unless it is them (sender notifications). */
  cancelledByUserId?: string,
): Promise<EnvelopeState> {
  const input = parseInput(CancelEnvelopeRequest, reason === undefined ? {} : { reason }, 'cancel request');
  const { envelope } = await findEnvelope(ctx, organizationId, envelopeId);
  if (envelope.status === 'Draft') {
    throw new Conflict(`Envelope ${envelope.id} has not been sent; a draft is deleted, not cancelled.`);
  }
  return updateEnvelope(ctx, envelope, cancelEnvelopeUpdate, {
    ...(input?.reason ? { reason: input.reason } : {}),
    ...(cancelledByUserId ? { cancelledByUserId } : {}),
  });
}
