// What a value of each field type may be: initial values (prefilled by the sender) and signers' values.
import { z } from 'zod';
import type { FieldProperties } from '../../domain/template.ts';
import { type TextKind, textProblem } from '../../domain/text.ts';
import { type FieldType, SIGNER_SUPPLIED_FIELD_TYPES } from '../../domain/vocabulary.ts';
import { inspectJpeg } from '../../pdf/jpeg.ts';
import { pngDimensions, readPngStructure } from '../../pdf/png.ts';

export const TEXT_LIMITS: Partial<Record<FieldType, number>> = {
  'Full name': 200,
  Text: 500,
  'Long text': 5000,
  'Read-only text': 5000,
  'ID number': 20,
};

/** Field types whose text may span lines (tabs and line breaks allowed); every other text is one line. */
const MULTILINE_FIELD_TYPES: readonly FieldType[] = ['Long text', 'Read-only text'];

const isoDate = z.iso.date();
const email = z.email();
const E164 = /^\+[1-9]\d{6,14}$/;
const ID_NUMBER = /^[A-Za-z0-9-]{4,20}$/;

/** What a value is checked against: the field's type, its options and its type-specific properties. */
export type FieldRules = { type: FieldType; options?: string[] | null; properties?: FieldProperties | null };

export type FieldValueCheck = { ok: true; value: string | boolean } | { ok: false; message: string };

/** Checks a prefilled value against its field definition. */
export function checkInitialValue(field: FieldRules, value: unknown): FieldValueCheck {
  if ((SIGNER_SUPPLIED_FIELD_TYPES as readonly FieldType[]).includes(field.type)) {
    return { ok: false, message: `${field.type} fields are filled by the signer and cannot be prefilled` };
  }
  return checkPlainValue(field, value);
}

/** Field types whose signer value is a PNG image (drawn or stamped), optionally with a typed name. */
export const IMAGE_FIELD_TYPES: readonly FieldType[] = ['Signature', 'Initials', 'Company stamp'];

export const MAX_SIGNER_IMAGE_BYTES = 1024 * 1024;

/**
 * Pixel sizes a signer's images may announce, checked from the header before anything is inflated: a 300 KB
 * PNG can announce 6,324 × 6,324 16-bit pixels (320 MB inflated). Drawn images (signature, initials, company
 * stamp) come from a signature pad, whose canvas at three device pixels per CSS pixel is about 2,000 pixels
 * wide; uploaded images may be phone photos (12 megapixels). What passes is inflated, checked and (drawn
 * images) scaled down on the inspection pool's threads (inspect-signer-value.ts).
 */
export const SIGNER_IMAGE_LIMITS = {
  drawn: { maxSide: 4096, maxPixels: 8_000_000 },
  uploaded: { maxSide: 8192, maxPixels: 16_000_000 },
} as const;

/** Why an image of `width` × `height` pixels is too large for `limit`, or undefined when it is not. */
export function imageSizeProblem(
  width: number,
  height: number,
  limit: { maxSide: number; maxPixels: number },
): string | undefined {
  if (width <= limit.maxSide && height <= limit.maxSide && width * height <= limit.maxPixels)
    return undefined;
  const number = (value: number) => value.toLocaleString('en');
  return `the image may be at most ${number(limit.maxSide)} pixels on each side and ${number(limit.maxPixels)} pixels in all (it is ${number(width)} × ${number(height)})`;
}

/**
 * A PNG's header and chunks checked against `limit`, its announced size first, without inflating anything:
 * `size` is a sentence about its size, `structure` a problem of the file.
 */
function pngProblem(
  bytes: Uint8Array,
  limit: { maxSide: number; maxPixels: number },
): { size: string } | { structure: string } | undefined {
  const announced = pngDimensions(bytes);
  const size = announced && imageSizeProblem(announced.width, announced.height, limit);
  if (size) return { size };
  const read = readPngStructure(bytes, limit.maxPixels);
  return 'problem' in read ? { structure: read.problem } : undefined;
}
const MAX_TYPED_NAME = 200;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** What a signer may upload into each upload field type: content types and the largest decoded size. */
export const UPLOAD_RULES = {
  'Image upload': { contentTypes: ['image/png', 'image/jpeg'], maxBytes: 2 * 1024 * 1024, limit: '2 MB' },
  'File upload': {
    contentTypes: ['application/pdf', 'image/png', 'image/jpeg'],
    maxBytes: 4 * 1024 * 1024,
    limit: '4 MB',
  },
} as const satisfies Partial<Record<FieldType, { contentTypes: string[]; maxBytes: number; limit: string }>>;

export const MAX_UPLOAD_FILENAME = 200;
/** Control and invisible formatting characters (bidi overrides could disguise a file's extension). */
const FORBIDDEN_IN_FILENAME = /[\p{Cc}\p{Cf}/\\]/u;

/** A file a signer uploaded, checked: its bytes are of the content type it claims. */
export interface SignerUpload {
  content: Buffer;
  filename: string;
  contentType: string;
}

