// Creates a template from a PDF and a definition (roles and placed fields); optionally publishes it.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Template, TemplateField, TemplateRole } from '../../../db/entities/index.ts';
import { FIELD_TYPES, FIELD_TYPES_WITH_OPTIONS } from '../../../domain/vocabulary.ts';
import { InvalidRequest } from '../../errors.ts';
import type { DataContext } from '../context.ts';
import { inspectPdf } from '../files/inspect-pdf.ts';
import { addStoredPdf } from '../files/upload-file.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { parseInput } from '../validation.ts';

export const MAX_PDF_BYTES = 25 * 1024 * 1024;

const coordinate = z.number().finite().min(0);
const size = z.number().finite().positive();

const TemplateDefinition = z
  .object({
    name: z.string().trim().min(1, 'name is required').max(200),
    roles: z
      .array(
        z.object({
          name: z.string().trim().min(1, 'role name is required').max(100),
          required: z.boolean().default(true),
        }),
      )
      .min(1, 'a template needs at least one role'),
    fields: z
      .array(
        z.object({
          type: z.enum(FIELD_TYPES, { message: `type must be one of: ${FIELD_TYPES.join(', ')}` }),
          role: z.string().trim().min(1),
          label: z.string().trim().min(1, 'label is required').max(200),
          page: z.number().int().min(1),
          x: coordinate,
          y: coordinate,
          width: size,
          height: size,
          required: z.boolean().optional(),
          options: z.array(z.string().trim().min(1)).min(1).optional(),
        }),
      )
      .default([]),
  })
  .superRefine((definition, ctx) => {
    const names = definition.roles.map((r) => r.name.toLowerCase());
    names.forEach((name, index) => {
      if (names.indexOf(name) !== index) {
        ctx.addIssue({
          code: 'custom',
          path: ['roles', index, 'name'],
          message: 'role names must be unique',
        });
      }
    });
    const roleNames = new Set(definition.roles.map((r) => r.name));
    definition.fields.forEach((field, index) => {
      if (!roleNames.has(field.role)) {
        ctx.addIssue({
          code: 'custom',
          path: ['fields', index, 'role'],
          message: `role "${field.role}" is not one of the template's roles`,
        });
      }
      const needsOptions = FIELD_TYPES_WITH_OPTIONS.includes(field.type);
      if (needsOptions && !field.options) {
        ctx.addIssue({
          code: 'custom',
          path: ['fields', index, 'options'],
          message: `${field.type} fields need options`,
        });
      }
      if (!needsOptions && field.options) {
        ctx.addIssue({
          code: 'custom',
          path: ['fields', index, 'options'],
          message: `${field.type} fields take no options`,
        });
      }
    });
  });
export type TemplateDefinition = z.input<typeof TemplateDefinition>;

export interface CreateTemplateInput {
  organizationId: string;
  pdf: Uint8Array;
  filename: string;
  definition: unknown;
  publish?: boolean;
}

/** Field types that are filled in by the signer's act of signing, and so are required unless stated. */
const REQUIRED_BY_DEFAULT = new Set(['Signature', 'Initials']);

export async function createTemplate(ctx: DataContext, input: CreateTemplateInput) {
  const definition = parseInput(TemplateDefinition, input.definition, 'template definition');
  const organization = await findOrganization(ctx, input.organizationId);
  const pdf = await inspectPdf(input.pdf, { maxBytes: MAX_PDF_BYTES, field: 'pdf' });
  const pages = pdf.pages;

  const problems = definition.fields.flatMap((field, index) => {
    const page = pages[field.page - 1];
    if (!page) return [{ field: `fields.${index}.page`, message: `the PDF has ${pages.length} page(s)` }];
    if (field.x + field.width > page.width || field.y + field.height > page.height) {
      return [
        {
          field: `fields.${index}`,
          message: `the field lies outside page ${field.page} (${page.width} x ${page.height} points)`,
        },
      ];
    }
    return [];
  });
  if (problems.length > 0) {
    throw new InvalidRequest(
      `Invalid template definition: ${problems[0]?.field}: ${problems[0]?.message}`,
      problems,
    );
  }

  const em = ctx.orm.em.fork();
  const file = addStoredPdf(em, {
    organizationId: organization.id,
    filename: input.filename,
    bytes: input.pdf,
    pdf,
  });
  const template = em.create(Template, {
    id: randomUUID(),
    organizationId: organization.id,
    name: definition.name,
    status: input.publish ? 'Published' : 'Draft',
    fileId: file.id,
    pageCount: pages.length,
    publishedAt: input.publish ? new Date() : null,
  });
  const roleIds = new Map<string, string>();
  definition.roles.forEach((role, position) => {
    const entity = em.create(TemplateRole, {
      id: randomUUID(),
      templateId: template.id,
      name: role.name,
      required: role.required,
      position,
    });
    roleIds.set(role.name, entity.id);
  });
  definition.fields.forEach((field, position) => {
    em.create(TemplateField, {
      id: randomUUID(),
      templateId: template.id,
      roleId: roleIds.get(field.role) as string,
      type: field.type,
      label: field.label,
      page: field.page,
      x: field.x,
      y: field.y,
      width: field.width,
      height: field.height,
      required: field.required ?? REQUIRED_BY_DEFAULT.has(field.type),
      options: field.options ?? null,
      position,
    });
  });
  await em.flush();
  return template;
}
