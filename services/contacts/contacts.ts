// What the address book's use cases share (docs/contacts.md): the answer's shape, lookups scoped to the
// caller's organization (another organization's contact is "not found", exactly like an unknown one), the
// conflicts of the two keys (the email, or the phone of a contact without one), and the search.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Contact } from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import { CONTACT_LIMITS, type ContactView } from '../../domain/contact.ts';
import { isUniqueViolation } from '../administration/administration.ts';
import { Conflict, NotFound } from '../errors.ts';
import type { CountedLimit } from '../usage/counted-limit.ts';

/** An organization's contacts, at most CONTACT_LIMITS.organization (409 `contact_limit`). */
export const CONTACT_LIMIT = (organizationId: string): CountedLimit => ({
  what: 'contacts',
  max: CONTACT_LIMITS.organization,
  code: 'contact_limit',
  remedy: 'delete contacts it no longer needs first',
  count: (tx) => tx.count(Contact, { organizationId }),
});

export function contactView(contact: Contact): ContactView {
  return {
    id: contact.id,
    name: contact.name,
    company: contact.company ?? null,
    email: contact.email ?? null,
    phone: contact.phone ?? null,
    tags: [...(contact.tags ?? [])],
    createdAt: contact.createdAt.toISOString(),
    updatedAt: contact.updatedAt.toISOString(),
  };
}

/** The organization's contact; another organization's, an unknown or a malformed id: 404. */
export async function findContactOf(
  em: EntityManager,
  organizationId: string,
  contactId: string,
): Promise<Contact> {
  const contact = UUID_PATTERN.test(contactId)
    ? await em.findOne(Contact, { id: contactId, organizationId })
    : null;
  if (!contact) throw new NotFound(`Contact ${contactId} was not found.`);
  return contact;
}

/** 409 `contact_email_taken`, naming the contact that has the address. */
export function contactEmailTaken(email: string, contactId?: string) {
  return new Conflict(
    `Another contact of this organization already has the email ${email}: edit that contact instead.`,
    [
      {
        field: 'body.email',
        message: 'already the email of another contact',
        ...(contactId ? { contactId } : {}),
      },
    ],
    'contact_email_taken',
  );
}

/** 409 `contact_phone_taken`: a contact without an email is known by its phone. */
export function contactPhoneTaken(phone: string, contactId?: string) {
  return new Conflict(
    `Another contact of this organization without an email already has the phone ${phone}: edit that ` +
      'contact, or give this one an email.',
    [
      {
        field: 'body.phone',
        message: 'already the phone of another contact without an email',
        ...(contactId ? { contactId } : {}),
      },
    ],
    'contact_phone_taken',
  );
}

/**
 * The contact, other than `exceptId`, that already holds the key of these fields: the same email, or, for a
 * contact without one, the same phone among contacts without one.
 */
export async function keyHolder(
  em: EntityManager,
  organizationId: string,
  fields: { email: string | null; phone: string | null },
  exceptId?: string,
): Promise<Conflict | null> {
  const except = exceptId ? { id: { $ne: exceptId } } : {};
  if (fields.email !== null) {
    const holder = await em.findOne(Contact, { organizationId, email: fields.email, ...except });
    return holder ? contactEmailTaken(fields.email, holder.id) : null;
  }
  if (fields.phone !== null) {
    const holder = await em.findOne(Contact, { organizationId, email: null, phone: fields.phone, ...except });
    return holder ? contactPhoneTaken(fields.phone, holder.id) : null;
  }
  return null;
}

/**
 * A write that lost a race for a key (another request took the email or phone between the check and the
 * insert): the same 409 as the check gives. Anything else is rethrown.
 */
export function keyConflictOf(error: unknown, fields: { email: string | null; phone: string | null }): never {
  if (isUniqueViolation(error)) {
    const constraint = String((error as { constraint?: unknown }).constraint ?? (error as Error).message);
    if (constraint.includes('contact_email_unique')) throw contactEmailTaken(fields.email ?? 'this address');
    if (constraint.includes('contact_phone_unique')) throw contactPhoneTaken(fields.phone ?? 'this number');
  }
  throw error;
}

/** `\`, `%` and `_` of a LIKE pattern, escaped with `\`. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/** A search word that is a phone number as people type it: digits with spaces, dashes, dots or brackets. */
const PHONE_LIKE = /^\+?[\d\s().-]+$/;

/**
 * The SQL condition of a search over `contact c` (and its parameters): every word must occur, without regard
 * to case, in the name, company, email, phone or a tag (`search_text`, migration 0015). A word that is a
 * phone number as typed (`050-123-4567`; a search made only of digits, spaces, dashes, dots and brackets is
 * one such word) also matches the stored E.164 number by its digits, with the national prefix 0 left out
 * (`+972501234567`). No search: every contact.
 */
export function searchCondition(search: string | undefined): { sql: string; params: string[] } {
  const text = (search ?? '').trim();
  // A phone number typed with spaces (`050 123 4567`) is one term, not three words.
  const words = PHONE_LIKE.test(text) ? [text] : text.split(/\s+/).filter(Boolean);
  const clauses: string[] = [];
  const params: string[] = [];
  for (const word of words) {
    const alternatives = [`c.search_text like lower(?) escape '\\'`];
    params.push(`%${escapeLike(word)}%`);
    if (PHONE_LIKE.test(word)) {
      const digits = word.replace(/\D/g, '');
      const national = digits.replace(/^0+/, '');
      for (const candidate of new Set([digits, national])) {
        if (candidate.length < 3) continue;
        alternatives.push('c.phone like ?');
        params.push(`%${candidate}%`);
      }
    }
    clauses.push(`(${alternatives.join(' or ')})`);
  }
  return { sql: clauses.length > 0 ? ` and ${clauses.join(' and ')}` : '', params };
}

/** The order of every list and export: by name without regard to case, then by id (stable across pages). */
export const CONTACT_ORDER = 'lower(c.name), c.name, c.id';

export interface ContactRow {
  id: string;
  name: string;
  company: string | null;
  email: string | null;
  phone: string | null;
  tags: string[];
  created_at: Date;
  updated_at: Date;
}

export const CONTACT_COLUMNS =
  'c.id, c.name, c.company, c.email, c.phone, c.tags, c.created_at, c.updated_at';

export function rowView(row: ContactRow): ContactView {
  return {
    id: row.id,
    name: row.name,
    company: row.company,
    email: row.email,
    phone: row.phone,
    tags: row.tags ?? [],
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
