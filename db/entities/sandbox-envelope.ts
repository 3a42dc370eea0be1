// Synthetic envelopes of the public API's sandbox mode. Never read by production code paths: the envelope
// itself (the document the API answers with) is one jsonb value, and the columns beside it serve lookups.
import { defineEntity, p } from '@mikro-orm/core';
import type {
  AuthenticationMethod,
  DeliveryChannel,
  EnvelopeStatus,
  RecipientStatus,
  RecipientType,
  WorkflowType,
} from '../../domain/vocabulary.ts';

/** A synthetic recipient: the public API's recipient shape. */
export interface SandboxRecipientDocument {
  id: string;
  roleName: string;
  fullName: string;
  email: string | null;
  phone: string | null;
  signingOrder: number;
  deliveryChannel: DeliveryChannel;
  authenticationMethod: AuthenticationMethod;
  type: RecipientType;
  language: string | null;
  required: boolean;
  status: RecipientStatus;
  completedAt: string | null;
}

/** A synthetic envelope: exactly the public API's envelope shape (dates as ISO 8601 strings). */
export interface SandboxEnvelopeDocument {
  id: string;
  status: EnvelopeStatus;
  title: string;
  workflowType: WorkflowType;
  templateId: string | null;
  expiresAt: string | null;
  externalReference: string | null;
  externalSystem: string | null;
  externalMetadataJson: string | null;
  finalPdfFileId: string | null;
  auditTrailFileId: string | null;
  reminderCount: number;
  recipients: SandboxRecipientDocument[];
  initialValues: { fieldDefinitionId: string; value: unknown }[];
  createdAt: string;
  updatedAt: string;
  sentAt: string | null;
  completedAt: string | null;
}

export const SandboxEnvelopeSchema = defineEntity({
  name: 'SandboxEnvelope',
  tableName: 'sandbox_envelope',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    externalReference: p.string().nullable(),
    document: p.json<SandboxEnvelopeDocument>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export class SandboxEnvelope extends SandboxEnvelopeSchema.class {}
SandboxEnvelopeSchema.setClass(SandboxEnvelope);
