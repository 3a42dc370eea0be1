// Checks a PNG completely before pdf-lib decodes it: pdf-lib's decoder trusts the file, and a truncated or
// corrupt one can make it loop forever or fail with an obscure message. A PNG passes when its chunks are
// whole with correct CRCs, its header is valid, and its image data inflates to exactly the size its header
// announces. The size its header announces can be read first (pngDimensions), and the structure checked
// without inflating (readPngStructure), so a small file announcing a huge image is refused before it costs
// anything.
import { crc32, inflateSync } from 'node:zlib';

export interface PngInfo {
  width: number;
  height: number;
}

/** Largest image accepted, in pixels (a 12-megapixel photo fits; pdf-lib holds it decoded in memory). */
export const MAX_PNG_PIXELS = 40_000_000;

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const BIT_DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};
/** Adam7 passes: starting column, starting row, column step, row step. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

export function isPngSignature(bytes: Uint8Array): boolean {
  return bytes.length >= SIGNATURE.length && SIGNATURE.every((byte, index) => bytes[index] === byte);
}

function scanlineBytes(width: number, bitsPerPixel: number): number {
  return width === 0 ? 0 : 1 + Math.ceil((width * bitsPerPixel) / 8);
}

interface PngHeader {
  width: number;
  height: number;
  depth: number;
  color: number;
  interlace: number;
}

/** The size a PNG's header announces, read before anything else; undefined when there is no header. */
export function pngDimensions(bytes: Uint8Array): PngInfo | undefined {
  if (!isPngSignature(bytes) || bytes.length < 24) return undefined;
  if (String.fromCharCode(...bytes.subarray(12, 16)) !== 'IHDR') return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/**
 * The chunks of a PNG walked and their checksums checked, its header validated and its size bounded, without
 * inflating anything: cheap enough for the API's event loop (a CRC over the file's bytes), while inflating
 * the image data (inspectPng) is not.
 */
export function readPngStructure(
  bytes: Uint8Array,
  maxPixels = MAX_PNG_PIXELS,
): { header: PngHeader; data: Uint8Array[] } | { problem: string } {
  if (!isPngSignature(bytes)) return { problem: 'not a PNG file' };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = SIGNATURE.length;
  let header: PngHeader | undefined;
  let palette = false;
  let ended = false;
  const data: Uint8Array[] = [];
  while (!ended) {
    if (offset + 12 > bytes.length) return { problem: 'truncated PNG' };
    const length = view.getUint32(offset);
    if (offset + 12 + length > bytes.length) return { problem: 'truncated PNG' };
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== view.getUint32(offset + 8 + length)) {
      return { problem: `corrupt PNG (bad checksum in ${type} chunk)` };
    }
    if (header === undefined && type !== 'IHDR') return { problem: 'PNG without a header' };
    if (type === 'IHDR') {
      if (length !== 13) return { problem: 'invalid PNG header' };
      const chunk = new DataView(body.buffer, body.byteOffset, 13);
      header = {
        width: chunk.getUint32(0),
        height: chunk.getUint32(4),
        depth: chunk.getUint8(8),
        color: chunk.getUint8(9),
        interlace: chunk.getUint8(12),
      };
    } else if (type === 'PLTE') {
      palette = true;
    } else if (type === 'IDAT') {
      data.push(body);
    } else if (type === 'IEND') {
      ended = true;
    }
    offset += 12 + length;
  }
  if (!header) return { problem: 'PNG without a header' };
  const { width, height, depth, color, interlace } = header;
  if (width === 0 || height === 0) return { problem: 'empty PNG image' };
  if (!BIT_DEPTHS[color]?.includes(depth) || interlace > 1) return { problem: 'unsupported PNG format' };
  if (color === 3 && !palette) return { problem: 'PNG palette missing' };
  if (width * height > maxPixels) {
    return { problem: `PNG too large (${width} × ${height} pixels, at most ${maxPixels})` };
  }
  if (data.length === 0) return { problem: 'PNG without image data' };
  return { header, data };
}

/** Returns the image size, or a reason the bytes are not a usable PNG (inflates the whole image data). */
export function inspectPng(bytes: Uint8Array, maxPixels = MAX_PNG_PIXELS): PngInfo | { problem: string } {
  const structure = readPngStructure(bytes, maxPixels);
  if ('problem' in structure) return structure;
  const { header, data } = structure;
  const { width, height, depth, color, interlace } = header;
  const bitsPerPixel = (CHANNELS[color] as number) * depth;
  let expected = 0;
  if (interlace === 0) {
    expected = height * scanlineBytes(width, bitsPerPixel);
  } else {
    for (const [x0, y0, dx, dy] of ADAM7) {
      const passWidth = Math.ceil(Math.max(0, width - x0) / dx);
      const passHeight = Math.ceil(Math.max(0, height - y0) / dy);
      expected += passWidth === 0 ? 0 : passHeight * scanlineBytes(passWidth, bitsPerPixel);
    }
  }
  let inflated: Buffer;
  try {
    inflated = inflateSync(Buffer.concat(data), { maxOutputLength: expected + 1 });
  } catch {
    return { problem: 'corrupt PNG image data' };
  }
  if (inflated.length !== expected) return { problem: 'corrupt PNG image data (wrong size)' };
  return { width, height };
}
