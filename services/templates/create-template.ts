// Creates a template from a PDF and a definition (roles and placed fields); optionally publishes it. The rows
// of a template are made by one function (templateRows), also for the one-off templates of envelopes created
// from an uploaded file (services/templates/one-off-template.ts).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Template, TemplateField, TemplateRole } from '../../db/entities/index.ts';
import { type FieldPlacement, type FieldProperties, TemplateDefinition } from '../../domain/template.ts';
import { TEMPLATE_LIMITS } from '../../domain/template-builder.ts';
import type { FieldType, RecipientType } from '../../domain/vocabulary.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { InvalidRequest } from '../errors.ts';
import { inspectPdf } from '../files/inspect-pdf.ts';
import { organizationClient } from '../files/inspection-pool.ts';
import { addStoredPdf } from '../files/upload-file.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { type CountedLimit, flushWithinLimit } from '../usage/counted-limit.ts';
import { parseInput } from '../validation.ts';
import { placementOf, placementProblems } from './field-placement.ts';

export const MAX_PDF_BYTES = 25 * 1024 * 1024;

export interface CreateTemplateInput {
  organizationId: string;
  pdf: Uint8Array;
  filename: string;
  definition: unknown;
  publish?: boolean;
}

/** Field types that are filled in by the signer's act of signing, and so are required unless stated. */
const REQUIRED_BY_DEFAULT: ReadonlySet<FieldType> = new Set(['Signature', 'Initials']);

export type TemplateStatus = Template['status'];

/** A field as a definition gives it (domain/template.ts, FieldDefinitionInput, parsed). */
type TemplateFieldInput = Pick<FieldPlacement, 'type' | 'label' | 'page' | 'x' | 'y' | 'width' | 'height'> & {
  role: string;
  required?: boolean | undefined;
  options?: string[] | undefined;
  properties?: FieldProperties | undefined;
};

/** A role as a definition gives it; the builder's extras default to a Signer at the role's position. */
type TemplateRoleInput = {
  name: string;
  required: boolean;
  defaultRecipientType?: RecipientType | undefined;
  signingOrder?: number | undefined;
};

/** A page's size as displayed, in points (the space fields are placed in). */
export type PageSize = { width: number; height: number };

/** A template's rows before they are written: the template, its roles and its fields, ids chosen. */
export interface TemplateRows {
  template: {
    id: string;
    organizationId: string;
    name: string;
    status: TemplateStatus;
    fileId: string;
    pageCount: number;
    publishedAt: Date | null;
    /** Versions (docs/templates.md): a new template is version 1 of a family of its own. */
    familyId: string;
    version: number;
    ownerUserId: string | null;
    teamId: string | null;
    pages: PageSize[] | null;
    allowDelegation: boolean;
  };
  roles: {
    id: string;
    name: string;
    required: boolean;
    position: number;
    defaultRecipientType: RecipientType;
    signingOrder: number;
  }[];
  fields: {
    id: string;
    roleId: string;
    type: FieldType;
    label: string;
    page: number;
    x: number;
    y: number;
    width: number;
    height: number;
    required: boolean;
    options: string[] | null;
    position: number;
    properties: FieldProperties | null;
  }[];
}

/**
 * The rows of a template with these roles and fields (each field's `role` one of the role names, checked by
 * the caller): new ids, roles and fields in the given order, `required` defaulting to true for Signature and
 * Initials fields. Nothing is written.
 */
