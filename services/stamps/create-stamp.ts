// POST /api/me/stamps: a new stamp of the signed-in user with its first image (version 1). Names are unique
// among the user's stamps (whatever their case); a user keeps at most STAMP_LIMITS.maxStamps.
import { randomUUID } from 'node:crypto';
import { UserStamp } from '../../db/entities/index.ts';
import { CreateUserStampRequest, STAMP_LIMITS, type UserStamp as UserStampView } from '../../domain/stamp.ts';
import { isUniqueViolation } from '../administration/administration.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { Conflict } from '../errors.ts';
import { organizationClient } from '../files/inspection-pool.ts';
import { parseInput } from '../validation.ts';
import { checkStampImage } from './stamp-image.ts';
import { addStampVersion, type StampOwner, stampNameInUse, stampNameTaken, stampView } from './stamps.ts';

export async function createStamp(
  ctx: DataContext & FilesContext,
  owner: StampOwner,
  input: unknown,
): Promise<UserStampView> {
  const data = parseInput(CreateUserStampRequest, input, 'stamp');
  const image = await checkStampImage(
    data.imageBase64,
    data.contentType,
    organizationClient(owner.organization.id),
  );
  // The image's bytes first, before the transaction that references them (refused: the orphan sweep's).
  await ctx.files.put(image.bytes);
  return ctx.em
    .transactional(async (tx) => {
      // The user's row serializes their new stamps, so two requests at once cannot pass the limit together.
      await tx.execute('select id from app_user where id = ? for no key update', [owner.user.id]);
      const count = await tx.count(UserStamp, { userId: owner.user.id, deletedAt: null });
      if (count >= STAMP_LIMITS.maxStamps) {
        throw new Conflict(
          `You have ${count} stamps, the most one user may keep: delete one before adding another.`,
          [{ message: `at most ${STAMP_LIMITS.maxStamps} stamps` }],
          'stamp_limit',
        );
      }
      if (await stampNameInUse(tx, owner.user.id, data.name)) throw stampNameTaken(data.name);
      const stamp = tx.create(UserStamp, {
        id: randomUUID(),
        organizationId: owner.organization.id,
        userId: owner.user.id,
        name: data.name,
        deletedAt: null,
      });
      const version = addStampVersion(tx, owner, stamp, 1, image);
      await tx.flush();
      return stampView(stamp, [version]);
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) throw stampNameTaken(data.name);
      throw error;
    });
}
