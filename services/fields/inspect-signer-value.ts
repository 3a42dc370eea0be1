// The second half of checking a signer's value, for what costs real CPU or memory: it runs on the inspection
// pool's threads (services/files/inspection-pool.ts), in the signer's own turn, never on the API's event
// loop. checkSignerValue (field-value.ts) has already checked shapes, sizes, headers and chunk checksums and
// bounded the pixel size an image announces; here a PNG's image data is inflated to check it, a drawn image
// (signature, initials, company stamp) is scaled down to what its field's box needs, and a PDF is read as
// every stored PDF is (inspect-pdf.ts). Refusals read as before: "<label>: <message>" of the field.
import { InvalidRequest } from '../errors.ts';
import { refusalPhrase } from '../files/check-pdf.ts';
import { inspectPdf } from '../files/inspect-pdf.ts';
import { inspectionPool } from '../files/inspection-pool.ts';
import { SIGNER_IMAGE_LIMITS, type SignerValueCheck } from './field-value.ts';

/**
 * Pixels per point a stored drawn image keeps at most: four (288 dots per inch) — sharper than print needs, at
 * a small part of what a signature pad at a high pixel density or a large file could hold.
 */
export const DRAWN_IMAGE_PIXELS_PER_POINT = 4;
/**
 * How long decoding (and scaling) one image may take on a pool thread: the pixel bounds already bound the work
 * (an 8-megapixel PNG takes about a second); this stops only what never ends, with room for a busy machine.
 */
const IMAGE_TIME_LIMIT_MS = 10_000;

type SignerValueSuccess = Extract<SignerValueCheck, { ok: true }>;

/** The field's box, in points: drawn images are scaled to fit it at DRAWN_IMAGE_PIXELS_PER_POINT. */
export interface FieldBox {
  width: number;
  height: number;
}

/**
 * The check completed: a drawn image scaled to its box (or as it was, when it fits), an upload confirmed, or a
 * refusal. `client` is the signer's turn in the pool (signerClient); a full queue throws 429 or 503.
 */
export async function inspectSignerValue(
  box: FieldBox,
  check: SignerValueSuccess,
  client: string,
): Promise<SignerValueCheck> {
  if ('image' in check) {
    const outcome = await inspectionPool().run(
      client,
      {
        kind: 'png',
        bytes: check.image.png,
        maxPixels: SIGNER_IMAGE_LIMITS.drawn.maxPixels,
        fit: {
          width: Math.ceil(box.width * DRAWN_IMAGE_PIXELS_PER_POINT),
          height: Math.ceil(box.height * DRAWN_IMAGE_PIXELS_PER_POINT),
        },
      },
      IMAGE_TIME_LIMIT_MS,
    );
    if (outcome.kind === 'png') {
      const { png } = outcome.image;
      return {
        ok: true,
        image: {
          png: Buffer.from(png.buffer, png.byteOffset, png.byteLength),
          typedName: check.image.typedName,
        },
      };
    }
    return { ok: false, message: `the image must be a PNG: ${imageProblem(outcome)}` };
  }
  if (!('upload' in check)) return check;
  const { content, contentType } = check.upload;
  if (contentType === 'image/png') {
    const outcome = await inspectionPool().run(
      client,
      { kind: 'png', bytes: content, maxPixels: SIGNER_IMAGE_LIMITS.uploaded.maxPixels },
      IMAGE_TIME_LIMIT_MS,
    );
    return outcome.kind === 'png'
      ? check
      : { ok: false, message: `the content is not a valid PNG (${imageProblem(outcome)})` };
  }
  if (contentType === 'application/pdf') {
    try {
      await inspectPdf(content, { maxBytes: content.byteLength, client });
      return check;
    } catch (error) {
      if (!(error instanceof InvalidRequest)) throw error;
      return { ok: false, message: refusalPhrase(error.message) };
    }
  }
  return check;
}

function imageProblem(outcome: { kind: string; problem?: string }): string {
  if (outcome.kind === 'png-problem' && outcome.problem) return outcome.problem;
  if (outcome.kind === 'overrun')
    return `the image takes longer than ${IMAGE_TIME_LIMIT_MS / 1000} s to decode`;
  throw new Error(`unexpected answer of the inspection pool: ${outcome.kind}`);
}
