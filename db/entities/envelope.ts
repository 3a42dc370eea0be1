// Envelopes, their recipients and the audit log. Rows after sending are a projection of the
// envelope's Temporal workflow, written only by the projection activity.
import { defineEntity, p } from '@mikro-orm/core';
import type { DeadlineSettings } from '../../domain/envelope-settings.ts';
import type {
  AuthenticationMethod,
  DeliveryChannel,
  EnvelopeStatus,
  RecipientStatus,
  RecipientType,
  WorkflowType,
} from '../../domain/vocabulary.ts';

export const EnvelopeSchema = defineEntity({
  name: 'Envelope',
  tableName: 'envelope',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    templateId: p.uuid().nullable(),
    /** The uploaded file an envelope created from a file was made of (its template is a hidden one-off); else null. */
    sourceFileId: p.uuid().nullable(),
    /** The business app's user who created it; null for the public API's (integrations) and the CLI's. */
    createdByUserId: p.uuid().nullable(),
    /** That user's team when they created it; null without one. Both decide who sees it (docs/documents.md). */
    teamId: p.uuid().nullable(),
    title: p.string(),
    workflowType: p.string().$type<WorkflowType>(),
    status: p.string().$type<EnvelopeStatus>(),
    expiresAt: p.datetime().nullable(),
    externalReference: p.string().nullable(),
    externalSystem: p.string().nullable(),
    externalMetadataJson: p.text().nullable(),
    finalPdfFileId: p.uuid().nullable(),
    auditTrailFileId: p.uuid().nullable(),
    workflowId: p.string().nullable(),
    projectedSequence: p.integer().default(0),
    /** Why the envelope's projection is parked (a transition PostgreSQL refuses for good); null otherwise. */
    projectionError: p.text().nullable(),
    projectionFailedAt: p.datetime().nullable(),
    reminderCount: p.integer().default(0),
    lastRemindedAt: p.datetime().nullable(),
    sentAt: p.datetime().nullable(),
    /** When its send took one of the month's documents (migration 0030); the month it counts in. */
    countedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    /** The status before it was archived or deleted (what unarchiving restores); null otherwise. */
    previousStatus: p.string().$type<EnvelopeStatus>().nullable(),
    archivedAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
    /** When the retention run purged its files (docs/envelope-lifecycle.md); null: not yet. */
    filesPurgedAt: p.datetime().nullable(),
    /** Whether its recipients may hand their part to another person (migration 0034, docs/signing.md). */
    allowDelegation: p.boolean().default(false),
    /**
     * Its reminder and deadline settings (domain/envelope-settings.ts), written when it is created and kept
     * current by the projection of `envelope.settings_updated`; null for envelopes created before migration 0038.
     */
    deadlineSettings: p.json<DeadlineSettings>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export class Envelope extends EnvelopeSchema.class {}
EnvelopeSchema.setClass(Envelope);

export const RecipientSchema = defineEntity({
  name: 'Recipient',
  tableName: 'recipient',
  properties: {
    id: p.uuid().primary(),
    envelopeId: p.uuid(),
    roleId: p.uuid().nullable(),
    roleName: p.string(),
    fullName: p.string(),
    email: p.string().nullable(),
    phone: p.string().nullable(),
    signingOrder: p.integer(),
    /** The recipient's place in its envelope's list as given at creation (0-based); orders ties of signingOrder. */
    position: p.integer().default(0),
    deliveryChannel: p.string().$type<DeliveryChannel>(),
    authenticationMethod: p.string().$type<AuthenticationMethod>(),
    type: p.string().$type<RecipientType>(),
    language: p.string().nullable(),
    required: p.boolean(),
    status: p.string().$type<RecipientStatus>(),
    completedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export class Recipient extends RecipientSchema.class {}
RecipientSchema.setClass(Recipient);

export const AuditEventSchema = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_event',
  properties: {
    id: p.uuid().primary(),
    envelopeId: p.uuid(),
    organizationId: p.uuid(),
    sequence: p.integer(),
    type: p.string(),
    recipientId: p.uuid().nullable(),
    data: p.json<Record<string, unknown>>(),
    occurredAt: p.datetime(),
    recordedAt: p.datetime().onCreate(() => new Date()),
  },
});
export class AuditEvent extends AuditEventSchema.class {}
AuditEventSchema.setClass(AuditEvent);

export const EnvelopeFieldValueSchema = defineEntity({
  name: 'EnvelopeFieldValue',
  tableName: 'envelope_field_value',
  properties: {
    id: p.uuid().primary(),
    envelopeId: p.uuid(),
    fieldId: p.uuid(),
    value: p.json<unknown>(),
    source: p.string().$type<'initial' | 'recipient'>(),
    recipientId: p.uuid().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export class EnvelopeFieldValue extends EnvelopeFieldValueSchema.class {}
EnvelopeFieldValueSchema.setClass(EnvelopeFieldValue);
