// GET /api/contacts: the organization's contacts by name, a page at a time (`limit` from `offset`), those
// matching `search` when given (every word in the name, company, email, phone or a tag; contacts.ts).
import { type ContactList, ContactListQuery } from '../../domain/contact.ts';
import type { DataContext } from '../context.ts';
import { parseInput } from '../validation.ts';
import { CONTACT_COLUMNS, CONTACT_ORDER, type ContactRow, rowView, searchCondition } from './contacts.ts';

export async function listContacts(
  ctx: DataContext,
  organizationId: string,
  query: unknown,
): Promise<ContactList> {
  const { search, limit, offset } = parseInput(ContactListQuery, query, 'query');
  const condition = searchCondition(search);
  const where = `from contact c where c.organization_id = ?${condition.sql}`;
  const parameters = [organizationId, ...condition.params];
  const rows = await ctx.em.execute<ContactRow[]>(
    `select ${CONTACT_COLUMNS} ${where} order by ${CONTACT_ORDER} limit ? offset ?`,
    [...parameters, limit, offset],
  );
  const [counted] = await ctx.em.execute<{ total: string }[]>(
    `select count(*) as total ${where}`,
    parameters,
  );
  const total = Number(counted?.total ?? 0);
  return {
    contacts: rows.map(rowView),
    total,
    nextOffset: offset + rows.length < total && rows.length > 0 ? offset + rows.length : null,
  };
}

/** Every contact of the organization matching `search` (all without one), in the list's order. */
export async function allContacts(ctx: DataContext, organizationId: string, search: string | undefined) {
  const condition = searchCondition(search);
  const rows = await ctx.em.execute<ContactRow[]>(
    `select ${CONTACT_COLUMNS} from contact c where c.organization_id = ?${condition.sql} order by ${CONTACT_ORDER}`,
    [organizationId, ...condition.params],
  );
  return rows.map(rowView);
}
