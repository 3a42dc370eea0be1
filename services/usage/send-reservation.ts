// What a first send of an envelope reserves, atomically: one of the month's documents and a credit for each
// text message its recipients need at least (their SMS/WhatsApp invitations and first one-time codes). One
// transaction takes the organization's lock, counts what is used and reserved, then records the reservation
// (`envelope.counted_at` and the credit holds) together with the envelope's workflow id; the workflow starts
// after it commits. Of N sends arriving at once, exactly as many pass as the plan leaves. A send whose workflow
// never started gives the reservation back (`releaseSend`); a repeated send finds it made and reserves nothing.
// A send whose Draft was edited after it loaded it (other recipient ids under the lock) is refused (409
// `envelope_changed`), reserving nothing.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Envelope, Recipient } from '../../db/entities/index.ts';
import { holdCredits, lockOrganization, releaseEnvelopeCredits } from '../../db/usage-reservations.ts';
import { Conflict } from '../errors.ts';
import { documentLimitReached, envelopeQuota } from './envelope-quota.ts';
import { smsCredits, smsCreditsExhausted, textMessagesOf } from './sms-credits.ts';

type SendingRecipient = Pick<Recipient, 'id' | 'type' | 'deliveryChannel' | 'authenticationMethod'>;

/**
 * Reserves the send of a Draft and records its workflow id, in one transaction (a nested one when `em` is in a
 * transaction already). Throws 409 `document_limit_reached` or `sms_credits_exhausted`, reserving nothing; 409
 * when the envelope was archived or deleted meanwhile.
 */
export async function reserveSend(
  em: EntityManager,
  envelope: Pick<Envelope, 'id' | 'organizationId'>,
  recipients: readonly SendingRecipient[],
  workflowId: string,
  action: string,
): Promise<void> {
  await em.transactional((tx) => reserveSendWithin(tx, envelope, recipients, workflowId, action));
}

/**
 * reserveSend inside the caller's transaction `tx`: the send page reserves in the transaction that writes the
 * Draft (`written`: an envelope that transaction wrote, so nothing counts it yet), and so makes no Draft the
 * plan cannot send.
 */
export async function reserveSendWithin(
  tx: EntityManager,
  envelope: Pick<Envelope, 'id' | 'organizationId'>,
  recipients: readonly SendingRecipient[],
  workflowId: string,
  action: string,
  options: { written?: boolean } = {},
): Promise<void> {
  const holds = recipients.flatMap((recipient) =>
    textMessagesOf(recipient).map((purpose) => ({ recipientId: recipient.id, purpose })),
  );
  await lockOrganization(tx, envelope.organizationId);
  const [row] = options.written
    ? [{ counted: false }]
    : await tx.execute<{ counted: boolean }[]>(
        'select counted_at is not null or sent_at is not null as counted from envelope where id = ?',
        [envelope.id],
      );
  if (!row?.counted) {
    const quota = await envelopeQuota(tx, envelope.organizationId, new Date(), envelope.id);
    if (quota.remaining !== null && quota.remaining < 1) throw documentLimitReached(quota, 1, action);
    if (holds.length > 0) {
      const credits = await smsCredits(tx, envelope.organizationId);
      if (credits.remaining < holds.length) throw smsCreditsExhausted(credits, holds.length, action);
      await holdCredits(tx, envelope.organizationId, envelope.id, holds);
    }
  }
  // Recorded before the workflow starts, so an operator can find the workflow even if the start is
  // interrupted; under the row's lock, so a Draft deleted meanwhile is not started (delete-envelope.ts looks
  // for a started workflow once it holds the lock).
  const recorded = await tx.execute<{ id: string }[]>(
    `update envelope set workflow_id = ?, counted_at = coalesce(counted_at, sent_at, now())
      where id = ? and status not in ('Archived', 'Deleted')
      returning id`,
    [workflowId, envelope.id],
  );
  if (recorded.length === 0) throw new Conflict(`Envelope ${envelope.id} was deleted and cannot be sent.`);
  // An edit of the Draft (update-draft.ts) that committed after this send loaded it replaced every recipient:
  // under the row's lock the send sees the new ids and starts nothing with what the edit replaced.
  if (!options.written) {
    const current = await tx.execute<{ id: string }[]>('select id from recipient where envelope_id = ?', [
      envelope.id,
    ]);
    const loaded = new Set(recipients.map((recipient) => recipient.id));
    if (current.length !== loaded.size || current.some((recipient) => !loaded.has(recipient.id))) {
      throw new Conflict(
        `Envelope ${envelope.id} was edited while it was being sent; send it again to send the edited Draft.`,
        [{ field: 'recipients', message: 'changed by an edit of the Draft' }],
        'envelope_changed',
      );
    }
  }
}

/**
 * Gives back what `reserveSend` reserved when the envelope's workflow never started (its send was refused or the
 * Draft was deleted unsent): the document, unless the envelope was sent after all, and its credit holds.
 */
export async function releaseSend(em: Pick<EntityManager, 'execute'>, envelopeId: string): Promise<void> {
  await em.execute(
    `update envelope set counted_at = null where id = ? and sent_at is null and status in ('Draft', 'Deleted')`,
    [envelopeId],
  );
  await releaseEnvelopeCredits(em, envelopeId);
}
