// What a personal stamp's image must be (docs/stamps.md): a PNG or a JPEG recognized by its content — its
// magic bytes, then the whole structure decoded (pdf/png.ts inflates a PNG's image data to the exact size
// its header announces; pdf/jpeg.ts walks a JPEG's segments to its frame header and the end of the
// image) — of the type the request declares, at most 1 MB, 16 to 2,000 pixels on each side. The declared type
// or a file's name never decides: a PNG sent as `image/jpeg` is refused. Every refusal is a 400 naming
// `body.imageBase64`. A PNG is inflated on the inspection pool's threads (never on the event loop) and kept at
// most STORED_STAMP_MAX_SIDE pixels on its long side (scaled down when larger: pdf-lib decodes a PNG whole
// to draw it); a JPEG is kept as it is (pdf-lib copies it into the PDF without decoding it).
import { createHash } from 'node:crypto';
import { STAMP_LIMITS, type StampContentType } from '../../domain/stamp.ts';
import { inspectJpeg, isJpegSignature } from '../../pdf/jpeg.ts';
import { isPngSignature, pngDimensions } from '../../pdf/png.ts';
import { InvalidRequest } from '../errors.ts';
import { inspectionPool } from '../files/inspection-pool.ts';

export interface CheckedStampImage {
  bytes: Buffer;
  contentType: StampContentType;
  width: number;
  height: number;
  sha256: string;
}

const FIELD = 'body.imageBase64';
/**
 * The long side of a stored PNG stamp at most, in pixels: a stamp drawn in a 250-point box still has four
 * pixels per point (about 288 dpi).
 */
export const STORED_STAMP_MAX_SIDE = 1000;
/** How long decoding (and scaling) a stamp image may take on a pool thread. */
const DECODE_TIME_LIMIT_MS = 10_000;
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

/**
 * The image of a create or new-version request, checked (and a large PNG scaled down); throws the 400 naming
 * `body.imageBase64`. `client` is the owner's turn in the inspection pool (organizationClient).
 */
export async function checkStampImage(
  imageBase64: string,
  declared: StampContentType,
  client: string,
): Promise<CheckedStampImage> {
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
  let stored: Buffer = bytes;
  if (actual === 'image/png') {
    // The sides first: a small file can announce a huge image, which is not inflated to find out.
    const announced = pngDimensions(bytes);
    const early = announced && sidesProblem(announced.width, announced.height);
    if (early) throw refused(early);
    const { maxSide } = STAMP_LIMITS;
    const outcome = await inspectionPool().run(
      client,
      {
        kind: 'png',
        bytes,
        maxPixels: maxSide * maxSide,
        fit: { width: STORED_STAMP_MAX_SIDE, height: STORED_STAMP_MAX_SIDE },
      },
      DECODE_TIME_LIMIT_MS,
    );
    if (outcome.kind !== 'png') {
      const problem =
        outcome.kind === 'png-problem'
          ? outcome.problem
          : `it takes longer than ${DECODE_TIME_LIMIT_MS / 1000} s to decode`;
      throw refused(`the PNG image cannot be decoded: ${problem}`);
    }
    // The sides were checked on the image as sent (the worker reads the same header); what is stored may be
    // smaller.
    const { png } = outcome.image;
    stored = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
    size = outcome.image;
  } else {
    const jpeg = inspectJpeg(bytes);
    if ('problem' in jpeg) throw refused(`the JPEG image cannot be read: ${jpeg.problem}`);
    const problem = sidesProblem(jpeg.width, jpeg.height);
    if (problem) throw refused(problem);
    size = jpeg;
  }
  return {
    bytes: stored,
    contentType: actual,
    width: size.width,
    height: size.height,
    sha256: createHash('sha256').update(stored).digest('hex'),
  };
}
