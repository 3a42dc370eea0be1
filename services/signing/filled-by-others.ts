// What a recipient sees of the fields other recipients filled before completing (domain/signing.ts,
// FilledField): each value as the page shows it read-only. An image (a signature, initials, a stamp, an uploaded
// picture) by its file id, which the files route then serves to this recipient; an upload that is not a picture
// by its name only, never its contents.
import type { FilledField, FilledValue } from '../../domain/signing.ts';
import type { FieldType } from '../../domain/vocabulary.ts';
import { placementOf } from '../templates/field-placement.ts';
import type { OthersField } from './signer-fields.ts';

/** Uploads a page shows as pictures; any other (a PDF) is named only. */
const PICTURE_TYPES = ['image/png', 'image/jpeg'];
const UPLOAD_TYPES: readonly FieldType[] = ['File upload', 'Image upload'];

/** A stored value as the page shows it, or undefined when it shows nothing (an empty or unknown value). */
export function filledValue(type: FieldType, value: unknown): FilledValue | undefined {
  if (type === 'Read-only text' || value === null || value === undefined || value === '') return undefined;
  if (typeof value === 'boolean') return { kind: 'checkbox', checked: value };
  if (typeof value === 'string') return { kind: 'text', text: value };
  if (typeof value !== 'object') return undefined;
  const { fileId, contentType, filename } = value as Record<string, unknown>;
  if (typeof fileId !== 'string') return undefined;
  if (!UPLOAD_TYPES.includes(type)) return { kind: 'image', fileId };
  if (typeof contentType === 'string' && PICTURE_TYPES.includes(contentType))
    return { kind: 'image', fileId };
  return { kind: 'file', filename: typeof filename === 'string' ? filename : '' };
}

/** The fields other recipients filled, as the view gives them (those that show nothing left out). */
export function filledByOthers(fields: OthersField[]): FilledField[] {
  return fields.flatMap(({ field, value, filledBy }) => {
    const shown = filledValue(field.type, value);
    if (!shown) return [];
    return [
      {
        fieldDefinitionId: field.id,
        ...placementOf(field),
        properties: field.properties ?? {},
        filledBy,
        value: shown,
      },
    ];
  });
}

/** The file ids of the pictures other recipients left, which this recipient may fetch. */
export function othersPictureIds(fields: OthersField[]): string[] {
  return filledByOthers(fields).flatMap(({ value }) => (value.kind === 'image' ? [value.fileId] : []));
}