export function templateRows(input: {
  organizationId: string;
  name: string;
  status: TemplateStatus;
  fileId: string;
  pageCount: number;
  roles: readonly TemplateRoleInput[];
  fields: readonly TemplateFieldInput[];
  /** A new version of an existing template: its family and number (else a family of its own, version 1). */
  family?: { familyId: string; version: number };
  ownerUserId?: string | null;
  teamId?: string | null;
  pages?: readonly PageSize[] | null;
  /** Whether its envelopes' recipients may hand their part to another person (off unless given). */
  allowDelegation?: boolean;
}): TemplateRows {
  const roles = input.roles.map((role, position) => ({
    id: randomUUID(),
    name: role.name,
    required: role.required,
    position,
    defaultRecipientType: role.defaultRecipientType ?? 'Signer',
    signingOrder: role.signingOrder ?? position + 1,
  }));
  const roleIds = new Map(roles.map((role) => [role.name, role.id]));
  const id = randomUUID();
  return {
    template: {
      id,
      organizationId: input.organizationId,
      name: input.name,
      status: input.status,
      fileId: input.fileId,
      pageCount: input.pageCount,
      publishedAt: input.status === 'Published' ? new Date() : null,
      familyId: input.family?.familyId ?? id,
      version: input.family?.version ?? 1,
      ownerUserId: input.ownerUserId ?? null,
      teamId: input.teamId ?? null,
      pages: input.pages ? input.pages.map((page) => ({ width: page.width, height: page.height })) : null,
      allowDelegation: input.allowDelegation ?? false,
    },
    roles,
    fields: input.fields.map((field, position) => {
      const roleId = roleIds.get(field.role);
      if (!roleId) throw new Error(`templateRows: field ${position} names no role of the template`);
      return {
        id: randomUUID(),
        roleId,
        ...placementOf(field),
        required: field.required ?? REQUIRED_BY_DEFAULT.has(field.type),
        options: field.options && field.options.length > 0 ? field.options : null,
        position,
        properties: propertiesOf(field.properties),
      };
    }),
  };
}

/** The properties worth storing: those given (undefined ones left out), or null for none. */
function propertiesOf(properties: FieldProperties | undefined): FieldProperties | null {
  if (!properties) return null;
  const given = Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== undefined));
  return Object.keys(given).length > 0 ? (given as FieldProperties) : null;
}

/**
 * An organization's templates that are not archived (a family with all its versions counts once; one-off
 * templates of sends from a file do not), at most TEMPLATE_LIMITS.organization (409 `template_limit`). Counted
 * with SQL, so the unit of work's new rows are not flushed by the count.
 */
export const TEMPLATE_LIMIT = (organizationId: string): CountedLimit => ({
  what: 'templates',
  max: TEMPLATE_LIMITS.organization,
  code: 'template_limit',
  remedy: 'archive templates it no longer uses first',
  count: async (tx) => {
    const [row] = await tx.execute<{ n: number }[]>(
      `select count(distinct family_id)::int as n from template
        where organization_id = ? and archived_at is null and status <> 'OneOff'`,
      [organizationId],
    );
    return Number(row?.n ?? 0);
  },
});

/**
 * Flushes a new template (with whatever else the unit of work holds: its stored PDF) in a transaction that first
 * counts the organization's templates under its lock, so templates created at once cannot pass the limit.
 */
export function flushNewTemplate(em: EntityManager, organizationId: string): Promise<void> {
  return flushWithinLimit(em, organizationId, TEMPLATE_LIMIT(organizationId));
}

/** Adds a template's rows to the unit of work (flushed by the caller, with its other rows). */
export function addTemplateRows(em: EntityManager, rows: TemplateRows): Template {
  const template = em.create(Template, rows.template);
  for (const role of rows.roles) em.create(TemplateRole, { ...role, templateId: template.id });
  for (const field of rows.fields) em.create(TemplateField, { ...field, templateId: template.id });
  return template;
}

export async function createTemplate(ctx: DataContext & FilesContext, input: CreateTemplateInput) {
  const definition = parseInput(TemplateDefinition, input.definition, 'template definition');
  const organization = await findOrganization(ctx, input.organizationId);
  const pdf = await inspectPdf(input.pdf, {
    maxBytes: MAX_PDF_BYTES,
    field: 'pdf',
    client: organizationClient(organization.id),
  });

  const problems = placementProblems(definition.fields, pdf.pages);
  if (problems.length > 0) {
    throw new InvalidRequest(
      `Invalid template definition: ${problems[0]?.field}: ${problems[0]?.message}`,
      problems,
    );
  }

  const { em } = ctx;
  const file = await addStoredPdf(ctx.files, em, {
    organizationId: organization.id,
    filename: input.filename,
    bytes: input.pdf,
    pdf,
  });
  const template = addTemplateRows(
    em,
    templateRows({
      organizationId: organization.id,
      name: definition.name,
      status: input.publish ? 'Published' : 'Draft',
      fileId: file.id,
      pageCount: pdf.pageCount,
      roles: definition.roles,
      fields: definition.fields,
      pages: pdf.pages,
    }),
  );
  await flushNewTemplate(em, organization.id);
  return template;
}
