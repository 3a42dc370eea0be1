// POST /api/contacts/import: contacts from a CSV file (docs/contacts.md, "Import"). The file's header names its
// columns (name, company, email, phone, tags; any order, any case; name and one of email or phone required),
// each later row is one contact. All or nothing: every row is checked first — each field by the same schema
// as POST /api/contacts, a row repeating an earlier row's email (or, without one, its phone), a row with more
// cells than the header — and one problem anywhere writes nothing: 400 `invalid_csv` with a detail per
// problem naming the row (as a spreadsheet numbers it: the header is row 1) and the column. Otherwise, in one
// transaction, a row whose email is an existing contact's (without an email: whose phone is an existing
// contact's without an email) updates that contact — only the columns the file has, so a file of names and
// emails leaves phones and tags as they are — and any other row creates one. Importing the same file twice
// changes nothing the second time. The file is parsed by csv-parse (RFC 4180: quoted cells with commas,
// quotes and line breaks); a byte-order mark is ignored, empty rows are skipped, and the `'` that the export
// puts before a cell starting with = + - @ (so that a spreadsheet does not run it as a formula) is removed.
import { randomUUID } from 'node:crypto';
import { Contact } from '../../db/entities/index.ts';
import { lockOrganization } from '../../db/usage-reservations.ts';
import {
  CONTACT_CSV_COLUMNS,
  CONTACT_LIMITS,
  type ContactCsvColumn,
  type ContactInput,
  ImportContactsRequest,
  type ImportContactsResult,
  TAG_SEPARATORS,
  UpsertContactRequest,
} from '../../domain/contact.ts';
import { isUniqueViolation } from '../administration/administration.ts';
import type { DataContext } from '../context.ts';
import {
  type CsvProblem,
  dataRows,
  extraCells,
  invalidCsv as invalidFile,
  readCsvRecords,
  wrongSeparator,
} from '../csv/csv-file.ts';
import { Conflict } from '../errors.ts';
import { requireRoom } from '../usage/counted-limit.ts';
import { parseInput } from '../validation.ts';
import { CONTACT_LIMIT } from './contacts.ts';
import { unprotectCell } from './csv-cells.ts';

const REFUSED = 'The file was not imported (nothing was changed)';
type Problem = CsvProblem;
const invalidCsv = (problems: Problem[]) => invalidFile(problems, REFUSED);

interface ImportRow {
  row: number;
  contact: ContactInput;
}

export async function importContacts(
  ctx: DataContext,
  organizationId: string,
  input: unknown,
): Promise<ImportContactsResult> {
  const { csv } = parseInput(ImportContactsRequest, input, 'import');
  const { rows, columns } = readFile(csv);
  return ctx.em
    .transactional(async (tx) => {
      // The organization's lock first, so imports and single adds at once cannot pass the limit together.
      await lockOrganization(tx, organizationId);
      const emails = rows.flatMap(({ contact }) => (contact.email ? [contact.email] : []));
      const phones = rows.flatMap(({ contact }) =>
        contact.email === null && contact.phone ? [contact.phone] : [],
      );
      const existing = await tx.find(Contact, {
        organizationId,
        $or: [{ email: { $in: emails } }, { email: null, phone: { $in: phones } }],
      });
      const byKey = new Map(existing.map((contact) => [keyOf(contact), contact]));
      // The new contacts must fit in the limit (counted under the lock, before any is added); nothing is
      // imported otherwise.
      const adding = rows.filter(({ contact }) => !byKey.has(keyOf(contact))).length;
      if (adding > 0) await requireRoom(tx, organizationId, CONTACT_LIMIT(organizationId), adding);
      const result: ImportContactsResult = { rows: rows.length, created: 0, updated: 0, unchanged: 0 };
      for (const { contact: fields } of rows) {
        const found = byKey.get(keyOf(fields));
        if (!found) {
          tx.create(Contact, { id: randomUUID(), organizationId, ...fields });
          result.created += 1;
        } else if (applyColumns(found, fields, columns)) {
          result.updated += 1;
        } else {
          result.unchanged += 1;
        }
      }
      await tx.flush();
      return result;
    })
    .catch((error: unknown) => {
      if (!isUniqueViolation(error)) throw error;
      const phone = String((error as { constraint?: unknown }).constraint ?? '').includes('phone');
      throw new Conflict(
        `Another request added a contact with ${phone ? 'a phone' : 'an email'} of this file while it was ` +
          'imported: nothing was imported. Import the file again.',
        [{ field: 'body.csv', message: 'a contact of the file was added meanwhile' }],
        phone ? 'contact_phone_taken' : 'contact_email_taken',
      );
    });
}

/** What identifies a contact: its email, or, without one, its phone. */
function keyOf(contact: { email?: string | null; phone?: string | null }): string {
  return contact.email ? `email:${contact.email}` : `phone:${contact.phone ?? ''}`;
}

