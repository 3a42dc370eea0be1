// A bulk send's CSV file read against its template (docs/bulk-send.md, "The file"): the header names the
// columns — externalReference, title, `<role>.name|email|phone|language` for each role, and the label of any
// field the sender may prefill — and every later row becomes the body of POST /api/v1/envelopes/from-template,
// checked exactly as that body is (checkEnvelopeRequest). All or nothing: every row is checked first, and one
// problem anywhere starts nothing — 400 `invalid_csv` with a detail per problem naming the row (the header is
// row 1) and the column the problem is in.
import type { z } from 'zod';
import { BULK_SEND_LIMITS, type BulkSendColumn, type BulkSendRoleSettings } from '../../domain/bulk-send.ts';
import { CreateEnvelopeRequest } from '../../domain/envelope.ts';
import {
  BULK_SEND_RECIPIENT_PARTS,
  BULK_SEND_ROW_COLUMNS,
  type FieldType,
  SIGNER_SUPPLIED_FIELD_TYPES,
} from '../../domain/vocabulary.ts';
import { unprotectCell } from '../contacts/csv-cells.ts';
import {
  type CsvProblem,
  dataRows,
  extraCells,
  invalidCsv,
  readCsvRecords,
  wrongSeparator,
} from '../csv/csv-file.ts';
import { checkEnvelopeRequest, type PublishedTemplate } from '../envelopes/create-envelope.ts';
import { InvalidRequest } from '../errors.ts';
import { textMessagesNeeded } from '../usage/sms-credits.ts';

export const REFUSED = 'The bulk send was not started (nothing was sent)';

type RecipientPart = (typeof BULK_SEND_RECIPIENT_PARTS)[number];
type Column = z.output<typeof BulkSendColumn> & { fieldIds: string[] };

/** What every row shares: the request's settings. */
export interface BulkSettings {
  title: string;
  workflowType: 'Sequential' | 'Parallel' | 'GroupedRounds';
  expiresAt?: string | undefined;
  roles: BulkSendRoleSettings[];
}

/** A data row and the create request it becomes. */
export interface BulkRow {
  row: number;
  request: CreateEnvelopeRequest;
  /** SMS/WhatsApp messages its envelope needs at least (invitations and codes). */
  textMessages: number;
}

export interface BulkFile {
  columns: Column[];
  rows: BulkRow[];
}

/** A cell that makes a Checkbox true or false (any case); any other is given as written, and refused. */
const TRUE_CELLS = ['true', 'yes', 'y', '1', 'x', '✓'];
const FALSE_CELLS = ['false', 'no', 'n', '0'];

