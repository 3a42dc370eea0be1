// POST /api/me/stamps/{id}/versions: a new image for one of the signed-in user's stamps. It becomes the current
// version (the number after the highest); the earlier versions are kept, at most STAMP_LIMITS.maxVersions.
import {
  CreateUserStampVersionRequest,
  STAMP_LIMITS,
  type UserStamp as UserStampView,
} from '../../domain/stamp.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { Conflict } from '../errors.ts';
import { organizationClient } from '../files/inspection-pool.ts';
import { parseInput } from '../validation.ts';
import { checkStampImage } from './stamp-image.ts';
import { addStampVersion, findOwnStamp, type StampOwner, stampView, versionsOf } from './stamps.ts';

export async function addVersionToStamp(
  ctx: DataContext & FilesContext,
  owner: StampOwner,
  stampId: string,
  input: unknown,
): Promise<UserStampView> {
  const data = parseInput(CreateUserStampVersionRequest, input, 'stamp version');
  const image = await checkStampImage(
    data.imageBase64,
    data.contentType,
    organizationClient(owner.organization.id),
  );
  // The image's bytes first, before the transaction that references them (refused: the orphan sweep's).
  await ctx.files.put(image.bytes);
  return ctx.em.transactional(async (tx) => {
    // The stamp's row serializes its versions: two uploads at once get consecutive numbers.
    const stamp = await findOwnStamp(tx, owner, stampId, 'update');
    const versions = (await versionsOf(tx, [stamp.id])).get(stamp.id) ?? [];
    if (versions.length >= STAMP_LIMITS.maxVersions) {
      throw new Conflict(
        `The stamp "${stamp.name}" has ${versions.length} versions, the most one stamp may keep: add a new stamp instead.`,
        [{ message: `at most ${STAMP_LIMITS.maxVersions} versions` }],
        'version_limit',
      );
    }
    const version = addStampVersion(tx, owner, stamp, (versions[0]?.version ?? 0) + 1, image);
    stamp.updatedAt = new Date();
    await tx.flush();
    return stampView(stamp, [version, ...versions]);
  });
}
