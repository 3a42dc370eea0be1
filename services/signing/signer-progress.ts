// The signer's progress the audit trail records: `viewed` when they load the document, `started` when they
// first save a value. Each is sent once: not when the recipient's status already shows it (the workflow
// also answers a repeat with the current state and never moves a status backwards).

import type { RecipientStatus } from '../../domain/vocabulary.ts';
import {
  type EnvelopeState,
  type RecipientProgressRequest,
  recipientProgressUpdate,
  type SignerActionOrigin,
} from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { updateEnvelope } from '../envelopes/envelope-update.ts';
import type { SigningSession } from './signing-session.ts';

const ALREADY: Record<RecipientProgressRequest['step'], readonly RecipientStatus[]> = {
  viewed: ['Viewed', 'InProgress'],
  started: ['InProgress'],
};

/**
 * Sends the step unless the recipient's status already shows it; null when nothing was sent. A rejection
 * by the workflow (the envelope moved on meanwhile) is thrown as the service's 409.
 */
export async function recordSignerProgress(
  ctx: ServiceContext,
  session: SigningSession,
  step: RecipientProgressRequest['step'],
  origin: SignerActionOrigin,
): Promise<EnvelopeState | null> {
  if (ALREADY[step].includes(session.recipient.status)) return null;
  return updateEnvelope(ctx, session.envelope, recipientProgressUpdate, {
    recipientId: session.recipient.id,
    step,
    ...origin,
  });
}
