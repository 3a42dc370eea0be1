// GET /api/documents/export: the envelopes the documents list shows for a tab, search and filters — the same
// query (list-documents.ts: the user's visibility, the tab's statuses, the filters) — as one CSV file, every
// match, newest first, read DOCUMENT_EXPORT_LIMITS.page at a time. A view of more than
// DOCUMENT_EXPORT_LIMITS.rows envelopes is refused (400 `export_too_large`) rather than cut short. The file is
// written like the contacts' export (export-contacts.ts): UTF-8 with a byte-order mark, CRLF line ends, and a
// `'` before every cell a spreadsheet would run as a formula (csv-cells.ts).
import { stringify } from 'csv-stringify/sync';
import { encodeDocumentCursor } from '../../domain/document.ts';
import {
  DOCUMENT_CSV_COLUMNS,
  DOCUMENT_EXPORT_LIMITS,
  DocumentExportQuery,
} from '../../domain/document-export.ts';
import { protectCell } from '../contacts/csv-cells.ts';
import type { DataContext } from '../context.ts';
import { InvalidRequest } from '../errors.ts';
import { parseInput } from '../validation.ts';
import type { DocumentReader } from './document-reader.ts';
import { DOCUMENT_COLUMNS, type DocumentColumnsRow, findDocumentRows, isoOrNull } from './list-documents.ts';

type ExportRow = DocumentColumnsRow & { updated_at: Date };

interface RecipientRow {
  envelope_id: string;
  full_name: string;
  email: string | null;
  phone: string | null;
  status: string;
}

export interface DocumentsFile {
  filename: string;
  content: string;
}

export async function exportDocuments(
  ctx: DataContext,
  reader: DocumentReader,
  query: unknown,
  now: Date = new Date(),
): Promise<DocumentsFile> {
  const input = parseInput(DocumentExportQuery, query, 'query');
  const rows: ExportRow[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await findDocumentRows<ExportRow>(
      ctx,
      reader,
      { ...input, ...(cursor ? { cursor } : {}) },
      { sql: `${DOCUMENT_COLUMNS}, e.updated_at`, params: [] },
      DOCUMENT_EXPORT_LIMITS.page,
    );
    rows.push(...page);
    if (rows.length > DOCUMENT_EXPORT_LIMITS.rows) throw tooLarge();
    const last = page.at(-1);
    if (page.length < DOCUMENT_EXPORT_LIMITS.page || !last) break;
    cursor = encodeDocumentCursor({ createdAt: last.created_at_exact, id: last.id });
  }
  const recipients = await recipientsOf(
    ctx,
    rows.map((row) => row.id),
  );
  const records = rows.map((row) =>
    [
      row.title,
      row.status,
      row.template_name ?? '',
      row.sender_id ? (row.sender_name ?? '') : 'API',
      (recipients.get(row.id) ?? []).map(recipientCell).join('; '),
      isoOrNull(row.created_at) ?? '',
      isoOrNull(row.updated_at) ?? '',
      isoOrNull(row.expires_at) ?? '',
      isoOrNull(row.completed_at) ?? '',
    ].map(protectCell),
  );
  const content = stringify(records, {
    header: true,
    columns: [...DOCUMENT_CSV_COLUMNS],
    bom: true,
    record_delimiter: 'windows',
    quoted_match: /[\r\n]/,
  });
  return { filename: `documents-${now.toISOString().slice(0, 10)}.csv`, content };
}

/** A recipient in the file: `Name <address> (Status)`, the address their email or phone (none: left out). */
function recipientCell(recipient: RecipientRow): string {
  const address = recipient.email ?? recipient.phone;
  return `${recipient.full_name}${address ? ` <${address}>` : ''} (${recipient.status})`;
}

function tooLarge(): InvalidRequest {
  const most = DOCUMENT_EXPORT_LIMITS.rows;
  return new InvalidRequest(
    `More than ${most.toLocaleString('en')} envelopes match; an export holds at most ${most.toLocaleString('en')}. ` +
      'Narrow the list (the dates, the sender, the team, the template or the search) and export again.',
    [{ field: 'querystring', message: `more than ${most} envelopes match`, limit: most }],
    'export_too_large',
  );
}

/** Every recipient of the envelopes, each envelope's in signing order; a chunk of ids per statement. */
async function recipientsOf(ctx: DataContext, envelopeIds: string[]): Promise<Map<string, RecipientRow[]>> {
  const byEnvelope = new Map<string, RecipientRow[]>();
  for (let start = 0; start < envelopeIds.length; start += DOCUMENT_EXPORT_LIMITS.page) {
    const ids = envelopeIds.slice(start, start + DOCUMENT_EXPORT_LIMITS.page);
    const rows = await ctx.em.execute<RecipientRow[]>(
      `select r.envelope_id, r.full_name, r.email, r.phone, r.status from recipient r
        where r.envelope_id in (${ids.map(() => '?').join(', ')})
        order by r.envelope_id, r.signing_order, r.position, r.id`,
      ids,
    );
    for (const row of rows) {
      const list = byEnvelope.get(row.envelope_id) ?? [];
      list.push(row);
      byEnvelope.set(row.envelope_id, list);
    }
  }
  return byEnvelope;
}
