// A template's shape, once: its roles and placed fields as they are defined (the create input) and as they
// are shown (the public API's FieldDefinition and Template). Field placement is in PDF points from the
// top-left corner of the 1-based page as displayed: its crop box, after its /Rotate (pdf/page-space.ts).
import { z } from 'zod';
import { IsoDateTime, safeText } from './common.ts';
import {
  DATE_FORMATS,
  FIELD_TYPES,
  FIELD_TYPES_WITH_OPTIONS,
  type FieldType,
  ID_NUMBER_FORMATS,
  RECIPIENT_TYPES,
  UPLOAD_CONTENT_TYPES,
  UPLOAD_FIELD_LIMITS,
} from './vocabulary.ts';

const coordinate = z.number().finite().min(0);
const size = z.number().finite().positive();

/** Where a field sits and what it is: shared by a definition's field, the API's view and the signer's. */
export const FieldPlacement = z.object({
  type: z.enum(FIELD_TYPES, { message: `type must be one of: ${FIELD_TYPES.join(', ')}` }),
  label: safeText().trim().min(1, 'label is required').max(200),
  page: z.number().int().min(1).meta({ description: '1-based page number.' }),
  x: coordinate.meta({
    description:
      'PDF points (1/72 inch) from the left edge of the page as displayed (its crop box, after its rotation) to the left edge of the field.',
  }),
  y: coordinate.meta({
    description:
      'PDF points from the top edge of the page as displayed down to the top edge of the field (the origin is the top-left corner).',
  }),
  width: size.meta({ description: 'PDF points, to the right of x.' }),
  height: size.meta({ description: 'PDF points, downwards from y.' }),
});
export type FieldPlacement = z.output<typeof FieldPlacement>;

export const TemplateRoleDefinition = z.object({
  name: safeText().trim().min(1, 'role name is required').max(100),
  required: z.boolean().default(true),
});

export const FieldDefinitionInput = FieldPlacement.extend({
  role: safeText().trim().min(1).max(100),
  required: z.boolean().optional(),
  options: z.array(safeText().trim().min(1).max(200)).min(1).max(100).optional(),
});

/** A template's definition: roles and placed fields (creation input). */
export const TemplateDefinition = z
  .object({
    name: safeText().trim().min(1, 'name is required').max(200),
    roles: z.array(TemplateRoleDefinition).min(1, 'a template needs at least one role'),
    fields: z.array(FieldDefinitionInput).default([]),
  })
  .superRefine((definition, ctx) => {
    checkRoles(definition, ctx, (field, index) => checkFieldOptions(field, ctx, ['fields', index]));
  });
export type TemplateDefinition = z.input<typeof TemplateDefinition>;

/**
 * The roles rule of every template definition (the public API's and the builder's): role names unique
 * (whatever their case), and every field's role one of them. `eachField` adds a field's own rules after its
 * role's, so a field's issues stay together.
 */
export function checkRoles<Field extends { role: string }>(
  definition: { roles: readonly { name: string }[]; fields: readonly Field[] },
  ctx: z.RefinementCtx,
  eachField: (field: Field, index: number) => void,
): void {
  const names = definition.roles.map((role) => role.name.toLowerCase());
  names.forEach((name, index) => {
    if (names.indexOf(name) !== index) {
      ctx.addIssue({ code: 'custom', path: ['roles', index, 'name'], message: 'role names must be unique' });
    }
  });
  const roleNames = new Set(definition.roles.map((role) => role.name));
  definition.fields.forEach((field, index) => {
    if (!roleNames.has(field.role)) {
      ctx.addIssue({
        code: 'custom',
        path: ['fields', index, 'role'],
        message: `role "${field.role}" is not one of the template's roles`,
      });
    }
    eachField(field, index);
  });
}

/**
 * The options rule of a placed field (templates and envelopes created from a file): Radio and Dropdown fields
 * need options, each given once; other types take none. Issues go to `<at>.options`.
 */
