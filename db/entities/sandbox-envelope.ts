// Synthetic envelopes of the public API's sandbox mode. Never read by production code paths: the envelope
// itself (the document the API answers with) is one jsonb value, and the columns beside it serve lookups.
import { defineEntity, p } from '@mikro-orm/core';
import type { EnvelopeView, RecipientView } from '../../domain/envelope.ts';
import { tenantKeys, timestampColumns } from './columns.ts';

/** A synthetic recipient: the public API's recipient shape. */
export type SandboxRecipientDocument = RecipientView;

/** A synthetic envelope: exactly the public API's envelope shape (dates as ISO 8601 strings). */
export type SandboxEnvelopeDocument = EnvelopeView;

export const SandboxEnvelopeSchema = defineEntity({
  name: 'SandboxEnvelope',
  tableName: 'sandbox_envelope',
  properties: {
    ...tenantKeys(),
    externalReference: p.string().nullable(),
    document: p.json<SandboxEnvelopeDocument>(),
    ...timestampColumns(),
  },
});
export class SandboxEnvelope extends SandboxEnvelopeSchema.class {}
SandboxEnvelopeSchema.setClass(SandboxEnvelope);
