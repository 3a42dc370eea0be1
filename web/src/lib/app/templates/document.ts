// The template builder's document (builder.svelte.ts edits it): its roles and fields as the page holds them —
// each with a key of the page's own, a field's role by its role's key — made from a version the server sent
// (`documentOf`) and turned back into the request that saves it (`definitionOf`), and a new field's size and
// whether it starts required, by type.
import type { z } from 'zod';
import type { FieldProperties } from '../../../../../domain/template.ts';
import type * as builder from '../../../../../domain/template-builder.ts';
import type { FieldType, RecipientType } from '../../../../../domain/vocabulary.ts';
import type { Box } from './geometry.ts';

export type TemplateDetail = z.output<typeof builder.TemplateDetail>;
export type TemplateList = z.output<typeof builder.TemplateList>;
export type TemplateSummary = z.output<typeof builder.TemplateSummary>;
export type SaveTemplateDefinitionRequest = z.input<typeof builder.SaveTemplateDefinitionRequest>;
export type { FieldProperties };

export interface BuilderRole {
  key: string;
  name: string;
  required: boolean;
  defaultRecipientType: RecipientType;
  signingOrder: number;
}

export interface BuilderField extends Box {
  key: string;
  type: FieldType;
  /** The key of its role. */
  role: string;
  label: string;
  page: number;
  required: boolean;
  options: string[];
  properties: FieldProperties;
}

/** A new field's size in points, by type: room for what a signer puts there. */
export const DEFAULT_SIZES: Record<FieldType, { width: number; height: number }> = {
  Signature: { width: 160, height: 48 },
  Initials: { width: 64, height: 36 },
  'Full name': { width: 160, height: 22 },
  Text: { width: 160, height: 22 },
  'Long text': { width: 220, height: 80 },
  Date: { width: 100, height: 22 },
  Email: { width: 180, height: 22 },
  Phone: { width: 130, height: 22 },
  'ID number': { width: 110, height: 22 },
  Checkbox: { width: 18, height: 18 },
  Radio: { width: 120, height: 60 },
  Dropdown: { width: 140, height: 22 },
  'Read-only text': { width: 220, height: 60 },
  'File upload': { width: 160, height: 40 },
  'Image upload': { width: 120, height: 90 },
  'Company stamp': { width: 100, height: 100 },
};

/** Types a signer's act of signing fills: required when placed. */
export const REQUIRED_WHEN_PLACED: readonly FieldType[] = ['Signature', 'Initials', 'Company stamp'];

let counter = 0;
/** A key of the page's own for a new role (`r…`) or field (`f…`). */
export function nextKey(prefix: string): string {
  counter += 1;
  return `${prefix}${counter}`;
}

/**
 * A new field's label: its type's name in the page's language ("Date", "תאריך"), numbered only when the document
 * already has a field of that type ("Date 2", the first keeping "Date"), with the first number no field of the
 * type has taken. `numbered` words a number with the name (the catalog's `templates.builder.defaultLabel`).
 */
export function newFieldLabel(
  fields: readonly Pick<BuilderField, 'type' | 'label'>[],
  type: FieldType,
  name: string,
  numbered: (number: number) => string,
): string {
  const same = fields.filter((field) => field.type === type);
  if (same.length === 0) return name;
  const labels = new Set(same.map((field) => field.label.trim()));
  let number = 2;
  while (labels.has(numbered(number))) number += 1;
  return numbered(number);
}

export function copyOf<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** A version's roles and fields as the builder holds them, each with a new key. */
export function documentOf(detail: TemplateDetail): { roles: BuilderRole[]; fields: BuilderField[] } {
  const roles = detail.roles.map((role) => ({ key: nextKey('r'), ...role }));
  const keyOf = new Map(roles.map((role) => [role.name, role.key]));
  const fields = detail.fields.map((field) => ({
    key: nextKey('f'),
    type: field.type,
    role: keyOf.get(field.role) ?? '',
    label: field.label,
    ...placementOf(field),
    options: [...field.options],
    properties: copyOf(field.properties),
  }));
  return { roles, fields };
}

type Placement = Pick<BuilderField, 'page' | 'x' | 'y' | 'width' | 'height' | 'required'>;

/** Where a field lies (its page and box) and whether it must be filled: what a copy of it keeps. */
function placementOf(field: Placement): Placement {
  const { page, x, y, width, height, required } = field;
  return { page, x, y, width, height, required };
}

/** The request that saves the document: roles and fields by role name, in order. */
export function definitionOf(
  roles: readonly BuilderRole[],
  fields: readonly BuilderField[],
): SaveTemplateDefinitionRequest {
  const names = new Map(roles.map((role) => [role.key, role.name.trim()]));
  return {
    roles: roles.map((role) => ({
      name: role.name.trim(),
      required: role.required,
      defaultRecipientType: role.defaultRecipientType,
      signingOrder: role.signingOrder,
    })),
    fields: fields.map((field) => ({
      type: field.type,
      role: names.get(field.role) ?? '',
      label: field.label.trim(),
      ...placementOf(field),
      ...(field.options.length > 0 ? { options: field.options } : {}),
      ...(Object.keys(field.properties).length > 0 ? { properties: propertiesOf(field.properties) } : {}),
    })),
  };
}

/** The properties with their empty values left out (an empty list, a blank text). */
function propertiesOf(properties: FieldProperties): FieldProperties {
  return Object.fromEntries(
    Object.entries(properties).filter(
      ([, value]) => value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0),
    ),
  ) as FieldProperties;
}
