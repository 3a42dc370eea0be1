// DELETE /api/me/stamps/{id}: deletes one of the signed-in user's stamps. A soft delete: the row stays with
// `deleted_at` set (it is no longer listed, offered or served), its versions that an envelope's field value
// names stay with their files for as long as such a value exists, and every other version goes now, files
// included (docs/stamps.md).
import type { DataContext } from '../context.ts';
import { findOwnStamp, removeUnusedVersions, type StampOwner } from './stamps.ts';

export async function deleteStamp(ctx: DataContext, owner: StampOwner, stampId: string): Promise<void> {
  await ctx.em.transactional(async (tx) => {
    // Held until the end: a signer choosing this stamp at the same moment either finishes first (and its
    // value keeps the version) or finds the stamp deleted.
    const stamp = await findOwnStamp(tx, owner, stampId, 'update');
    stamp.deletedAt = new Date();
    await tx.flush();
    await removeUnusedVersions(tx, { userId: owner.user.id });
  });
}
