// Reminds the recipients who may act now. The workflow records the reminder (audit event
// `envelope.reminded`, reminder count); delivering the messages comes with the notifications.
import { type EnvelopeState, remindEnvelopeUpdate } from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict } from '../errors.ts';
import { updateEnvelope } from './envelope-update.ts';
import { findEnvelope } from './find-envelope.ts';

export async function remindEnvelope(
  ctx: ServiceContext,
  organizationId: string,
  envelopeId: string,
): Promise<EnvelopeState> {
  const { envelope } = await findEnvelope(ctx, organizationId, envelopeId);
  if (envelope.status === 'Draft') throw new Conflict(`Envelope ${envelope.id} is Draft: send it first.`);
  return updateEnvelope(ctx, envelope, remindEnvelopeUpdate);
}
