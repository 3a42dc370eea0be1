// A recipient's signing link. The token is shown once (in the issued URL); only its SHA-256 is stored.
import { defineEntity, p } from '@mikro-orm/core';
import { createdAtColumn } from './columns.ts';

export const SigningLinkSchema = defineEntity({
  name: 'SigningLink',
  tableName: 'signing_link',
  properties: {
    tokenHash: p.string().primary(),
    recipientId: p.uuid(),
    envelopeId: p.uuid(),
    organizationId: p.uuid(),
    ...createdAtColumn(),
    revokedAt: p.datetime().nullable(),
  },
});
export class SigningLink extends SigningLinkSchema.class {}
SigningLinkSchema.setClass(SigningLink);
