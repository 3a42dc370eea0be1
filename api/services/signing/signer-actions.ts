// What a signer does through their link: read the envelope (the first read records recipient.opened), see
// the document, save field values, complete and decline. Every workflow change goes through an Update
// with the client's address and user agent, which the audit events carry.
import { createHash, randomUUID } from 'node:crypto';
import { finalPdfValues, placedFields } from '../../../activities/finalize.ts';
import { renderFinalPdf } from '../../../activities/pdf/render-final-pdf.ts';
import {
  EnvelopeFieldValue,
  Recipient,
  StoredFile,
  Template,
  TemplateField,
} from '../../../db/entities/index.ts';
import {
  type EnvelopeState,
  envelopeWorkflowId,
  recipientOpenedUpdate,
  type SignerActionOrigin,
} from '../../../workflows/contracts.ts';
import type { EnvelopeStatus } from '../../../workflows/domain.ts';
import { type ErrorDetail, InvalidRequest } from '../../errors.ts';
import type { ServiceContext } from '../context.ts';
import { completeRecipient } from '../envelopes/complete-recipient.ts';
import { declineRecipient } from '../envelopes/decline-recipient.ts';
import { toServiceError } from '../envelopes/workflow-errors.ts';
import { checkSignerValue } from '../fields/field-value.ts';
import {
  CONSENT_TEXT,
  isFilled,
  missingRequired,
  openSigningSession,
  requireAuthenticated,
  requireReady,
  type SigningState,
  signerFields,
  signingState,
} from './signing-session.ts';

export async function signingView(ctx: ServiceContext, token: string, origin: SignerActionOrigin) {
  const session = await openSigningSession(ctx, token);
  const { envelope, recipient, organization } = session;
  let recipientStatus = recipient.status;
  let envelopeStatus = envelope.status;
  if (session.state === 'ready' && recipient.status === 'Pending') {
    try {
      const state = await ctx.temporal.workflow
        .getHandle(envelopeWorkflowId(envelope.id))
        .executeUpdate(recipientOpenedUpdate, { args: [{ recipientId: recipient.id, ...origin }] });
      envelopeStatus = state.status;
      recipientStatus = state.recipients.find((r) => r.id === recipient.id)?.status ?? recipientStatus;
    } catch (error) {
      // The envelope moved on meanwhile (cancelled, expired…): show what it is now.
      const mapped = toServiceError(error, envelope.id, envelope.status);
      if (mapped === error) throw error;
      const again = await openSigningSession(ctx, token);
      envelopeStatus = again.envelope.status;
      recipientStatus = again.recipient.status;
    }
  }
  const state = signingState(envelopeStatus, recipientStatus);
  const base = {
    state,
    title: envelope.title,
    organizationName: organization.name,
    recipient: {
      name: recipient.fullName,
      status: recipientStatus,
      type: recipient.type,
      language: session.language,
    },
    consentText: CONSENT_TEXT[session.language] ?? (CONSENT_TEXT.en as string),
    authenticationRequired: session.authenticationRequired,
  };
  if (state !== 'ready') return { ...base, fields: [], awaitingCount: 0, requiredFields: [] };
  const fields = await signerFields(ctx, session);
  return {
    ...base,
    fields: fields.map(({ field, value }) => ({
      fieldDefinitionId: field.id,
      type: field.type,
      label: field.label,
      page: field.page,
      x: field.x,
      y: field.y,
      width: field.width,
      height: field.height,
      required: field.required,
      options: field.options ?? null,
      value,
    })),
    awaitingCount: missingRequired(fields).length,
    requiredFields: fields
      .filter(({ field }) => field.required)
      .map(({ field, value }) => ({
        fieldDefinitionId: field.id,
        label: field.label,
        filled: isFilled(value),
      })),
  };
}

/** The base PDF with the initial values and the values of recipients who already completed. */
export async function signingDocument(ctx: ServiceContext, token: string): Promise<Uint8Array> {
  const session = await openSigningSession(ctx, token);
  requireReady(session, 'show the document');
  const { envelope } = session;
  const em = ctx.orm.em.fork();
  if (!envelope.templateId) throw new InvalidRequest('This envelope has no document.');
  const template = await em.findOneOrFail(Template, { id: envelope.templateId });
  const source = await em.findOneOrFail(StoredFile, { id: template.fileId }, { populate: ['content'] });
  const fields = await em.find(TemplateField, { templateId: template.id }, { orderBy: { position: 'asc' } });
  const completed = new Set(
    (await em.find(Recipient, { envelopeId: envelope.id, status: 'Completed' })).map((r) => r.id),
  );
  const values = (await em.find(EnvelopeFieldValue, { envelopeId: envelope.id })).filter(
    (v) => v.source === 'initial' || (v.recipientId != null && completed.has(v.recipientId)),
  );
  const drawn = await finalPdfValues(
    em,
    envelope.organizationId,
    fields.map((field) => values.find((v) => v.fieldId === field.id)?.value),
  );
  return renderFinalPdf({
    basePdf: source.content,
    envelopeId: envelope.id,
    completedAt: new Date(),
    fields: placedFields(fields, drawn),
  });
}

export interface SignerValueInput {
  fieldDefinitionId: string;
  value?: unknown;
}

