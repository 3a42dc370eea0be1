// The final signed PDF: every field value drawn into its box on the base document, the form flattened, a
// footer on each page and the metadata set. Pure function of its input: the same input gives the same bytes,
// so the result can be hashed (fonts are subset with fixed names, dates come from the input, pdf-lib's object
// numbering follows the drawing order).
//
// How values are drawn:
// - Text types ('Full name', 'Text', 'Email', 'Phone', 'ID number', 'Radio', 'Dropdown', 'Date'): one line,
//   vertically centred, at the largest size from 12 pt down to 6 pt that fits the box's width (never taller
//   than the box allows); still too long at 6 pt, it is cut with an ellipsis.
//   Right-to-left text (first strong character Hebrew) is right-aligned, other text left-aligned.
// - 'Long text' and 'Read-only text': wrapped over several lines (line breaks kept), top-aligned, shrunk down
//   to 6 pt; what still does not fit is cut and the last line ends with an ellipsis.
// - 'Date': the value must be an ISO calendar date (YYYY-MM-DD) and is drawn in the field's `dateFormat`
//   (the template builder's, docs/templates.md), by default as is, in ISO form, which reads the same to
//   English and Hebrew readers.
// - 'Checkbox': true draws a check mark centred in the box; false draws nothing.
// - 'Signature', 'Initials', 'Company stamp', 'Image upload': the PNG scaled to fit the box keeping its aspect
//   ratio, centred; with a typed name, the bottom part of the box carries the name in a line under the image.
//   An uploaded image ('Image upload' with `{ upload }`) is a PNG or a JPEG, drawn the same way; so is a
//   'Company stamp' chosen from the signer's personal stamps, whose image may be a JPEG (told by its bytes).
// - 'File upload': an uploaded file (`{ upload }`) is embedded in the PDF as an attachment (dated with
//   completedAt, so the bytes stay the same) and its box shows "Attached: <file name>" in the document's
//   language, on one line like the text types; a plain string is drawn as a text value.
// - null, an empty string: nothing is drawn.
//
// The footer and the attachment note are in the document's language (`language`, English by default).
import { createHash } from 'node:crypto';
import {
  EncryptedPDFError,
  LineCapStyle,
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFHexString,
  type PDFImage,
  PDFName,
  type PDFPage,
  type RGB,
  rgb,
} from 'pdf-lib';
import type { DateFormat, FieldType } from '../domain/vocabulary.ts';
import { PdfRenderError } from './errors.ts';
import { flattenForm } from './flatten.ts';
import { DocumentFonts } from './fonts.ts';
import { type DocumentLanguage, type DocumentText, documentText } from './i18n.ts';
import { inspectJpeg, isJpegSignature } from './jpeg.ts';
import {
  boxFromTop,
  type DisplaySpace,
  displaySpace,
  enterDisplaySpace,
  leaveDisplaySpace,
} from './page-space.ts';
import { inspectPng, isPngSignature } from './png.ts';
import { type SealMetadata, writeSealMetadata } from './sealing/metadata.ts';
import { TextKit } from './text.ts';

export { PdfRenderError } from './errors.ts';

/** A drawn image (signature, initials, stamp, uploaded image), optionally with the signer's typed name. */
export interface FieldImageValue {
  /** A PNG; for a 'Company stamp' a JPEG too (a personal stamp's image), told apart by its first bytes. */
  imagePng: Uint8Array;
  typedName?: string;
}

/** A file a signer uploaded: an image for 'Image upload' (PNG or JPEG), any file for 'File upload'. */
export interface UploadedFile {
  content: Uint8Array;
  filename: string;
  contentType: string;
}

export interface FieldUploadValue {
  upload: UploadedFile;
}

export type FinalPdfFieldValue = string | boolean | FieldImageValue | FieldUploadValue | null;

/** A field of the envelope with its final value; x, y, width, height in points from the page's top-left. */
export interface FinalPdfField {
  type: FieldType;
  /** The field's label: the description of an attached file. */
  label?: string;
  /** 1-based page number. */
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  value: FinalPdfFieldValue;
  /** A Date field's format (YYYY-MM-DD when absent). */
  dateFormat?: DateFormat;
}

export interface RenderFinalPdfInput {
  basePdf: Uint8Array;
  fields: FinalPdfField[];
  envelopeId: string;
  completedAt: Date;
  /** The language of the footer and of the attachment note; English by default. */
  language?: DocumentLanguage;
  /** Written into the Info dictionary for the seal (docs/sealing.md). */
  sealMetadata?: SealMetadata;
}