/** Sets the file's columns on an existing contact; whether anything changed. */
function applyColumns(contact: Contact, fields: ContactInput, columns: ReadonlySet<ContactCsvColumn>) {
  let changed = false;
  const set = <K extends 'name' | 'company' | 'phone'>(key: K, value: Contact[K]) => {
    if ((contact[key] ?? null) !== value) {
      contact[key] = value;
      changed = true;
    }
  };
  if (columns.has('name')) set('name', fields.name);
  if (columns.has('company')) set('company', fields.company);
  // The email is the key that found the contact; the phone is the key of a contact without an email.
  if (columns.has('phone') && fields.email !== null) set('phone', fields.phone);
  if (columns.has('tags') && fields.tags.join('\n') !== (contact.tags ?? []).join('\n')) {
    contact.tags = fields.tags;
    changed = true;
  }
  return changed;
}

/** The file's rows as contacts and the columns it has, or 400 `invalid_csv` listing every problem. */
function readFile(csv: string): { rows: ImportRow[]; columns: Set<ContactCsvColumn> } {
  const records = readCsvRecords(csv, REFUSED);
  const [header] = records;
  if (!header || header.every((cell) => cell.trim() === '')) {
    throw invalidCsv([
      { row: 1, message: `the first row must name the columns: ${CONTACT_CSV_COLUMNS.join(', ')}` },
    ]);
  }
  const { columns, problems } = readHeader(header);
  if (problems.length > 0) throw invalidCsv(problems);

  const rows: ImportRow[] = [];
  const firstRowOf = new Map<string, number>();
  for (const { row, cells } of dataRows(records)) {
    const extra = extraCells(row, cells, header);
    if (extra) {
      problems.push(extra);
      continue;
    }
    // An empty or missing name cell is "name is required", as an empty name field is.
    const given: Record<string, unknown> = { name: '' };
    let unnamed = false;
    cells.forEach((raw, position) => {
      const cell = unprotectCell(raw).trim();
      const column = columns[position];
      if (!column) {
        if (cell !== '') unnamed = true;
        return;
      }
      if (cell === '') return;
      given[column] =
        column === 'tags'
          ? cell
              .split(TAG_SEPARATORS)
              .map((tag) => tag.trim())
              .filter(Boolean)
          : cell;
    });
    if (unnamed) problems.push({ row, message: 'has a value in a column the header does not name' });
    const parsed = UpsertContactRequest.safeParse(given);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const column = String(issue.path[0] ?? '');
        const tag = issue.path.length > 1 ? ` (tag ${Number(issue.path[1]) + 1})` : '';
        problems.push({
          row,
          ...(column ? { column } : {}),
          message: `${issue.message}${tag}`,
        });
      }
      continue;
    }
    const key = keyOf(parsed.data);
    const earlier = firstRowOf.get(key);
    if (earlier !== undefined) {
      const column = parsed.data.email ? 'email' : 'phone';
      problems.push({ row, column, message: `the same ${column} as row ${earlier}: one row per contact` });
      continue;
    }
    firstRowOf.set(key, row);
    rows.push({ row, contact: parsed.data });
  }
  if (rows.length === 0 && problems.length === 0) {
    problems.push({ row: 2, message: 'the file has no contacts after the header row' });
  }
  if (rows.length > CONTACT_LIMITS.importRows) {
    throw invalidCsv([
      {
        message: `the file has ${rows.length} contacts; import at most ${CONTACT_LIMITS.importRows} at a time`,
      },
    ]);
  }
  if (problems.length > 0) throw invalidCsv(problems);
  return { rows, columns: new Set(columns.filter((column): column is ContactCsvColumn => Boolean(column))) };
}

/** The header's columns by position (undefined: an unnamed column), and what is wrong with it. */
function readHeader(header: string[]): { columns: (ContactCsvColumn | undefined)[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const known = CONTACT_CSV_COLUMNS as readonly string[];
  const columns = header.map((cell, position) => {
    const name = unprotectCell(cell).trim().toLowerCase();
    if (name === '') return undefined;
    if (!known.includes(name)) {
      const separator = wrongSeparator(name);
      problems.push(
        separator
          ? { row: 1, message: separator }
          : {
              row: 1,
              column: cell.trim(),
              message: `column ${position + 1}, "${cell.trim()}", is not one of ${CONTACT_CSV_COLUMNS.join(', ')}`,
            },
      );
      return undefined;
    }
    return name as ContactCsvColumn;
  });
  const named = columns.filter(Boolean);
  for (const column of CONTACT_CSV_COLUMNS) {
    if (named.filter((candidate) => candidate === column).length > 1) {
      problems.push({ row: 1, column, message: `the column ${column} appears twice` });
    }
  }
  if (problems.length === 0) {
    if (!named.includes('name')) problems.push({ row: 1, message: 'the header must have a name column' });
    if (!named.includes('email') && !named.includes('phone')) {
      problems.push({ row: 1, message: 'the header must have an email or a phone column (or both)' });
    }
  }
  return { columns, problems };
}
