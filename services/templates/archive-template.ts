// POST /api/templates/{id}/archive: archives a template, every version of it (docs/templates.md). It leaves the
// lists, the builder and /api/v1, and no envelope can be created from it any more; envelopes created from it
// keep it, and their signing and final PDF are untouched.
import { Template } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { findTemplateVersion, type TemplateActor } from './template-versions.ts';

export async function archiveTemplate(
  ctx: DataContext,
  actor: TemplateActor,
  templateId: string,
): Promise<void> {
  const { em } = ctx;
  const template = await findTemplateVersion(em, actor.organizationId, templateId);
  const now = new Date();
  await em.nativeUpdate(
    Template,
    { familyId: template.familyId, organizationId: actor.organizationId, archivedAt: null },
    { archivedAt: now, updatedAt: now },
  );
}
