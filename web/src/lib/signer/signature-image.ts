// The image an adopted signature or initials are saved as: a PNG within the limits the signer API enforces on a
// signature's image (services/fields/field-value.ts: at most 1 MB, 4,096 pixels a side and 8,000,000 pixels in
// all). A drawing is cut to what was drawn; a typed name is written in the chosen signature font; an uploaded
// PNG or JPEG is scaled down to fit and written again as a PNG.

/** The signer API's limits on a signature's PNG (MAX_SIGNER_IMAGE_BYTES and SIGNER_IMAGE_LIMITS.drawn). */
export const SIGNATURE_PNG_LIMITS = { maxBytes: 1024 * 1024, maxSide: 4096, maxPixels: 8_000_000 } as const;
/** The largest picture a signer may choose to upload as a signature (it is scaled down before it is sent). */
export const SIGNATURE_UPLOAD_MAX_BYTES = 10 * 1024 * 1024;
export const SIGNATURE_UPLOAD_TYPES = ['image/png', 'image/jpeg'] as const;
/** An uploaded signature is scaled to fit this box (CSS pixels are not involved: these are the PNG's). */
const UPLOAD_FIT = { width: 1200, height: 480 };
const INK = '#0b2a6b';

export interface AdoptedImage {
  imagePngBase64: string;
  typedName?: string;
}

function base64Of(canvas: HTMLCanvasElement): string {
  return canvas.toDataURL('image/png').replace(/^data:image\/png;base64,/, '');
}

function bytesOf(base64: string): number {
  return Math.floor((base64.length * 3) / 4);
}

/** The part of a canvas that has ink on it, with a small margin; the whole canvas when nothing is drawn. */
export function trimmed(source: HTMLCanvasElement, margin = 8): HTMLCanvasElement {
  const context = source.getContext('2d');
  if (!context) return source;
  const { width, height } = source;
  const pixels = context.getImageData(0, 0, width, height).data;
  let top = height;
  let left = width;
  let right = -1;
  let bottom = -1;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      if ((pixels[(y * width + x) * 4 + 3] ?? 0) === 0) continue;
      if (y < top) top = y;
      if (y > bottom) bottom = y;
      if (x < left) left = x;
      if (x > right) right = x;
    }
  }
  if (right < 0) return source;
  const x = Math.max(0, left - margin);
  const y = Math.max(0, top - margin);
  const out = document.createElement('canvas');
  out.width = Math.min(width, right + margin + 1) - x;
  out.height = Math.min(height, bottom + margin + 1) - y;
  out.getContext('2d')?.drawImage(source, x, y, out.width, out.height, 0, 0, out.width, out.height);
  return out;
}

/** A drawn signature's PNG (the pad's canvas, cut to the drawing). */
export function drawnPng(pad: HTMLCanvasElement): string {
  return base64Of(trimmed(pad));
}

/** Whether a text starts right to left (Hebrew), so the canvas writes it that way. */
function rightToLeft(text: string): boolean {
  const strong = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]|[A-Za-z\u00c0-\u024f]/.exec(text);
  return !!strong && /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]/.test(strong[0]);
}

/** A typed name written in a signature font (`font`: a CSS font shorthand without the size). */
export async function typedPng(name: string, font: { family: string; weight: number }): Promise<string> {
  const size = 96;
  const shorthand = `${font.weight} ${size}px ${font.family}`;
  await document.fonts.load(shorthand, name);
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no canvas');
  context.font = shorthand;
  const width = Math.ceil(context.measureText(name).width) + size;
  canvas.width = Math.min(width, SIGNATURE_PNG_LIMITS.maxSide);
  canvas.height = Math.round(size * 1.8);
  context.font = shorthand;
  context.fillStyle = INK;
  context.textAlign = 'center';
  context.textBaseline = 'middle';
  context.direction = rightToLeft(name) ? 'rtl' : 'ltr';
  context.fillText(name, canvas.width / 2, canvas.height / 2, canvas.width - size / 2);
  return base64Of(trimmed(canvas));
}

export type UploadProblem = 'type' | 'size' | 'unreadable' | 'tooLarge';

/** An uploaded picture as a signature's PNG, scaled to fit; or why it cannot be one. */
export async function uploadedPng(file: File): Promise<{ png: string } | { problem: UploadProblem }> {
  if (!(SIGNATURE_UPLOAD_TYPES as readonly string[]).includes(file.type)) return { problem: 'type' };
  if (file.size === 0 || file.size > SIGNATURE_UPLOAD_MAX_BYTES) return { problem: 'size' };
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return { problem: 'unreadable' };
  }
  let fit = Math.min(1, UPLOAD_FIT.width / bitmap.width, UPLOAD_FIT.height / bitmap.height);
  const canvas = document.createElement('canvas');
  for (let attempt = 0; attempt < 6; attempt += 1) {
    canvas.width = Math.max(1, Math.round(bitmap.width * fit));
    canvas.height = Math.max(1, Math.round(bitmap.height * fit));
    const context = canvas.getContext('2d');
    context?.clearRect(0, 0, canvas.width, canvas.height);
    context?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    const png = base64Of(canvas);
    if (bytesOf(png) <= SIGNATURE_PNG_LIMITS.maxBytes) {
      bitmap.close();
      return { png };
    }
    fit *= 0.7;
  }
  bitmap.close();
  return { problem: 'tooLarge' };
}

/** A person's initials from their name: the first letter of each word, at most three ("Dana R. Levi" → "DRL"). */
export function initialsOf(name: string): string {
  return name
    .split(/\s+/)
    .map((word) => word.replace(/[^\p{L}]/gu, '').charAt(0))
    .filter(Boolean)
    .slice(0, 3)
    .join('')
    .toLocaleUpperCase();
}
