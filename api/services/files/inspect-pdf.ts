// The one check every PDF passes before Sigil stores it: uploads (POST /api/v1/files/upload), template
// sources (createTemplate, also from `sigil template create`) and the PDFs signers attach to File upload
// fields. Judged by content, never by name or declared type. A refusal says why in words the uploader can
// act on and never carries a parser's own error text; an accepted PDF comes back with its page sizes and
// SHA-256. The file is read under the limits of pdf-limits.ts (pages, decoded bytes, time) by a strict
// reader (pdf-reader.ts) and scanned for active content (pdf-active-content.ts), which is refused.
import { createHash } from 'node:crypto';
import { PDFArray, type PDFContext, PDFDict, PDFName, PDFNumber, PDFRef } from 'pdf-lib';
import { InvalidRequest } from '../../errors.ts';
import { findActiveContent } from './pdf-active-content.ts';
import { formatMegabytes, PDF_LIMITS, PdfBudget, type PdfLimits, PdfRefusal } from './pdf-limits.ts';
import { damaged, readPdfFile } from './pdf-reader.ts';

export { formatMegabytes, PDF_LIMITS, PdfRefusal };

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
  /** Pages, decoded bytes and time; PDF_LIMITS unless given (tests use smaller ones). */
  limits?: Partial<PdfLimits>;
}

const MEBIBYTE = 1024 * 1024;
/** Trailer dictionaries are small; a section longer than this is not looked at further. */
const TRAILER_SECTION_MAX = 16 * 1024;
/** The `/Encrypt` key, ended by a PDF delimiter or whitespace (so `/EncryptMetadata` does not count). */
const ENCRYPT_KEY = /\/Encrypt(?=[\s()<>[\]{}/%]|$)/;
/** Page trees are a few levels deep; a deeper one is built to exhaust a reader's stack. */
const MAX_PAGE_TREE_DEPTH = 64;
/** What may follow the last %%EOF: line ends, spaces and NUL padding. */
const TRAILING_PADDING = /^[\s\0]*$/;

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
 * (details `[{ field, message }]`) naming the first problem found.
 */
export async function inspectPdf(bytes: Uint8Array, options: InspectPdfOptions): Promise<PdfInspection> {
  return inspectPdfNow(bytes, options);
}

/** inspectPdf, synchronously (the signer's field values are checked by synchronous code). */
export function inspectPdfNow(bytes: Uint8Array, options: InspectPdfOptions): PdfInspection {
  const field = options.field ?? 'file';
  if (bytes.byteLength > options.maxBytes) throw fileTooLarge(options.maxBytes, field);
  try {
    return readAndCheck(bytes, { ...PDF_LIMITS, ...options.limits });
  } catch (error) {
    if (error instanceof PdfRefusal) {
      throw new InvalidRequest(error.message, [{ field, message: error.detail }], error.code);
    }
    throw error;
  }
}

/**
 * Why `bytes` is not an acceptable PDF, as a phrase to follow a field's label ("Contract: the PDF …"), or
 * undefined when it is one. For values whose size was checked already.
 */
export function pdfProblem(bytes: Uint8Array, limits?: Partial<PdfLimits>): string | undefined {
  try {
    readAndCheck(bytes, { ...PDF_LIMITS, ...limits });
    return undefined;
  } catch (error) {
    if (!(error instanceof PdfRefusal)) throw error;
    const sentence = error.message.replace(/\.$/, '');
    return `${sentence.charAt(0).toLowerCase()}${sentence.slice(1)}`;
  }
}

