// The published templates of an organization with the roles and field definitions an integrator needs to
// map recipients (by role name) and prefill values (by fieldDefinitionId). Drafts are never shown.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Template, TemplateField, TemplateRole } from '../../../db/entities/index.ts';
import type { FieldType } from '../../../domain/vocabulary.ts';
import type { DataContext } from '../context.ts';

export interface TemplateRoleView {
  name: string;
  required: boolean;
}

export interface FieldDefinitionView {
  /** The template_field id; envelope initialValues refer to it. */
  fieldDefinitionId: string;
  type: FieldType;
  /** The name of the responsible role. */
  role: string;
  label: string;
  /** 1-based page number. */
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  /** The choices of Radio and Dropdown fields; null for every other type. */
  options: string[] | null;
}

export interface TemplateView {
  id: string;
  name: string;
  pageCount: number;
  createdAt: Date;
  publishedAt: Date | null;
  /** In the template's order. */
  roles: TemplateRoleView[];
  /** In the template's order. */
  fields: FieldDefinitionView[];
}

/** Published templates of the organization, by name. */
export async function listTemplates(ctx: DataContext, organizationId: string): Promise<TemplateView[]> {
  const em = ctx.orm.em.fork();
  const templates = await em.find(
    Template,
    { organizationId, status: 'Published' },
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
    createdAt: template.createdAt,
    publishedAt: template.publishedAt ?? null,
    roles: roles
      .filter((role) => role.templateId === template.id)
      .map((role) => ({ name: role.name, required: role.required })),
    fields: fields
      .filter((field) => field.templateId === template.id)
      .map((field) => ({
        fieldDefinitionId: field.id,
        type: field.type,
        role: roleNames.get(field.roleId) ?? '',
        label: field.label,
        page: field.page,
        x: field.x,
        y: field.y,
        width: field.width,
        height: field.height,
        required: field.required,
        options: field.options && field.options.length > 0 ? field.options : null,
      })),
  }));
}
