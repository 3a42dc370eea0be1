// The envelope as the public API shows it (domain/envelope.ts), read from PostgreSQL (the workflow's projection).
import { EnvelopeFieldValue, type Recipient } from '../../../db/entities/index.ts';
import type { EnvelopeView, RecipientView } from '../../../domain/envelope.ts';
import type { DataContext } from '../context.ts';
import { findEnvelope } from './find-envelope.ts';

export async function envelopeView(
  ctx: DataContext,
  organizationId: string,
  envelopeId: string,
): Promise<EnvelopeView> {
  const { envelope, recipients } = await findEnvelope(ctx, organizationId, envelopeId);
  const values = await ctx.em.find(
    EnvelopeFieldValue,
    { envelopeId: envelope.id, source: 'initial' },
    { orderBy: { createdAt: 'asc' } },
  );
  return {
    id: envelope.id,
    status: envelope.status,
    title: envelope.title,
    workflowType: envelope.workflowType,
    // An envelope from a file is made from a hidden one-off template: the API names the file instead.
    templateId: envelope.sourceFileId ? null : (envelope.templateId ?? null),
    sourceFileId: envelope.sourceFileId ?? null,
    expiresAt: iso(envelope.expiresAt),
    externalReference: envelope.externalReference ?? null,
    externalSystem: envelope.externalSystem ?? null,
    externalMetadataJson: envelope.externalMetadataJson ?? null,
    finalPdfFileId: envelope.finalPdfFileId ?? null,
    auditTrailFileId: envelope.auditTrailFileId ?? null,
    reminderCount: envelope.reminderCount,
    recipients: recipients.map(recipientView),
    initialValues: values.map((value) => ({ fieldDefinitionId: value.fieldId, value: value.value })),
    createdAt: envelope.createdAt.toISOString(),
    updatedAt: envelope.updatedAt.toISOString(),
    sentAt: iso(envelope.sentAt),
    completedAt: iso(envelope.completedAt),
  };
}

export function recipientView(recipient: Recipient): RecipientView {
  return {
    id: recipient.id,
    roleName: recipient.roleName,
    fullName: recipient.fullName,
    email: recipient.email ?? null,
    phone: recipient.phone ?? null,
    signingOrder: recipient.signingOrder,
    deliveryChannel: recipient.deliveryChannel,
    authenticationMethod: recipient.authenticationMethod,
    type: recipient.type,
    language: recipient.language ?? null,
    required: recipient.required,
    status: recipient.status,
    completedAt: iso(recipient.completedAt),
  };
}

function iso(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}
