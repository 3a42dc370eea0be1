// DELETE /api/contacts/{id}: removes the contact (envelopes sent to the person keep their own copy of the
// recipient's name and addresses).
import { Contact } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { findContactOf } from './contacts.ts';

export async function deleteContact(ctx: DataContext, organizationId: string, contactId: string) {
  const contact = await findContactOf(ctx.em, organizationId, contactId);
  await ctx.em.nativeDelete(Contact, { id: contact.id, organizationId });
}
