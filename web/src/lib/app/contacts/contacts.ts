// The contacts page's shared words (docs/contacts.md): a page of the list, the phone form the server takes, and
// a contact as the form edits it.
import type { ContactView } from '../types.ts';

/** Contacts read at a time (the first page, then "Show more"). */
export const CONTACTS_PAGE_SIZE = 50;

/** A phone number in E.164 form (domain/envelope.ts E164), after spaces, dashes, dots and brackets go. */
export const E164 = /^\+[1-9]\d{6,14}$/;

export interface ContactForm {
  name: string;
  company: string;
  email: string;
  phone: string;
  tags: string;
}

export const CONTACT_FIELDS = ['name', 'company', 'email', 'phone', 'tags'] as const;

export function formOf(contact: ContactView | undefined): ContactForm {
  return {
    name: contact?.name ?? '',
    company: contact?.company ?? '',
    email: contact?.email ?? '',
    phone: contact?.phone ?? '',
    tags: contact?.tags.join(', ') ?? '',
  };
}

export function tagsOf(text: string): string[] {
  return text
    .split(/[,;]/)
    .map((tag) => tag.trim())
    .filter(Boolean);
}
