// Checks a JPEG's structure before pdf-lib embeds it. pdf-lib does not decode a JPEG: it copies the bytes into
// the PDF (DCTDecode) after reading the size from the first frame header it meets, so whatever it cannot read
// correctly would only show up as a broken image in a reader. A JPEG passes when it starts with SOI, its
// marker segments up to the first scan are whole, its one frame header (baseline, extended sequential or
// progressive, 8 bits, 1, 3 or 4 components) gives a width and a height, and the scan is followed by EOI.

export interface JpegInfo {
  width: number;
  height: number;
  components: number;
}

/** Largest image accepted, in pixels: the same bound as for PNG (a reader decodes it in memory). */
export const MAX_JPEG_PIXELS = 40_000_000;

const SOI = 0xd8;
const EOI = 0xd9;
const SOS = 0xda;
/** Frame types readers handle: baseline, extended sequential and progressive, all Huffman-coded. */
const SUPPORTED_FRAMES = new Set([0xc0, 0xc1, 0xc2]);

export function isJpegSignature(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === SOI && bytes[2] === 0xff;
}

/** A start-of-frame marker: C0–CF except DHT (C4), JPG (C8) and DAC (CC). */
function isFrameMarker(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** Returns the image size, or a reason the bytes are not a usable JPEG. */
export function inspectJpeg(bytes: Uint8Array): JpegInfo | { problem: string } {
  if (!isJpegSignature(bytes)) return { problem: 'not a JPEG file' };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let frame: JpegInfo | undefined;
  let offset = 2;
  for (;;) {
    if (offset + 4 > bytes.length) return { problem: 'truncated JPEG' };
    if (bytes[offset] !== 0xff) return { problem: 'corrupt JPEG (marker expected)' };
    const marker = bytes[offset + 1] as number;
    if (marker === EOI) return { problem: 'JPEG without image data' };
    // Fill bytes, a second SOI or restart markers have no place before the first scan.
    if (marker === 0xff || marker === SOI || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      return { problem: 'corrupt JPEG (unexpected marker)' };
    }
    const length = view.getUint16(offset + 2);
    if (length < 2) return { problem: 'corrupt JPEG (bad segment length)' };
    if (offset + 2 + length > bytes.length) return { problem: 'truncated JPEG' };
    const segment = bytes.subarray(offset + 4, offset + 2 + length);
    if (isFrameMarker(marker)) {
      if (frame) return { problem: 'JPEG with more than one frame' };
      if (!SUPPORTED_FRAMES.has(marker)) {
        return { problem: 'unsupported JPEG format (only baseline and progressive JPEGs)' };
      }
      if (segment.length < 6) return { problem: 'corrupt JPEG (short frame header)' };
      const header = new DataView(segment.buffer, segment.byteOffset, segment.byteLength);
      const precision = header.getUint8(0);
      const height = header.getUint16(1);
      const width = header.getUint16(3);
      const components = header.getUint8(5);
      if (precision !== 8) return { problem: `unsupported JPEG format (${precision} bits per sample)` };
      if (width === 0 || height === 0) return { problem: 'JPEG without a size in its frame header' };
      if (components !== 1 && components !== 3 && components !== 4) {
        return { problem: `unsupported JPEG format (${components} colour components)` };
      }
      if (segment.length !== 6 + 3 * components) return { problem: 'corrupt JPEG (bad frame header)' };
      if (width * height > MAX_JPEG_PIXELS) {
        return { problem: `JPEG too large (${width} × ${height} pixels, at most ${MAX_JPEG_PIXELS})` };
      }
      frame = { width, height, components };
    }
    if (marker === SOS) {
      if (!frame) return { problem: 'JPEG without a frame header' };
      const scanStart = offset + 2 + length;
      // The entropy-coded data never holds FF D9 (an FF in it is followed by 00 or a restart marker).
      const end = lastEoi(bytes);
      if (end <= scanStart) return { problem: 'truncated JPEG (no end of image)' };
      return frame;
    }
    offset += 2 + length;
  }
}

function lastEoi(bytes: Uint8Array): number {
  for (let index = bytes.length - 2; index >= 0; index -= 1) {
    if (bytes[index] === 0xff && bytes[index + 1] === EOI) return index;
  }
  return -1;
}
