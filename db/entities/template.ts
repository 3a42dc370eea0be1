// Templates: a base PDF, named signer roles and fields placed on the pages. A `OneOff` template is the hidden
// template of one envelope created from an uploaded file (services/templates/one-off-template.ts): no
// template route lists or serves it, and no other envelope can be created from it.
import { defineEntity, p } from '@mikro-orm/core';
import type { FieldProperties } from '../../domain/template.ts';
import type { FieldType, RecipientType } from '../../domain/vocabulary.ts';

export const TemplateSchema = defineEntity({
  name: 'Template',
  tableName: 'template',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    name: p.string(),
    status: p.string().$type<'Draft' | 'Published' | 'OneOff'>(),
    fileId: p.uuid(),
    pageCount: p.integer(),
    createdAt: p.datetime().onCreate(() => new Date()),
    publishedAt: p.datetime().nullable(),
    // Versions (migration 0020, docs/templates.md): every version is a row; `familyId` groups them (the first
    // version's id), `version` numbers them, `supersededAt` marks a published version a later one replaced.
    familyId: p.uuid(),
    version: p.integer().default(1),
    supersededAt: p.datetime().nullable(),
    /** Every version of an archived template carries it: listed, served and sent no more. */
    archivedAt: p.datetime().nullable(),
    /** Set on every version left when an archived template is deleted (migration 0039); never cleared. */
    deletedAt: p.datetime().nullable(),
    /** The user who created the template and their team then (null: made before, or by the CLI). */
    ownerUserId: p.uuid().nullable(),
    teamId: p.uuid().nullable(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
    /** Each page's size as displayed, in points; null until measured (templates made before 0020). */
    pages: p.json<{ width: number; height: number }[]>().nullable(),
    /** Whether the recipients of envelopes sent from it may hand their part to another person (migration 0034). */
    allowDelegation: p.boolean().default(false),
  },
});
export class Template extends TemplateSchema.class {}
TemplateSchema.setClass(Template);

export const TemplateRoleSchema = defineEntity({
  name: 'TemplateRole',
  tableName: 'template_role',
  properties: {
    id: p.uuid().primary(),
    templateId: p.uuid(),
    name: p.string(),
    required: p.boolean(),
    position: p.integer(),
    /** The recipient type a sender starts from for the role (migration 0020). */
    defaultRecipientType: p.string().$type<RecipientType>().default('Signer'),
    /** The role's place in the signing order a sender starts from; roles may share one. */
    signingOrder: p.integer(),
  },
});
export class TemplateRole extends TemplateRoleSchema.class {}
TemplateRoleSchema.setClass(TemplateRole);

export const TemplateFieldSchema = defineEntity({
  name: 'TemplateField',
  tableName: 'template_field',
  properties: {
    id: p.uuid().primary(),
    templateId: p.uuid(),
    roleId: p.uuid(),
    type: p.string().$type<FieldType>(),
    label: p.string(),
    page: p.integer(),
    // Doubles come back from the driver as strings unless the runtime type says number.
    x: p.double().$type<number>().runtimeType('number'),
    y: p.double().$type<number>().runtimeType('number'),
    width: p.double().$type<number>().runtimeType('number'),
    height: p.double().$type<number>().runtimeType('number'),
    required: p.boolean(),
    options: p.json<string[]>().nullable(),
    position: p.integer(),
    /** Type-specific properties (domain/template.ts, FieldProperties); null: none (migration 0020). */
    properties: p.json<FieldProperties>().nullable(),
  },
});
export class TemplateField extends TemplateFieldSchema.class {}
TemplateFieldSchema.setClass(TemplateField);
