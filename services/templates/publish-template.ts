// POST /api/templates/{id}/publish: the template's Draft version becomes its published version, the one
// /api/v1 lists and envelopes are created from; the version it replaces is marked superseded (envelopes made
// from it keep it). Publishing the current published version again changes nothing; an older version is 409
// `template_version_outdated`.
//
// A draft may be incomplete; publishing refuses one that could not be sent as it is (400
// `template_not_publishable`), listing every reason with the field or role it concerns (`fields.<i>.<property>`
// or `roles.<i>.<property>`, in the version's order, with the field's id and label), so the builder shows each
// beside its field:
//   - a template without fields;
//   - a Signature, Initials or Company stamp field of a role whose default recipient type is not Signer (only a
//     Signer signs);
//   - a field to fill of a role whose default recipient type fills nothing (Approver, Viewer, Cc);
//   - a required role that fills fields (a Signer or FormFiller by default) without any field;
//   - a Radio or Dropdown field without options, a Read-only text field without its text;
//   - a field that does not lie on its page.
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Template, TemplateField, TemplateRole } from '../../db/entities/index.ts';
import type { TemplateDetail } from '../../domain/template-builder.ts';
import {
  FIELD_TYPES_WITH_OPTIONS,
  type RecipientType,
  SIGNATURE_FIELD_TYPES,
} from '../../domain/vocabulary.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { type ErrorDetail, InvalidRequest, NotFound } from '../errors.ts';
import { placementProblems } from './field-placement.ts';
import {
  findTemplateVersion,
  lockFamily,
  pagesOf,
  type TemplateActor,
  templateDetail,
  versionOutdated,
} from './template-versions.ts';

/** Recipient types that fill no fields. */
const FIELDLESS_TYPES: readonly RecipientType[] = ['Approver', 'Viewer', 'Cc'];
const SIGNING_TYPES: readonly string[] = SIGNATURE_FIELD_TYPES;

export async function publishTemplate(
  ctx: DataContext & FilesContext,
  actor: TemplateActor,
  templateId: string,
): Promise<TemplateDetail> {
  const found = await findTemplateVersion(ctx.em, actor.organizationId, templateId);
  const pages = await pagesOf(ctx.em, found, ctx.files);
  const published = await ctx.em.transactional(async (tx) => {
    const versions = await lockFamily(tx, found);
    const template = versions.find((version) => version.id === found.id);
    const newest = versions[0];
    if (!template || !newest || template.archivedAt)
      throw new NotFound(`Template ${templateId} was not found.`);
    if (template.status === 'Published' && !template.supersededAt) return template;
    if (newest.id !== template.id) throw versionOutdated(template, newest);

    const problems = await publishProblems(tx, template, pages);
    if (problems.length > 0) {
      throw new InvalidRequest(
        `The template cannot be published yet: ${problems.length === 1 ? 'one thing needs' : `${problems.length} things need`} fixing. ${problems[0]?.message}`,
        problems,
        'template_not_publishable',
      );
    }
    const now = new Date();
    // The version it replaces first: at most one current published version per template (a unique index).
    const current = versions.find((version) => version.status === 'Published' && !version.supersededAt);
    if (current) {
      current.supersededAt = now;
      await tx.flush();
    }
    template.status = 'Published';
    template.publishedAt = now;
    await tx.flush();
    return template;
  });
  return templateDetail(ctx.em, published, ctx.files);
}

/** Every reason the version cannot be published (empty: it can). */
export async function publishProblems(
  em: EntityManager,
  template: Template,
  pages: readonly { width: number; height: number }[],
): Promise<ErrorDetail[]> {
  const [roles, fields] = await Promise.all([
    em.find(TemplateRole, { templateId: template.id }, { orderBy: { position: 'asc' } }),
    em.find(TemplateField, { templateId: template.id }, { orderBy: { position: 'asc' } }),
  ]);
  const problems: ErrorDetail[] = [];
  if (fields.length === 0) {
    problems.push({ field: 'fields', message: 'Place at least one field before publishing.' });
  }
  fields.forEach((field, index) => {
    const role = roles.find((candidate) => candidate.id === field.roleId);
    const about = { fieldId: field.id, label: field.label };
    const at = `fields.${index}`;
    if (role && SIGNING_TYPES.includes(field.type) && role.defaultRecipientType !== 'Signer') {
      problems.push({
        field: `${at}.role`,
        message: `“${field.label}” is a ${field.type} field, but its role “${role.name}” is a ${role.defaultRecipientType} by default, who does not sign: give the field to a Signer role, or make the role a Signer.`,
        ...about,
      });
    } else if (
      role &&
      field.type !== 'Read-only text' &&
      FIELDLESS_TYPES.includes(role.defaultRecipientType)
    ) {
      problems.push({
        field: `${at}.role`,
        message: `“${field.label}” is a field to fill, but its role “${role.name}” is a ${role.defaultRecipientType} by default, who fills no fields: give the field to a Signer or FormFiller role.`,
        ...about,
      });
    }
    if (FIELD_TYPES_WITH_OPTIONS.includes(field.type) && (field.options ?? []).length === 0) {
      problems.push({
        field: `${at}.options`,
        message: `“${field.label}” is a ${field.type} field without options: add the choices.`,
        ...about,
      });
    }
    if (field.type === 'Read-only text' && !field.properties?.text) {
      problems.push({
        field: `${at}.properties.text`,
        message: `“${field.label}” is a Read-only text field without its text: write the text recipients read.`,
        ...about,
      });
    }
  });
  for (const problem of placementProblems(fields, pages)) {
    const index = Number(problem.field.split('.')[1]);
    const field = fields[index];
    problems.push({ ...problem, ...(field ? { fieldId: field.id, label: field.label } : {}) });
  }
  roles.forEach((role, index) => {
    if (!role.required || FIELDLESS_TYPES.includes(role.defaultRecipientType)) return;
    const fillable = fields.filter((field) => field.roleId === role.id && field.type !== 'Read-only text');
    if (fillable.length === 0) {
      problems.push({
        field: `roles.${index}.name`,
        message: `The required role “${role.name}” has no field: place a field for it, or make the role optional.`,
        roleName: role.name,
      });
    }
  });
  return problems;
}
