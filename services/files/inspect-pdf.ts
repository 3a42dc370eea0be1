// The one check every PDF passes before Sigil stores it: uploads (POST /api/v1/files/upload), template
// sources (createTemplate, also from `sigil template create`) and the PDFs signers attach to File upload
// fields. Judged by content, never by name or declared type. A refusal says why in words the uploader can
// act on and never carries a parser's own error text; an accepted PDF comes back with its page sizes and
// SHA-256. The file is read under the limits of pdf-limits.ts (pages, decoded bytes, time) by a strict
// reader (pdf-reader.ts) and scanned for active content (pdf-active-content.ts), which is refused. The reading
// runs on the inspection pool's threads (inspection-pool.ts), so a file built to exhaust the reader never
// holds up the API's event loop (the reading itself: check-pdf.ts).
import { InvalidRequest } from '../errors.ts';
import { checkPdf, type PdfInspection } from './check-pdf.ts';
import { inspectionPool } from './inspection-pool.ts';
import { formatMegabytes, PDF_LIMITS, type PdfLimits, PdfRefusal, tooSlow } from './pdf-limits.ts';

export { formatMegabytes, PDF_LIMITS, PdfRefusal };

export interface InspectPdfOptions {
  /** The largest accepted size in bytes. */
  maxBytes: number;
  /** The request field the error details name: `file` for uploads, `pdf` for templates. */
  field?: string;
  /** Pages, decoded bytes and time; PDF_LIMITS unless given (tests use smaller ones). */
  limits?: Partial<PdfLimits>;
}

export interface InspectPdfOffLoopOptions extends InspectPdfOptions {
  /**
   * Whose file it is, for the inspection pool's turns (inspection-pool.ts): `organization:<id>` for a member or
   * an integration, `signer:<recipient id>` for a signer. A client's files wait behind each other, not others'.
   */
  client: string;
}

const MEBIBYTE = 1024 * 1024;
/** The refusal of a file over the size limit; the upload route answers the same for a stream cut short. */
export function fileTooLarge(maxBytes: number, field = 'file'): InvalidRequest {
  const limit = formatMegabytes(maxBytes);
  const exact = Number.isInteger(maxBytes / MEBIBYTE) ? '' : ` (${maxBytes} bytes)`;
  return new InvalidRequest(
    `The file is larger than the upload limit of ${limit}${exact}.`,
    [{ field, message: `larger than ${limit}${exact}` }],
    'file_too_large',
  );
}

/**
 * Checks that `bytes` is a complete, well-formed, unencrypted PDF of 1 to `maxPages` pages, no larger than
 * `maxBytes`, within the decoding and time budgets and without active content; throws InvalidRequest
 * (details `[{ field, message }]`) naming the first problem found. The reading runs on the inspection pool's
 * threads (inspection-pool.ts), in the client's turn; a full queue is a 429 or 503 (with Retry-After).
 */
export async function inspectPdf(
  bytes: Uint8Array,
  options: InspectPdfOffLoopOptions,
): Promise<PdfInspection> {
  const field = options.field ?? 'file';
  if (bytes.byteLength > options.maxBytes) throw fileTooLarge(options.maxBytes, field);
  const limits = { ...PDF_LIMITS, ...options.limits };
  const outcome = await inspectionPool().run(
    options.client,
    { kind: 'pdf', bytes, limits },
    limits.maxParseMilliseconds,
  );
  if (outcome.kind === 'pdf') return outcome.inspection;
  const refusal =
    outcome.kind === 'refused'
      ? new PdfRefusal(outcome.message, outcome.detail, outcome.code)
      : outcome.kind === 'overrun'
        ? tooSlow(limits)
        : undefined;
  if (!refusal) throw new Error(`unexpected answer of the inspection pool: ${outcome.kind}`);
  throw new InvalidRequest(refusal.message, [{ field, message: refusal.detail }], refusal.code);
}

/** inspectPdf on the calling thread (the pool's threads run this; tests use it to read a refusal's shape). */
export function inspectPdfNow(bytes: Uint8Array, options: InspectPdfOptions): PdfInspection {
  const field = options.field ?? 'file';
  if (bytes.byteLength > options.maxBytes) throw fileTooLarge(options.maxBytes, field);
  try {
    return checkPdf(bytes, { ...PDF_LIMITS, ...options.limits });
  } catch (error) {
    if (error instanceof PdfRefusal) {
      throw new InvalidRequest(error.message, [{ field, message: error.detail }], error.code);
    }
    throw error;
  }
}
