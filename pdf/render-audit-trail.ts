// The audit-trail PDF: who signed what, when and from where. A4 pages: a header with the envelope's identity,
// the document section with both SHA-256 digests, the recipients table and the chronological event log, with
// page breaks (table headers repeated) and "page N of M" in every footer. Times are UTC, ISO 8601 to the
// second (e.g. 2026-03-01T10:15:30Z). Names and other texts go through the same fonts and bidi treatment as
// the final PDF, so Hebrew renders. The same input always gives the same bytes.
//
// The report is in the organization's language (`language`: English by default, or Hebrew). Labels,
// headings, event names and status words come from the catalog in i18n.ts. An English report is laid out
// left to right: every text is a left-to-right paragraph, inside which Hebrew runs read right to left (as an
// English web page shows Hebrew names). A Hebrew report is mirrored: label columns and table columns run from
// the right, text is right-aligned and paragraphs are right to left, except technical values (ids, digests,
// dates, addresses, e-mail addresses, phone numbers, content types), which are left-to-right paragraphs, and
// text people wrote (names, titles, file names), which takes the direction of its first letter.
//
// Technical values are read as one string: an address, a phone number, an id, a digest or an IP address is
// drawn on one line as one run (so a reader, and pdf.js, get it whole). When it is wider than its cell, its
// font shrinks (to 5 pt at the least); only a value too long even then is broken, before an '@' or a '.' (a
// piece without either where it stops fitting): an e-mail address of more than about 60 characters in the
// event log, about 75 in the recipients table.
//
// The event log names who acted. An event of a recipient names that recipient (name, the address their
// messages go to, role and type), so two "Recipient completed" rows from one address can be told apart. Other
// events name their actor as far as the record knows it: the sender (the organization, through its app or its
// API; which user or client is not recorded) for send, cancel, extend and manual reminders; Sigil itself for
// automatic reminders, expiry, delivery failures and finalization; an operator for a retried final PDF (the
// sender when the business app's sender asked for it: `requested_by: "sender"`). A recipient who handed their
// part to someone else (`recipient.delegated`, docs/signing.md) is named by the event's `delegated_by_*` data
// in that event and every earlier one; the recipients table and later events name the person they handed it to.
import { PDFDocument, type PDFPage, type RGB, rgb } from 'pdf-lib';
import type { RecipientView } from '../domain/envelope.ts';
import type { EnvelopeStatus } from '../domain/vocabulary.ts';
import type { Direction } from './bidi.ts';
import { PdfRenderError } from './errors.ts';
import { DocumentFonts, type FontWeight } from './fonts.ts';
import { type DocumentLanguage, type DocumentText, documentText } from './i18n.ts';
import { type SealMetadata, writeSealMetadata } from './sealing/metadata.ts';
import { LINE_HEIGHT, TextKit, type TextLine } from './text.ts';

export { PdfRenderError } from './errors.ts';

/**
 * A recipient in the audit trail: the API's view of it (domain/envelope.ts) but `required`, its completion as a
 * Date, and its channel and authentication shown when given (the envelope's recipient records carry both).
 * Events name their recipient by its `id`.
 */
export type AuditTrailRecipient = Omit<
  RecipientView,
  'required' | 'completedAt' | 'deliveryChannel' | 'authenticationMethod'
> &
  Partial<Pick<RecipientView, 'deliveryChannel' | 'authenticationMethod'>> & { completedAt: Date | null };

export interface AuditTrailEvent {
  sequence: number;
  type: string;
  occurredAt: Date;
  /** The recipient the event is about (one of `recipients`); the row names them. */
  recipientId?: string | null;
  /** Who acted, when the caller knows better than the event's type (ignored when `recipientId` is given). */
  actor?: string;
  ip?: string;
  userAgent?: string;
  data: Record<string, unknown>;
}

/** A file a signer uploaded to a File upload or Image upload field. */
export interface AuditTrailUpload {
  fieldLabel: string;
  filename: string;
  contentType: string;
  sizeBytes: number;
  sha256: string;
}

/**
 * A Company stamp the signer chose from their personal stamps (docs/stamps.md): the stamp's name and version
 * when it was chosen, and the image the envelope holds.
 */
export interface AuditTrailPersonalStamp {
  fieldLabel: string;
  stampName: string;
  version: number;
  contentType: string;
  sizeBytes: number;
  sha256: string;
}

