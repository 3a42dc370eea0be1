// The published templates of an organization with the roles and field definitions an integrator needs to
// map recipients (by role name) and prefill values (by fieldDefinitionId), in the API's shape
// (domain/template.ts). Drafts are never shown; of a template in versions (docs/templates.md) only its current
// published version is listed, and archived templates not at all.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Template, TemplateField, TemplateRole } from '../../db/entities/index.ts';
import type { TemplateView } from '../../domain/template.ts';
import type { DataContext } from '../context.ts';
import { placementOf } from './field-placement.ts';

/** The current published version of each template of the organization that is not archived, by name. */
export async function listTemplates(ctx: DataContext, organizationId: string): Promise<TemplateView[]> {
  const { em } = ctx;
  const templates = await em.find(
    Template,
    { organizationId, status: 'Published', supersededAt: null, archivedAt: null },
    { orderBy: { name: 'asc', createdAt: 'asc', id: 'asc' } },
  );
  return describeTemplates(em, templates);
}

/** The views of the given templates, their roles and fields loaded in two queries. */
export async function describeTemplates(em: EntityManager, templates: Template[]): Promise<TemplateView[]> {
  if (templates.length === 0) return [];
  const templateIds = templates.map((template) => template.id);
  const roles = await em.find(
    TemplateRole,
    { templateId: { $in: templateIds } },
    { orderBy: { position: 'asc' } },
  );
  const fields = await em.find(
    TemplateField,
    { templateId: { $in: templateIds } },
    { orderBy: { position: 'asc' } },
  );
  const roleNames = new Map(roles.map((role) => [role.id, role.name]));
  return templates.map((template) => ({
    id: template.id,
    name: template.name,
    pageCount: template.pageCount,
    createdAt: template.createdAt.toISOString(),
    publishedAt: template.publishedAt ? template.publishedAt.toISOString() : null,
    roles: roles
      .filter((role) => role.templateId === template.id)
      .map((role) => ({
        name: role.name,
        required: role.required,
        defaultRecipientType: role.defaultRecipientType,
        signingOrder: role.signingOrder,
      })),
    fields: fields
      .filter((field) => field.templateId === template.id)
      .map((field) => ({
        fieldDefinitionId: field.id,
        role: roleNames.get(field.roleId) ?? '',
        ...placementOf(field),
        required: field.required,
        options: field.options && field.options.length > 0 ? field.options : null,
        properties: field.properties ?? {},
      })),
  }));
}
