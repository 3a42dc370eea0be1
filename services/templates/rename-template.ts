// PUT /api/templates/{id}/name: renames a template (docs/templates.md). The name belongs to the template, not
// to a version: every version takes it at once, and no new version is made (envelopes have titles of their own).
import { Template } from '../../db/entities/index.ts';
import { RenameTemplateRequest, type TemplateDetail } from '../../domain/template-builder.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { parseInput } from '../validation.ts';
import { findTemplateVersion, type TemplateActor, templateDetail } from './template-versions.ts';

export async function renameTemplate(
  ctx: DataContext & FilesContext,
  actor: TemplateActor,
  templateId: string,
  input: unknown,
): Promise<TemplateDetail> {
  const { name } = parseInput(RenameTemplateRequest, input, 'request');
  const { em } = ctx;
  const template = await findTemplateVersion(em, actor.organizationId, templateId);
  await em.nativeUpdate(
    Template,
    { familyId: template.familyId, organizationId: actor.organizationId },
    { name, updatedAt: new Date() },
  );
  await em.refresh(template);
  return templateDetail(em, template, ctx.files);
}