export function checkFieldOptions(
  field: { type: FieldPlacement['type']; options?: string[] | undefined },
  ctx: z.RefinementCtx,
  at: (string | number)[],
): void {
  const needsOptions = FIELD_TYPES_WITH_OPTIONS.includes(field.type);
  const issue = (message: string, index?: number) =>
    ctx.addIssue({
      code: 'custom',
      path: [...at, 'options', ...(index === undefined ? [] : [index])],
      message,
    });
  if (needsOptions && !field.options) issue(`${field.type} fields need options`);
  if (!needsOptions && field.options) issue(`${field.type} fields take no options`);
  field.options?.forEach((option, index) => {
    if (field.options?.indexOf(option) !== index)
      issue(`"${option}" is given twice; options must be unique`, index);
  });
}

// ---- A field's type-specific properties (the template builder, docs/templates.md) ----------------------------

const DOMAIN_NAME = /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;
const CALLING_CODE = /^[1-9]\d{0,2}$/;

/**
 * A field's type-specific properties; each applies to its types only (checkFieldProperties). Every one is
 * enforced where values are checked: prefilled values and signers' values (services/fields/field-value.ts)
 * and the final PDF (a date's format).
 */
export const FieldProperties = z
  .strictObject({
    text: safeText('multiline')
      .trim()
      .min(1, 'text must not be empty')
      .max(5000, 'text must be at most 5000 characters')
      .optional()
      .meta({ description: 'Read-only text: the text shown to every recipient and drawn in the final PDF.' }),
    dateFormat: z
      .enum(DATE_FORMATS, { message: `dateFormat must be one of: ${DATE_FORMATS.join(', ')}` })
      .optional()
      .meta({ description: 'Date: how the date is written in the final PDF (values are YYYY-MM-DD).' }),
    allowedDomains: z
      .array(
        z.string().max(253).regex(DOMAIN_NAME, 'must be a domain name such as example.com').toLowerCase(),
      )
      .min(1, 'allowedDomains needs at least one domain')
      .max(20, 'allowedDomains holds at most 20 domains')
      .optional()
      .meta({ description: 'Email: only addresses at these domains (or their subdomains) are accepted.' }),
    countryCodes: z
      .array(z.string().regex(CALLING_CODE, 'must be a country calling code of 1-3 digits, such as 972'))
      .min(1, 'countryCodes needs at least one code')
      .max(20, 'countryCodes holds at most 20 codes')
      .optional()
      .meta({
        description: 'Phone: only numbers (E.164) with one of these country calling codes are accepted.',
      }),
    idNumberFormat: z
      .enum(ID_NUMBER_FORMATS, { message: `idNumberFormat must be one of: ${ID_NUMBER_FORMATS.join(', ')}` })
      .optional()
      .meta({
        description:
          'ID number: `Any` (4-20 letters, digits or dashes, the default) or `IsraeliId` (up to 9 digits with a valid check digit).',
      }),
    maxSizeMb: z
      .number()
      .finite()
      .positive('maxSizeMb must be more than 0')
      .max(4, 'maxSizeMb must be at most 4')
      .optional()
      .meta({
        description: 'File upload (at most 4) and Image upload (at most 2): the largest file, in MB.',
      }),
    contentTypes: z
      .array(z.enum(UPLOAD_CONTENT_TYPES, { message: `must be one of: ${UPLOAD_CONTENT_TYPES.join(', ')}` }))
      .min(1, 'contentTypes needs at least one type')
      .max(3)
      .optional()
      .meta({
        description:
          'File upload (application/pdf, image/png, image/jpeg) and Image upload (image/png, image/jpeg): the accepted types.',
      }),
  })
  .meta({ description: "The field's type-specific properties; each applies to its types only." });
export type FieldProperties = z.output<typeof FieldProperties>;

/** The field types each property applies to. */
export const FIELD_PROPERTY_TYPES: Record<keyof FieldProperties, readonly FieldType[]> = {
  text: ['Read-only text'],
  dateFormat: ['Date'],
  allowedDomains: ['Email'],
  countryCodes: ['Phone'],
  idNumberFormat: ['ID number'],
  maxSizeMb: ['File upload', 'Image upload'],
  contentTypes: ['File upload', 'Image upload'],
};