export const FINAL_PDF_PRODUCER = 'Sigil';

const INK: RGB = rgb(0.08, 0.08, 0.12);
const FOOTER_INK: RGB = rgb(0.45, 0.45, 0.5);
const MAX_TEXT_SIZE = 12;
const MIN_TEXT_SIZE = 6;
/** Room the glyphs of one line need, as a multiple of the font size (descender to ascender). */
const LINE_EXTENT = 1.2;
const PADDING = 2;
const FOOTER_SIZE = 6.5;
/** Out-of-page tolerance for field boxes, in points (rounding in template editors). */
const TOLERANCE = 1;

const IMAGE_TYPES: readonly FieldType[] = ['Signature', 'Initials', 'Company stamp', 'Image upload'];
const UPLOADED_IMAGE_TYPES = ['image/png', 'image/jpeg'];
const BLOCK_TYPES: readonly FieldType[] = ['Long text', 'Read-only text'];
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function describe(field: FinalPdfField, index: number): string {
  return `field #${index + 1} (${field.type}, page ${field.page})`;
}

function isImageValue(value: FinalPdfFieldValue): value is FieldImageValue {
  return typeof value === 'object' && value !== null && 'imagePng' in value;
}

function isUploadValue(value: FinalPdfFieldValue): value is FieldUploadValue {
  return typeof value === 'object' && value !== null && 'upload' in value;
}

/** Why an uploaded file cannot be used, or undefined when it can. */
function uploadProblem(upload: UploadedFile, image: boolean): string | undefined {
  if (typeof upload !== 'object' || upload === null || !(upload.content instanceof Uint8Array)) {
    return 'needs { content, filename, contentType }';
  }
  if (typeof upload.filename !== 'string' || upload.filename.trim() === '') return 'needs a file name';
  if (typeof upload.contentType !== 'string' || upload.contentType === '') return 'needs a content type';
  if (!image) return undefined;
  if (upload.contentType === 'image/png') {
    const png = inspectPng(upload.content);
    return 'problem' in png ? `the PNG image cannot be decoded: ${png.problem}` : undefined;
  }
  if (upload.contentType === 'image/jpeg') {
    const jpeg = inspectJpeg(upload.content);
    return 'problem' in jpeg ? `the JPEG image cannot be read: ${jpeg.problem}` : undefined;
  }
  return `an uploaded image must be ${UPLOADED_IMAGE_TYPES.join(' or ')}, not ${upload.contentType}`;
}

/** An ISO date (checked by validate) written in a Date field's format. */
export function formatDate(iso: string, format: DateFormat | undefined): string {
  const [year, month, day] = iso.split('-');
  switch (format) {
    case 'DD/MM/YYYY':
      return `${day}/${month}/${year}`;
    case 'MM/DD/YYYY':
      return `${month}/${day}/${year}`;
    case 'DD.MM.YYYY':
      return `${day}.${month}.${year}`;
    default:
      return iso;
  }
}

