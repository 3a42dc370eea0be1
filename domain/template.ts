// A template's shape, once: its roles and placed fields as they are defined (the create input) and as they
// are shown (the public API's FieldDefinition and Template). Field placement is in PDF points from the
// top-left corner of the 1-based page.
import { z } from 'zod';
import { IsoDateTime, safeText } from './common.ts';
import { FIELD_TYPES, FIELD_TYPES_WITH_OPTIONS } from './vocabulary.ts';

const coordinate = z.number().finite().min(0);
const size = z.number().finite().positive();

/** Where a field sits and what it is: shared by a definition's field, the API's view and the signer's. */
export const FieldPlacement = z.object({
  type: z.enum(FIELD_TYPES, { message: `type must be one of: ${FIELD_TYPES.join(', ')}` }),
  label: safeText().trim().min(1, 'label is required').max(200),
  page: z.number().int().min(1).meta({ description: '1-based page number.' }),
  x: coordinate.meta({ description: 'Points from the left edge of the page.' }),
  y: coordinate.meta({ description: 'Points from the top edge of the page.' }),
  width: size.meta({ description: 'Points.' }),
  height: size.meta({ description: 'Points.' }),
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
  })
  .meta({ id: 'FieldDefinition' });
export type FieldDefinition = z.output<typeof FieldDefinition>;

export const TemplateRole = z
  .object({
    name: z.string().meta({ description: 'Recipients are mapped to the role by this name (roleName).' }),
    required: z.boolean().meta({ description: 'Whether a recipient must be given for the role.' }),
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
