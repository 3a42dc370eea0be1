// The order a signer meets their fields in, and the name each is called by. Reading order: page by page, top to
// bottom by rows (fields whose tops are within a few points share a row), and within a row left to right — right
// to left on a Hebrew page, as the eye reads it. The guided path (Start, Next) takes the required fields first,
// then the optional ones, each in reading order; Read-only text is shown, never visited.
import type { FieldType } from '../../../../domain/vocabulary.ts';

/** What ordering and naming need of a field (SigningField has it all). */
export interface PlacedField {
  fieldDefinitionId: string;
  type: FieldType;
  label: string;
  required: boolean;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What reading order and names need: a field of another recipient (FilledField) has no `required`. */
export type ShownField = Omit<PlacedField, 'required'>;

/** Tops closer than this (PDF points) are one row: boxes placed by hand on one line differ by a point or two. */
const ROW_TOLERANCE = 6;

/** The fields in reading order; `rtl`: rows read from their right edge. */
export function readingOrder<T extends ShownField>(fields: readonly T[], rtl: boolean): T[] {
  const byTop = [...fields].sort((a, b) => a.page - b.page || a.y - b.y);
  const rows: T[][] = [];
  for (const field of byTop) {
    const row = rows.at(-1);
    const first = row?.[0];
    if (row && first && first.page === field.page && field.y - first.y <= ROW_TOLERANCE) row.push(field);
    else rows.push([field]);
  }
  return rows.flatMap((row) => row.sort((a, b) => (rtl ? b.x + b.width - (a.x + a.width) : a.x - b.x)));
}

/** The fields a signer is taken to by Start and Next: required ones first, then optional, each in reading order. */
export function guidedOrder<T extends PlacedField>(fields: readonly T[], rtl: boolean): T[] {
  const visited = readingOrder(
    fields.filter((field) => field.type !== 'Read-only text'),
    rtl,
  );
  return [...visited.filter((field) => field.required), ...visited.filter((field) => !field.required)];
}

/** The catalog key of a type's name as a signer reads it. */
export const SIGNER_TYPE_KEYS: Record<FieldType, string> = {
  Signature: 'signer.fieldType.signature',
  Initials: 'signer.fieldType.initials',
  'Full name': 'signer.fieldType.fullName',
  Text: 'signer.fieldType.text',
  'Long text': 'signer.fieldType.longText',
  Date: 'signer.fieldType.date',
  Email: 'signer.fieldType.email',
  Phone: 'signer.fieldType.phone',
  'ID number': 'signer.fieldType.idNumber',
  Checkbox: 'signer.fieldType.checkbox',
  Radio: 'signer.fieldType.radio',
  Dropdown: 'signer.fieldType.dropdown',
  'Read-only text': 'signer.fieldType.readOnlyText',
  'File upload': 'signer.fieldType.fileUpload',
  'Image upload': 'signer.fieldType.imageUpload',
  'Company stamp': 'signer.fieldType.companyStamp',
};

/**
 * Whether a label is only its type's name, with or without a number ("Text 1", "תאריך 2", "Signature"): what
 * the template builder gives a field nobody named. `typeNames` holds the type's names in every language of the
 * interface (the builder's and the signer's words), compared without case.
 */
export function isDefaultLabel(label: string, typeNames: readonly string[]): boolean {
  const bare = label
    .trim()
    .replace(/\s*\d+$/, '')
    .toLocaleLowerCase();
  return typeNames.some((name) => name.toLocaleLowerCase() === bare);
}

/**
 * Each field's name as the signer sees it: its own label, or — when the label is only a default one — its
 * type's name in the page's language (`typeName`), numbered in reading order only when this recipient has
 * several fields of that type named so.
 */
export function fieldNames<T extends ShownField>(
  fields: readonly T[],
  rtl: boolean,
  typeName: (type: FieldType) => string,
  defaultNames: (type: FieldType) => readonly string[],
): Map<string, string> {
  const names = new Map<string, string>();
  const unnamed = readingOrder(fields, rtl).filter((field) =>
    isDefaultLabel(field.label, defaultNames(field.type)),
  );
  const counts = new Map<FieldType, number>();
  for (const field of unnamed) counts.set(field.type, (counts.get(field.type) ?? 0) + 1);
  const seen = new Map<FieldType, number>();
  for (const field of fields) names.set(field.fieldDefinitionId, field.label);
  for (const field of unnamed) {
    const number = (seen.get(field.type) ?? 0) + 1;
    seen.set(field.type, number);
    const name = typeName(field.type);
    names.set(field.fieldDefinitionId, (counts.get(field.type) ?? 0) > 1 ? `${name} ${number}` : name);
  }
  return names;
}
