// The organization's address book (migration 0015, docs/contacts.md). `search_text` is computed by PostgreSQL
// from the other columns and read only by the search's SQL, so it is not mapped here.
import { defineEntity, p } from '@mikro-orm/core';
import { tenantKeys, timestampColumns } from './columns.ts';

export const ContactSchema = defineEntity({
  name: 'Contact',
  tableName: 'contact',
  properties: {
    ...tenantKeys(),
    name: p.string(),
    company: p.string().nullable(),
    /** Lower-cased; unique in the organization when present. */
    email: p.string().nullable(),
    /** E.164; unique among the organization's contacts without an email. */
    phone: p.string().nullable(),
    tags: p.array().default([]),
    ...timestampColumns(),
  },
});
export class Contact extends ContactSchema.class {}
ContactSchema.setClass(Contact);
