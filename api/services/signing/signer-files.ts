// A file the signer stored in one of their own fields (a drawn signature, initials or stamp PNG, an uploaded
// image or file), served back so the signer app can show it again after a reload. Only the file a field of
// this recipient currently refers to: an older value's file, another recipient's or an unknown id is "not
// found". A read: no audit event, no workflow update.
import { StoredFile } from '../../../db/entities/index.ts';
import { NotFound } from '../../errors.ts';
import type { DataContext } from '../context.ts';
import { openSigningSession, requireAuthenticated, requireReady, signerFields } from './signing-session.ts';

export interface SignerFile {
  content: Uint8Array;
  contentType: string;
  filename: string;
}

/** The file `fileId` when it is the current value of one of the recipient's fields (ready and authenticated). */
export async function openSignerFile(
  ctx: DataContext,
  token: string,
  fileId: string,
  signerSession?: string,
): Promise<SignerFile> {
  const session = await openSigningSession(ctx, token, signerSession);
  requireReady(session, 'show a saved file');
  requireAuthenticated(session, 'show a saved file');
  const notFound = new NotFound('This file was not found among the values of this signing link.');
  const fields = await signerFields(ctx, session);
  if (!fields.some(({ value }) => fileIdOf(value) === fileId)) throw notFound;
  const file = await ctx.orm.em
    .fork()
    .findOne(
      StoredFile,
      { id: fileId, organizationId: session.envelope.organizationId },
      { populate: ['content'] },
    );
  if (!file) throw notFound;
  return { content: new Uint8Array(file.content), contentType: file.contentType, filename: file.filename };
}

function fileIdOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !('fileId' in value)) return undefined;
  return typeof value.fileId === 'string' ? value.fileId : undefined;
}