export interface RenderAuditTrailInput {
  envelope: {
    id: string;
    title: string;
    organizationName: string;
    status: EnvelopeStatus;
    createdAt: Date;
    sentAt: Date | null;
    completedAt: Date | null;
    expiresAt: Date | null;
  };
  document: { filename: string; sha256: string; pageCount: number };
  finalPdfSha256: string;
  /** The hash chain through the audit events as it stood when the trail was made (docs/audit-chain.md). */
  auditChain?: { head: string; events: number } | null;
  /** Written into the Info dictionary for the seal (docs/sealing.md). */
  sealMetadata?: SealMetadata;
  recipients: AuditTrailRecipient[];
  events: AuditTrailEvent[];
  /** Listed in their own section when there are any. */
  uploads?: AuditTrailUpload[];
  /** Listed in their own section when there are any. */
  personalStamps?: AuditTrailPersonalStamp[];
  generatedAt: Date;
  /** English by default. */
  language?: DocumentLanguage;
}

const PAGE = { width: 595.28, height: 841.89 } as const;
const MARGIN = { left: 40, right: 40, top: 48, bottom: 56 } as const;
const CONTENT_WIDTH = PAGE.width - MARGIN.left - MARGIN.right;
const INK: RGB = rgb(0.1, 0.1, 0.13);
const MUTED: RGB = rgb(0.42, 0.42, 0.47);
const RULE: RGB = rgb(0.8, 0.81, 0.85);
const HEADER_FILL: RGB = rgb(0.93, 0.94, 0.96);
const ACCENT: RGB = rgb(0.16, 0.27, 0.55);
const BODY_SIZE = 8;
const SMALL_SIZE = 7;
/** The smallest size a value read as one string shrinks to before it is broken. */
const WHOLE_MIN_SIZE = 5;
/** Where a value too long for its cell even at WHOLE_MIN_SIZE breaks: before '@' and '.'. */
const WHOLE_BREAK = /(?=[@.])/u;
const CELL_PADDING = { x: 3, y: 3 } as const;
/** Most lines an event's details (user agent and data) may take, so that a row always fits on a page. */
const DETAIL_LINES = 6;
const DASH = '—';
/** LEFT-TO-RIGHT MARK: ends a left-to-right value in a right-to-left sentence, so its last neutral stays. */
const LRM = '\u200E';

/** UTC, ISO 8601, to the second. */
export function formatUtc(date: Date | null | undefined): string {
  if (!date) return DASH;
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function isValidDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime());
}

/** Key order fixed, dates as ISO, so the same data always prints the same. */
function stableJson(value: unknown): string {
  if (value instanceof Date) return JSON.stringify(isValidDate(value) ? value.toISOString() : null);
  // A space after each comma: a list of ids may wrap between ids, never inside one.
  if (Array.isArray(value)) return `[${value.map(stableJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}: ${stableJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function formatData(data: Record<string, unknown>): string {
  return Object.keys(data)
    .sort()
    .map((key) => {
      const value = data[key];
      const text =
        typeof value === 'string' ? value : value instanceof Date ? formatUtc(value) : stableJson(value);
      return `${key}: ${text}`;
    })
    .join('; ');
}

function validate(input: RenderAuditTrailInput): void {
  const { envelope } = input;
  if (!isValidDate(input.generatedAt)) throw new PdfRenderError('generatedAt must be a valid date');
  if (!isValidDate(envelope.createdAt)) throw new PdfRenderError('envelope.createdAt must be a valid date');
  for (const [name, value] of Object.entries({
    sentAt: envelope.sentAt,
    completedAt: envelope.completedAt,
    expiresAt: envelope.expiresAt,
  })) {
    if (value != null && !isValidDate(value))
      throw new PdfRenderError(`envelope.${name} must be a valid date or null`);
  }
  input.recipients.forEach((recipient, index) => {
    if (recipient.completedAt != null && !isValidDate(recipient.completedAt)) {
      throw new PdfRenderError(`recipient #${index + 1}: completedAt must be a valid date or null`);
    }
  });
  (input.uploads ?? []).forEach((upload, index) => {
    if (!Number.isSafeInteger(upload.sizeBytes) || upload.sizeBytes < 0) {
      throw new PdfRenderError(`upload #${index + 1}: sizeBytes must be a whole number of bytes`);
    }
  });
  (input.personalStamps ?? []).forEach((stamp, index) => {
    if (
      !Number.isSafeInteger(stamp.sizeBytes) ||
      stamp.sizeBytes < 0 ||
      !Number.isSafeInteger(stamp.version)
    ) {
      throw new PdfRenderError(`personal stamp #${index + 1}: sizeBytes and version must be whole numbers`);
    }
  });
  input.events.forEach((event, index) => {
    if (!Number.isInteger(event.sequence)) {
      throw new PdfRenderError(`event #${index + 1}: sequence must be an integer`);
    }
    if (!isValidDate(event.occurredAt)) {
      throw new PdfRenderError(`event ${event.sequence} (${event.type}): occurredAt must be a valid date`);
    }
  });
}

