// Renders the final PDF and the audit trail again for an envelope whose finalization failed (status
// FinalPdfFailed, the reason in its audit log), once the cause is fixed: operators (`sigil envelope
// retry-final-pdf`) and, with `requestedBy: 'sender'`, a sender in the business app (the audit trail then names
// the sender instead of an operator).
import { type EnvelopeState, retryFinalizationUpdate } from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict } from '../errors.ts';
import { updateEnvelope } from './envelope-update.ts';
import { findEnvelope } from './find-envelope.ts';

export async function retryFinalization(
  ctx: ServiceContext,
  organizationId: string,
  envelopeId: string,
  requestedBy?: 'sender',
): Promise<EnvelopeState> {
  const { envelope } = await findEnvelope(ctx, organizationId, envelopeId);
  if (envelope.status !== 'FinalPdfFailed') {
    throw new Conflict(
      `Envelope ${envelope.id} is ${envelope.status}; only a FinalPdfFailed envelope is finalized again.`,
    );
  }
  return updateEnvelope(ctx, envelope, retryFinalizationUpdate, requestedBy ? { requestedBy } : {});
}