export type SignerValueCheck =
  | { ok: true; value: string | boolean | null }
  | { ok: true; image: { png: Buffer; typedName: string | null } }
  | { ok: true; upload: SignerUpload }
  | { ok: false; message: string };

/**
 * Checks a value a signer supplies. `null` (or an empty string) clears the field. Signature, initials and
 * stamps come as `{ imagePngBase64, typedName? }`: a PNG of at most 1 MB once decoded. Uploads (File upload,
 * Image upload) come as `{ fileBase64, filename, contentType }`, their bytes checked against the content type.
 * Everything here is cheap (no image data inflated, no PDF read): images and PDFs that pass are inspected
 * further off the event loop by inspectSignerValue (inspect-signer-value.ts) before they are stored.
 */
export function checkSignerValue(field: FieldRules, value: unknown): SignerValueCheck {
  if (field.type === 'Read-only text')
    return { ok: false, message: 'Read-only text fields are not editable' };
  if (value === null || value === '') return { ok: true, value: null };
  if (field.type === 'File upload' || field.type === 'Image upload')
    return checkUploadValue(field.type, value, field.properties);
  if (IMAGE_FIELD_TYPES.includes(field.type)) return checkImageValue(value);
  return checkPlainValue(field, value);
}

function checkImageValue(value: unknown): SignerValueCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'must be an object { imagePngBase64, typedName? }' };
  }
  const { imagePngBase64, typedName, ...rest } = value as Record<string, unknown>;
  const unknownKeys = Object.keys(rest);
  if (unknownKeys.length > 0) return { ok: false, message: `unknown property ${unknownKeys[0]}` };
  if (typeof imagePngBase64 !== 'string' || imagePngBase64 === '' || !BASE64.test(imagePngBase64)) {
    return { ok: false, message: 'imagePngBase64 must be a base64-encoded PNG' };
  }
  if (typedName !== undefined && typedName !== null && typeof typedName !== 'string') {
    return { ok: false, message: 'typedName must be a string' };
  }
  const name = typeof typedName === 'string' ? typedName.trim() : '';
  const nameProblem = textProblem(name);
  if (nameProblem) return { ok: false, message: `typedName ${nameProblem}` };
  if (name.length > MAX_TYPED_NAME)
    return { ok: false, message: `typedName: at most ${MAX_TYPED_NAME} characters` };
  // Decoded size is known before decoding: refuse oversized images without allocating them.
  if (Math.floor((imagePngBase64.length * 3) / 4) > MAX_SIGNER_IMAGE_BYTES + 2) {
    return { ok: false, message: 'the image must be at most 1 MB' };
  }
  const png = Buffer.from(imagePngBase64, 'base64');
  if (png.byteLength > MAX_SIGNER_IMAGE_BYTES)
    return { ok: false, message: 'the image must be at most 1 MB' };
  const problem = pngProblem(png, SIGNER_IMAGE_LIMITS.drawn);
  if (problem && 'size' in problem) return { ok: false, message: problem.size };
  if (problem) return { ok: false, message: `the image must be a PNG: ${problem.structure}` };
  return { ok: true, image: { png, typedName: name === '' ? null : name } };
}

function checkUploadValue(
  type: keyof typeof UPLOAD_RULES,
  value: unknown,
  properties: FieldProperties | null | undefined,
): SignerValueCheck {
  const rule = narrowedUploadRule(type, properties);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'must be an object { fileBase64, filename, contentType }' };
  }
  const { fileBase64, filename, contentType, ...rest } = value as Record<string, unknown>;
  const unknownKeys = Object.keys(rest);
  if (unknownKeys.length > 0) return { ok: false, message: `unknown property ${unknownKeys[0]}` };
  if (typeof filename !== 'string') return { ok: false, message: 'filename must be a string' };
  const name = filename.trim();
  const length = [...name].length;
  if (length < 1 || length > MAX_UPLOAD_FILENAME) {
    return { ok: false, message: `filename must be 1-${MAX_UPLOAD_FILENAME} characters` };
  }
  if (FORBIDDEN_IN_FILENAME.test(name)) {
    return { ok: false, message: 'filename must not contain path separators or control characters' };
  }
  const nameProblem = textProblem(name);
  if (nameProblem) return { ok: false, message: `filename ${nameProblem}` };
  if (name === '.' || name === '..') return { ok: false, message: 'filename must name a file' };
  const allowed: readonly string[] = rule.contentTypes;
  if (typeof contentType !== 'string' || !allowed.includes(contentType)) {
    return { ok: false, message: `contentType must be one of: ${allowed.join(', ')}` };
  }
  if (typeof fileBase64 !== 'string' || fileBase64 === '' || !BASE64.test(fileBase64)) {
    return { ok: false, message: 'fileBase64 must be the base64 of the file (without a data: prefix)' };
  }
  const tooLarge = `the file must be at most ${rule.limit}`;
  if (Math.floor((fileBase64.length * 3) / 4) > rule.maxBytes + 2) return { ok: false, message: tooLarge };
  const content = Buffer.from(fileBase64, 'base64');
  if (content.byteLength > rule.maxBytes) return { ok: false, message: tooLarge };
  const problem = contentProblem(content, contentType);
  if (problem) return { ok: false, message: problem };
  return { ok: true, upload: { content, filename: name, contentType } };
}

