// POST /api/signing/{token}/personal-stamps: the signer puts one of their personal stamps into one of their
// Company stamp fields (docs/stamps.md). Only for the signed-in business-app user whose address is the
// recipient's (signer-owner.ts); anyone else's stamp, a deleted one or any stamp for anyone else is "not
// found", as an unknown id. The stamp's current version's image is copied into a stored file of the
// envelope's organization and the field's value becomes that of an uploaded stamp, `{ fileId, typedName: null
// }`, with `personalStamp: { stampId, versionId, version, name }` recording where it came from (the audit
// trail lists it as chosen from personal stamps). Like a save of the field: the value it replaces loses its
// file, the first save records `recipient.started`, and the answer is the link's view after it.
import { randomUUID } from 'node:crypto';
import { EnvelopeFieldValue, type Recipient, StoredFile, UserStampVersion } from '../../db/entities/index.ts';
import type { SigningView } from '../../domain/signing.ts';
import type { UsePersonalStampRequest } from '../../domain/stamp.ts';
import { fileReference, personalStampOf } from '../../pdf/field-values.ts';
import type { SignerActionOrigin } from '../../workflows/contracts.ts';
import type { SessionPrincipal } from '../accounts/sessions.ts';
import type { ServiceContext } from '../context.ts';
import { recipientStatusIn } from '../envelopes/envelope-update.ts';
import { Conflict, InvalidRequest, NotFound } from '../errors.ts';
import { lockSigningRecipient } from '../signing/recipient-lock.ts';
import { loadSigningFields, type SignerField } from '../signing/signer-fields.ts';
import { recordSignerProgress } from '../signing/signer-progress.ts';
import { openSigningSession, requireActing, requireReady, signingState } from '../signing/signing-session.ts';
import { describeSigningLink, withState } from '../signing/view-signing-link.ts';
import { signerStampOwner } from './signer-owner.ts';
import { findOwnStamp, removeUnusedVersions, stampNotFound } from './stamps.ts';

export async function usePersonalStamp(
  ctx: ServiceContext,
  token: string,
  principal: SessionPrincipal | null,
  input: UsePersonalStampRequest,
  origin: SignerActionOrigin,
  signerSession?: string,
): Promise<SigningView> {
  let link = await openSigningSession(ctx, token, signerSession);
  requireActing(link, 'choose a personal stamp');
  const owner = signerStampOwner(link, principal);
  if (!owner) throw stampNotFound(input.stampId);
  const { own: fields, others } = await loadSigningFields(ctx, link);
  const target = fields.find(
    ({ field }) => field.id === input.fieldDefinitionId && field.type === 'Company stamp',
  );
  if (!target) {
    const message = "not one of this recipient's Company stamp fields";
    throw new InvalidRequest(`Invalid request: body.fieldDefinitionId: ${message}`, [
      { field: 'body.fieldDefinitionId', message },
    ]);
  }
  const { envelope, recipient } = link;
  const { field } = target;

  const value = await ctx.em.transactional(async (tx) => {
    // The projection writes recipient statuses: holding the row keeps this from racing a completion.
    const status = await lockSigningRecipient(tx, envelope.id, recipient.id);
    requireReady(
      { state: signingState(envelope.status, (status ?? recipient.status) as Recipient['status']) },
      'choose a personal stamp',
    );
    // Shared with other choices of it, exclusive with a new version or a deletion of it.
    const stamp = await findOwnStamp(tx, owner, input.stampId, 'share');
    const version = await tx.findOne(
      UserStampVersion,
      { stampId: stamp.id },
      { orderBy: { version: 'desc' } },
    );
    const image = version
      ? await tx.findOne(StoredFile, { id: version.fileId, organizationId: stamp.organizationId })
      : null;
    if (!version || !image) throw new NotFound(`The image of stamp ${stamp.id} was not found.`);
    const extension = version.contentType === 'image/png' ? 'png' : 'jpg';
    // The copy is a row of its own over the same object (the key is the bytes' SHA-256): the version's file
    // references it until this commits (the stamp's row, held shared, keeps the version from going meanwhile).
    const copy = tx.create(StoredFile, {
      id: randomUUID(),
      organizationId: envelope.organizationId,
      filename: `${field.label.replace(/[^\p{L}\p{N} ._-]+/gu, '').slice(0, 100) || 'stamp'}.${extension}`,
      contentType: version.contentType,
      sizeBytes: version.sizeBytes,
      sha256: version.sha256,
      pageCount: null,
    });
    const chosen = {
      fileId: copy.id,
      typedName: null,
      personalStamp: { stampId: stamp.id, versionId: version.id, version: version.version, name: stamp.name },
    };
    await tx.flush();
    await tx.upsertMany(
      EnvelopeFieldValue,
      [
        {
          id: randomUUID(),
          envelopeId: envelope.id,
          fieldId: field.id,
          value: chosen,
          source: 'recipient' as const,
          recipientId: recipient.id,
          updatedAt: new Date(),
        },
      ],
      {
        onConflictFields: ['envelopeId', 'fieldId'],
        onConflictMergeFields: ['value', 'source', 'recipientId', 'updatedAt'],
      },
    );
    // The value replaced leaves its file unused (as a save does), and a deleted stamp's version it named may
    // now be named by nothing.
    const replacedFile = fileReference(target.value)?.fileId;
    if (replacedFile) {
      await tx.nativeDelete(StoredFile, { id: replacedFile, organizationId: envelope.organizationId });
    }
    const replacedVersion = personalStampOf(target.value)?.versionId;
    if (replacedVersion) await removeUnusedVersions(tx, { versionIds: [replacedVersion] });
    return chosen;
  });

  try {
    const state = await recordSignerProgress(ctx, link, 'started', origin);
    if (state)
      link = withState(link, state.status, recipientStatusIn(state, recipient.id) ?? recipient.status);
  } catch (error) {
    // The envelope moved on meanwhile (cancelled, expired…): the view shows what it is now.
    if (!(error instanceof Conflict)) throw error;
    link = await openSigningSession(ctx, token, signerSession);
  }
  const now: SignerField[] = fields.map((item) =>
    item.field.id === field.id ? { field: item.field, value } : item,
  );
  return describeSigningLink(link, now, others);
}