interface CellPart {
  text: string;
  size?: number;
  weight?: FontWeight;
  color?: RGB;
  maxLines?: number;
  /**
   * `ltr`: a technical value (id, digest, date, address), a left-to-right paragraph in every report, drawn
   * whole (see `whole`). `auto`: text people wrote (names, titles, file names), whose first strong letter
   * sets its direction in a right-to-left report (an English report keeps every paragraph left to right).
   */
  dir?: 'ltr' | 'auto';
  /**
   * Read as one string (always so for `ltr` parts): one line, the font shrunk to fit the cell, broken only
   * when even WHOLE_MIN_SIZE is too large.
   */
  whole?: boolean;
}

/** A label and its value, with the value's direction (see CellPart). */
type KeyValue = [label: string, value: string, dir?: 'ltr' | 'auto'];

interface Column {
  title: string;
  width: number;
}

interface Row {
  cells: CellPart[][];
  /** Parts drawn under the row's cells, from column `from` to the right edge. */
  below?: { from: number; parts: CellPart[] };
}

interface LaidOutPart {
  lines: TextLine[];
  size: number;
  weight: FontWeight;
  color: RGB;
}

class ReportWriter {
  readonly doc: PDFDocument;
  readonly text: TextKit;
  readonly words: DocumentText;
  readonly pages: PDFPage[] = [];
  private readonly rtl: boolean;
  private page!: PDFPage;
  private y = 0;

  constructor(doc: PDFDocument, words: DocumentText) {
    this.doc = doc;
    this.text = new TextKit(new DocumentFonts(doc));
    this.words = words;
    this.rtl = words.direction === 'rtl';
    this.newPage();
  }

  /** The x of a span `offset` points into the content from the reading side, `width` wide. */
  private spanX(offset: number, width: number): number {
    return this.rtl ? PAGE.width - MARGIN.right - offset - width : MARGIN.left + offset;
  }

  private direction(part: CellPart): Direction {
    if (!this.rtl || part.dir === 'ltr') return 'ltr';
    return part.dir ?? 'rtl';
  }

  newPage(): void {
    this.page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.pages.push(this.page);
    this.y = PAGE.height - MARGIN.top;
  }

  private room(): number {
    return this.y - MARGIN.bottom;
  }

  gap(height: number): void {
    this.y -= height;
  }

  private layout(part: CellPart, width: number): LaidOutPart {
    if (part.whole || part.dir === 'ltr') return this.layoutWhole(part, width);
    const size = part.size ?? BODY_SIZE;
    const weight = part.weight ?? 'regular';
    let lines = this.text.wrap(part.text, width, size, weight, this.direction(part));
    if (part.maxLines !== undefined && lines.length > part.maxLines) {
      lines = lines.slice(0, part.maxLines);
      lines[lines.length - 1] = this.text.ellipsize(lines.at(-1) as TextLine, width, size, weight);
    }
    return { lines, size, weight, color: part.color ?? INK };
  }

  /** A value read as one string: see `CellPart.whole`. */
  private layoutWhole(part: CellPart, width: number): LaidOutPart {
    const weight = part.weight ?? 'regular';
    const direction = this.direction(part);
    const color = part.color ?? INK;
    const oneLine = (text: string, size: number) =>
      this.text.wrap(text, Number.POSITIVE_INFINITY, size, weight, direction);
    const widest = Math.max(...part.text.split('\n').map((line) => this.text.measure(line, 1, weight)));
    let size = part.size ?? BODY_SIZE;
    while (widest * size > width && size > WHOLE_MIN_SIZE) size = Math.max(WHOLE_MIN_SIZE, size - 0.5);
    if (widest * size <= width) return { lines: oneLine(part.text, size), size, weight, color };
    // The last resort: pieces cut at the break points, as many on a line as fit.
    const lines: TextLine[] = [];
    let current = '';
    const flush = () => {
      if (current !== '') lines.push(...oneLine(current, size));
      current = '';
    };
    for (const piece of part.text.split(WHOLE_BREAK)) {
      if (this.text.measure(current + piece, size, weight) <= width) {
        current += piece;
        continue;
      }
      flush();
      if (this.text.measure(piece, size, weight) <= width) current = piece;
      else lines.push(...this.text.wrap(piece, width, size, weight, direction));
    }
    flush();
    return { lines, size, weight, color };
  }

  private static height(parts: LaidOutPart[]): number {
    return parts.reduce((sum, part) => sum + part.lines.length * part.size * LINE_HEIGHT, 0);
  }

