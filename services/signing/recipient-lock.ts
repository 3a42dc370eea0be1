// The row locks of a signer's request, taken in the order the workflow's projection takes them: the envelope
// first, then the recipient. The projection (activities/projection.ts) locks the envelope FOR UPDATE and then
// writes recipient rows; a signer's transaction that locked the recipient first would then wait at commit for
// the envelope (the foreign keys of the rows it inserts take FOR KEY SHARE on it) while the projection waits
// for the recipient: a deadlock, which PostgreSQL breaks by failing one of them. Taking the envelope's KEY
// SHARE lock before the recipient's row keeps every such pair in one order.
import type { EntityManager } from '@mikro-orm/postgresql';

/** Locks the envelope (key share) and then the recipient (for update); the recipient's current status. */
export async function lockSigningRecipient(
  tx: Pick<EntityManager, 'execute'>,
  envelopeId: string,
  recipientId: string,
): Promise<string | undefined> {
  await tx.execute('select id from envelope where id = ? for key share', [envelopeId]);
  const [row] = await tx.execute<{ status: string }[]>(
    'select status from recipient where id = ? for update',
    [recipientId],
  );
  return row?.status;
}
