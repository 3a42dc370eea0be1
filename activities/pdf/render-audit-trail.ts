// The audit-trail PDF: who signed what, when and from where. A4 pages: a header with the envelope's identity,
// the document section with both SHA-256 digests, the recipients table and the chronological event log, with
// page breaks (table headers repeated) and "page N of M" in every footer. Times are UTC, ISO 8601 to the
// second (e.g. 2026-03-01T10:15:30Z). Names and other texts go through the same fonts and bidi treatment as
// the final PDF, so Hebrew renders. The same input always gives the same bytes.
import { PDFDocument, type PDFPage, type RGB, rgb } from 'pdf-lib';
import type { EnvelopeStatus, RecipientStatus, RecipientType } from '../../workflows/domain.ts';
import { PdfRenderError } from './errors.ts';
import { DocumentFonts, type FontWeight } from './fonts.ts';
import { LINE_HEIGHT, TextKit, type TextLine } from './text.ts';

export { PdfRenderError } from './errors.ts';

export interface AuditTrailRecipient {
  fullName: string;
  email: string | null;
  phone: string | null;
  roleName: string;
  type: RecipientType;
  signingOrder: number;
  status: RecipientStatus;
  completedAt: Date | null;
  language: string | null;
  /** Shown when given (the envelope's recipient records carry both). */
  deliveryChannel?: string | null;
  authenticationMethod?: string | null;
}