  private async drawParts(parts: LaidOutPart[], x: number, top: number, width: number): Promise<void> {
    let y = top;
    for (const part of parts) {
      for (const line of part.lines) {
        y -= part.size * LINE_HEIGHT;
        // Baseline a fifth of the line height above the line's bottom: room for descenders.
        await this.text.drawLine(this.page, line, {
          x,
          y: y + part.size * LINE_HEIGHT * 0.22,
          width,
          size: part.size,
          weight: part.weight,
          color: part.color,
          align: this.rtl ? 'right' : 'left',
        });
      }
    }
  }

  /** A block of text across the content width, moved to a new page if it does not fit. */
  async paragraph(part: CellPart): Promise<void> {
    const laidOut = [this.layout(part, CONTENT_WIDTH)];
    const height = ReportWriter.height(laidOut);
    if (height > this.room()) this.newPage();
    await this.drawParts(laidOut, MARGIN.left, this.y, CONTENT_WIDTH);
    this.y -= height;
  }

  async heading(title: string): Promise<void> {
    // Keep a heading with at least a few lines of what follows it.
    if (this.room() < 60) this.newPage();
    this.gap(10);
    await this.paragraph({ text: title, size: 11, weight: 'bold', color: ACCENT });
    this.gap(2);
    this.page.drawLine({
      start: { x: MARGIN.left, y: this.y },
      end: { x: PAGE.width - MARGIN.right, y: this.y },
      thickness: 0.6,
      color: ACCENT,
    });
    this.gap(5);
  }

  /** Label and value pairs, labels in a narrow muted column. */
  async keyValues(rows: KeyValue[], labelWidth = 118): Promise<void> {
    const valueWidth = CONTENT_WIDTH - labelWidth;
    for (const [label, value, dir] of rows) {
      const labelParts = [this.layout({ text: label, color: MUTED }, labelWidth - 6)];
      const valueParts = [
        this.layout({ text: value === '' ? DASH : value, ...(dir ? { dir } : {}) }, valueWidth),
      ];
      const height = Math.max(ReportWriter.height(labelParts), ReportWriter.height(valueParts)) + 2;
      if (height > this.room()) this.newPage();
      await this.drawParts(labelParts, this.spanX(0, labelWidth - 6), this.y, labelWidth - 6);
      await this.drawParts(valueParts, this.spanX(labelWidth, valueWidth), this.y, valueWidth);
      this.y -= height;
    }
  }

  private async headerRow(columns: Column[]): Promise<void> {
    const parts = columns.map((column) => [
      this.layout(
        { text: column.title, size: SMALL_SIZE, weight: 'bold' },
        column.width - 2 * CELL_PADDING.x,
      ),
    ]);
    const height = Math.max(...parts.map(ReportWriter.height)) + 2 * CELL_PADDING.y;
    this.page.drawRectangle({
      x: MARGIN.left,
      y: this.y - height,
      width: CONTENT_WIDTH,
      height,
      color: HEADER_FILL,
    });
    let offset = 0;
    for (const [index, column] of columns.entries()) {
      const width = column.width - 2 * CELL_PADDING.x;
      await this.drawParts(
        parts[index] as LaidOutPart[],
        this.spanX(offset + CELL_PADDING.x, width),
        this.y - CELL_PADDING.y,
        width,
      );
      offset += column.width;
    }
    this.y -= height;
  }

  /** A table: the header row starts it and is repeated (with the title) on every page it continues on. */
  async table(title: string, columns: Column[], rows: Row[], empty: string): Promise<void> {
    await this.heading(title);
    if (rows.length === 0) {
      await this.paragraph({ text: empty, color: MUTED });
      return;
    }
    await this.headerRow(columns);
    for (const row of rows) {
      const cells = row.cells.map((parts, index) =>
        parts.map((part) => this.layout(part, (columns[index] as Column).width - 2 * CELL_PADDING.x)),
      );
      const belowX = columns.slice(0, row.below?.from ?? 0).reduce((sum, column) => sum + column.width, 0);
      const belowWidth = CONTENT_WIDTH - belowX - 2 * CELL_PADDING.x;
      const below = row.below?.parts.map((part) => this.layout(part, belowWidth)) ?? [];
      const cellsHeight = Math.max(...cells.map(ReportWriter.height));
      const height = cellsHeight + ReportWriter.height(below) + 2 * CELL_PADDING.y;
      if (height > this.room()) {
        this.newPage();
        await this.heading(this.words.t('audit.continued', { title }));
        await this.headerRow(columns);
      }
      let offset = 0;
      for (const [index, column] of columns.entries()) {
        const width = column.width - 2 * CELL_PADDING.x;
        await this.drawParts(
          cells[index] as LaidOutPart[],
          this.spanX(offset + CELL_PADDING.x, width),
          this.y - CELL_PADDING.y,
          width,
        );
        offset += column.width;
      }
      if (below.length > 0) {
        await this.drawParts(
          below,
          this.spanX(belowX + CELL_PADDING.x, belowWidth),
          this.y - CELL_PADDING.y - cellsHeight,
          belowWidth,
        );
      }
      this.y -= height;
      this.page.drawLine({
        start: { x: MARGIN.left, y: this.y },
        end: { x: PAGE.width - MARGIN.right, y: this.y },
        thickness: 0.4,
        color: RULE,
      });
    }
  }

