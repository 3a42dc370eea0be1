// Edits a Draft envelope (PATCH /api/v1/envelopes/{id}, the business app's PATCH /api/documents/{id}): the
// create request's fields, each optional (UpdateDraftRequest, domain/envelope.ts). What the request gives
// replaces the Draft's — recipients and initialValues as whole lists —, what it leaves out is kept, and the
// result is checked exactly as a create is (checkEnvelopeRequest, create-envelope.ts): template roles, required
// roles, signing orders, channels and contact data, languages, prefilled values. A Draft keeps its own
// template (a later version or its archiving does not refuse the edit); a new templateId must be a published
// current version, and then the old template's values are not carried over.
//
// Atomic against a send: one transaction locks the envelope's row, edits only while it is Draft and no send
// has begun (no workflow id recorded: send-reservation.ts records it under the same lock), and replaces every
// recipient with new ids. A send that loaded the Draft before the edit committed finds other recipient ids
// once it holds the lock, and is refused (reserveSendWithin); an edit that waits for a send's lock finds the
// workflow id and is refused (409 `envelope_not_draft`). So a workflow never starts with what an edit replaced.

import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { Template, TemplateField, TemplateRole } from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import { type EnvelopeView, UpdateDraftRequest } from '../../domain/envelope.ts';
import { DEADLINE_SETTING_LIMITS, type DeadlineSettingName } from '../../domain/envelope-settings.ts';
import type { DataContext } from '../context.ts';
import { Conflict, InvalidRequest, NotFound } from '../errors.ts';
import { recordIdempotentResult } from '../idempotency.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { requireActiveOrganization } from '../organizations/organization-standing.ts';
import { deletedTemplateAsNotFound } from '../templates/archived-templates.ts';
import { parseInput } from '../validation.ts';
import {
  checkEnvelopeRequest,
  findPublishedTemplate,
  initialValueRows,
  type PublishedTemplate,
  recipientRows,
  type ValidatedEnvelopeRequest,
} from './create-envelope.ts';
import { envelopeView } from './envelope-view.ts';

type DraftChanges = z.output<typeof UpdateDraftRequest>;
const DEADLINE_SETTING_NAMES = Object.keys(DEADLINE_SETTING_LIMITS) as DeadlineSettingName[];
type DraftRequest = Parameters<typeof checkEnvelopeRequest>[1];

/** The 409 of an envelope that is no longer (or not yet only) a Draft. */
export function notDraft(envelopeId: string, status: string, sendBegan: boolean): Conflict {
  return new Conflict(
    sendBegan && status === 'Draft'
      ? `Envelope ${envelopeId} is being sent; only a Draft that is not being sent can be edited.`
      : `Envelope ${envelopeId} is ${status}; only a Draft can be edited.`,
    [{ field: 'status', message: status }],
    'envelope_not_draft',
  );
}

/**
 * The Draft `current` with `changes` applied, as a parsed create request (checkEnvelopeRequest's input).
 * `expiresAt` stays undefined when the request leaves it out: the caller keeps the Draft's own deadline, which
 * may have passed since (a send refuses that; the edit that moves it later is then the way out).
 */
export function draftWithChanges(current: EnvelopeView, changes: DraftChanges): DraftRequest {
  const sameTemplate = changes.templateId === undefined || changes.templateId === current.templateId;
  return {
    title: changes.title ?? current.title,
    workflowType: changes.workflowType ?? current.workflowType,
    expiresAt: changes.expiresAt,
    externalReference: changes.externalReference ?? current.externalReference ?? undefined,
    externalSystem: changes.externalSystem ?? current.externalSystem ?? undefined,
    externalMetadataJson: changes.externalMetadataJson ?? current.externalMetadataJson ?? undefined,
    allowDelegation: changes.allowDelegation ?? current.allowDelegation,
    // Reminder and deadline settings, each given or the Draft's (an envelope from before they were kept has
    // none: the organization's defaults, as its create would decide now). `null` turns reminders off: given.
    ...Object.fromEntries(
      DEADLINE_SETTING_NAMES.map((name) => [
        name,
        changes[name] !== undefined ? changes[name] : (current.deadlineSettings?.[name] ?? undefined),
      ]),
    ),
    recipients:
      changes.recipients ??
      current.recipients.map((recipient) => ({
        roleName: recipient.roleName,
        fullName: recipient.fullName,
        email: recipient.email ?? undefined,
        phone: recipient.phone ?? undefined,
        signingOrder: recipient.signingOrder,
        deliveryChannel: recipient.deliveryChannel,
        authenticationMethod: recipient.authenticationMethod,
        type: recipient.type,
        language: recipient.language,
      })),
    initialValues: changes.initialValues ?? (sameTemplate ? current.initialValues : []),
  };
}

/** Parses an edit request: 400 naming every refused field, before anything is read or locked. */
export function parseDraftChanges(input: unknown): DraftChanges {
  return parseInput(UpdateDraftRequest, input ?? {}, 'draft changes');
}

/**
 * Edits the organization's Draft `envelopeId` and answers the envelope afterwards. 404 for another
 * organization's or an unknown envelope; 409 `envelope_not_draft` once it is sent or being sent; 400 naming
 * the fields the create would refuse; 403 for a suspended organization. Nothing changes unless all passes.
 */
