// What a value of each field type may be. Used for initial values now and for signers' values later.
import { z } from 'zod';
import type { FieldType } from '../../../workflows/domain.ts';

export const TEXT_LIMITS: Partial<Record<FieldType, number>> = {
  'Full name': 200,
  Text: 500,
  'Long text': 5000,
  'Read-only text': 5000,
  'ID number': 20,
};

/** Field types whose value is an image or file the signer supplies; they cannot be prefilled. */
export const SIGNER_SUPPLIED: readonly FieldType[] = [
  'Signature',
  'Initials',
  'Company stamp',
  'File upload',
  'Image upload',
];

const isoDate = z.iso.date();
const email = z.email();
const E164 = /^\+[1-9]\d{6,14}$/;
const ID_NUMBER = /^[A-Za-z0-9-]{4,20}$/;

export type FieldValueCheck = { ok: true; value: string | boolean } | { ok: false; message: string };

/** Checks a prefilled value against its field definition. */
export function checkInitialValue(
  field: { type: FieldType; options?: string[] | null },
  value: unknown,
): FieldValueCheck {
  if (SIGNER_SUPPLIED.includes(field.type)) {
    return { ok: false, message: `${field.type} fields are filled by the signer and cannot be prefilled` };
  }
  if (field.type === 'Checkbox') {
    return typeof value === 'boolean' ? { ok: true, value } : { ok: false, message: 'must be true or false' };
  }
  if (typeof value !== 'string') return { ok: false, message: `a ${field.type} value must be a string` };
  const text = value.trim();
  if (text === '') return { ok: false, message: 'must not be empty' };
  const limit = TEXT_LIMITS[field.type];
  if (limit !== undefined && text.length > limit)
    return { ok: false, message: `at most ${limit} characters` };
  switch (field.type) {
    case 'Email':
      return email.safeParse(text).success
        ? { ok: true, value: text }
        : { ok: false, message: 'not an email address' };
    case 'Phone':
      return E164.test(text)
        ? { ok: true, value: text }
        : { ok: false, message: 'phone must be in E.164 form' };
    case 'Date':
      return isoDate.safeParse(text).success
        ? { ok: true, value: text }
        : { ok: false, message: 'date must be an ISO date YYYY-MM-DD' };
    case 'ID number':
      return ID_NUMBER.test(text)
        ? { ok: true, value: text }
        : { ok: false, message: 'ID number must be 4-20 letters, digits or dashes' };
    case 'Radio':
    case 'Dropdown':
      return field.options?.includes(text)
        ? { ok: true, value: text }
        : { ok: false, message: `must be one of: ${(field.options ?? []).join(', ')}` };
    default:
      return { ok: true, value: text };
  }
}
