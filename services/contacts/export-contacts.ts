// GET /api/contacts/export: the organization's contacts (those matching `search` when given) as a CSV file in
// the list's order, in the columns the import reads (name, company, email, phone, tags; tags separated by
// "; "). UTF-8 with a byte-order mark, so that spreadsheets read Hebrew and other non-Latin names correctly,
// and CRLF line ends (RFC 4180); written by csv-stringify, which quotes cells with commas, quotes or line
// breaks. Cells that a spreadsheet would run as a formula get a leading `'` (csv-cells.ts).
import { stringify } from 'csv-stringify/sync';
import { CONTACT_CSV_COLUMNS, ContactExportQuery, TAG_SEPARATOR } from '../../domain/contact.ts';
import type { DataContext } from '../context.ts';
import { parseInput } from '../validation.ts';
import { protectCell } from './csv-cells.ts';
import { allContacts } from './list-contacts.ts';

export interface ContactsFile {
  filename: string;
  content: string;
}

export async function exportContacts(
  ctx: DataContext,
  organizationId: string,
  query: unknown,
  now: Date = new Date(),
): Promise<ContactsFile> {
  const { search } = parseInput(ContactExportQuery, query, 'query');
  const contacts = await allContacts(ctx, organizationId, search);
  const records = contacts.map((contact) =>
    [
      contact.name,
      contact.company ?? '',
      contact.email ?? '',
      contact.phone ?? '',
      contact.tags.join(`${TAG_SEPARATOR} `),
    ].map(protectCell),
  );
  const content = stringify(records, {
    header: true,
    columns: [...CONTACT_CSV_COLUMNS],
    bom: true,
    record_delimiter: 'windows',
    // Names cannot hold line breaks (single-line text), but a cell with one would need quotes too.
    quoted_match: /[\r\n]/,
  });
  return { filename: `contacts-${now.toISOString().slice(0, 10)}.csv`, content };
}
