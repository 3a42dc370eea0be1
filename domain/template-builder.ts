// The application routes' templates (docs/templates.md): the list, a template's version as the builder edits
// it, and the requests that create, rename, edit, publish, duplicate and archive templates. The public API's
// shapes of a template (its roles and field definitions) are domain/template.ts's; these add what the business
// app needs: versions, owners and teams, every field's id, and each role's and field's builder properties.
import { z } from 'zod';
import { IsoDateTime, offsetPage, safeText, uuidOf } from './common.ts';
import {
  checkFieldOptions,
  checkFieldProperties,
  checkRoles,
  FieldPlacement,
  FieldProperties,
} from './template.ts';
import { FIELD_TYPES_WITH_OPTIONS, RECIPIENT_TYPES } from './vocabulary.ts';

const MEBIBYTE = 1024 * 1024;

/** The limits of a template's requests (the builder checks them before sending too). */
export const TEMPLATE_LIMITS = {
  name: 200,
  roleName: 100,
  roles: 20,
  fields: 500,
  options: 100,
  option: 200,
  signingOrder: 100,
  search: 200,
  page: 100,
  filename: 255,
  /** The largest PDF (the template PDF's limit everywhere, services/templates/create-template.ts). */
  pdfBytes: 25 * MEBIBYTE,
  /** Templates of one organization that are not archived (each with all its versions; one-off ones not counted). */
  organization: 1_000,
} as const;

/** base64 of at most `pdfBytes` bytes. */
const MAX_PDF_BASE64 = Math.ceil(TEMPLATE_LIMITS.pdfBytes / 3) * 4;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** A file's name: no path separators, no control or invisible formatting characters (they can disguise it). */
const FILENAME = /^[^/\\\p{Cc}\p{Cf}]*$/u;

/** What a version is: a draft being edited or a published version. */
export const TEMPLATE_VERSION_STATUSES = ['Draft', 'Published'] as const;

const TemplateName = safeText()
  .trim()
  .min(1, 'name is required')
  .max(TEMPLATE_LIMITS.name, `name must be at most ${TEMPLATE_LIMITS.name} characters`)
  .meta({ description: 'The template’s name, shared by all its versions.' });

// ---- Requests ------------------------------------------------------------------------------------------------

export const TemplateListQuery = z.object({
  search: safeText()
    .trim()
    .max(TEMPLATE_LIMITS.search, `search must be at most ${TEMPLATE_LIMITS.search} characters`)
    .optional()
    .describe('Words that must all occur in the template’s name, without regard to case'),
  status: z
    .enum(['draft', 'published', 'archived'], { message: 'status must be draft, published or archived' })
    .optional()
    .describe(
      '`draft`: templates whose newest version is a draft (never published, or being edited); ' +
        '`published`: templates with a published version; `archived`: the archived templates (and only ' +
        'they: the other values list templates that are not archived)',
    ),
  ownerId: uuidOf('ownerId').optional().describe('Only the templates this user created'),
  teamId: uuidOf('teamId').optional().describe('Only the templates of this team'),
  ...offsetPage(TEMPLATE_LIMITS.page, 'templates of the sorted list'),
});
export type TemplateListQuery = z.output<typeof TemplateListQuery>;

export const CreateTemplateRequest = z.strictObject({
  name: TemplateName,
  filename: safeText()
    .trim()
    .max(TEMPLATE_LIMITS.filename, `filename must be at most ${TEMPLATE_LIMITS.filename} characters`)
    // A refinement, not a pattern: JSON Schema's regular expressions elsewhere cannot all read \p{…}.
    .refine(
      (name) => FILENAME.test(name),
      'filename must not contain path separators or invisible formatting characters',
    )
    .optional()
    .describe('The PDF’s file name, kept with the file'),
  pdfBase64: z
    .string()
    .min(1, 'pdfBase64 is required')
    .max(MAX_PDF_BASE64, 'the PDF must be at most 25 MB')
    .regex(BASE64, 'pdfBase64 must be the base64 of a PDF file (without a data: prefix)')
    .describe(
      'The PDF, base64-encoded: at most 25 MB, checked as every uploaded PDF is (well-formed, no active content)',
    ),
});
export type CreateTemplateRequest = z.input<typeof CreateTemplateRequest>;

