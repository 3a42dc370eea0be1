// Reminds the recipients who may act now, or one of them (`recipientId`). The workflow decides whether anyone
// may be reminded (the same rule for both: the recipient may act now) and records the reminder (audit event
// `envelope.reminded` with the recipients reminded, the envelope's reminder count); the notifications send it.
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
  return updateEnvelope(ctx, envelope, remindEnvelopeUpdate, {});
}