export interface AuditTrailEvent {
  sequence: number;
  type: string;
  occurredAt: Date;
  actor?: string;
  ip?: string;
  userAgent?: string;
  data: Record<string, unknown>;
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
  recipients: AuditTrailRecipient[];
  events: AuditTrailEvent[];
  generatedAt: Date;
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
const CELL_PADDING = { x: 3, y: 3 } as const;
/** Most lines an event's details (user agent and data) may take, so that a row always fits on a page. */
const DETAIL_LINES = 6;
const DASH = '—';
/**
 * The report is in English, laid out left to right: every text is a left-to-right paragraph, inside which
 * Hebrew runs read right to left (as an English web page shows Hebrew names).
 */
const REPORT_DIRECTION = 'ltr';

/** Readable names of the event types the lifecycle records; other types are shown as recorded. */
const EVENT_LABELS: Record<string, string> = {
  'envelope.created': 'Envelope created',
  'envelope.sent': 'Envelope sent',
  'envelope.reminded': 'Reminder sent',
  'envelope.extended': 'Deadline extended',
  'envelope.completed': 'Envelope completed',
  'envelope.cancelled': 'Envelope cancelled',
  'envelope.expired': 'Envelope expired',
  'envelope.delivery_failed': 'Delivery failed',
  'recipient.invited': 'Invitation sent',
  'recipient.opened': 'Link opened',
  'recipient.viewed': 'Document viewed',
  'recipient.authentication_verified': 'Authentication verified',
  'recipient.authentication_failed': 'Authentication failed',
  'recipient.completed': 'Recipient completed',
  'recipient.declined': 'Recipient declined',
  'document.final_pdf_ready': 'Final PDF ready',
};

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
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
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
}

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
  readonly pages: PDFPage[] = [];
  private page!: PDFPage;
  private y = 0;

  constructor(doc: PDFDocument) {
    this.doc = doc;
    this.text = new TextKit(new DocumentFonts(doc));
    this.newPage();
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
    const size = part.size ?? BODY_SIZE;
    const weight = part.weight ?? 'regular';
    let lines = this.text.wrap(part.text, width, size, weight, REPORT_DIRECTION);
    if (part.maxLines !== undefined && lines.length > part.maxLines) {
      lines = lines.slice(0, part.maxLines);
      lines[lines.length - 1] = this.text.ellipsize(lines.at(-1) as TextLine, width, size, weight);
    }
    return { lines, size, weight, color: part.color ?? INK };
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
          align: 'left',
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
  async keyValues(rows: Array<[string, string]>, labelWidth = 118): Promise<void> {
    const valueWidth = CONTENT_WIDTH - labelWidth;
    for (const [label, value] of rows) {
      const labelParts = [this.layout({ text: label, color: MUTED }, labelWidth - 6)];
      const valueParts = [this.layout({ text: value === '' ? DASH : value }, valueWidth)];
      const height = Math.max(ReportWriter.height(labelParts), ReportWriter.height(valueParts)) + 2;
      if (height > this.room()) this.newPage();
      await this.drawParts(labelParts, MARGIN.left, this.y, labelWidth - 6);
      await this.drawParts(valueParts, MARGIN.left + labelWidth, this.y, valueWidth);
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
    let x = MARGIN.left;
    for (const [index, column] of columns.entries()) {
      await this.drawParts(
        parts[index] as LaidOutPart[],
        x + CELL_PADDING.x,
        this.y - CELL_PADDING.y,
        column.width - 2 * CELL_PADDING.x,
      );
      x += column.width;
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
        await this.heading(`${title} (continued)`);
        await this.headerRow(columns);
      }
      let x = MARGIN.left;
      for (const [index, column] of columns.entries()) {
        await this.drawParts(
          cells[index] as LaidOutPart[],
          x + CELL_PADDING.x,
          this.y - CELL_PADDING.y,
          column.width - 2 * CELL_PADDING.x,
        );
        x += column.width;
      }
      if (below.length > 0) {
        await this.drawParts(
          below,
          MARGIN.left + belowX + CELL_PADDING.x,
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

  /** Footers go on last, when the page count is known. */
  async footers(left: string): Promise<void> {
    const total = this.pages.length;
    for (const [index, page] of this.pages.entries()) {
      const y = MARGIN.bottom - 26;
      page.drawLine({
        start: { x: MARGIN.left, y: y + 11 },
        end: { x: PAGE.width - MARGIN.right, y: y + 11 },
        thickness: 0.4,
        color: RULE,
      });
      const pageLabel = `page ${index + 1} of ${total}`;
      const labelWidth = this.text.measure(pageLabel, SMALL_SIZE);
      const fitted = this.text.fitLine(left, CONTENT_WIDTH - labelWidth - 12, {
        maxSize: SMALL_SIZE,
        minSize: 5,
        direction: REPORT_DIRECTION,
      });
      const options = { y, size: SMALL_SIZE, color: MUTED };
      await this.text.drawLine(page, fitted.lines[0] as TextLine, {
        ...options,
        size: fitted.size,
        x: MARGIN.left,
        width: CONTENT_WIDTH,
        align: 'left',
      });
      const [pageLine] = this.text.wrap(pageLabel, CONTENT_WIDTH, SMALL_SIZE, 'regular', REPORT_DIRECTION);
      await this.text.drawLine(page, pageLine as TextLine, {
        ...options,
        x: MARGIN.left,
        width: CONTENT_WIDTH,
        align: 'right',
      });
    }
  }
}

function recipientRows(recipients: AuditTrailRecipient[]): Row[] {
  const ordered = [...recipients].sort((a, b) => a.signingOrder - b.signingOrder);
  return ordered.map((recipient) => {
    const contact: CellPart[] = [];
    if (recipient.email) contact.push({ text: recipient.email });
    if (recipient.phone) contact.push({ text: recipient.phone });
    if (contact.length === 0) contact.push({ text: DASH });
    const channel = [recipient.deliveryChannel, recipient.authenticationMethod].filter(Boolean).join(' · ');
    if (channel) contact.push({ text: channel, size: SMALL_SIZE, color: MUTED });
    return {
      cells: [
        [{ text: String(recipient.signingOrder) }],
        [{ text: recipient.fullName }],
        contact,
        [{ text: recipient.roleName }, { text: recipient.type, size: SMALL_SIZE, color: MUTED }],
        [{ text: recipient.status }],
        [{ text: formatUtc(recipient.completedAt) }],
        [{ text: recipient.language ?? DASH }],
      ],
    };
  });
}

function eventRows(events: AuditTrailEvent[]): Row[] {
  const ordered = [...events].sort(
    (a, b) => a.sequence - b.sequence || a.occurredAt.getTime() - b.occurredAt.getTime(),
  );
  return ordered.map((event) => {
    const label = EVENT_LABELS[event.type];
    const eventCell: CellPart[] = label
      ? [{ text: label }, { text: event.type, size: SMALL_SIZE, color: MUTED }]
      : [{ text: event.type }];
    const details: CellPart[] = [];
    if (event.userAgent) {
      details.push({ text: `User agent: ${event.userAgent}`, size: SMALL_SIZE, color: MUTED, maxLines: 2 });
    }
    const data = formatData(event.data ?? {});
    if (data !== '') {
      details.push({ text: `Details: ${data}`, size: SMALL_SIZE, color: MUTED, maxLines: DETAIL_LINES - 2 });
    }
    return {
      cells: [
        [{ text: String(event.sequence) }],
        [{ text: formatUtc(event.occurredAt) }],
        eventCell,
        [{ text: event.actor || DASH }],
        [{ text: event.ip || DASH }],
      ],
      ...(details.length > 0 ? { below: { from: 2, parts: details } } : {}),
    };
  });
}

/**
 * Renders the audit trail of an envelope. Throws PdfRenderError when a date is invalid or an event has no
 * integer sequence.
 */
export async function renderAuditTrail(input: RenderAuditTrailInput): Promise<Uint8Array> {
  validate(input);
  const { envelope, document } = input;
  const doc = await PDFDocument.create({ updateMetadata: false });
  const report = new ReportWriter(doc);

  await report.paragraph({ text: 'AUDIT TRAIL', size: 8, weight: 'bold', color: ACCENT });
  report.gap(4);
  await report.paragraph({ text: envelope.title || DASH, size: 16, weight: 'bold', maxLines: 3 });
  report.gap(8);
  await report.keyValues([
    ['Envelope ID', envelope.id],
    ['Organization', envelope.organizationName],
    ['Status', envelope.status],
    ['Created (UTC)', formatUtc(envelope.createdAt)],
    ['Sent (UTC)', formatUtc(envelope.sentAt)],
    ['Completed (UTC)', formatUtc(envelope.completedAt)],
    ['Expires (UTC)', formatUtc(envelope.expiresAt)],
    ['Report generated (UTC)', formatUtc(input.generatedAt)],
  ]);

  await report.heading('Document');
  await report.keyValues([
    ['File name', document.filename],
    ['Pages', String(document.pageCount)],
    ['SHA-256 of the original', document.sha256],
    ['SHA-256 of the final PDF', input.finalPdfSha256],
  ]);

  await report.table(
    `Recipients (${input.recipients.length})`,
    [
      { title: '#', width: 20 },
      { title: 'Name', width: 100 },
      { title: 'Contact', width: 118 },
      { title: 'Role / type', width: 72 },
      { title: 'Status', width: 75 },
      { title: 'Completed (UTC)', width: 92 },
      { title: 'Lang.', width: CONTENT_WIDTH - 477 },
    ],
    recipientRows(input.recipients),
    'No recipients.',
  );

  await report.table(
    `Event log (${input.events.length} event${input.events.length === 1 ? '' : 's'})`,
    [
      { title: 'Seq.', width: 30 },
      { title: 'Time (UTC)', width: 92 },
      { title: 'Event', width: 140 },
      { title: 'Actor', width: 150 },
      { title: 'IP address', width: CONTENT_WIDTH - 412 },
    ],
    eventRows(input.events),
    'No events recorded.',
  );

  await report.footers(
    `Sigil audit trail · envelope ${envelope.id} · generated ${formatUtc(input.generatedAt)}`,
  );

  doc.setTitle(`Audit trail: ${envelope.title}`);
  doc.setSubject(`Envelope ${envelope.id}`);
  doc.setCreator('Sigil');
  doc.setProducer('Sigil');
  doc.setCreationDate(input.generatedAt);
  doc.setModificationDate(input.generatedAt);
  return doc.save({ useObjectStreams: true, updateFieldAppearances: false });
}