/** A cell as an error message quotes it: at most 60 characters. */
export function shorten(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

const isPrefillable = (type: FieldType) =>
  !(SIGNER_SUPPLIED_FIELD_TYPES as readonly FieldType[]).includes(type);

/** The header a file for this template starts with (GET /api/bulk-sends/csv-template). */
export function csvHeaderOf(published: PublishedTemplate): string[] {
  const labels = [
    ...new Set(published.fields.filter((field) => isPrefillable(field.type)).map((field) => field.label)),
  ];
  return [
    'externalReference',
    ...published.roles.flatMap((role) => [`${role.name}.name`, `${role.name}.email`, `${role.name}.phone`]),
    ...labels,
  ];
}

/** Reads and checks the whole file; 400 `invalid_csv` listing every problem, else the rows' requests. */
export function readBulkFile(csv: string, published: PublishedTemplate, settings: BulkSettings): BulkFile {
  const records = readCsvRecords(csv, REFUSED);
  const [header] = records;
  if (!header || header.every((cell) => cell.trim() === '')) {
    throw invalidCsv(
      [{ row: 1, message: `the first row must name the columns: ${csvHeaderOf(published).join(', ')}` }],
      REFUSED,
    );
  }
  const { columns, problems } = readHeader(header, published);
  if (problems.length > 0) throw invalidCsv(problems, REFUSED);
  const count = dataRows(records).length;
  if (count > BULK_SEND_LIMITS.rows) {
    throw invalidCsv(
      [{ message: `the file has ${count} rows; send at most ${BULK_SEND_LIMITS.rows} at a time` }],
      REFUSED,
    );
  }

  const rows: BulkRow[] = [];
  const references = new Map<string, number>();
  for (const { row, cells } of dataRows(records)) {
    const extra = extraCells(row, cells, header);
    if (extra) {
      problems.push(extra);
      continue;
    }
    const read = readRow(cells, columns, published, settings);
    const rowProblems = [...read.problems];
    if (rowProblems.length === 0) {
      const reference = read.request.externalReference;
      const earlier = reference ? references.get(reference) : undefined;
      if (reference && earlier !== undefined) {
        rowProblems.push({
          column: columnOf(columns, 'externalReference'),
          message: `the same externalReference as row ${earlier}: one envelope per reference`,
        });
      }
      if (reference) references.set(reference, row);
    }
    if (rowProblems.length > 0) {
      problems.push(...rowProblems.map((problem) => ({ row, ...problem })));
      continue;
    }
    rows.push({ row, request: read.request, textMessages: read.textMessages });
  }
  if (rows.length === 0 && problems.length === 0) {
    problems.push({ row: 2, message: 'the file has no rows after the header: one row per envelope' });
  }
  if (problems.length > 0) throw invalidCsv(problems, REFUSED);
  return { columns: columns.filter((column): column is Column => Boolean(column)), rows };
}

/** The header's columns by position (undefined: an unnamed column), and what is wrong with it. */
function readHeader(
  header: string[],
  published: PublishedTemplate,
): { columns: (Column | undefined)[]; problems: CsvProblem[] } {
  const problems: CsvProblem[] = [];
  const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
  const columns = header.map((raw, position): Column | undefined => {
    const cell = unprotectCell(raw).trim();
    if (cell === '') return undefined;
    const base = { column: shorten(cell), roleName: null, part: null, fields: 0, fieldIds: [] };
    const reserved = BULK_SEND_ROW_COLUMNS.find((name) => same(name, cell));
    if (reserved) return { ...base, kind: reserved };
    const dot = cell.lastIndexOf('.');
    const role = dot > 0 ? published.roles.find((r) => same(r.name, cell.slice(0, dot))) : undefined;
    if (role) {
      const part = BULK_SEND_RECIPIENT_PARTS.find((name) => same(name, cell.slice(dot + 1)));
      if (part) return { ...base, kind: 'recipient', roleName: role.name, part };
      problems.push({
        row: 1,
        column: shorten(cell),
        message: `a column of the role "${role.name}" must be ${BULK_SEND_RECIPIENT_PARTS.map((p) => `${role.name}.${p}`).join(', ')}`,
      });
      return undefined;
    }
    const labelled = published.fields.filter((field) => same(field.label, cell));
    const prefillable = labelled.filter((field) => isPrefillable(field.type));
    if (prefillable.length > 0) {
      const fieldIds = prefillable.map((field) => field.id);
      return { ...base, kind: 'field', fields: fieldIds.length, fieldIds };
    }
    const separator = wrongSeparator(cell);
    if (separator) {
      problems.push({ row: 1, message: separator });
    } else if (labelled[0]) {
      problems.push({
        row: 1,
        column: shorten(cell),
        message: `"${labelled[0].label}" is a ${labelled[0].type} field, which the signer fills: it cannot be prefilled`,
      });
    } else {
      problems.push({
        row: 1,
        column: shorten(cell),
        message: `column ${position + 1}, "${shorten(cell)}", is not a column of this template (expected ${csvHeaderOf(published).join(', ')})`,
      });
    }
    return undefined;
  });
  const named = columns.filter((column): column is Column => Boolean(column));
  const keyOf = (column: Column) =>
    column.kind === 'recipient'
      ? `${column.roleName?.toLowerCase()}.${column.part}`
      : column.kind === 'field'
        ? `field:${column.column.toLowerCase()}`
        : column.kind;
  const seen = new Set<string>();
  for (const column of named) {
    const key = keyOf(column);
    if (seen.has(key)) problems.push({ row: 1, column: column.column, message: 'the column appears twice' });
    seen.add(key);
  }
  if (problems.length === 0) {
    for (const role of published.roles.filter((r) => r.required)) {
      const parts = named.filter((column) => column.roleName === role.name).map((column) => column.part);
      if (!parts.includes('name')) {
        problems.push({
          row: 1,
          message: `the required role "${role.name}" needs a column ${role.name}.name (and ${role.name}.email or ${role.name}.phone)`,
        });
      }
    }
  }
  return { columns, problems };
}

/** One row as a create request, with its problems placed in the row's columns. */
function readRow(
  cells: string[],
  columns: (Column | undefined)[],
  published: PublishedTemplate,
  settings: BulkSettings,
): { request: CreateEnvelopeRequest; textMessages: number; problems: Omit<CsvProblem, 'row'>[] } {
  const problems: Omit<CsvProblem, 'row'>[] = [];
  const recipientCells = new Map<string, Partial<Record<RecipientPart, string>>>();
  const request: CreateEnvelopeRequest & { recipients: Record<string, unknown>[] } = {
    templateId: published.template.id,
    title: settings.title,
    workflowType: settings.workflowType,
    ...(settings.expiresAt ? { expiresAt: settings.expiresAt } : {}),
    recipients: [],
    initialValues: [],
  };
  /** The column of each initialValues item, in order. */
  const valueColumns: string[] = [];
  cells.forEach((raw, position) => {
    const column = columns[position];
    const cell = unprotectCell(raw).trim();
    if (!column) {
      if (cell !== '') problems.push({ message: 'has a value in a column the header does not name' });
      return;
    }
    if (cell === '') return;
    if (column.kind === 'externalReference') request.externalReference = cell;
    else if (column.kind === 'title') request.title = cell;
    else if (column.kind === 'recipient' && column.roleName && column.part) {
      const given = recipientCells.get(column.roleName) ?? {};
      given[column.part] = cell;
      recipientCells.set(column.roleName, given);
    } else if (column.kind === 'field') {
      for (const fieldId of column.fieldIds) {
        const field = published.fields.find((f) => f.id === fieldId);
        request.initialValues?.push({ fieldDefinitionId: fieldId, value: cellValue(field?.type, cell) });
        valueColumns.push(column.column);
      }
    }
  });
  /** The role of each recipient, in order. */
  const recipientRoles: string[] = [];
  for (const role of published.roles) {
    const given = recipientCells.get(role.name);
    if (!given) continue;
    const roleSettings = settings.roles.find((r) => r.roleName.toLowerCase() === role.name.toLowerCase());
    request.recipients.push({
      roleName: role.name,
      fullName: given.name ?? '',
      ...(given.email ? { email: given.email } : {}),
      ...(given.phone ? { phone: given.phone } : {}),
      ...(given.language ? { language: given.language } : {}),
      type: roleSettings?.type ?? role.defaultRecipientType,
      signingOrder: roleSettings?.signingOrder ?? role.signingOrder,
      ...(roleSettings?.deliveryChannel ? { deliveryChannel: roleSettings.deliveryChannel } : {}),
      ...(roleSettings?.authenticationMethod
        ? { authenticationMethod: roleSettings.authenticationMethod }
        : {}),
    });
    recipientRoles.push(role.name);
  }
  const place = (field: string | undefined): Omit<CsvProblem, 'row' | 'message'> & { prefix: string } => {
    const path = (field ?? '').split('.');
    if (path[0] === 'recipients' && path[1] !== undefined) {
      const roleName = recipientRoles[Number(path[1])] ?? '';
      const part = { fullName: 'name', email: 'email', phone: 'phone', language: 'language' }[path[2] ?? ''];
      const column = part
        ? columns.find((c) => c?.roleName === roleName && c.part === part)?.column
        : undefined;
      return column ? { column, prefix: '' } : { prefix: `${roleName}: ` };
    }
    if (path[0] === 'initialValues' && path[1] !== undefined) {
      return { column: valueColumns[Number(path[1])] as string, prefix: '' };
    }
    if (path[0] === 'externalReference' || path[0] === 'title') {
      const column = columnOf(columns, path[0]);
      return column ? { column, prefix: '' } : { prefix: `${path[0]}: ` };
    }
    return { prefix: '' };
  };
  const parsed = CreateEnvelopeRequest.safeParse(request);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const { prefix, ...at } = place(issue.path.map(String).join('.'));
      problems.push({ ...at, message: `${prefix}${issue.message}` });
    }
    return { request, textMessages: 0, problems };
  }
  try {
    const checked = checkEnvelopeRequest(published, parsed.data);
    return { request, textMessages: textMessagesNeeded(checked.recipients), problems };
  } catch (error) {
    if (!(error instanceof InvalidRequest)) throw error;
    for (const detail of error.details) {
      const { prefix, ...at } = place(detail.field);
      problems.push({ ...at, message: `${prefix}${detail.message}` });
    }
  }
  return { request, textMessages: 0, problems };
}

/** A cell as the field's value: true or false for a Checkbox, the text otherwise. */
function cellValue(type: FieldType | undefined, cell: string): unknown {
  if (type !== 'Checkbox') return cell;
  const lower = cell.toLowerCase();
  if (TRUE_CELLS.includes(lower)) return true;
  if (FALSE_CELLS.includes(lower)) return false;
  return cell;
}

function columnOf(columns: (Column | undefined)[], kind: Column['kind']): string | undefined {
  return columns.find((column) => column?.kind === kind)?.column;
}

/** The columns as the check shows them. */
export function describeColumns(columns: Column[]): z.output<typeof BulkSendColumn>[] {
  return columns.map(({ fieldIds: _ids, ...column }) => column);
}
