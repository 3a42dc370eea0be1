// A signer saves values into their fields: all of them, or (when any is invalid) none. Images and uploads are
// checked off the event loop (a drawn image scaled to its box) and become stored files; the first save records
// `recipient.started`. Answers with the view as it is after the save, built from what this request loaded and
// wrote (no second read).
import { randomUUID } from 'node:crypto';
import {
  EnvelopeFieldValue,
  type Recipient,
  StoredFile,
  type TemplateField,
} from '../../db/entities/index.ts';
import type { SigningView } from '../../domain/signing.ts';
import { fileReference, personalStampOf } from '../../pdf/field-values.ts';
import type { SignerActionOrigin } from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { recipientStatusIn } from '../envelopes/envelope-update.ts';
import { Conflict, type ErrorDetail, InvalidRequest } from '../errors.ts';
import { checkSignerValue, type SignerValueCheck } from '../fields/field-value.ts';
import { inspectSignerValue } from '../fields/inspect-signer-value.ts';
import { putSignerValueBytes, storeSignerValue } from '../fields/store-signer-value.ts';
import { signerClient } from '../files/inspection-pool.ts';
import { removeUnusedVersions } from '../stamps/stamps.ts';
import { lockSigningRecipient } from './recipient-lock.ts';
import { loadSigningFields, type SignerField } from './signer-fields.ts';
import { recordSignerProgress } from './signer-progress.ts';
import { openSigningSession, requireActing, requireReady, signingState } from './signing-session.ts';
import { describeSigningLink, withState } from './view-signing-link.ts';

export interface SignerValueInput {
  fieldDefinitionId: string;
  value?: unknown;
}

type CheckedValue = { field: TemplateField; check: Extract<SignerValueCheck, { ok: true }> };

export async function saveSignerFields(
  ctx: ServiceContext,
  token: string,
  values: SignerValueInput[],
  origin: SignerActionOrigin,
  signerSession?: string,
): Promise<SigningView> {
  let session = await openSigningSession(ctx, token, signerSession);
  requireActing(session, 'save fields');
  const { own: fields, others } = await loadSigningFields(ctx, session);
  const checked = await checkValues(fields, values, session.recipient.id);
  const { envelope, recipient } = session;
  await putSignerValueBytes(
    ctx.files,
    checked.map(({ check }) => check),
  );

  const stored = await ctx.em.transactional(async (tx) => {
    // The projection writes recipient statuses: holding the row keeps a save from racing a completion.
    const status = await lockSigningRecipient(tx, envelope.id, recipient.id);
    requireReady(
      { state: signingState(envelope.status, (status ?? recipient.status) as Recipient['status']) },
      'save fields',
    );
    const saved = new Map<string, unknown>();
    const rows = [];
    for (const { field, check } of checked) {
      const value = storeSignerValue(tx, envelope, field, check);
      saved.set(field.id, value);
      if (value !== null) {
        rows.push({
          id: randomUUID(),
          envelopeId: envelope.id,
          fieldId: field.id,
          value,
          source: 'recipient' as const,
          recipientId: recipient.id,
          updatedAt: new Date(),
        });
      }
    }
    const cleared = [...saved].filter(([, value]) => value === null).map(([fieldId]) => fieldId);
    if (cleared.length > 0) {
      await tx.nativeDelete(EnvelopeFieldValue, { envelopeId: envelope.id, fieldId: { $in: cleared } });
    }
    await tx.flush();
    if (rows.length > 0) {
      await tx.upsertMany(EnvelopeFieldValue, rows, {
        onConflictFields: ['envelopeId', 'fieldId'],
        onConflictMergeFields: ['value', 'source', 'recipientId', 'updatedAt'],
      });
    }
    // A replaced or cleared image or upload leaves its file unused: deleted with the change, so nothing is
    // left behind that no value refers to.
    const replaced = fields
      .filter(({ field }) => saved.has(field.id))
      .flatMap(({ value }) => fileReference(value)?.fileId ?? []);
    if (replaced.length > 0) {
      await tx.nativeDelete(StoredFile, { id: { $in: replaced }, organizationId: envelope.organizationId });
    }
    // A personal stamp replaced: the version it named may be one of a deleted stamp that nothing names now.
    const releasedVersions = fields
      .filter(({ field }) => saved.has(field.id))
      .flatMap(({ value }) => personalStampOf(value)?.versionId ?? []);
    await removeUnusedVersions(tx, { versionIds: releasedVersions });
    return saved;
  });

  try {
    const state = await recordSignerProgress(ctx, session, 'started', origin);
    if (state)
      session = withState(session, state.status, recipientStatusIn(state, recipient.id) ?? recipient.status);
  } catch (error) {
    // The envelope moved on meanwhile (cancelled, expired…): the view shows what it is now.
    if (!(error instanceof Conflict)) throw error;
    session = await openSigningSession(ctx, token, signerSession);
  }
  const now: SignerField[] = fields.map(({ field, value }) => ({
    field,
    value: stored.has(field.id) ? stored.get(field.id) : value,
  }));
  return describeSigningLink(session, now, others);
}

/**
 * Each value checked against its field, first what is cheap (checkSignerValue), then images and PDFs on the
 * inspection pool's threads in the signer's turn (inspectSignerValue); every problem at once, in value order,
 * in one 400 naming the values.
 */
async function checkValues(
  fields: SignerField[],
  values: SignerValueInput[],
  recipientId: string,
): Promise<CheckedValue[]> {
  const details: { index: number; detail: ErrorDetail }[] = [];
  const checked: (CheckedValue & { index: number })[] = [];
  const seen = new Set<string>();
  const refuse = (index: number, field: TemplateField, message: string) =>
    details.push({
      index,
      detail: {
        field: `values.${index}.value`,
        message: `${field.label}: ${message}`,
        fieldDefinitionId: field.id,
      },
    });
  values.forEach((item, index) => {
    const path = `values.${index}`;
    const mine = fields.find((f) => f.field.id === item.fieldDefinitionId)?.field;
    if (!mine) {
      details.push({
        index,
        detail: {
          field: `${path}.fieldDefinitionId`,
          message: `field ${item.fieldDefinitionId} is not one of this recipient's fields`,
        },
      });
      return;
    }
    if (seen.has(mine.id)) {
      details.push({
        index,
        detail: { field: `${path}.fieldDefinitionId`, message: `field "${mine.label}" is given twice` },
      });
      return;
    }
    seen.add(mine.id);
    const check = checkSignerValue(mine, item.value ?? null);
    if (!check.ok) {
      refuse(index, mine, check.message);
      return;
    }
    checked.push({ field: mine, check, index });
  });
  const client = signerClient(recipientId);
  const inspected = await Promise.all(
    checked.map(async (value) => ({
      ...value,
      result: await inspectSignerValue(value.field, value.check, client),
    })),
  );
  for (const { index, field, result } of inspected) if (!result.ok) refuse(index, field, result.message);
  const sorted = details.sort((a, b) => a.index - b.index).map(({ detail }) => detail);
  const first = sorted[0];
  if (first) {
    throw new InvalidRequest(
      `Invalid field values: ${first.field}: ${first.message}${sorted.length > 1 ? ` (and ${sorted.length - 1} more)` : ''}`,
      sorted,
    );
  }
  return inspected.flatMap(({ field, result }) => (result.ok ? [{ field, check: result }] : []));
}
