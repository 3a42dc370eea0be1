// The organization's address book (docs/contacts.md): a contact has a name, a company, an email address, a phone
// number and tags. The specification names the routes and the request body type (UpsertContactRequest); the
// fields and their limits are ours. A contact needs an email address or a phone number (one of the two reaches
// a recipient); the email address is its key in the organization, and a contact without one is known by its
// phone number.
import { z } from 'zod';
import { EmailAddress } from './account.ts';
import { IsoDateTime, offsetPage, safeText } from './common.ts';
import { E164 } from './envelope.ts';

export const CONTACT_LIMITS = {
  name: 200,
  company: 200,
  /** Characters of one tag. */
  tag: 50,
  /** Tags of one contact. */
  tags: 20,
  /** Characters of a search. */
  search: 200,
  /** Contacts of one page of the list. */
  page: 200,
  /** Characters of an imported CSV file (its request body may be up to 6 MB: api/trpc/procedures/contacts.ts). */
  importCharacters: 1_000_000,
  /** Data rows of an imported CSV file. */
  importRows: 5_000,
  /** Contacts of one organization (counted under its lock: services/usage/counted-limit.ts). */
  organization: 50_000,
} as const;

/** What separates the tags in one CSV cell when exported; a comma separates them too when imported. */
export const TAG_SEPARATOR = ';';
/** Characters that separate tags (in a CSV cell, in the web app's field), so a tag cannot contain them. */
export const TAG_SEPARATORS = /[;,]/;

/** The CSV file's columns, in the order the export writes them. */
export const CONTACT_CSV_COLUMNS = ['name', 'company', 'email', 'phone', 'tags'] as const;
export type ContactCsvColumn = (typeof CONTACT_CSV_COLUMNS)[number];

const PHONE_MESSAGE = 'phone must be a number in international form, for example +972501234567';

/**
 * A phone number in E.164 form. Spaces, dashes, dots and brackets as people type them (`+972 50-123-4567`)
 * are removed first; what is stored is `+972501234567`.
 */
export const ContactPhone = z
  .string()
  .max(40, PHONE_MESSAGE)
  .transform((phone) => phone.replace(/[\s().-]/g, ''))
  .pipe(z.string().regex(E164, PHONE_MESSAGE));

/** One tag: single-line text without a separator, compared without regard to case. */
export const ContactTag = safeText()
  .trim()
  .min(1, 'a tag cannot be empty')
  .max(CONTACT_LIMITS.tag, `a tag must be at most ${CONTACT_LIMITS.tag} characters`)
  .refine((tag) => !TAG_SEPARATORS.test(tag), 'a tag cannot contain ";" or ","');

/** Tags as given, without repeats (the first spelling of a tag that differs only in case is kept). */
export const ContactTags = z
  .array(ContactTag)
  .max(CONTACT_LIMITS.tags, `a contact has at most ${CONTACT_LIMITS.tags} tags`)
  .transform((tags) => {
    const seen = new Set<string>();
    return tags.filter((tag) => {
      const key = tag.toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  });

/** The fields of a contact as a request gives them (without the rule that joins them: see below). */
export const ContactFields = z.strictObject({
  name: safeText()
    .trim()
    .min(1, 'name is required')
    .max(CONTACT_LIMITS.name, `name must be at most ${CONTACT_LIMITS.name} characters`)
    .describe('The person’s full name'),
  company: safeText()
    .trim()
    .max(CONTACT_LIMITS.company, `company must be at most ${CONTACT_LIMITS.company} characters`)
    .nullable()
    .optional()
    .transform((company) => company || null)
    .describe('Absent, null or empty: none'),
  email: EmailAddress.nullable()
    .optional()
    .transform((email) => email ?? null)
    .describe(
      'Stored lower-cased; unique in the organization. Absent or null: none (then phone is required)',
    ),
  phone: ContactPhone.nullable()
    .optional()
    .transform((phone) => phone ?? null)
    .describe('E.164 (`+972501234567`); spaces, dashes and brackets are removed. Absent or null: none'),
  tags: ContactTags.optional()
    .transform((tags) => tags ?? [])
    .describe(
      `At most ${CONTACT_LIMITS.tags} tags of at most ${CONTACT_LIMITS.tag} characters, without ";" or ","; repeats (in any case) are dropped`,
    ),
});

/** The rule that joins the fields: a contact is reached by email or by phone, so it has one of them. */
export function emailOrPhone(contact: { email: string | null; phone: string | null }, ctx: z.RefinementCtx) {
  if (contact.email === null && contact.phone === null) {
    ctx.addIssue({ code: 'custom', path: ['email'], message: 'email or phone is required' });
  }
}

/**
 * The body of POST /api/contacts and PUT /api/contacts/{id}: the whole contact (a PUT replaces every field;
 * an absent optional field becomes empty).
 */
export const UpsertContactRequest = ContactFields.superRefine(emailOrPhone);
export type UpsertContactRequest = z.input<typeof UpsertContactRequest>;
export type ContactInput = z.output<typeof UpsertContactRequest>;

export const ContactView = z.object({
  id: z.uuid(),
  name: z.string(),
  company: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  tags: z.array(z.string()),
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
});
export type ContactView = z.output<typeof ContactView>;

const Search = safeText()
  .trim()
  .max(CONTACT_LIMITS.search, `search must be at most ${CONTACT_LIMITS.search} characters`)
  .optional()
  .describe(
    'Words that must all occur (without regard to case) in the name, company, email, phone or a tag; ' +
      'digits typed with spaces, dashes or a leading 0 also find the phone number',
  );

export const ContactListQuery = z.object({
  search: Search,
  ...offsetPage(CONTACT_LIMITS.page, 'contacts of the sorted list'),
});
export type ContactListQuery = z.output<typeof ContactListQuery>;

export const ContactList = z.object({
  /** By name (then id), `limit` of them from `offset`. */
  contacts: z.array(ContactView),
  /** How many contacts match the search (all the organization's without one). */
  total: z.number().int(),
  /** The `offset` of the next page; null: this is the last. */
  nextOffset: z.number().int().nullable(),
});
export type ContactList = z.output<typeof ContactList>;

export const ContactExportQuery = z.object({ search: Search });

export const ImportContactsRequest = z.strictObject({
  csv: safeText('multiline')
    .max(CONTACT_LIMITS.importCharacters, `csv must be at most ${CONTACT_LIMITS.importCharacters} characters`)
    .describe(
      `The CSV file's text (UTF-8, comma-separated, a byte-order mark is ignored): a header row naming the ` +
        `columns ${CONTACT_CSV_COLUMNS.join(', ')} in any order (name is required, and email or phone), then at ` +
        `most ${CONTACT_LIMITS.importRows} contacts; tags separated by "${TAG_SEPARATOR}" (or ",")`,
    ),
});

export const ImportContactsResult = z.object({
  /** Data rows read (empty rows are skipped). */
  rows: z.number().int(),
  /** New contacts. */
  created: z.number().int(),
  /** Existing contacts (same email; without one, same phone) whose fields changed. */
  updated: z.number().int(),
  /** Existing contacts the row left as they were. */
  unchanged: z.number().int(),
});
export type ImportContactsResult = z.output<typeof ImportContactsResult>;
