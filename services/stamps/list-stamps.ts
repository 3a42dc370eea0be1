// GET /api/me/stamps: the signed-in user's stamps (not deleted) by name, each with its versions.
import { UserStamp } from '../../db/entities/index.ts';
import type { UserStampList } from '../../domain/stamp.ts';
import type { DataContext } from '../context.ts';
import { type StampOwner, stampLimits, stampView, versionsOf } from './stamps.ts';

export async function listStamps(ctx: DataContext, owner: StampOwner): Promise<UserStampList> {
  const stamps = await ctx.em.find(UserStamp, { userId: owner.user.id, deletedAt: null });
  stamps.sort((a, b) => a.name.localeCompare(b.name) || a.createdAt.getTime() - b.createdAt.getTime());
  const versions = await versionsOf(
    ctx.em,
    stamps.map((stamp) => stamp.id),
  );
  return {
    stamps: stamps.map((stamp) => stampView(stamp, versions.get(stamp.id) ?? [])),
    limits: stampLimits(),
  };
}