/** Why the bytes are not of the content type they are sent as, or undefined when they are. */
function contentProblem(content: Buffer, contentType: string): string | undefined {
  if (contentType === 'image/png') {
    const problem = pngProblem(content, SIGNER_IMAGE_LIMITS.uploaded);
    if (problem && 'size' in problem) return problem.size;
    return problem ? `the content is not a valid PNG (${problem.structure})` : undefined;
  }
  if (contentType === 'image/jpeg') {
    const jpeg = inspectJpeg(content);
    if ('problem' in jpeg) return `the content is not a valid JPEG (${jpeg.problem})`;
    return imageSizeProblem(jpeg.width, jpeg.height, SIGNER_IMAGE_LIMITS.uploaded);
  }
  if (contentType === 'application/pdf') {
    // The rest of the inspection every stored PDF passes (well-formed, within the page and decoding limits,
    // without active content) runs on the inspection pool's threads: inspect-signer-value.ts.
    if (content.subarray(0, 5).toString('latin1') !== '%PDF-') {
      return 'the content is not a PDF (it must start with %PDF-)';
    }
    return undefined;
  }
  return `unsupported content type ${contentType}`;
}

/** The upload rule of the type, narrowed by the field's own limits (its accepted types, its largest size). */
function narrowedUploadRule(
  type: keyof typeof UPLOAD_RULES,
  properties: FieldProperties | null | undefined,
): { contentTypes: readonly string[]; maxBytes: number; limit: string } {
  const rule = UPLOAD_RULES[type];
  const allowed: readonly string[] = rule.contentTypes;
  const contentTypes = properties?.contentTypes?.filter((contentType) => allowed.includes(contentType));
  const maxBytes =
    properties?.maxSizeMb !== undefined
      ? Math.min(rule.maxBytes, Math.floor(properties.maxSizeMb * 1024 * 1024))
      : rule.maxBytes;
  return {
    contentTypes: contentTypes && contentTypes.length > 0 ? contentTypes : allowed,
    maxBytes,
    limit: maxBytes === rule.maxBytes ? rule.limit : sizeText(maxBytes),
  };
}

/** A size as a limit's message says it: MB from 1 MB, KB from 1 KB, else bytes. */
function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(2))} MB`;
  if (bytes >= 1024) return `${Math.floor(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

/** Whether an Israeli identity number (up to 9 digits, padded with zeros) has a valid check digit. */
export function isIsraeliId(text: string): boolean {
  if (!/^\d{1,9}$/.test(text)) return false;
  const digits = text.padStart(9, '0');
  let sum = 0;
  for (let index = 0; index < 9; index += 1) {
    const product = Number(digits[index]) * (index % 2 === 0 ? 1 : 2);
    sum += product > 9 ? product - 9 : product;
  }
  return sum % 10 === 0;
}

/** Whether the address's domain is one of `domains` or a subdomain of one. */
function atAllowedDomain(address: string, domains: readonly string[]): boolean {
  const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
  return domains.some((allowed) => domain === allowed || domain.endsWith(`.${allowed}`));
}

function checkPlainValue(field: FieldRules, value: unknown): FieldValueCheck {
  if (field.type === 'Checkbox') {
    return typeof value === 'boolean' ? { ok: true, value } : { ok: false, message: 'must be true or false' };
  }
  if (typeof value !== 'string') return { ok: false, message: `a ${field.type} value must be a string` };
  const text = value.trim();
  if (text === '') return { ok: false, message: 'must not be empty' };
  const kind: TextKind = MULTILINE_FIELD_TYPES.includes(field.type) ? 'multiline' : 'line';
  const problem = textProblem(text, kind);
  if (problem) return { ok: false, message: problem };
  const limit = TEXT_LIMITS[field.type];
  if (limit !== undefined && text.length > limit)
    return { ok: false, message: `at most ${limit} characters` };
  switch (field.type) {
    case 'Email': {
      if (!email.safeParse(text).success) return { ok: false, message: 'not an email address' };
      const domains = field.properties?.allowedDomains;
      return !domains || atAllowedDomain(text, domains)
        ? { ok: true, value: text }
        : { ok: false, message: `the address must be at ${domains.join(', ')}` };
    }
    case 'Phone': {
      if (!E164.test(text)) return { ok: false, message: 'phone must be in E.164 form' };
      const codes = field.properties?.countryCodes;
      return !codes || codes.some((code) => text.startsWith(`+${code}`))
        ? { ok: true, value: text }
        : { ok: false, message: `the number must start with ${codes.map((code) => `+${code}`).join(', ')}` };
    }
    case 'Date':
      return isoDate.safeParse(text).success
        ? { ok: true, value: text }
        : { ok: false, message: 'date must be an ISO date YYYY-MM-DD' };
    case 'ID number':
      if (field.properties?.idNumberFormat === 'IsraeliId') {
        return isIsraeliId(text)
          ? { ok: true, value: text }
          : { ok: false, message: 'not a valid Israeli ID number (up to 9 digits with a valid check digit)' };
      }
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