/**
 * The properties rule of a placed field: each property applies to its types only, the uploads' limits are
 * within their type's, and lists hold each entry once. Issues go to `<at>.properties.<name>`.
 */
export function checkFieldProperties(
  field: { type: FieldType; properties?: FieldProperties | undefined },
  ctx: z.RefinementCtx,
  at: (string | number)[],
): void {
  const properties = field.properties;
  if (!properties) return;
  const issue = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: 'custom', path: [...at, 'properties', ...path], message });
  for (const [name, value] of Object.entries(properties) as [keyof FieldProperties, unknown][]) {
    if (value === undefined) continue;
    const types = FIELD_PROPERTY_TYPES[name];
    if (!types.includes(field.type)) {
      issue([name], `${name} applies to ${types.join(' and ')} fields, not ${field.type}`);
    }
  }
  const limits =
    field.type === 'File upload' || field.type === 'Image upload'
      ? UPLOAD_FIELD_LIMITS[field.type]
      : undefined;
  if (limits && properties.maxSizeMb !== undefined && properties.maxSizeMb > limits.maxSizeMb) {
    issue(['maxSizeMb'], `maxSizeMb must be at most ${limits.maxSizeMb} for ${field.type} fields`);
  }
  if (limits) {
    const allowed: readonly string[] = limits.contentTypes;
    properties.contentTypes?.forEach((type, index) => {
      if (!allowed.includes(type))
        issue(['contentTypes', index], `${field.type} fields accept ${allowed.join(', ')}`);
    });
  }
  for (const name of ['allowedDomains', 'countryCodes', 'contentTypes'] as const) {
    const list = properties[name] as readonly string[] | undefined;
    list?.forEach((entry, index) => {
      if (list.indexOf(entry) !== index) issue([name, index], `"${entry}" is given twice`);
    });
  }
}

/** The choices of Radio and Dropdown fields; null for every other type. */
const FieldOptions = z
  .array(z.string())
  .nullable()
  .meta({ description: 'The choices of Radio and Dropdown fields; null for other types.' });

/** A placed field as the public API shows it. */
export const FieldDefinition = z
  .object({
    fieldDefinitionId: z.uuid().meta({ description: 'Refer to the field by this id in initialValues.' }),
    type: FieldPlacement.shape.type,
    role: z.string().meta({ description: 'Name of the role that fills in the field.' }),
    ...FieldPlacement.omit({ type: true }).shape,
    required: z.boolean(),
    options: FieldOptions,
    properties: FieldProperties.meta({
      description:
        "The field's type-specific properties (empty for most fields): a prefilled value must satisfy them as a signer's does.",
    }),
  })
  .meta({ id: 'FieldDefinition' });
export type FieldDefinition = z.output<typeof FieldDefinition>;

export const TemplateRole = z
  .object({
    name: z.string().meta({ description: 'Recipients are mapped to the role by this name (roleName).' }),
    required: z.boolean().meta({ description: 'Whether a recipient must be given for the role.' }),
    defaultRecipientType: z.enum(RECIPIENT_TYPES).meta({
      description:
        "The recipient type the template's author meant for the role (a sender may choose another).",
    }),
    signingOrder: z
      .number()
      .int()
      .min(1)
      .meta({ description: "The role's place in the signing order the author meant (roles may share one)." }),
  })
  .meta({ id: 'TemplateRole' });

export const TemplateView = z
  .object({
    id: z.uuid(),
    name: z.string(),
    pageCount: z.number().int().min(1),
    createdAt: IsoDateTime,
    publishedAt: IsoDateTime.nullable(),
    roles: z.array(TemplateRole).meta({ description: "In the template's order." }),
    fields: z.array(FieldDefinition).meta({ description: "In the template's order." }),
  })
  .meta({ id: 'Template' });
export type TemplateView = z.output<typeof TemplateView>;
