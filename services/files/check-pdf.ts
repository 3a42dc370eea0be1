// The reading of a PDF under its limits, on the calling thread: what a thread of the inspection pool runs
// (inspection-worker.ts) for inspectPdf (inspect-pdf.ts), and what a value whose size was checked already is
// asked directly (pdfProblem). The file is read by a strict reader (pdf-reader.ts) under the limits of
// pdf-limits.ts (pages, decoded bytes, time) and scanned for active content (pdf-active-content.ts); a
// problem is a PdfRefusal saying why in words the uploader can act on, never a parser's own error text.
import { createHash } from 'node:crypto';
import { PDFArray, type PDFContext, PDFDict, PDFName, PDFNull, PDFNumber, PDFRef } from 'pdf-lib';
import { displayedSize } from '../../pdf/page-space.ts';
import { findActiveContent } from './pdf-active-content.ts';
import { PDF_LIMITS, PdfBudget, type PdfLimits, PdfRefusal } from './pdf-limits.ts';
import { damaged, readPdfFile } from './pdf-reader.ts';

/**
 * A page's size as a person sees it, in points (1/72 inch): its crop box (the media box when it has none),
 * turned by its /Rotate. Template fields are placed in this space (pdf/page-space.ts), so a field is
 * on the page when it lies within this width and height.
 */
export interface PdfPageSize {
  width: number;
  height: number;
}

export interface PdfInspection {
  pageCount: number;
  pages: PdfPageSize[];
  /** Lowercase hex SHA-256 of the bytes as given. */
  sha256: string;
}

/** Trailer dictionaries are small; a section longer than this is not looked at further. */
const TRAILER_SECTION_MAX = 16 * 1024;
/** The `/Encrypt` key, ended by a PDF delimiter or whitespace (so `/EncryptMetadata` does not count). */
const ENCRYPT_KEY = /\/Encrypt(?=[\s()<>[\]{}/%]|$)/;
/** Page trees are a few levels deep; a deeper one is built to exhaust a reader's stack. */
const MAX_PAGE_TREE_DEPTH = 64;
/** What may follow the last %%EOF: line ends, spaces and NUL padding. */
const TRAILING_PADDING = /^[\s\0]*$/;

/** The PDF's inspection, or a PdfRefusal thrown: what a thread of the inspection pool runs. */
export function checkPdf(bytes: Uint8Array, limits: PdfLimits): PdfInspection {
  return readAndCheck(bytes, limits);
}

/** A refusal's sentence as a phrase to follow a field's label ("Contract: the PDF …"). */
export function refusalPhrase(message: string): string {
  const sentence = message.replace(/\.$/, '');
  return `${sentence.charAt(0).toLowerCase()}${sentence.slice(1)}`;
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
    return refusalPhrase(error.message);
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
  type Visit = { ref: PDFRef; node: PDFDict; inherited: PageAttributes; depth: number };
  const pending: Visit[] = [{ ref: rootRef, node: root, inherited: {}, depth: 0 }];
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const { ref, node, depth } = visit;
    if (seen.has(ref)) throw pageTreeLoop(ref);
    seen.add(ref);
    const attributes = inheritAttributes(node, visit.inherited);
    const type = node.lookup(PDFName.of('Type'));
    if (type === PDFName.of('Page')) {
      if (pages.length === maxPages) throw tooManyPages(maxPages);
      pages.push(pageSize(context, attributes, pages.length + 1));
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
      return { ref: kid, node: child, inherited: attributes, depth: depth + 1 };
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

/** The inheritable page attributes that decide a page's displayed size (PDF 32000-1, 7.7.3.4). */
interface PageAttributes {
  mediaBox?: unknown;
  cropBox?: unknown;
  rotate?: unknown;
}

/**
 * A node's own MediaBox, CropBox and Rotate, else those it inherits. An entry the node has stops the
 * inheritance even when it resolves to nothing (a reference to a null or missing object): it then reads as
 * PDFNull, as pdf-lib reads it.
 */
function inheritAttributes(node: PDFDict, inherited: PageAttributes): PageAttributes {
  const own = (name: string) => {
    const entry = node.get(PDFName.of(name));
    return entry === undefined ? undefined : (node.context.lookup(entry) ?? PDFNull);
  };
  return {
    mediaBox: own('MediaBox') ?? inherited.mediaBox,
    cropBox: own('CropBox') ?? inherited.cropBox,
    rotate: own('Rotate') ?? inherited.rotate,
  };
}

/**
 * A page's size as displayed (PdfPageSize), read as the renderers read it with pdf-lib (displaySpace): the
 * crop box, else the media box, `[x1 y1 x2 y2]` as width x2 − x1 and height y2 − y1, turned by /Rotate. A page
 * without a usable media box, or with a crop box or rotation that is not numbers, is refused: the renderers
 * could not draw on it.
 */
function pageSize(context: PDFContext, attributes: PageAttributes, page: number): PdfPageSize {
  const mediaBox = rectangle(context, attributes.mediaBox);
  if (!mediaBox || Math.abs(mediaBox.width) === 0 || Math.abs(mediaBox.height) === 0) {
    throw new PdfRefusal(`The PDF is damaged: page ${page} has no usable size.`, 'damaged PDF (page size)');
  }
  // An explicit null stands for "none" (pdf-lib reads it so): the media box, and no rotation.
  const cropBox =
    attributes.cropBox === undefined || attributes.cropBox === PDFNull
      ? mediaBox
      : rectangle(context, attributes.cropBox);
  if (!cropBox) {
    throw new PdfRefusal(
      `The PDF is damaged: page ${page} has no usable crop box.`,
      'damaged PDF (page crop box)',
    );
  }
  const rotate = attributes.rotate === PDFNull ? undefined : attributes.rotate;
  if (rotate !== undefined && !(rotate instanceof PDFNumber && Number.isFinite(rotate.asNumber()))) {
    throw new PdfRefusal(
      `The PDF is damaged: page ${page} has no usable rotation.`,
      'damaged PDF (page rotation)',
    );
  }
  return displayedSize(cropBox, rotate instanceof PDFNumber ? rotate.asNumber() : 0);
}

/** A rectangle `[x1 y1 x2 y2]` of four finite numbers (references resolved), or undefined. */
function rectangle(context: PDFContext, value: unknown): { width: number; height: number } | undefined {
  if (!(value instanceof PDFArray) || value.size() !== 4) return undefined;
  const [x1, y1, x2, y2] = value.asArray().map((item) => {
    const resolved = item instanceof PDFRef ? context.lookup(item) : item;
    return resolved instanceof PDFNumber ? resolved.asNumber() : Number.NaN;
  }) as [number, number, number, number];
  const width = x2 - x1;
  const height = y2 - y1;
  return Number.isFinite(width) && Number.isFinite(height) ? { width, height } : undefined;
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
