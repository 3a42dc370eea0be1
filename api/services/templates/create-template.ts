// Creates a template from a PDF and a definition (roles and placed fields); optionally publishes it.
import { randomUUID } from 'node:crypto';
import { Template, TemplateField, TemplateRole } from '../../../db/entities/index.ts';
import { TemplateDefinition } from '../../../domain/template.ts';
import { InvalidRequest } from '../../errors.ts';
import type { DataContext } from '../context.ts';
import { inspectPdf } from '../files/inspect-pdf.ts';
import { addStoredPdf } from '../files/upload-file.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { parseInput } from '../validation.ts';
import { placementOf } from './field-placement.ts';

export const MAX_PDF_BYTES = 25 * 1024 * 1024;

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

  const { em } = ctx;
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
      ...placementOf(field),
      required: field.required ?? REQUIRED_BY_DEFAULT.has(field.type),
      options: field.options ?? null,
      position,
    });
  });
  await em.flush();
  return template;
}