  /** Footers go on last, when the page count is known: `lead` on the reading side, the page opposite. */
  async footers(lead: string): Promise<void> {
    const total = this.pages.length;
    for (const [index, page] of this.pages.entries()) {
      const y = MARGIN.bottom - 26;
      page.drawLine({
        start: { x: MARGIN.left, y: y + 11 },
        end: { x: PAGE.width - MARGIN.right, y: y + 11 },
        thickness: 0.4,
        color: RULE,
      });
      const pageLabel = this.words.t('audit.pageOf', { page: index + 1, total });
      const labelWidth = this.text.measure(pageLabel, SMALL_SIZE);
      const fitted = this.text.fitLine(lead, CONTENT_WIDTH - labelWidth - 12, {
        maxSize: SMALL_SIZE,
        minSize: 5,
        direction: this.words.direction,
      });
      const options = { y, size: SMALL_SIZE, color: MUTED };
      await this.text.drawLine(page, fitted.lines[0] as TextLine, {
        ...options,
        size: fitted.size,
        x: MARGIN.left,
        width: CONTENT_WIDTH,
        align: this.rtl ? 'right' : 'left',
      });
      const [pageLine] = this.text.wrap(
        pageLabel,
        CONTENT_WIDTH,
        SMALL_SIZE,
        'regular',
        this.words.direction,
      );
      await this.text.drawLine(page, pageLine as TextLine, {
        ...options,
        x: MARGIN.left,
        width: CONTENT_WIDTH,
        align: this.rtl ? 'left' : 'right',
      });
    }
  }
}

function recipientRows(recipients: AuditTrailRecipient[], words: DocumentText): Row[] {
  const ordered = [...recipients].sort((a, b) => a.signingOrder - b.signingOrder);
  return ordered.map((recipient) => {
    const contact: CellPart[] = [];
    if (recipient.email) contact.push({ text: recipient.email, dir: 'ltr' });
    if (recipient.phone) contact.push({ text: recipient.phone, dir: 'ltr' });
    if (contact.length === 0) contact.push({ text: DASH });
    const channel = [
      recipient.deliveryChannel &&
        words.lookup(`channel.${recipient.deliveryChannel}`, recipient.deliveryChannel),
      recipient.authenticationMethod &&
        words.lookup(`authentication.${recipient.authenticationMethod}`, recipient.authenticationMethod),
    ]
      .filter(Boolean)
      .join(' · ');
    if (channel) contact.push({ text: channel, size: SMALL_SIZE, color: MUTED });
    const status: CellPart[] = [
      { text: words.lookup(`recipientStatus.${recipient.status}`, recipient.status), whole: true },
    ];
    if (recipient.completedAt) {
      status.push({ text: formatUtc(recipient.completedAt), size: SMALL_SIZE, color: MUTED, dir: 'ltr' });
    }
    return {
      cells: [
        [{ text: String(recipient.signingOrder), dir: 'ltr' }],
        [{ text: recipient.fullName, dir: 'auto' }],
        contact,
        [
          { text: recipient.roleName, dir: 'auto' },
          { text: recipientType(recipient, words), size: SMALL_SIZE, color: MUTED },
        ],
        status,
        [{ text: recipient.language ?? DASH, dir: 'ltr' }],
      ],
    };
  });
}

/**
 * A value put into a sentence: in a right-to-left report it is closed with LRM, so that the punctuation it
 * ends with ("Acme Ltd.") stays with it instead of moving to the sentence's side.
 */
function closed(text: string, words: DocumentText): string {
  return words.direction === 'rtl' ? `${text}${LRM}` : text;
}

function recipientType(recipient: AuditTrailRecipient, words: DocumentText): string {
  return words.lookup(`recipientType.${recipient.type}`, recipient.type);
}

/** Who acts in an event that is not a recipient's, as far as the record tells (see the top of this file). */
export type EventActor = 'sender' | 'system' | 'operator';

