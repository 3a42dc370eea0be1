// The one check every PDF passes before Sigil stores it (file uploads and template creation): judged by
// content, never by name or declared type. A refusal is an InvalidRequest that says why in words the
// uploader can act on; an accepted PDF comes back with its page sizes and SHA-256.
import { createHash } from 'node:crypto';
import { EncryptedPDFError, PDFDocument } from 'pdf-lib';
import { InvalidRequest } from '../../errors.ts';

export interface PdfPageSize {
  /** Points (1/72 inch), from the page's MediaBox. */
  width: number;
  height: number;
}

export interface PdfInspection {
  pageCount: number;
  pages: PdfPageSize[];
  /** Lowercase hex SHA-256 of the bytes as given. */
  sha256: string;
}

export interface InspectPdfOptions {
  /** The largest accepted size in bytes. */
  maxBytes: number;
  /** The request field the error details name: `file` for uploads, `pdf` for templates. */
  field?: string;
}

const MEBIBYTE = 1024 * 1024;
/** PDF readers look for the `%%EOF` marker in the last 1024 bytes; so does this check. */
const EOF_WINDOW = 1024;
/** Trailer dictionaries are small; a section longer than this is not looked at further. */
const TRAILER_SECTION_MAX = 16 * 1024;
/** The `/Encrypt` key, ended by a PDF delimiter or whitespace (so `/EncryptMetadata` does not count). */
const ENCRYPT_KEY = /\/Encrypt(?=[\s()<>[\]{}/%]|$)/;

/** `25 MB`, or `0.0195 MB` for limits that are not whole megabytes. */
export function formatMegabytes(bytes: number): string {
  const megabytes = bytes / MEBIBYTE;
  return `${Number.isInteger(megabytes) ? megabytes : Number(megabytes.toPrecision(3))} MB`;
}

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
 * Checks that `bytes` is a complete, readable, unencrypted PDF of at least one page and no more than
 * `maxBytes`; throws InvalidRequest (details `[{ field, message }]`) naming the first problem found.
 */
export async function inspectPdf(bytes: Uint8Array, options: InspectPdfOptions): Promise<PdfInspection> {
  const field = options.field ?? 'file';
  const refuse = (message: string, detail: string) =>
    new InvalidRequest(message, [{ field, message: detail }]);

  if (bytes.byteLength === 0) throw refuse('The file is empty.', 'empty file');
  if (bytes.byteLength > options.maxBytes) throw fileTooLarge(options.maxBytes, field);

  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  if (!text.startsWith('%PDF-')) {
    throw refuse('The file is not a PDF (it does not start with %PDF-).', 'not a PDF');
  }
  const encrypted = () =>
    refuse(
      'The PDF is encrypted or password-protected: encrypted PDFs are not accepted; remove the password and upload again.',
      'encrypted PDF',
    );
  // Before parsing: an encrypted PDF's object streams cannot be decoded, so a parser would only call it
  // damaged, while the trailer (or cross-reference stream) dictionary says in plain text that it is encrypted.
  if (declaresEncryption(text)) throw encrypted();
  if (!text.slice(-EOF_WINDOW).includes('%%EOF')) {
    throw refuse(
      'The PDF is incomplete: it has no %%EOF end marker, so the file was probably cut off during upload or saving.',
      'incomplete PDF (no %%EOF end marker)',
    );
  }

  let document: PDFDocument;
  try {
    // pdf-lib is lenient: without throwOnInvalidObject it skips objects it cannot parse, and it does not
    // use the cross-reference table at all, so a damaged file can load with pages missing.
    document = await PDFDocument.load(bytes, {
      ignoreEncryption: true,
      throwOnInvalidObject: true,
      updateMetadata: false,
    });
  } catch (error) {
    if (error instanceof EncryptedPDFError) throw encrypted();
    throw refuse(`The PDF is damaged and could not be read (${describe(error)}).`, 'damaged PDF');
  }
  // isEncrypted only holds when the /Encrypt reference resolves; a trailer naming one at all is enough.
  if (document.isEncrypted || document.context.trailerInfo.Encrypt !== undefined) throw encrypted();

  let pages: PdfPageSize[];
  let declaredCount: number;
  try {
    pages = document.getPages().map((page) => {
      const { width, height } = page.getSize();
      return { width: Math.abs(width), height: Math.abs(height) };
    });
    declaredCount = document.catalog.Pages().Count().asNumber();
  } catch (error) {
    throw refuse(`The PDF is damaged: its pages could not be read (${describe(error)}).`, 'damaged PDF');
  }
  if (pages.length === 0) throw refuse('The PDF has no pages.', 'no pages');
  if (declaredCount !== pages.length) {
    throw refuse(
      `The PDF is damaged: it declares ${declaredCount} page(s) but only ${pages.length} could be read.`,
      'damaged PDF (pages missing)',
    );
  }
  const badPage = pages.findIndex(
    (page) =>
      !(Number.isFinite(page.width) && Number.isFinite(page.height) && page.width > 0 && page.height > 0),
  );
  if (badPage !== -1) {
    throw refuse(`The PDF is damaged: page ${badPage + 1} has no usable size.`, 'damaged PDF (page size)');
  }

  return {
    pageCount: pages.length,
    pages,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

/**
 * Whether any trailer dictionary (classic `trailer << ... >>`, or the dictionary of a cross-reference
 * stream, which is never encrypted itself) holds an /Encrypt entry. Looks at those dictionaries only, so
 * the word in page content does not count.
 */
function declaresEncryption(text: string): boolean {
  for (const match of text.matchAll(/trailer\s*<</g)) {
    const start = match.index;
    const end = text.indexOf('startxref', start);
    const section = text.slice(start, Math.min(end === -1 ? text.length : end, start + TRAILER_SECTION_MAX));
    if (ENCRYPT_KEY.test(section)) return true;
  }
  for (const match of text.matchAll(/\/Type\s*\/XRef(?=[\s()<>[\]{}/%]|$)/g)) {
    const start = Math.max(text.lastIndexOf('obj', match.index), match.index - TRAILER_SECTION_MAX, 0);
    const streamAt = text.indexOf('stream', match.index);
    const end = Math.min(streamAt === -1 ? text.length : streamAt, match.index + TRAILER_SECTION_MAX);
    if (ENCRYPT_KEY.test(text.slice(start, end))) return true;
  }
  return false;
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}
