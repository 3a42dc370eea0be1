// Templates: a base PDF, named signer roles and fields placed on the pages.
import { defineEntity, p } from '@mikro-orm/core';
import type { FieldType } from '../../domain/vocabulary.ts';

export const TemplateSchema = defineEntity({
  name: 'Template',
  tableName: 'template',
  properties: {
    id: p.uuid().primary(),
    organizationId: p.uuid(),
    name: p.string(),
    status: p.string().$type<'Draft' | 'Published'>(),
    fileId: p.uuid(),
    pageCount: p.integer(),
    createdAt: p.datetime().onCreate(() => new Date()),
    publishedAt: p.datetime().nullable(),
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
  },
});
export class TemplateField extends TemplateFieldSchema.class {}
TemplateFieldSchema.setClass(TemplateField);