function isIsoDate(text: string): boolean {
  const match = ISO_DATE.exec(text);
  if (!match) return false;
  const [, year, month, day] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Refuses what cannot be drawn faithfully, before anything is drawn. */
function validate(input: RenderFinalPdfInput, spaces: DisplaySpace[]): void {
  if (!(input.completedAt instanceof Date) || Number.isNaN(input.completedAt.getTime())) {
    throw new PdfRenderError('completedAt must be a valid date');
  }
  if (input.envelopeId.trim() === '') throw new PdfRenderError('envelopeId must not be empty');
  input.fields.forEach((field, index) => {
    const name = describe(field, index);
    if (!Number.isInteger(field.page) || field.page < 1 || field.page > spaces.length) {
      throw new PdfRenderError(
        `${name} is outside the document: page ${field.page} requested, the document has ${spaces.length} page(s)`,
      );
    }
    const space = spaces[field.page - 1] as DisplaySpace;
    const numbers = [field.x, field.y, field.width, field.height];
    if (!numbers.every(Number.isFinite) || field.width <= 0 || field.height <= 0) {
      throw new PdfRenderError(`${name} has an invalid box: x, y must be finite, width and height positive`);
    }
    if (
      field.x < -TOLERANCE ||
      field.y < -TOLERANCE ||
      field.x + field.width > space.width + TOLERANCE ||
      field.y + field.height > space.height + TOLERANCE
    ) {
      throw new PdfRenderError(
        `${name} box (x ${field.x}, y ${field.y}, ${field.width} × ${field.height}) is outside its page ` +
          `(${space.width.toFixed(2)} × ${space.height.toFixed(2)} points)`,
      );
    }
    const { value } = field;
    if (value === null) return;
    if ((field.type === 'Image upload' || field.type === 'File upload') && isUploadValue(value)) {
      const problem = uploadProblem(value.upload, field.type === 'Image upload');
      if (problem) throw new PdfRenderError(`${name}: ${problem}`);
    } else if (IMAGE_TYPES.includes(field.type)) {
      if (!isImageValue(value) || !(value.imagePng instanceof Uint8Array)) {
        throw new PdfRenderError(`${name} needs an image value ({ imagePng, typedName? })`);
      }
      if (field.type === 'Company stamp' && isJpegSignature(value.imagePng)) {
        const jpeg = inspectJpeg(value.imagePng);
        if ('problem' in jpeg)
          throw new PdfRenderError(`${name}: the JPEG image cannot be read: ${jpeg.problem}`);
      } else {
        if (!isPngSignature(value.imagePng)) throw new PdfRenderError(`${name}: the image is not a PNG file`);
        const png = inspectPng(value.imagePng);
        if ('problem' in png)
          throw new PdfRenderError(`${name}: the PNG image cannot be decoded: ${png.problem}`);
      }
      if (value.typedName !== undefined && typeof value.typedName !== 'string') {
        throw new PdfRenderError(`${name}: typedName must be a string`);
      }
    } else if (field.type === 'Checkbox') {
      if (typeof value !== 'boolean') throw new PdfRenderError(`${name} needs a boolean value`);
    } else if (typeof value !== 'string') {
      throw new PdfRenderError(`${name} needs a text value`);
    } else if (field.type === 'Date' && value.trim() !== '' && !isIsoDate(value.trim())) {
      throw new PdfRenderError(`${name}: a date value must be an ISO date YYYY-MM-DD, got "${value}"`);
    }
  });
}

async function loadBase(bytes: Uint8Array): Promise<PDFDocument> {
  try {
    return await PDFDocument.load(bytes, { updateMetadata: false });
  } catch (error) {
    if (error instanceof EncryptedPDFError) {
      throw new PdfRenderError('the base PDF is encrypted and cannot be signed');
    }
    throw new PdfRenderError(`the base PDF cannot be read: ${(error as Error).message}`);
  }
}

type Box = { x: number; y: number; width: number; height: number };

/** A file to attach, with the label of its field. */
interface Attachment {
  upload: UploadedFile;
  label: string | undefined;
}

class FinalPdfPainter {
  private readonly doc: PDFDocument;
  private readonly text: TextKit;
  private readonly words: DocumentText;
  private readonly images = new Map<string, PDFImage>();
  readonly attachments: Attachment[] = [];

  constructor(doc: PDFDocument, words: DocumentText) {
    this.doc = doc;
    this.text = new TextKit(new DocumentFonts(doc));
    this.words = words;
  }

  async drawField(page: PDFPage, space: DisplaySpace, field: FinalPdfField, index: number): Promise<void> {
    const { value } = field;
    if (value === null || value === false || value === '') return;
    const box = boxFromTop(space, field);
    if (value === true) return this.drawCheckMark(page, box);
    if (typeof value === 'string') {
      if (value.trim() === '') return;
      if (BLOCK_TYPES.includes(field.type)) return this.drawBlock(page, box, value);
      const text = field.type === 'Date' ? formatDate(value.trim(), field.dateFormat) : value.trim();
      return this.drawLine(page, box, text, 'natural');
    }
    if (isImageValue(value)) return this.drawImage(page, box, value, describe(field, index));
    if (isUploadValue(value)) {
      if (field.type === 'Image upload')
        return this.drawUploadedImage(page, box, value.upload, describe(field, index));
      this.attachments.push({ upload: value.upload, label: field.label });
      return this.drawLine(
        page,
        box,
        this.words.t('final.attached', { filename: value.upload.filename }),
        'natural',
      );
    }
  }

  private inner(box: Box): Box {
    const padX = Math.min(PADDING, box.width * 0.1);
    const padY = Math.min(PADDING, box.height * 0.1);
    return { x: box.x + padX, y: box.y + padY, width: box.width - 2 * padX, height: box.height - 2 * padY };
  }

  private async drawLine(
    page: PDFPage,
    box: Box,
    value: string,
    align: 'natural' | 'center',
    maxSize = MAX_TEXT_SIZE,
  ): Promise<void> {
    const area = this.inner(box);
    const tallest = area.height / LINE_EXTENT;
    const fitted = this.text.fitLine(value, area.width, {
      maxSize: Math.min(maxSize, tallest),
      minSize: Math.min(MIN_TEXT_SIZE, tallest),
    });
    const [line] = fitted.lines;
    if (!line) return;
    // Baseline so the line's glyphs (about −0.25 to +0.95 of the size) are centred in the box.
    const baseline = area.y + area.height / 2 - fitted.size * 0.3;
    await this.text.drawLine(page, line, {
      x: area.x,
      y: baseline,
      width: area.width,
      size: fitted.size,
      color: INK,
      align,
    });
  }

  private async drawBlock(page: PDFPage, box: Box, value: string): Promise<void> {
    const area = this.inner(box);
    const tallest = area.height / LINE_EXTENT;
    const fitted = this.text.fitBlock(value, area.width, area.height, {
      maxSize: Math.min(MAX_TEXT_SIZE, tallest),
      minSize: Math.min(MIN_TEXT_SIZE, tallest),
    });
    await this.text.drawBlock(
      page,
      fitted,
      { x: area.x, top: area.y + area.height, width: area.width },
      { color: INK, align: 'natural' },
    );
  }

  private drawCheckMark(page: PDFPage, box: Box): void {
    const side = Math.min(box.width, box.height) * 0.8;
    const left = box.x + (box.width - side) / 2;
    const bottom = box.y + (box.height - side) / 2;
    const point = (u: number, v: number) => ({ x: left + u * side, y: bottom + v * side });
    const style = { thickness: Math.max(0.8, side * 0.12), color: INK, lineCap: LineCapStyle.Round };
    page.drawLine({ start: point(0.12, 0.5), end: point(0.4, 0.18), ...style });
    page.drawLine({ start: point(0.4, 0.18), end: point(0.9, 0.84), ...style });
  }

  private async embedImage(bytes: Uint8Array, format: 'PNG' | 'JPEG', name: string): Promise<PDFImage> {
    const key = `${format}:${createHash('sha256').update(bytes).digest('hex')}`;
    let image = this.images.get(key);
    if (!image) {
      try {
        // A copy: pdf-lib's JPEG reader assumes the bytes start at offset 0 of their buffer.
        const own = new Uint8Array(bytes);
        image = format === 'PNG' ? await this.doc.embedPng(own) : await this.doc.embedJpg(own);
      } catch (error) {
        throw new PdfRenderError(
          `${name}: the ${format} image cannot be decoded: ${(error as Error).message}`,
        );
      }
      if (image.width <= 0 || image.height <= 0)
        throw new PdfRenderError(`${name}: the ${format} image is empty`);
      this.images.set(key, image);
    }
    return image;
  }

  private async drawUploadedImage(
    page: PDFPage,
    box: Box,
    upload: UploadedFile,
    name: string,
  ): Promise<void> {
    const format = upload.contentType === 'image/jpeg' ? 'JPEG' : 'PNG';
    this.fitImage(page, this.inner(box), await this.embedImage(upload.content, format, name));
  }

  /** The image scaled to fit the area keeping its aspect ratio, centred. */
  private fitImage(page: PDFPage, area: Box, image: PDFImage): void {
    const scale = Math.min(area.width / image.width, area.height / image.height);
    const width = image.width * scale;
    const height = image.height * scale;
    page.drawImage(image, {
      x: area.x + (area.width - width) / 2,
      y: area.y + (area.height - height) / 2,
      width,
      height,
    });
  }

  private async drawImage(page: PDFPage, box: Box, value: FieldImageValue, name: string): Promise<void> {
    // Only a Company stamp's image can be a JPEG here (validate() refused it elsewhere).
    const format = isJpegSignature(value.imagePng) ? 'JPEG' : 'PNG';
    const image = await this.embedImage(value.imagePng, format, name);
    let area = this.inner(box);
    const typedName = value.typedName?.trim() ?? '';
    if (typedName !== '') {
      // The typed name takes the bottom of the box: about a quarter of it, between 6 and 12 points.
      const captionHeight = Math.min(Math.max(area.height * 0.28, 6), 12, area.height / 2);
      await this.drawLine(
        page,
        { x: area.x, y: area.y, width: area.width, height: captionHeight },
        typedName,
        'center',
        captionHeight / LINE_EXTENT,
      );
      area = { ...area, y: area.y + captionHeight, height: area.height - captionHeight };
    }
    this.fitImage(page, area, image);
  }

  async drawFooter(page: PDFPage, space: DisplaySpace, envelopeId: string): Promise<void> {
    const fitted = this.text.fitLine(this.words.t('final.footer', { id: envelopeId }), space.width - 24, {
      maxSize: FOOTER_SIZE,
      minSize: 4,
      direction: this.words.direction,
    });
    const [line] = fitted.lines;
    if (!line) return;
    await this.text.drawLine(page, line, {
      x: 12,
      y: 9,
      width: space.width - 24,
      size: fitted.size,
      color: FOOTER_INK,
      align: 'center',
    });
  }
}

/** Names as readers list attachments: unique (a repeated name gets " (2)", " (3)"… before its extension). */
function attachmentNames(attachments: Attachment[]): string[] {
  const taken = new Set<string>();
  return attachments.map(({ upload }) => {
    const name = upload.filename.trim();
    let candidate = name;
    const dot = name.lastIndexOf('.');
    const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    for (let copy = 2; taken.has(candidate); copy += 1) candidate = `${stem} (${copy})${extension}`;
    taken.add(candidate);
    return candidate;
  });
}

/**
 * Embeds the uploaded files as attachments, in the order of their names (a name tree is sorted), dated with
 * the completion time. pdf-lib writes the file specification's F entry as a literal string without escaping
 * (a parenthesis in a name would break the object, a non-Latin character is cut to one byte), so once
 * embedded, F is replaced by an ASCII rendering of the name as a hex string; UF keeps the exact name.
 */
async function attachFiles(doc: PDFDocument, attachments: Attachment[], date: Date): Promise<void> {
  if (attachments.length === 0) return;
  const names = attachmentNames(attachments);
  const order = attachments.map((_, index) => index).sort((a, b) => compareCodeUnits(names[a], names[b]));
  for (const index of order) {
    const { upload, label } = attachments[index] as Attachment;
    await doc.attach(new Uint8Array(upload.content), names[index] as string, {
      mimeType: upload.contentType,
      ...(label ? { description: label } : {}),
      creationDate: date,
      modificationDate: date,
    });
  }
  await doc.flush();
  const ours = new Set(names);
  const tree = doc.catalog
    .lookupMaybe(PDFName.of('Names'), PDFDict)
    ?.lookupMaybe(PDFName.of('EmbeddedFiles'), PDFDict);
  const entries = tree?.lookupMaybe(PDFName.of('Names'), PDFArray);
  if (!entries) return;
  for (let index = 0; index + 1 < entries.size(); index += 2) {
    const spec = entries.lookupMaybe(index + 1, PDFDict);
    const unicode = spec?.lookupMaybe(PDFName.of('UF'), PDFHexString);
    if (!spec || !unicode || !ours.has(unicode.decodeText())) continue;
    const ascii = unicode.decodeText().replace(/[^\x20-\x7e]/g, '_');
    spec.set(PDFName.of('F'), PDFHexString.of(Buffer.from(ascii, 'latin1').toString('hex')));
  }
}

function compareCodeUnits(a: string | undefined, b: string | undefined): number {
  return (a ?? '') < (b ?? '') ? -1 : (a ?? '') > (b ?? '') ? 1 : 0;
}

/**
 * Draws every field value into the base PDF, flattens any form, adds the Sigil footer to each page, attaches
 * the files uploaded to File upload fields and sets the producer and modification date. Throws PdfRenderError
 * for input it refuses (a field outside the document, a value of the wrong kind, an image that cannot be
 * read, an unreadable or encrypted base PDF).
 */
export async function renderFinalPdf(input: RenderFinalPdfInput): Promise<Uint8Array> {
  const doc = await loadBase(input.basePdf);
  const pages = doc.getPages();
  const spaces = pages.map(displaySpace);
  validate(input, spaces);

  flattenForm(doc);

  const painter = new FinalPdfPainter(doc, documentText(input.language));
  for (const [pageIndex, page] of pages.entries()) {
    const space = spaces[pageIndex] as DisplaySpace;
    enterDisplaySpace(page, space);
    for (const [index, field] of input.fields.entries()) {
      if (field.page === pageIndex + 1) await painter.drawField(page, space, field, index);
    }
    await painter.drawFooter(page, space, input.envelopeId);
    leaveDisplaySpace(page);
  }
  await attachFiles(doc, painter.attachments, input.completedAt);

  doc.setProducer(FINAL_PDF_PRODUCER);
  doc.setModificationDate(input.completedAt);
  if (input.sealMetadata) writeSealMetadata(doc, input.sealMetadata);
  return doc.save({ useObjectStreams: true, updateFieldAppearances: false });
}
