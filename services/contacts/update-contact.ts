// PUT /api/contacts/{id}: replaces every field of a contact (an absent optional field becomes empty). The new
// email (or, without one, phone) must not be another contact's (409, as for creating).
import { type ContactView, UpsertContactRequest } from '../../domain/contact.ts';
import type { DataContext } from '../context.ts';
import { parseInput } from '../validation.ts';
import { contactView, findContactOf, keyConflictOf, keyHolder } from './contacts.ts';

export async function updateContact(
  ctx: DataContext,
  organizationId: string,
  contactId: string,
  input: unknown,
): Promise<ContactView> {
  const data = parseInput(UpsertContactRequest, input, 'contact');
  return ctx.em
    .transactional(async (tx) => {
      const contact = await findContactOf(tx, organizationId, contactId);
      const conflict = await keyHolder(tx, organizationId, data, contact.id);
      if (conflict) throw conflict;
      contact.name = data.name;
      contact.company = data.company;
      contact.email = data.email;
      contact.phone = data.phone;
      contact.tags = data.tags;
      await tx.flush();
      return contactView(contact);
    })
    .catch((error: unknown) => keyConflictOf(error, data));
}