export const RenameTemplateRequest = z.strictObject({ name: TemplateName });
export type RenameTemplateRequest = z.input<typeof RenameTemplateRequest>;

export const DuplicateTemplateRequest = z.strictObject({
  name: TemplateName.optional().describe('The copy’s name; absent: the name followed by “(copy)”'),
});
export type DuplicateTemplateRequest = z.input<typeof DuplicateTemplateRequest>;

/** A role as the builder saves it. */
export const TemplateRoleInput = z.strictObject({
  name: safeText()
    .trim()
    .min(1, 'role name is required')
    .max(TEMPLATE_LIMITS.roleName, `role name must be at most ${TEMPLATE_LIMITS.roleName} characters`),
  required: z.boolean().describe('Whether every envelope needs a recipient for the role'),
  defaultRecipientType: z
    .enum(RECIPIENT_TYPES, { message: `defaultRecipientType must be one of: ${RECIPIENT_TYPES.join(', ')}` })
    .describe('The recipient type a sender starts from for the role'),
  signingOrder: z
    .number()
    .int('signingOrder must be a whole number')
    .min(1, 'signingOrder must be at least 1')
    .max(TEMPLATE_LIMITS.signingOrder, `signingOrder must be at most ${TEMPLATE_LIMITS.signingOrder}`)
    .describe('The role’s place in the signing order (roles may share one: they sign in parallel)'),
});
export type TemplateRoleInput = z.input<typeof TemplateRoleInput>;

/** A field as the builder saves it: placed on a page, given to a role by the role's name. */
export const TemplateFieldInput = z.strictObject({
  ...FieldPlacement.shape,
  role: safeText().trim().min(1, 'role is required').max(TEMPLATE_LIMITS.roleName).describe('A role’s name'),
  required: z.boolean(),
  options: z
    .array(
      safeText()
        .trim()
        .min(1, 'an option must not be empty')
        .max(TEMPLATE_LIMITS.option, `an option must be at most ${TEMPLATE_LIMITS.option} characters`),
    )
    .max(TEMPLATE_LIMITS.options, `at most ${TEMPLATE_LIMITS.options} options`)
    .optional()
    .describe('The choices of a Radio or Dropdown field (needed to publish); no other type takes options'),
  properties: FieldProperties.optional(),
});
export type TemplateFieldInput = z.input<typeof TemplateFieldInput>;

/** The roles and fields of a version, as the builder saves them (PUT …/definition). */
export const TemplateDefinitionFields = z.strictObject({
  roles: z
    .array(TemplateRoleInput)
    .min(1, 'a template needs at least one role')
    .max(TEMPLATE_LIMITS.roles, `a template has at most ${TEMPLATE_LIMITS.roles} roles`),
  fields: z
    .array(TemplateFieldInput)
    .max(TEMPLATE_LIMITS.fields, `a template has at most ${TEMPLATE_LIMITS.fields} fields`),
  allowDelegation: z
    .boolean()
    .optional()
    .describe(
      'Whether recipients of envelopes sent from it may hand their part to another person; absent: unchanged',
    ),
});

/**
 * The rules of a definition that hold for a draft too: role names unique (whatever their case), every field's
 * role one of them, options only on Radio and Dropdown fields (each once), and each property on its types.
 * A draft may still lack what publishing needs (a Dropdown's options, a field for a required role).
 */
export function checkTemplateDefinition(
  definition: z.output<typeof TemplateDefinitionFields>,
  ctx: z.RefinementCtx,
): void {
  checkRoles(definition, ctx, (field, index) => {
    const options = field.options && field.options.length > 0 ? field.options : undefined;
    // A draft's Radio or Dropdown may have no options yet: publishing refuses it.
    if (options || !FIELD_TYPES_WITH_OPTIONS.includes(field.type)) {
      checkFieldOptions({ type: field.type, options }, ctx, ['fields', index]);
    }
    checkFieldProperties(field, ctx, ['fields', index]);
  });
}