export async function updateDraft(
  ctx: DataContext,
  organizationId: string,
  envelopeId: string,
  input: unknown,
): Promise<EnvelopeView> {
  const changes = parseDraftChanges(input);
  if (!UUID_PATTERN.test(envelopeId)) throw new NotFound(`Envelope ${envelopeId} was not found.`);
  const written = ctx.em.transactional(async (tx) => {
    const [locked] = await tx.execute<{ status: string; workflow_id: string | null; template_id: string }[]>(
      'select status, workflow_id, template_id from envelope where id = ? and organization_id = ? for update',
      [envelopeId, organizationId],
    );
    if (!locked || locked.status === 'Deleted') throw new NotFound(`Envelope ${envelopeId} was not found.`);
    if (locked.status !== 'Draft' || locked.workflow_id !== null) {
      throw notDraft(envelopeId, locked.status, locked.workflow_id !== null);
    }
    const txCtx = { em: tx };
    const current = await envelopeView(txCtx, organizationId, envelopeId);
    if (current.sourceFileId && changes.templateId !== undefined) {
      throw new InvalidRequest('An envelope made from a file keeps its file; it has no template to change.', [
        { field: 'templateId', message: 'an envelope made from a file has no template' },
      ]);
    }
    const published = await draftTemplate(txCtx, organizationId, locked.template_id, changes.templateId);
    requireActiveOrganization(published.organization, 'edit an envelope');
    const checked = checkEnvelopeRequest(published, draftWithChanges(current, changes));
    const expiresAt =
      changes.expiresAt === undefined && current.expiresAt ? new Date(current.expiresAt) : checked.expiresAt;
    await writeDraft(tx, envelopeId, { ...checked, expiresAt });
    // Committed with the edit or not at all: a retry that took the Idempotency-Key over fences this one out.
    if (ctx.idempotency) await recordIdempotentResult(tx, ctx.idempotency, envelopeId);
  });
  // A template deleted since it was checked (migration 0039's trigger): as not found as it now is.
  await written.catch((error: unknown) => {
    throw deletedTemplateAsNotFound(error, changes.templateId ?? '');
  });
  return envelopeView(ctx, organizationId, envelopeId);
}

/**
 * The template an edit is checked against: the Draft's own `ownTemplateId` (whatever became of it since: a
 * Draft keeps its version, a one-off template included), or the published current version `templateId` names
 * instead. The sandbox's edits use it too (services/sandbox/update-sandbox-draft.ts).
 */
export async function draftTemplate(
  ctx: DataContext,
  organizationId: string,
  ownTemplateId: string,
  templateId: string | undefined,
): Promise<PublishedTemplate> {
  if (templateId !== undefined && templateId !== ownTemplateId) {
    return findPublishedTemplate(ctx, organizationId, templateId);
  }
  const organization = await findOrganization(ctx, organizationId);
  const template = await ctx.em.findOne(Template, { id: ownTemplateId, organizationId });
  if (!template) throw new NotFound(`Template ${ownTemplateId} was not found.`);
  const [roles, fields] = await Promise.all([
    ctx.em.find(TemplateRole, { templateId: template.id }, { orderBy: { position: 'asc', id: 'asc' } }),
    ctx.em.find(TemplateField, { templateId: template.id }, { orderBy: { position: 'asc', id: 'asc' } }),
  ]);
  return { organization, template, roles, fields };
}

/** Writes the checked Draft over the old one: the envelope's row, then new recipients and initial values. */
async function writeDraft(tx: EntityManager, envelopeId: string, draft: ValidatedEnvelopeRequest) {
  const now = new Date().toISOString();
  await tx.execute(
    `update envelope set title = ?, workflow_type = ?, template_id = ?::uuid, expires_at = ?::timestamptz,
            external_reference = ?, external_system = ?, external_metadata_json = ?, allow_delegation = ?,
            deadline_settings = ?::jsonb, updated_at = ?::timestamptz
      where id = ?`,
    [
      draft.title,
      draft.workflowType,
      draft.templateId,
      draft.expiresAt.toISOString(),
      draft.externalReference,
      draft.externalSystem,
      draft.externalMetadataJson,
      draft.allowDelegation,
      JSON.stringify(draft.deadlineSettings),
      now,
      envelopeId,
    ],
  );
  await tx.execute(`delete from envelope_field_value where envelope_id = ? and source = 'initial'`, [
    envelopeId,
  ]);
  await tx.execute('delete from recipient where envelope_id = ?', [envelopeId]);
  const recipients = recipientRows(draft.recipients);
  await tx.execute(
    `insert into recipient (id, envelope_id, role_id, role_name, full_name, email, phone, signing_order, position,
                            delivery_channel, authentication_method, type, language, required, status,
                            created_at, updated_at)
     select r.id, ?::uuid, r.role_id, r.role_name, r.full_name, r.email, r.phone, r.signing_order, r.position,
            r.delivery_channel, r.authentication_method, r.type, r.language, r.required, 'Pending',
            ?::timestamptz, ?::timestamptz
       from jsonb_to_recordset(?::jsonb) as r (id uuid, role_id uuid, role_name text, full_name text, email text,
            phone text, signing_order int, position int, delivery_channel text, authentication_method text,
            type text, language text, required boolean)`,
    [envelopeId, now, now, JSON.stringify(recipients)],
  );
  const values = initialValueRows(draft.initialValues);
  await tx.execute(
    `insert into envelope_field_value (id, envelope_id, field_id, value, source, recipient_id, created_at,
                                       updated_at)
     select v.id, ?::uuid, v.field_id, v.value, 'initial', null, ?::timestamptz, ?::timestamptz
       from jsonb_to_recordset(?::jsonb) as v (id uuid, field_id uuid, value jsonb)`,
    [envelopeId, now, now, JSON.stringify(values)],
  );
}