function readAndCheck(bytes: Uint8Array, limits: PdfLimits): PdfInspection {
  if (bytes.byteLength === 0) throw new PdfRefusal('The file is empty.', 'empty file');
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  if (!text.startsWith('%PDF-')) {
    throw new PdfRefusal('The file is not a PDF (it does not start with %PDF-).', 'not a PDF');
  }
  // Before parsing: an encrypted PDF's object streams cannot be decoded, so a parser would only call it
  // damaged, while the trailer (or cross-reference stream) dictionary says in plain text that it is encrypted.
  if (declaresEncryption(text)) throw encrypted();
  const end = text.lastIndexOf('%%EOF');
  if (end === -1) {
    throw new PdfRefusal(
      'The PDF is incomplete: it has no %%EOF end marker, so the file was probably cut off during upload or saving.',
      'incomplete PDF (no %%EOF end marker)',
    );
  }
  if (!TRAILING_PADDING.test(text.slice(end + 5))) {
    throw new PdfRefusal(
      'The PDF has data after its %%EOF end marker: the file was cut off while an update was saved, or something was appended to it.',
      'data after the end of the PDF',
    );
  }

  const budget = new PdfBudget(limits);
  const { context, definitions } = readPdfFile(bytes, budget);
  // pdf-lib's own test (isEncrypted) only holds when the /Encrypt reference resolves; naming one is enough.
  if (context.trailerInfo.Encrypt !== undefined) throw encrypted();

  const kinds = findActiveContent(context, definitions);
  if (kinds.length > 0) {
    throw new PdfRefusal(
      `The PDF contains active content, which is not accepted: ${kinds.join(', ')}. Save or print it as a new PDF without scripts, actions, attachments or XFA forms and upload that.`,
      `active content: ${kinds.join(', ')}`,
    );
  }
  budget.checkTime();

  const pages = readPages(context, limits.maxPages);
  return {
    pageCount: pages.length,
    pages,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

function encrypted(): PdfRefusal {
  return new PdfRefusal(
    'The PDF is encrypted or password-protected: encrypted PDFs are not accepted; remove the password and upload again.',
    'encrypted PDF',
  );
}

function tooManyPages(maxPages: number): PdfRefusal {
  return new PdfRefusal(
    `The PDF has more than ${maxPages} pages, the limit for one document.`,
    `more than ${maxPages} pages`,
  );
}

/**
 * The pages in order, walked from the catalog without recursion: every node once (a loop or a page listed
 * twice refuses the file), each node's /Parent the node that lists it (pdf-lib climbs /Parent to inherit
 * a page's size, and would climb a loop for ever), at most `maxPages` pages.
 */
function readPages(context: PDFContext, maxPages: number): PdfPageSize[] {
  const catalog = context.lookup(context.trailerInfo.Root);
  if (!(catalog instanceof PDFDict)) throw damaged('it has no document catalog');
  const rootRef = catalog.get(PDFName.of('Pages'));
  const root = rootRef instanceof PDFRef ? context.lookup(rootRef) : undefined;
  if (!(rootRef instanceof PDFRef) || !(root instanceof PDFDict) || root.get(PDFName.of('Parent'))) {
    throw damaged('its page tree is missing or misplaced');
  }
  const declared = root.lookup(PDFName.of('Count'));
  const declaredCount = declared instanceof PDFNumber ? declared.asNumber() : Number.NaN;
  if (declaredCount > maxPages) throw tooManyPages(maxPages);

  const pages: PdfPageSize[] = [];
  const seen = new Set<PDFRef>();
  type Visit = { ref: PDFRef; node: PDFDict; mediaBox: PDFArray | undefined; depth: number };
  const pending: Visit[] = [{ ref: rootRef, node: root, mediaBox: undefined, depth: 0 }];
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const { ref, node, depth } = visit;
    if (seen.has(ref)) throw pageTreeLoop(ref);
    seen.add(ref);
    const own = node.lookup(PDFName.of('MediaBox'));
    const mediaBox = own instanceof PDFArray ? own : visit.mediaBox;
    const type = node.lookup(PDFName.of('Type'));
    if (type === PDFName.of('Page')) {
      if (pages.length === maxPages) throw tooManyPages(maxPages);
      pages.push(pageSize(context, mediaBox, pages.length + 1));
      continue;
    }
    if (type !== PDFName.of('Pages'))
      throw damaged(`its page tree holds object ${ref.objectNumber}, which is no page`);
    if (depth === MAX_PAGE_TREE_DEPTH)
      throw damaged(`its page tree is nested more than ${MAX_PAGE_TREE_DEPTH} levels deep`);
    const kids = node.lookup(PDFName.of('Kids'));
    if (!(kids instanceof PDFArray)) throw damaged(`page tree node ${ref.objectNumber} lists no pages`);
    const children: Visit[] = kids.asArray().map((kid) => {
      const child = kid instanceof PDFRef ? context.lookup(kid) : undefined;
      if (!(kid instanceof PDFRef) || !(child instanceof PDFDict)) {
        throw damaged(`page tree node ${ref.objectNumber} lists a page that does not exist`);
      }
      if (seen.has(kid)) throw pageTreeLoop(kid);
      if (child.get(PDFName.of('Parent')) !== ref) {
        throw damaged(
          `page ${kid.objectNumber} does not name its page tree node ${ref.objectNumber} as its parent`,
        );
      }
      return { ref: kid, node: child, mediaBox, depth: depth + 1 };
    });
    pending.push(...children.reverse());
  }
  if (pages.length === 0) throw new PdfRefusal('The PDF has no pages.', 'no pages');
  if (declaredCount !== pages.length) {
    throw new PdfRefusal(
      `The PDF is damaged: it declares ${Number.isFinite(declaredCount) ? declaredCount : 'no number of'} page(s) but ${pages.length} could be read.`,
      'damaged PDF (pages missing)',
    );
  }
  return pages;
}

function pageTreeLoop(ref: PDFRef): PdfRefusal {
  return new PdfRefusal(
    `The PDF is damaged: its page tree loops back on itself or lists a page twice (object ${ref.objectNumber}).`,
    'damaged PDF (page tree loop)',
  );
}

/** A page's size from its (own or inherited) MediaBox `[x1 y1 x2 y2]`. */
function pageSize(context: PDFContext, mediaBox: PDFArray | undefined, page: number): PdfPageSize {
  const corners = mediaBox?.asArray().map((item) => {
    const value = item instanceof PDFRef ? context.lookup(item) : item;
    return value instanceof PDFNumber ? value.asNumber() : Number.NaN;
  });
  const [x1 = Number.NaN, y1 = Number.NaN, x2 = Number.NaN, y2 = Number.NaN] = corners ?? [];
  const width = Math.abs(x2 - x1);
  const height = Math.abs(y2 - y1);
  if (
    corners?.length !== 4 ||
    !(Number.isFinite(width) && Number.isFinite(height) && width > 0 && height > 0)
  ) {
    throw new PdfRefusal(`The PDF is damaged: page ${page} has no usable size.`, 'damaged PDF (page size)');
  }
  return { width, height };
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
