// Where a signing link stands after the workflow answered a complete or a decline.
import type { SigningOutcome } from '../../domain/signing.ts';
import type { EnvelopeState } from '../../workflows/contracts.ts';
import { recipientStatusIn } from '../envelopes/envelope-update.ts';
import { signingState } from './signing-session.ts';

export function signingOutcome(state: EnvelopeState, recipientId: string): SigningOutcome {
  const recipientStatus = recipientStatusIn(state, recipientId) ?? 'Pending';
  return { state: signingState(state.status, recipientStatus), envelopeStatus: state.status };
}
