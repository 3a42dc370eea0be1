// PUT /api/templates/{id}/definition: the builder saves a version's roles and fields (docs/templates.md).
// Only the template's newest version takes changes (an older one: 409 `template_version_outdated`, naming the
// newest). A Draft is changed in place: its roles and fields are replaced (no envelope uses a draft). The
// current Published version is never changed: the save makes a new Draft version (the next number) with the
// roles and fields saved, and envelopes created from the published version keep it. Every field must lie on a
// page of the PDF (400 naming `body.fields.<i>.<property>`); what only publishing needs (a Dropdown's options,
// a field for every required role) may still be missing from a draft.
import { TemplateField, TemplateRole } from '../../db/entities/index.ts';
import { SaveTemplateDefinitionRequest, type TemplateDetail } from '../../domain/template-builder.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { InvalidRequest, NotFound } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { addTemplateRows, templateRows } from './create-template.ts';
import { placementProblems } from './field-placement.ts';
import {
  findTemplateVersion,
  lockFamily,
  pagesOf,
  type TemplateActor,
  templateDetail,
  versionOutdated,
} from './template-versions.ts';

export async function saveTemplateDefinition(
  ctx: DataContext & FilesContext,
  actor: TemplateActor,
  templateId: string,
  input: unknown,
): Promise<TemplateDetail> {
  const definition = parseInput(SaveTemplateDefinitionRequest, input, 'template definition');
  const found = await findTemplateVersion(ctx.em, actor.organizationId, templateId);
  const pages = await pagesOf(ctx.em, found, ctx.files);
  const problems = placementProblems(definition.fields, pages).map((problem) => ({
    ...problem,
    field: `body.${problem.field}`,
  }));
  if (problems.length > 0) {
    throw new InvalidRequest(
      `Invalid template definition: ${problems[0]?.field}: ${problems[0]?.message}`,
      problems,
    );
  }

  const edited = await ctx.em.transactional(async (tx) => {
    const versions = await lockFamily(tx, found);
    const template = versions.find((version) => version.id === found.id);
    const newest = versions[0];
    if (!template || !newest || template.archivedAt) throw versionGone(templateId);
    if (newest.id !== template.id) throw versionOutdated(template, newest);
    const rows = templateRows({
      organizationId: actor.organizationId,
      name: template.name,
      status: 'Draft',
      fileId: template.fileId,
      pageCount: template.pageCount,
      pages,
      roles: definition.roles,
      fields: definition.fields,
      family: { familyId: template.familyId, version: template.version + 1 },
      ownerUserId: template.ownerUserId ?? null,
      teamId: template.teamId ?? null,
      allowDelegation: definition.allowDelegation ?? template.allowDelegation,
    });
    if (template.status === 'Draft') {
      // In place: the draft's roles and fields are replaced by the saved ones.
      await tx.nativeDelete(TemplateField, { templateId: template.id });
      await tx.nativeDelete(TemplateRole, { templateId: template.id });
      for (const role of rows.roles) tx.create(TemplateRole, { ...role, templateId: template.id });
      for (const field of rows.fields) tx.create(TemplateField, { ...field, templateId: template.id });
      template.allowDelegation = rows.template.allowDelegation;
      template.updatedAt = new Date();
      await tx.flush();
      return template;
    }
    // The current published version: a new Draft version takes the changes.
    const draft = addTemplateRows(tx, rows);
    await tx.flush();
    return draft;
  });
  return templateDetail(ctx.em, edited, ctx.files);
}

/** Archived by another request between the lookup and the lock: as unknown as any archived template. */
function versionGone(templateId: string) {
  return new NotFound(`Template ${templateId} was not found.`);
}
