// POST /api/templates/{id}/restore: an archived template becomes active again, every version of it
// (docs/templates.md "Archive, restore, delete"): listed, opened and sent as before archiving. It counts towards
// the organization's templates again, so the restore is refused (409 `template_limit`) when the organization
// already keeps the most; taken under the organization's lock with the count (counted-limit.ts), so restores and
// creations at once cannot pass the limit together, and under the family's row locks, so a deletion at the same
// moment is seen (a deleted template is not found).
import type { DataContext } from '../context.ts';
import { withinCountedLimit } from '../usage/counted-limit.ts';
import { lockTemplateFamily, notArchived } from './archived-templates.ts';
import { TEMPLATE_LIMIT } from './create-template.ts';
import type { TemplateActor } from './template-versions.ts';

export async function restoreTemplate(
  ctx: DataContext,
  actor: TemplateActor,
  templateId: string,
): Promise<void> {
  const { organizationId } = actor;
  await withinCountedLimit(ctx.em, organizationId, TEMPLATE_LIMIT(organizationId), async (tx) => {
    const family = await lockTemplateFamily(tx, organizationId, templateId);
    if (!family.archived) throw notArchived(templateId, 'restored');
    await tx.execute(
      `update template set archived_at = null, updated_at = now()
        where family_id = ? and organization_id = ?`,
      [family.familyId, organizationId],
    );
  });
}
