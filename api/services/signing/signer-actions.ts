// What a signer does through their link: read the envelope (the first read records recipient.opened), see
// the document (recipient.viewed), save field values (recipient.started), complete as their type requires
// and decline. An OTP recipient does all but the first read only with a signer session (a verified code).
// Every workflow change goes through an Update with the client's address and user agent, which the audit
// events carry.
import { randomUUID } from 'node:crypto';
import {
  EnvelopeFieldValue,
  Recipient,
  StoredFile,
  Template,
  TemplateField,
} from '../../../db/entities/index.ts';
import { storedFileLoader } from '../../../db/stored-files.ts';
import { finalPdfValues, placedFields } from '../../../documents/field-values.ts';
import { documentLanguage } from '../../../documents/i18n.ts';
import { renderFinalPdf } from '../../../documents/render-final-pdf.ts';
import type { EnvelopeStatus } from '../../../domain/vocabulary.ts';
import {
  type EnvelopeState,
  envelopeWorkflowId,
  recipientOpenedUpdate,
  type SignerActionOrigin,
} from '../../../workflows/contracts.ts';
import { NOT_YET_OPENED } from '../../../workflows/envelope-model.ts';
import { Conflict, type ErrorDetail, InvalidRequest } from '../../errors.ts';
import type { ServiceContext } from '../context.ts';
import { completeRecipient } from '../envelopes/complete-recipient.ts';
import { declineRecipient } from '../envelopes/decline-recipient.ts';
import { toServiceError } from '../envelopes/workflow-errors.ts';
import { checkSignerValue } from '../fields/field-value.ts';
import { storeSignerValue } from '../fields/store-signer-value.ts';
import { maskPhone } from './otp-policy.ts';
import { lockSigningRecipient } from './recipient-lock.ts';
import { recordSignerProgress } from './signer-progress.ts';
import {
  CONSENT_TEXT,
  isFilled,
  missingRequired,
  openSigningSession,
  requireAuthenticated,
  requireReady,
  type SigningState,
  signerAction,
  signerFields,
  signingState,
} from './signing-session.ts';

/**
 * What the signer app shows for a link. An OTP recipient without a signer session (`signerSession`, the
 * X-Signing-Session header) sees who and what it is about, never fields or values.
 */
export async function signingView(
  ctx: ServiceContext,
  token: string,
  origin: SignerActionOrigin,
  signerSession?: string,
) {
  const session = await openSigningSession(ctx, token, signerSession);
  const { envelope, recipient, organization } = session;
  let recipientStatus = recipient.status;
  let envelopeStatus = envelope.status;
  // Not opened yet (whether or not an invitation reached them): the first open is recorded.
  if (session.state === 'ready' && NOT_YET_OPENED.includes(recipient.status)) {
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
      const again = await openSigningSession(ctx, token, signerSession);
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
    action: signerAction(recipient.type),
    consentRequired: recipient.type === 'Signer',
    consentText:
      recipient.type === 'Signer' ? (CONSENT_TEXT[session.language] ?? (CONSENT_TEXT.en as string)) : null,
    authenticationRequired: session.authenticationRequired,
    authenticated: session.authenticated,
    authenticationMethod: recipient.authenticationMethod,
    maskedPhone: session.authenticationRequired && recipient.phone ? maskPhone(recipient.phone) : null,
  };
  if (state !== 'ready' || !session.authenticated) {
    return { ...base, fields: [], awaitingCount: 0, requiredFields: [] };
  }
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

/**
 * The signer loads the document: a ready and (for OTP) authenticated recipient only; the first load records
 * `recipient.viewed` (a Viewer may complete only after it).
 */
export async function openSigningDocument(
  ctx: ServiceContext,
  token: string,
  origin: SignerActionOrigin,
  signerSession?: string,
): Promise<Uint8Array> {
  const session = await openSigningSession(ctx, token, signerSession);
  requireReady(session, 'show the document');
  requireAuthenticated(session, 'show the document');
  const pdf = await signingDocument(ctx, token);
  await recordSignerProgress(ctx, session, 'viewed', origin);
  return pdf;
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
    fields,
    fields.map((field) => values.find((v) => v.fieldId === field.id)?.value),
    storedFileLoader(em, envelope.organizationId),
  );
  return renderFinalPdf({
    basePdf: source.content,
    envelopeId: envelope.id,
    completedAt: new Date(),
    fields: placedFields(fields, drawn),
    language: documentLanguage(session.organization.defaultLanguage),
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
  signerSession?: string,
) {
  const session = await openSigningSession(ctx, token, signerSession);
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
    const status = await lockSigningRecipient(tx, envelope.id, recipient.id);
    const state = signingState(envelope.status, (status ?? recipient.status) as Recipient['status']);
    requireReady({ ...session, state }, 'save fields');
    for (const { field, check } of checked) {
      if (!check.ok) continue;
      const value = storeSignerValue(tx, envelope, field, check);
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
  try {
    await recordSignerProgress(ctx, session, 'started', origin);
  } catch (error) {
    // The envelope moved on meanwhile (cancelled, expired…): the view shows what it is now.
    if (!(error instanceof Conflict)) throw error;
  }
  return signingView(ctx, token, origin, signerSession);
}

/**
 * Completes the recipient's part by their type: a Signer signs (consent and required fields), a FormFiller
 * fills (required fields, no consent), an Approver approves, a Viewer acknowledges the document (the
 * workflow refuses a Viewer who never loaded it).
 */
export async function completeSigning(
  ctx: ServiceContext,
  token: string,
  consent: boolean,
  origin: SignerActionOrigin,
  signerSession?: string,
): Promise<{ state: SigningState; envelopeStatus: EnvelopeStatus }> {
  const session = await openSigningSession(ctx, token, signerSession);
  requireReady(session, 'complete');
  requireAuthenticated(session, 'complete');
  if (session.recipient.type === 'Signer' && consent !== true) {
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
  signerSession?: string,
): Promise<{ state: SigningState; envelopeStatus: EnvelopeStatus }> {
  const session = await openSigningSession(ctx, token, signerSession);
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
