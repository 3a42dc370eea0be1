// A recipient completes their part by their type: a Signer signs (consent and required fields), a FormFiller
// fills (required fields, no consent), an Approver approves, a Viewer acknowledges the document (the workflow
// refuses a Viewer who never loaded it). The workflow decides; the answer is where the link stands then.
import type { SigningOutcome } from '../../domain/signing.ts';
import { completeRecipientUpdate, type SignerActionOrigin } from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { updateEnvelope } from '../envelopes/envelope-update.ts';
import { InvalidRequest } from '../errors.ts';
import { loadSignerFields, missingRequired } from './signer-fields.ts';
import { signingOutcome } from './signing-outcome.ts';
import { openSigningSession, requireActing } from './signing-session.ts';

export async function completeSigning(
  ctx: ServiceContext,
  token: string,
  consent: boolean,
  origin: SignerActionOrigin,
  signerSession?: string,
): Promise<SigningOutcome> {
  const session = await openSigningSession(ctx, token, signerSession);
  requireActing(session, 'complete');
  const { envelope, recipient } = session;
  if (recipient.type === 'Signer' && consent !== true) {
    throw new InvalidRequest('Consent is required to complete: send { "consent": true }.', [
      { field: 'consent', message: 'must be true' },
    ]);
  }
  const missing = missingRequired(await loadSignerFields(ctx, session));
  if (missing.length > 0) {
    throw new InvalidRequest(
      `Required fields are not filled: ${missing.map((m) => m.field.label).join(', ')}.`,
      missing.map(({ field }) => ({ field: field.label, fieldDefinitionId: field.id, message: 'required' })),
    );
  }
  const state = await updateEnvelope(ctx, envelope, completeRecipientUpdate, {
    recipientId: recipient.id,
    ...origin,
  });
  return signingOutcome(state, recipient.id);
}