export const SaveTemplateDefinitionRequest = TemplateDefinitionFields.superRefine(checkTemplateDefinition);
export type SaveTemplateDefinitionRequest = z.input<typeof SaveTemplateDefinitionRequest>;

// ---- Answers -------------------------------------------------------------------------------------------------

const Named = z.object({ id: z.uuid(), name: z.string() });

const VersionStatus = z.enum(TEMPLATE_VERSION_STATUSES);

export const TemplateSummary = z.object({
  id: z.uuid().meta({ description: 'The newest version: the one the builder opens' }),
  familyId: z.uuid().meta({ description: 'Shared by every version of the template' }),
  name: z.string(),
  status: VersionStatus.meta({ description: 'The newest version’s' }),
  version: z.number().int().min(1),
  published: z
    .object({ id: z.uuid(), version: z.number().int().min(1), publishedAt: IsoDateTime })
    .nullable()
    .meta({ description: 'The version envelopes are sent with (null: never published)' }),
  pageCount: z.number().int().min(1),
  roleCount: z.number().int().min(0),
  fieldCount: z.number().int().min(0),
  owner: Named.nullable().meta({ description: 'The user who created the template' }),
  team: Named.nullable().meta({ description: 'Their team when they created it' }),
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
  archivedAt: IsoDateTime.nullable().meta({ description: 'When it was archived (null: it is not)' }),
});
export type TemplateSummary = z.output<typeof TemplateSummary>;

export const TemplateList = z.object({
  /** By name (then id), `limit` of them from `offset`. */
  templates: z.array(TemplateSummary),
  total: z.number().int().min(0),
  nextOffset: z.number().int().nullable(),
  /** Who created the organization's templates, and their teams: the choices of the list's filters. */
  owners: z.array(Named),
  teams: z.array(Named),
});
export type TemplateList = z.output<typeof TemplateList>;

export const TemplateRoleDetail = z.object({
  name: z.string(),
  required: z.boolean(),
  defaultRecipientType: z.enum(RECIPIENT_TYPES),
  signingOrder: z.number().int().min(1),
});

export const TemplateFieldDetail = z.object({
  id: z
    .uuid()
    .meta({ description: 'The field’s id (fieldDefinitionId in /api/v1); new at every save of a draft' }),
  ...FieldPlacement.shape,
  label: z.string(),
  role: z.string(),
  required: z.boolean(),
  options: z.array(z.string()),
  properties: FieldProperties,
});
export type TemplateFieldDetail = z.output<typeof TemplateFieldDetail>;

export const TemplateVersionSummary = z.object({
  id: z.uuid(),
  version: z.number().int().min(1),
  status: VersionStatus,
  createdAt: IsoDateTime,
  publishedAt: IsoDateTime.nullable(),
  supersededAt: IsoDateTime.nullable().meta({ description: 'When a later version replaced it' }),
});

export const TemplateDetail = z.object({
  id: z.uuid(),
  familyId: z.uuid(),
  name: z.string(),
  status: VersionStatus,
  version: z.number().int().min(1),
  /** Whether this is the template's newest version, the one edits apply to. */
  latest: z.boolean(),
  /** A published version a later one replaced. */
  superseded: z.boolean(),
  filename: z.string(),
  pageCount: z.number().int().min(1),
  pages: z
    .array(z.object({ width: z.number().positive(), height: z.number().positive() }))
    .meta({ description: 'Each page’s size as displayed, in points: the space fields are placed in' }),
  roles: z.array(TemplateRoleDetail),
  fields: z.array(TemplateFieldDetail),
  /** Whether recipients of envelopes sent from this version may hand their part to another person. */
  allowDelegation: z.boolean(),
  owner: Named.nullable(),
  team: Named.nullable(),
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
  publishedAt: IsoDateTime.nullable(),
  /** Every version, newest first. */
  versions: z.array(TemplateVersionSummary),
});
export type TemplateDetail = z.output<typeof TemplateDetail>;