/** The actor of an event without a recipient; undefined for a type this renderer does not know. */
export function eventActor(type: string, data: Record<string, unknown>): EventActor | undefined {
  switch (type) {
    case 'envelope.created':
    case 'envelope.sent':
    case 'envelope.cancelled':
    case 'envelope.extended':
    case 'envelope.settings_updated':
      return 'sender';
    case 'envelope.reminded':
      return data.automatic === true ? 'system' : 'sender';
    case 'envelope.expired':
    case 'envelope.expiring_soon':
    case 'envelope.delivery_failed':
    case 'envelope.completed':
    case 'envelope.final_pdf_failed':
    case 'document.final_pdf_ready':
      return 'system';
    case 'envelope.final_pdf_retried':
      // A sender's retry in the business app says so; the operator command's (and older ones) say nothing.
      return data.requested_by === 'sender' ? 'sender' : 'operator';
    default:
      return undefined;
  }
}

/**
 * The address a recipient's messages go to: the phone for SMS and WhatsApp, otherwise the e-mail address
 * (each falling back to the other).
 */
function recipientAddress(recipient: AuditTrailRecipient): string | null {
  const byPhone = recipient.deliveryChannel === 'Sms' || recipient.deliveryChannel === 'WhatsApp';
  return (byPhone ? (recipient.phone ?? recipient.email) : (recipient.email ?? recipient.phone)) || null;
}

/** The Actor cell: the event's recipient (name, address, role and type), else the actor of its type. */
function actorCell(
  event: AuditTrailEvent,
  recipient: AuditTrailRecipient | undefined,
  organizationName: string,
  words: DocumentText,
): CellPart[] {
  if (event.recipientId) {
    if (!recipient) {
      return [{ text: words.t('audit.actor.unknownRecipient') }, { text: event.recipientId, dir: 'ltr' }];
    }
    const address = recipientAddress(recipient);
    // Names and roles are cut after two lines each, so that a row always fits on a page; the recipients table
    // shows them in full.
    return [
      { text: recipient.fullName, dir: 'auto', maxLines: 2 },
      ...(address ? [{ text: address, dir: 'ltr' as const }] : []),
      {
        text: `${recipient.roleName} · ${recipientType(recipient, words)}`,
        size: SMALL_SIZE,
        color: MUTED,
        maxLines: 2,
      },
    ];
  }
  if (event.actor) return [{ text: event.actor, dir: 'auto', maxLines: 3 }];
  switch (eventActor(event.type, event.data ?? {})) {
    case 'sender':
      return [{ text: words.t('audit.actor.sender', { organization: closed(organizationName, words) }) }];
    case 'system':
      return [{ text: words.t('audit.actor.system') }];
    case 'operator':
      return [{ text: words.t('audit.actor.operator') }];
    default:
      return [{ text: DASH }];
  }
}

function uploadRows(uploads: AuditTrailUpload[], words: DocumentText): Row[] {
  return uploads.map((upload) => ({
    cells: [
      [{ text: upload.fieldLabel, dir: 'auto' }],
      [{ text: upload.filename, dir: 'auto' }],
      [{ text: upload.contentType, dir: 'ltr' }],
      [{ text: words.t('audit.sizeBytes', { count: upload.sizeBytes }) }],
    ],
    below: {
      from: 1,
      parts: [
        {
          text: words.t('audit.sha256', { value: upload.sha256 }),
          size: SMALL_SIZE,
          color: MUTED,
          dir: 'ltr',
        },
      ],
    },
  }));
}

function personalStampRows(stamps: AuditTrailPersonalStamp[], words: DocumentText): Row[] {
  return uploadRows(
    stamps.map((stamp) => ({
      fieldLabel: stamp.fieldLabel,
      filename: words.t('audit.stampVersion', { name: stamp.stampName, version: stamp.version }),
      contentType: stamp.contentType,
      sizeBytes: stamp.sizeBytes,
      sha256: stamp.sha256,
    })),
    words,
  );
}

/**
 * Who each recipient event's recipient was when it happened: the recipient as they are now, back to the last
 * delegation; that delegation and the events before it name the person who handed the part over (its
 * `delegated_by_*` data), and so on back.
 */
function actorsOf(
  ordered: readonly AuditTrailEvent[],
  recipients: readonly AuditTrailRecipient[],
): Map<AuditTrailEvent, AuditTrailRecipient> {
  const current = new Map(recipients.map((recipient) => [recipient.id, recipient]));
  const actors = new Map<AuditTrailEvent, AuditTrailRecipient>();
  for (const event of ordered.toReversed()) {
    const who = event.recipientId ? current.get(event.recipientId) : undefined;
    if (!event.recipientId || !who) continue;
    const before =
      event.type === 'recipient.delegated'
        ? delegator(who, event.data ?? {})
        : event.type === 'recipient.corrected'
          ? beforeCorrection(who, event.data ?? {})
          : who;
    current.set(event.recipientId, before);
    actors.set(event, before);
  }
  return actors;
}

