// A file the signer stored in one of their own fields (a drawn signature, initials or stamp PNG, an uploaded
// image or file), served back so the signer app can show it again after a reload; and the pictures other
// recipients left in their fields before completing (a signature, a stamp, an uploaded image), which the page
// shows read-only. Only a file such a field currently refers to: an older value's file, the file of a recipient
// who has not completed, another recipient's upload that is not a picture, or an unknown id is "not found".
// A read: no audit event, no workflow update.
import { type StoredFileContent, storedFileLoader } from '../../db/stored-files.ts';
import { fileReference } from '../../pdf/field-values.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { NotFound } from '../errors.ts';
import { othersPictureIds } from './filled-by-others.ts';
import { loadSigningFields } from './signer-fields.ts';
import { openSigningSession, requireActing } from './signing-session.ts';

/**
 * The file `fileId` when it is the current value of one of the recipient's fields, or a picture another
 * recipient who completed left in theirs (ready and authenticated).
 */
export async function openSignerFile(
  ctx: DataContext & FilesContext,
  token: string,
  fileId: string,
  signerSession?: string,
): Promise<StoredFileContent> {
  const session = await openSigningSession(ctx, token, signerSession);
  requireActing(session, 'show a saved file');
  const notFound = new NotFound('This file was not found among the values of this signing link.');
  const { own, others } = await loadSigningFields(ctx, session);
  const visible =
    own.some(({ value }) => fileReference(value)?.fileId === fileId) ||
    othersPictureIds(others).includes(fileId);
  if (!visible) throw notFound;
  const files = await storedFileLoader(ctx.em, ctx.files, session.envelope.organizationId)([fileId]);
  const file = files.get(fileId);
  if (!file) throw notFound;
  return file;
}
