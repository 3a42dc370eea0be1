// What a personal stamp's image must be (docs/stamps.md): a PNG or a JPEG recognized by its content — its
// magic bytes, then the whole structure decoded (documents/png.ts inflates a PNG's image data to the exact size
// its header announces; documents/jpeg.ts walks a JPEG's segments to its frame header and the end of the
// image) — of the type the request declares, at most 1 MB, 16 to 2,000 pixels on each side. The declared type
// or a file's name never decides: a PNG sent as `image/jpeg` is refused. Every refusal is a 400 naming
// `body.imageBase64`.
import { createHash } from 'node:crypto';
import { inspectJpeg, isJpegSignature } from '../../../documents/jpeg.ts';
import { inspectPng, isPngSignature } from '../../../documents/png.ts';
import { STAMP_LIMITS, type StampContentType } from '../../../domain/stamp.ts';
import { InvalidRequest } from '../../errors.ts';

export interface CheckedStampImage {
  bytes: Buffer;
  contentType: StampContentType;
  width: number;
  height: number;
  sha256: string;
}

const FIELD = 'body.imageBase64';
const LABEL: Record<StampContentType, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG' };

/** The 400 of the transports' input refusals, naming the field (`Invalid request: body.imageBase64: …`). */
function refused(message: string) {
  return new InvalidRequest(`Invalid request: ${FIELD}: ${message}`, [{ field: FIELD, message }]);
}

function sidesProblem(width: number, height: number): string | undefined {
  const { minSide, maxSide } = STAMP_LIMITS;
  const fits = (side: number) => side >= minSide && side <= maxSide;
  if (fits(width) && fits(height)) return undefined;
  return `the image must be ${minSide} to ${maxSide.toLocaleString('en')} pixels on each side (it is ${width} × ${height})`;
}

/** The size a PNG's header announces, read before anything is inflated; undefined when there is none. */
function pngHeaderSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length < 24 || bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The image of a create or new-version request, checked; throws the 400 naming `body.imageBase64`. */
export function checkStampImage(imageBase64: string, declared: StampContentType): CheckedStampImage {
  const tooLarge = 'the image must be at most 1 MB';
  // The decoded size is known before decoding: an oversized image is refused without allocating it.
  if (Math.floor((imageBase64.length * 3) / 4) > STAMP_LIMITS.maxImageBytes + 2) throw refused(tooLarge);
  const bytes = Buffer.from(imageBase64, 'base64');
  if (bytes.length === 0) throw refused('the image is empty');
  if (bytes.length > STAMP_LIMITS.maxImageBytes) throw refused(tooLarge);
  const actual: StampContentType | undefined = isPngSignature(bytes)
    ? 'image/png'
    : isJpegSignature(bytes)
      ? 'image/jpeg'
      : undefined;
  if (!actual) throw refused('the file is not a PNG or JPEG image');
  if (actual !== declared) {
    throw refused(`the file is a ${LABEL[actual]} image, not ${LABEL[declared]} as contentType says`);
  }
  let size: { width: number; height: number };
  if (actual === 'image/png') {
    // The sides first: a small file can announce a huge image, which is not inflated to find out.
    const announced = pngHeaderSize(bytes);
    const early = announced && sidesProblem(announced.width, announced.height);
    if (early) throw refused(early);
    const png = inspectPng(bytes);
    if ('problem' in png) throw refused(`the PNG image cannot be decoded: ${png.problem}`);
    size = png;
  } else {
    const jpeg = inspectJpeg(bytes);
    if ('problem' in jpeg) throw refused(`the JPEG image cannot be read: ${jpeg.problem}`);
    size = jpeg;
  }
  const problem = sidesProblem(size.width, size.height);
  if (problem) throw refused(problem);
  return {
    bytes,
    contentType: actual,
    width: size.width,
    height: size.height,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}