/** The recipient as the person who handed their part over, from a delegation's data. */
function delegator(recipient: AuditTrailRecipient, data: Record<string, unknown>): AuditTrailRecipient {
  const text = (key: string): string | null => (typeof data[key] === 'string' ? (data[key] as string) : null);
  const channel = text('delegated_by_channel');
  return {
    ...recipient,
    fullName: text('delegated_by_name') ?? recipient.fullName,
    email: text('delegated_by_email'),
    phone: text('delegated_by_phone'),
    ...(channel ? { deliveryChannel: channel as AuditTrailRecipient['deliveryChannel'] } : {}),
  };
}

/** The recipient as they were before a sender's correction, from its `changes` (each field's `old`). */
function beforeCorrection(
  recipient: AuditTrailRecipient,
  data: Record<string, unknown>,
): AuditTrailRecipient {
  const before = { ...recipient } as Record<string, unknown>;
  for (const [field, change] of correctionChanges(data)) {
    if (field === 'fullName' && typeof change.old !== 'string') continue;
    before[field] = change.old;
  }
  return before as AuditTrailRecipient;
}

/** A correction's changed fields with their old and new values (text or null), in the order of its data. */
function correctionChanges(
  data: Record<string, unknown>,
): [string, { old: string | null; new: string | null }][] {
  const changes = data.changes;
  if (changes === null || typeof changes !== 'object') return [];
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  return Object.entries(changes as Record<string, { old?: unknown; new?: unknown }>)
    .filter(([field]) => ['fullName', 'email', 'phone', 'deliveryChannel', 'language'].includes(field))
    .map(([field, change]) => [field, { old: text(change?.old), new: text(change?.new) }]);
}

/**
 * A correction's lines, old value to new, in the report's language (the values as they were written), in words:
 * the report's fonts have no arrow.
 */
function correctionLines(data: Record<string, unknown>, words: DocumentText): string[] {
  const value = (text: string | null) => closed(text ?? words.t('audit.correction.empty'), words);
  return correctionChanges(data).map(([field, change]) =>
    words.t('audit.correction', {
      field: words.lookup(`audit.correction.${field}`, field),
      old: value(change.old),
      new: value(change.new),
    }),
  );
}

function eventRows(input: RenderAuditTrailInput, words: DocumentText): Row[] {
  const ordered = [...input.events].sort(
    (a, b) => a.sequence - b.sequence || a.occurredAt.getTime() - b.occurredAt.getTime(),
  );
  const actors = actorsOf(ordered, input.recipients);
  return ordered.map((event) => {
    const label = words.lookup(`event.${event.type}`, '');
    const eventCell: CellPart[] = label
      ? [{ text: label }, { text: event.type, size: SMALL_SIZE, color: MUTED, dir: 'ltr' }]
      : [{ text: event.type, dir: 'ltr' }];
    const details: CellPart[] = [];
    if (event.userAgent) {
      details.push({
        text: words.t('audit.userAgent', { value: closed(event.userAgent, words) }),
        size: SMALL_SIZE,
        color: MUTED,
        maxLines: 2,
      });
    }
    const corrections = event.type === 'recipient.corrected' ? correctionLines(event.data ?? {}, words) : [];
    if (corrections.length > 0) {
      details.push({
        text: corrections.join('; '),
        size: SMALL_SIZE,
        color: MUTED,
        maxLines: DETAIL_LINES - 2,
      });
    }
    const data = corrections.length > 0 ? '' : formatData(event.data ?? {});
    if (data !== '') {
      details.push({
        text: words.t('audit.details', { value: closed(data, words) }),
        size: SMALL_SIZE,
        color: MUTED,
        maxLines: DETAIL_LINES - 2,
      });
    }
    return {
      cells: [
        [{ text: String(event.sequence), dir: 'ltr' }],
        [{ text: formatUtc(event.occurredAt), dir: 'ltr' }],
        eventCell,
        actorCell(event, actors.get(event), input.envelope.organizationName, words),
        [{ text: event.ip || DASH, dir: 'ltr' }],
      ],
      ...(details.length > 0 ? { below: { from: 2, parts: details } } : {}),
    };
  });
}

/**
 * Renders the audit trail of an envelope. Throws PdfRenderError when a date is invalid, an event has no
 * integer sequence or an upload's size is not a number of bytes.
 */
