// GET /api/signing/{token}/personal-stamps: the stamps a signer may put in their Company stamp fields — the
// current version of each stamp of the signed-in business-app user, when that user's address is the
// recipient's (signer-owner.ts) and the recipient has a Company stamp field to fill. Otherwise an empty list,
// the same whatever the reason. A read: no audit event, no workflow update.
import { UserStamp } from '../../db/entities/index.ts';
import type { PersonalStampOffers } from '../../domain/stamp.ts';
import type { SessionPrincipal } from '../accounts/sessions.ts';
import type { DataContext } from '../context.ts';
import { loadSignerFields } from '../signing/signer-fields.ts';
import { openSigningSession, requireActing } from '../signing/signing-session.ts';
import { signerStampOwner } from './signer-owner.ts';
import { versionsOf } from './stamps.ts';

export async function personalStampOffers(
  ctx: DataContext,
  token: string,
  principal: SessionPrincipal | null,
  signerSession?: string,
): Promise<PersonalStampOffers> {
  const link = await openSigningSession(ctx, token, signerSession);
  requireActing(link, 'choose a personal stamp');
  const owner = signerStampOwner(link, principal);
  if (!owner) return { stamps: [] };
  const fields = await loadSignerFields(ctx, link);
  if (!fields.some(({ field }) => field.type === 'Company stamp')) return { stamps: [] };
  const stamps = await ctx.em.find(UserStamp, { userId: owner.user.id, deletedAt: null });
  stamps.sort((a, b) => a.name.localeCompare(b.name));
  const versions = await versionsOf(
    ctx.em,
    stamps.map((stamp) => stamp.id),
  );
  return {
    stamps: stamps.flatMap((stamp) => {
      const current = versions.get(stamp.id)?.[0];
      if (!current) return [];
      return [
        {
          id: stamp.id,
          name: stamp.name,
          versionId: current.id,
          version: current.version,
          contentType: current.contentType,
          width: current.width,
          height: current.height,
        },
      ];
    }),
  };
}
