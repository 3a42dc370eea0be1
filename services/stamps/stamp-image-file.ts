// GET /api/me/stamps/{id}/image: the image of one of the signed-in user's stamps, the current version or the
// one named by `versionId` (a version of that stamp, else 404).
import { StoredFile, UserStampVersion } from '../../db/entities/index.ts';
import type { StampContentType } from '../../domain/stamp.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { NotFound } from '../errors.ts';
import { storedFileBytes } from '../files/stored-file-bytes.ts';
import { findOwnStamp, type StampOwner } from './stamps.ts';

export interface StampImageFile {
  contentType: StampContentType;
  content: Uint8Array;
  /** The version asked for by its id (its bytes never change), rather than the current one. */
  pinned: boolean;
}

export async function stampImageFile(
  ctx: DataContext & FilesContext,
  owner: StampOwner,
  stampId: string,
  versionId?: string,
): Promise<StampImageFile> {
  const stamp = await findOwnStamp(ctx.em, owner, stampId);
  const version = versionId
    ? await ctx.em.findOne(UserStampVersion, { id: versionId, stampId: stamp.id })
    : await ctx.em.findOne(UserStampVersion, { stampId: stamp.id }, { orderBy: { version: 'desc' } });
  if (!version) throw new NotFound(`Version ${versionId} of stamp ${stamp.id} was not found.`);
  const file = await ctx.em.findOne(StoredFile, { id: version.fileId, organizationId: stamp.organizationId });
  if (!file) throw new NotFound(`The image of stamp ${stamp.id} was not found.`);
  const content = await storedFileBytes(ctx.files, file);
  return { contentType: version.contentType, content: new Uint8Array(content), pinned: !!versionId };
}
