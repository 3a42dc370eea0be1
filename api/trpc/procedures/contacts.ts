// The organization's address book (docs/contacts.md): contacts with a name, company, email, phone and tags,
// searched, imported from and exported to CSV. Reading needs contacts:read, changing contacts:manage.
import { Ok } from '../../../domain/account.ts';
import {
  ContactExportQuery,
  ContactFields,
  ContactList,
  ContactListQuery,
  ContactView,
  emailOrPhone,
  ImportContactsRequest,
  ImportContactsResult,
  UpsertContactRequest,
} from '../../../domain/contact.ts';
import { createContact } from '../../../services/contacts/create-contact.ts';
import { deleteContact } from '../../../services/contacts/delete-contact.ts';
import { exportContacts } from '../../../services/contacts/export-contacts.ts';
import { importContacts } from '../../../services/contacts/import-contacts.ts';
import { listContacts } from '../../../services/contacts/list-contacts.ts';
import { updateContact } from '../../../services/contacts/update-contact.ts';
import {
  type AppContext,
  areaRoute,
  type BodyLimit,
  FileAnswer,
  principalOf,
  procedure,
  router,
  thenOk,
} from '../init.ts';
import { IdParams } from './administration-actor.ts';

const route = areaRoute('contacts');

const organizationOf = (ctx: AppContext) => principalOf(ctx).organization.id;

/**
 * The import's body: room for the most characters `csv` may have even when every one is sent as a six-byte
 * JSON escape (`\u05d0`), so that the length is refused by the schema (400 naming body.csv), not by size.
 */
const IMPORT_BODY: BodyLimit = {
  bytes: 6 * 1024 * 1024,
  purpose: 'the most an import may send (a CSV file of at most 1,000,000 characters)',
};

const KEY_TAKEN =
  '`contact_email_taken`: another contact has the email (`details[].contactId` names it); ' +
  '`contact_phone_taken`: a contact without an email has the phone';

export const contactsRouter = router({
  list: procedure
    .meta(
      route('GET', '/api/contacts', {
        summary: "The organization's contacts",
        description:
          'By name (then id), `limit` (1 to 200, default 50) from `offset`; `total` counts every match and ' +
          '`nextOffset` is the next page’s offset (null: no more). With `search`, the contacts in whose name, ' +
          'company, email, phone or tags every word occurs, without regard to case.',
        access: 'contacts:read',
      }),
    )
    .input(ContactListQuery)
    .output(ContactList)
    .query(({ ctx, input }) => listContacts(ctx.services, organizationOf(ctx), input)),

  create: procedure
    .meta(
      route('POST', '/api/contacts', {
        summary: 'Add a contact',
        description: 'A name, and an email or a phone (or both); company and tags are optional.',
        access: 'contacts:manage',
        errors: { 409: KEY_TAKEN },
      }),
    )
    .input(UpsertContactRequest)
    .output(ContactView)
    .mutation(({ ctx, input }) => createContact(ctx.services, organizationOf(ctx), input)),

  update: procedure
    .meta(
      route('PUT', '/api/contacts/{id}', {
        summary: 'Change a contact',
        description: 'Replaces every field: an optional field left out becomes empty.',
        access: 'contacts:manage',
        errors: { 404: 'No such contact in this organization', 409: KEY_TAKEN },
      }),
    )
    .input(ContactFields.extend(IdParams.shape).superRefine(emailOrPhone))
    .output(ContactView)
    .mutation(({ ctx, input }) => {
      const { id, ...fields } = input;
      return updateContact(ctx.services, organizationOf(ctx), id, fields);
    }),

  delete: procedure
    .meta(
      route('DELETE', '/api/contacts/{id}', {
        summary: 'Delete a contact',
        access: 'contacts:manage',
        errors: { 404: 'No such contact in this organization' },
      }),
    )
    .input(IdParams)
    .output(Ok)
    .mutation(thenOk(({ ctx, input }) => deleteContact(ctx.services, organizationOf(ctx), input.id))),

  import: procedure
    .meta(
      route('POST', '/api/contacts/import', {
        summary: 'Import contacts from a CSV file',
        description:
          'All or nothing: every row is checked first, and any problem imports nothing. A row whose email ' +
          '(without one: whose phone) is an existing contact’s updates that contact’s columns the file has; ' +
          'any other row adds a contact.',
        access: 'contacts:manage',
        bodyLimit: IMPORT_BODY,
        errors: {
          400:
            'Input refused: `invalid_request` naming `body.csv`, or `invalid_csv` when the file has problems: ' +
            'a detail for each (`row` as a spreadsheet numbers it, the header being row 1, or `line` for a ' +
            'file that is not CSV; `column`; `message`), nothing imported',
          409:
            '`contact_email_taken`, `contact_phone_taken`: another request added a contact with an email or ' +
            'phone of the file meanwhile; nothing was imported, import again',
          413: 'The request body is larger than 6 MB (`payload_too_large`)',
        },
      }),
    )
    .input(ImportContactsRequest)
    .output(ImportContactsResult)
    .mutation(({ ctx, input }) => importContacts(ctx.services, organizationOf(ctx), input)),

  export: procedure
    .meta(
      route('GET', '/api/contacts/export', {
        summary: 'Export the contacts as a CSV file',
        description:
          'Every contact (with `search`, those the list would show) in the columns the import reads. Cells ' +
          "starting with = + - @ are written after a `'` so that spreadsheets do not run them as formulas; " +
          'the import removes it.',
        access: 'contacts:read',
        file: {
          contentType: 'text/csv; charset=utf-8',
          description:
            'UTF-8 with a byte-order mark, CRLF line ends; the header row name,company,email,phone,tags; ' +
            'tags separated by "; "',
        },
      }),
    )
    .input(ContactExportQuery)
    .output(FileAnswer)
    .query(({ ctx, input }) => exportContacts(ctx.services, organizationOf(ctx), input)),
});
