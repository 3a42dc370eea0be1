// PUT /api/me/stamps/{id}: renames one of the signed-in user's stamps. Envelopes that used it keep the name it
// had when it was chosen (their field value holds it).
import { UpdateUserStampRequest, type UserStamp as UserStampView } from '../../domain/stamp.ts';
import { isUniqueViolation } from '../administration/administration.ts';
import type { DataContext } from '../context.ts';
import { parseInput } from '../validation.ts';
import { findOwnStamp, type StampOwner, stampNameInUse, stampNameTaken, stampViewOf } from './stamps.ts';

export async function renameStamp(
  ctx: DataContext,
  owner: StampOwner,
  stampId: string,
  input: unknown,
): Promise<UserStampView> {
  const data = parseInput(UpdateUserStampRequest, input, 'stamp');
  return ctx.em
    .transactional(async (tx) => {
      const stamp = await findOwnStamp(tx, owner, stampId, 'update');
      if (data.name !== stamp.name) {
        if (await stampNameInUse(tx, owner.user.id, data.name, stamp.id)) throw stampNameTaken(data.name);
        stamp.name = data.name;
        await tx.flush();
      }
      return stampViewOf(tx, stamp);
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) throw stampNameTaken(data.name);
      throw error;
    });
}
