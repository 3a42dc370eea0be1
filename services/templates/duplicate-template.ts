// POST /api/templates/{id}/duplicate: a new template made of a copy of this version — its PDF (the same stored
// file), roles and fields — as version 1 of a family of its own, a Draft owned by the user who copied it and
// their team (docs/templates.md).
import { TemplateField, TemplateRole } from '../../db/entities/index.ts';
import {
  DuplicateTemplateRequest,
  TEMPLATE_LIMITS,
  type TemplateDetail,
} from '../../domain/template-builder.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { parseInput } from '../validation.ts';
import { addTemplateRows, flushNewTemplate, templateRows } from './create-template.ts';
import { placementOf } from './field-placement.ts';
import {
  findTemplateVersion,
  pagesOf,
  roleDefinition,
  type TemplateActor,
  templateDetail,
} from './template-versions.ts';

const COPY_SUFFIX = ' (copy)';

export async function duplicateTemplate(
  ctx: DataContext & FilesContext,
  actor: TemplateActor,
  templateId: string,
  input: unknown,
): Promise<TemplateDetail> {
  const request = parseInput(DuplicateTemplateRequest, input ?? {}, 'request');
  const { em } = ctx;
  const source = await findTemplateVersion(em, actor.organizationId, templateId);
  const [roles, fields, pages] = await Promise.all([
    em.find(TemplateRole, { templateId: source.id }, { orderBy: { position: 'asc' } }),
    em.find(TemplateField, { templateId: source.id }, { orderBy: { position: 'asc' } }),
    pagesOf(em, source, ctx.files),
  ]);
  const roleNames = new Map(roles.map((role) => [role.id, role.name]));
  const copy = addTemplateRows(
    em,
    templateRows({
      organizationId: actor.organizationId,
      name: request.name ?? copyName(source.name),
      status: 'Draft',
      fileId: source.fileId,
      pageCount: source.pageCount,
      pages,
      ownerUserId: actor.userId,
      teamId: actor.teamId,
      allowDelegation: source.allowDelegation,
      roles: roles.map(roleDefinition),
      fields: fields.map((field) => ({
        ...placementOf(field),
        role: roleNames.get(field.roleId) as string,
        required: field.required,
        options: field.options ?? undefined,
        properties: field.properties ?? undefined,
      })),
    }),
  );
  await flushNewTemplate(em, actor.organizationId);
  return templateDetail(em, copy, ctx.files);
}

/** "<name> (copy)", the name shortened when both would not fit. */
function copyName(name: string): string {
  const characters = Array.from(name);
  while (characters.join('').length + COPY_SUFFIX.length > TEMPLATE_LIMITS.name) characters.pop();
  return `${characters.join('').trimEnd()}${COPY_SUFFIX}`;
}
