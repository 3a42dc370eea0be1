// POST /api/contacts: a new contact of the organization. Its email (or, without one, its phone) must not be
// another contact's: 409 `contact_email_taken` / `contact_phone_taken`, also when a concurrent request took it
// between the check and the insert (the unique indexes of migration 0015 decide). An organization keeps at most
// CONTACT_LIMITS.organization contacts (409 `contact_limit`).
import { randomUUID } from 'node:crypto';
import { Contact } from '../../db/entities/index.ts';
import { type ContactView, UpsertContactRequest } from '../../domain/contact.ts';
import type { DataContext } from '../context.ts';
import { requireRoom } from '../usage/counted-limit.ts';
import { parseInput } from '../validation.ts';
import { CONTACT_LIMIT, contactView, keyConflictOf, keyHolder } from './contacts.ts';

export async function createContact(
  ctx: DataContext,
  organizationId: string,
  input: unknown,
): Promise<ContactView> {
  const data = parseInput(UpsertContactRequest, input, 'contact');
  return ctx.em
    .transactional(async (tx) => {
      // Counted under the organization's lock: contacts added at once cannot pass the limit together.
      await requireRoom(tx, organizationId, CONTACT_LIMIT(organizationId));
      const conflict = await keyHolder(tx, organizationId, data);
      if (conflict) throw conflict;
      const contact = tx.create(Contact, { id: randomUUID(), organizationId, ...data });
      await tx.flush();
      return contactView(contact);
    })
    .catch((error: unknown) => keyConflictOf(error, data));
}