/** Saves the recipient's values: all of them, or (when any is invalid) none. */
export async function saveSignerFields(
  ctx: ServiceContext,
  token: string,
  values: SignerValueInput[],
  origin: SignerActionOrigin,
) {
  const session = await openSigningSession(ctx, token);
  requireReady(session, 'save fields');
  requireAuthenticated(session, 'save fields');
  const fields = await signerFields(ctx, session);
  const details: ErrorDetail[] = [];
  const checked: { field: TemplateField; check: ReturnType<typeof checkSignerValue> }[] = [];
  const seen = new Set<string>();
  values.forEach((item, index) => {
    const path = `values.${index}`;
    const mine = fields.find((f) => f.field.id === item.fieldDefinitionId)?.field;
    if (!mine) {
      details.push({
        field: `${path}.fieldDefinitionId`,
        message: `field ${item.fieldDefinitionId} is not one of this recipient's fields`,
      });
      return;
    }
    if (seen.has(mine.id)) {
      details.push({ field: `${path}.fieldDefinitionId`, message: `field "${mine.label}" is given twice` });
      return;
    }
    seen.add(mine.id);
    const check = checkSignerValue(mine, item.value ?? null);
    if (!check.ok) {
      details.push({
        field: `${path}.value`,
        message: `${mine.label}: ${check.message}`,
        fieldDefinitionId: mine.id,
      });
      return;
    }
    checked.push({ field: mine, check });
  });
  const first = details[0];
  if (first) {
    throw new InvalidRequest(
      `Invalid field values: ${first.field}: ${first.message}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}`,
      details,
    );
  }

  const { envelope, recipient } = session;
  await ctx.orm.em.fork().transactional(async (tx) => {
    // The projection writes recipient statuses: holding the row keeps a save from racing a completion.
    const [row] = await tx.execute<{ status: string }[]>(
      'select status from recipient where id = ? for update',
      [recipient.id],
    );
    const state = signingState(envelope.status, (row?.status ?? recipient.status) as Recipient['status']);
    requireReady({ ...session, state }, 'save fields');
    for (const { field, check } of checked) {
      if (!check.ok) continue;
      let value: unknown;
      if ('image' in check) {
        const file = tx.create(StoredFile, {
          id: randomUUID(),
          organizationId: envelope.organizationId,
          filename: `${field.label.replace(/[^\p{L}\p{N} ._-]+/gu, '').slice(0, 100) || 'image'}.png`,
          contentType: 'image/png',
          sizeBytes: check.image.png.byteLength,
          sha256: sha256(check.image.png),
          pageCount: null,
          content: check.image.png,
        });
        value = { fileId: file.id, typedName: check.image.typedName };
      } else {
        value = check.value;
      }
      if (value === null) {
        await tx.execute('delete from envelope_field_value where envelope_id = ? and field_id = ?', [
          envelope.id,
          field.id,
        ]);
        continue;
      }
      await tx.execute(
        `insert into envelope_field_value (id, envelope_id, field_id, value, source, recipient_id)
         values (?, ?, ?, ?::jsonb, 'recipient', ?)
         on conflict (envelope_id, field_id) do update
           set value = excluded.value, source = 'recipient', recipient_id = excluded.recipient_id, updated_at = now()`,
        [randomUUID(), envelope.id, field.id, JSON.stringify(value), recipient.id],
      );
    }
    await tx.flush();
  });
  return signingView(ctx, token, origin);
}

export async function completeSigning(
  ctx: ServiceContext,
  token: string,
  consent: boolean,
  origin: SignerActionOrigin,
): Promise<{ state: SigningState; envelopeStatus: EnvelopeStatus }> {
  const session = await openSigningSession(ctx, token);
  requireReady(session, 'complete');
  requireAuthenticated(session, 'complete');
  if (consent !== true) {
    throw new InvalidRequest('Consent is required to complete: send { "consent": true }.', [
      { field: 'consent', message: 'must be true' },
    ]);
  }
  const missing = missingRequired(await signerFields(ctx, session));
  if (missing.length > 0) {
    throw new InvalidRequest(
      `Required fields are not filled: ${missing.map((m) => m.field.label).join(', ')}.`,
      missing.map(({ field }) => ({
        field: field.label,
        fieldDefinitionId: field.id,
        message: 'required',
      })),
    );
  }
  const state = await completeRecipient(
    ctx,
    session.envelope.organizationId,
    session.envelope.id,
    session.recipient.id,
    origin,
  );
  return outcome(state, session.recipient.id);
}

export async function declineSigning(
  ctx: ServiceContext,
  token: string,
  reason: string,
  origin: SignerActionOrigin,
): Promise<{ state: SigningState; envelopeStatus: EnvelopeStatus }> {
  const session = await openSigningSession(ctx, token);
  requireReady(session, 'decline');
  requireAuthenticated(session, 'decline');
  const state = await declineRecipient(
    ctx,
    session.envelope.organizationId,
    session.envelope.id,
    session.recipient.id,
    { reason },
    origin,
  );
  return outcome(state, session.recipient.id);
}

function outcome(state: EnvelopeState, recipientId: string) {
  const recipientStatus = state.recipients.find((r) => r.id === recipientId)?.status ?? 'Pending';
  return { state: signingState(state.status, recipientStatus), envelopeStatus: state.status };
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
