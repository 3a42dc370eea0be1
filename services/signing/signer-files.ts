// A file the signer stored in one of their own fields (a drawn signature, initials or stamp PNG, an uploaded
// image or file), served back so the signer app can show it again after a reload. Only the file a field of
// this recipient currently refers to: an older value's file, another recipient's or an unknown id is "not
// found". A read: no audit event, no workflow update.
import { type StoredFileContent, storedFileLoader } from '../../db/stored-files.ts';
import { fileReference } from '../../pdf/field-values.ts';
import type { DataContext } from '../context.ts';
import { NotFound } from '../errors.ts';
import { loadSignerFields } from './signer-fields.ts';
import { openSigningSession, requireActing } from './signing-session.ts';

/** The file `fileId` when it is the current value of one of the recipient's fields (ready and authenticated). */
export async function openSignerFile(
  ctx: DataContext,
  token: string,
  fileId: string,
  signerSession?: string,
): Promise<StoredFileContent> {
  const session = await openSigningSession(ctx, token, signerSession);
  requireActing(session, 'show a saved file');
  const notFound = new NotFound('This file was not found among the values of this signing link.');
  const fields = await loadSignerFields(ctx, session);
  if (!fields.some(({ value }) => fileReference(value)?.fileId === fileId)) throw notFound;
  const files = await storedFileLoader(ctx.em, session.envelope.organizationId)([fileId]);
  const file = files.get(fileId);
  if (!file) throw notFound;
  return file;
}
