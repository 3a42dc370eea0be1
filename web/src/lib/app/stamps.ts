// Personal stamps in the browser (docs/stamps.md): the shapes of the server's answers (domain/stamp.ts,
// imported as types only), the address of a version's image, and reading an image file before it is sent —
// what it is by its first bytes (the declared type is then the file's real one), its size and its pixels —
// so that most refusals are said in the page's language before anything travels. The server checks it all
// again, and more (a full decode).
import type { z } from 'zod';
import type * as stamp from '../../../../domain/stamp.ts';
import type { STAMP_FILE_PROBLEMS } from './stamp-problems.ts';

export type UserStampView = z.output<typeof stamp.UserStamp>;
export type UserStampVersionView = z.output<typeof stamp.UserStampVersion>;
export type StampLimits = z.output<typeof stamp.UserStampList>['limits'];
export type StampContentType = stamp.StampContentType;
export type PersonalStampOffer = z.output<typeof stamp.PersonalStampOffer>;

/** The image of a stamp's version (its bytes never change, so the browser may keep it). */
export function stampImageUrl(stampId: string, versionId: string): string {
  return `/api/me/stamps/${encodeURIComponent(stampId)}/image?versionId=${encodeURIComponent(versionId)}`;
}

export interface StampFile {
  contentType: StampContentType;
  imageBase64: string;
  width: number;
  height: number;
}

export type StampFileProblem =
  | { problem: (typeof STAMP_FILE_PROBLEMS)[number] }
  | { problem: 'sides'; width: number; height: number };

function contentTypeOf(bytes: Uint8Array): StampContentType | undefined {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (png.every((byte, index) => bytes[index] === byte)) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return undefined;
}

function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (let offset = 0; offset < bytes.length; offset += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(offset, offset + 0x8000));
  }
  return btoa(binary);
}

/** The file as a stamp request's image, or why it cannot be one. */
export async function readStampFile(file: File, limits: StampLimits): Promise<StampFile | StampFileProblem> {
  if (file.size === 0) return { problem: 'empty' };
  if (file.size > limits.maxImageBytes) return { problem: 'tooLarge' };
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = new Uint8Array(await file.arrayBuffer());
  } catch {
    return { problem: 'unreadable' };
  }
  const contentType = contentTypeOf(bytes);
  if (!contentType) return { problem: 'notImage' };
  let width: number;
  let height: number;
  try {
    const bitmap = await createImageBitmap(new Blob([bytes], { type: contentType }));
    width = bitmap.width;
    height = bitmap.height;
    bitmap.close();
  } catch {
    return { problem: 'unreadable' };
  }
  const fits = (side: number) => side >= limits.minSide && side <= limits.maxSide;
  if (!fits(width) || !fits(height)) return { problem: 'sides', width, height };
  return { contentType, imageBase64: base64Of(bytes), width, height };
}

/** The units of sizes, as each language writes them (Hebrew text reads them right to left). */
const UNITS: Record<string, { kilo: string; mega: string }> = {
  en: { kilo: 'KB', mega: 'MB' },
  he: { kilo: 'ק״ב', mega: 'מ״ב' },
};

/** `24 KB`, `1.2 MB` (`24 ק״ב` in Hebrew) in the page's language. */
export function formatBytes(bytes: number, language: string): string {
  const number = new Intl.NumberFormat(language, { maximumFractionDigits: 1 });
  const units = UNITS[language] ?? UNITS.en ?? { kilo: 'KB', mega: 'MB' };
  return bytes >= 1024 * 1024
    ? `${number.format(bytes / (1024 * 1024))} ${units.mega}`
    : `${number.format(Math.max(1, Math.round(bytes / 1024)))} ${units.kilo}`;
}