export async function renderAuditTrail(input: RenderAuditTrailInput): Promise<Uint8Array> {
  validate(input);
  const { envelope, document } = input;
  const words = documentText(input.language);
  const { t } = words;
  const doc = await PDFDocument.create({ updateMetadata: false });
  const report = new ReportWriter(doc, words);

  await report.paragraph({ text: t('audit.kicker'), size: 8, weight: 'bold', color: ACCENT });
  report.gap(4);
  await report.paragraph({
    text: envelope.title || DASH,
    size: 16,
    weight: 'bold',
    maxLines: 3,
    dir: 'auto',
  });
  report.gap(8);
  await report.keyValues([
    [t('audit.envelopeId'), envelope.id, 'ltr'],
    [t('audit.organization'), envelope.organizationName, 'auto'],
    [t('audit.status'), words.lookup(`envelopeStatus.${envelope.status}`, envelope.status)],
    [t('audit.created'), formatUtc(envelope.createdAt), 'ltr'],
    [t('audit.sent'), formatUtc(envelope.sentAt), 'ltr'],
    [t('audit.completed'), formatUtc(envelope.completedAt), 'ltr'],
    [t('audit.expires'), formatUtc(envelope.expiresAt), 'ltr'],
    [t('audit.generated'), formatUtc(input.generatedAt), 'ltr'],
  ]);

  await report.heading(t('audit.document'));
  await report.keyValues([
    [t('audit.fileName'), document.filename, 'auto'],
    [t('audit.pages'), String(document.pageCount), 'ltr'],
    [t('audit.originalSha'), document.sha256, 'ltr'],
    [t('audit.finalSha'), input.finalPdfSha256, 'ltr'],
    ...(input.auditChain
      ? [
          [
            t('audit.chainHead', { count: input.auditChain.events }),
            input.auditChain.head,
            'ltr',
          ] satisfies KeyValue,
        ]
      : []),
  ]);

  await report.table(
    t('audit.recipients', { count: input.recipients.length }),
    [
      { title: t('audit.column.number'), width: 18 },
      { title: t('audit.column.name'), width: 100 },
      // Wide enough for most addresses at full size (a longer one shrinks, see CellPart.whole).
      { title: t('audit.column.contact'), width: 200 },
      { title: t('audit.column.roleType'), width: 80 },
      { title: t('audit.column.statusCompleted'), width: 82 },
      { title: t('audit.column.language'), width: CONTENT_WIDTH - 480 },
    ],
    recipientRows(input.recipients, words),
    t('audit.noRecipients'),
  );

  const uploads = input.uploads ?? [];
  if (uploads.length > 0) {
    await report.table(
      t('audit.uploads', { count: uploads.length }),
      [
        { title: t('audit.column.field'), width: 130 },
        { title: t('audit.column.fileName'), width: 200 },
        { title: t('audit.column.contentType'), width: 100 },
        { title: t('audit.column.size'), width: CONTENT_WIDTH - 430 },
      ],
      uploadRows(uploads, words),
      '',
    );
  }

  const personalStamps = input.personalStamps ?? [];
  if (personalStamps.length > 0) {
    await report.table(
      t('audit.personalStamps', { count: personalStamps.length }),
      [
        { title: t('audit.column.field'), width: 130 },
        { title: t('audit.column.personalStamp'), width: 200 },
        { title: t('audit.column.contentType'), width: 100 },
        { title: t('audit.column.size'), width: CONTENT_WIDTH - 430 },
      ],
      personalStampRows(personalStamps, words),
      '',
    );
  }

  await report.table(
    input.events.length === 1 ? t('audit.eventsOne') : t('audit.eventsMany', { count: input.events.length }),
    [
      { title: t('audit.column.sequence'), width: 24 },
      { title: t('audit.column.time'), width: 90 },
      { title: t('audit.column.event'), width: 120 },
      { title: t('audit.column.actor'), width: 160 },
      // An IPv6 address of eight full groups fits at 5.5 pt.
      { title: t('audit.column.ip'), width: CONTENT_WIDTH - 394 },
    ],
    eventRows(input, words),
    t('audit.noEvents'),
  );

  await report.footers(t('audit.footer', { id: envelope.id, date: formatUtc(input.generatedAt) }));

  doc.setTitle(t('audit.metaTitle', { title: envelope.title }));
  doc.setSubject(t('audit.metaSubject', { id: envelope.id }));
  doc.setCreator('Sigil');
  doc.setProducer('Sigil');
  doc.setCreationDate(input.generatedAt);
  doc.setModificationDate(input.generatedAt);
  if (input.sealMetadata) writeSealMetadata(doc, input.sealMetadata);
  return doc.save({ useObjectStreams: true, updateFieldAppearances: false });
}
