// Projection of the envelope workflow's transitions into PostgreSQL. Idempotent under retry: the
// audit event is keyed by (envelope, sequence) and the envelope row only moves forward in sequence.
import { ApplicationFailure } from '@temporalio/common';
import type { Orm } from '../db/orm.ts';
import { queueWebhookEventDeliveries } from '../db/webhook-deliveries.ts';
import { isWebhookEventType } from '../domain/vocabulary.ts';
import type { EnvelopeTransition } from '../workflows/contracts.ts';
import type { WebhookEvent } from '../workflows/webhook-contracts.ts';

export interface ProjectionResult {
  /** False when this sequence had already been projected (a retried or replayed activity). */
  applied: boolean;
  /** Webhook deliveries queued for this event (the same ones on a retry); the workflow starts one child each. */
  deliveryIds?: string[];
}

/** Event data that stays internal (the audit trail has it): where a signer was, never sent to webhooks. */
const PRIVATE_EVENT_DATA = ['ip', 'user_agent'];

/**
 * The webhook event for a transition: its `id` is the audit event's id, so every delivery and replay of
 * one event carries the same id. `data` always names the envelope and its status after the transition;
 * recipient events add the recipient and their status; the rest is the audit event's data without the
 * signer's address and browser. `envelope.completed` is exactly { envelope_id, status, external_reference }.
 */
export function webhookEventOf(
  transition: EnvelopeTransition,
  eventId: string,
  externalReference: string | null,
): WebhookEvent | null {
  const { type, recipientId, data } = transition.event;
  if (!isWebhookEventType(type)) return null;
  const own = Object.fromEntries(Object.entries(data).filter(([key]) => !PRIVATE_EVENT_DATA.includes(key)));
  const base = {
    envelope_id: transition.envelopeId,
    status: transition.envelopeStatus,
    external_reference: externalReference ?? '',
  };
  let eventData: Record<string, unknown>;
  if (type === 'envelope.completed') eventData = base;
  else if (recipientId) {
    eventData = {
      ...base,
      recipient_id: recipientId,
      recipient_status: transition.recipients.find((r) => r.id === recipientId)?.status ?? null,
      ...own,
    };
  } else eventData = { ...own, ...base };
  return { id: eventId, type, created_at: transition.occurredAt, data: eventData };
}

export function createProjectionActivities(deps: { orm: Orm }) {
  return {
    async projectEnvelopeTransition(transition: EnvelopeTransition): Promise<ProjectionResult> {
      const em = deps.orm.em.fork();
      return em.transactional(async (tx) => {
        // Row lock: concurrent retries of the same envelope's projections are serialized.
        const [envelope] = await tx.execute<{ projected_sequence: number }[]>(
          'select projected_sequence from envelope where id = ? and organization_id = ? for update',
          [transition.envelopeId, transition.organizationId],
        );
        if (!envelope) {
          throw ApplicationFailure.nonRetryable(
            `Envelope ${transition.envelopeId} of organization ${transition.organizationId} does not exist.`,
            'EnvelopeNotFound',
          );
        }
        await tx.execute(
          `insert into audit_event (id, envelope_id, organization_id, sequence, type, recipient_id, data, occurred_at)
           values (gen_random_uuid(), ?, ?, ?, ?, ?, ?::jsonb, ?)
           on conflict (envelope_id, sequence) do nothing`,
          [
            transition.envelopeId,
            transition.organizationId,
            transition.sequence,
            transition.event.type,
            transition.event.recipientId,
            JSON.stringify(transition.event.data),
            transition.occurredAt,
          ],
        );
        const deliveryIds = transition.webhooks ? await queueWebhooks(tx, transition) : undefined;
        if (envelope.projected_sequence >= transition.sequence) return { applied: false, deliveryIds };

        await tx.execute(
          `update envelope
              set status = ?,
                  projected_sequence = ?,
                  sent_at = case when ?::text = 'envelope.sent' then coalesce(sent_at, ?::timestamptz) else sent_at end,
                  completed_at = case when ?::text = 'Completed' then coalesce(completed_at, ?::timestamptz) else completed_at end,
                  expires_at = case when ?::boolean then ?::timestamptz else expires_at end,
                  reminder_count = reminder_count + case when ?::text = 'envelope.reminded' then 1 else 0 end,
                  last_reminded_at = case when ?::text = 'envelope.reminded' then ?::timestamptz else last_reminded_at end,
                  updated_at = now()
            where id = ?`,
          [
            transition.envelopeStatus,
            transition.sequence,
            transition.event.type,
            transition.occurredAt,
            transition.envelopeStatus,
            transition.occurredAt,
            transition.expiresAt !== undefined,
            transition.expiresAt ?? null,
            transition.event.type,
            transition.event.type,
            transition.occurredAt,
            transition.envelopeId,
          ],
        );
        await tx.execute(
          `update recipient r
              set status = v.status,
                  completed_at = case when v.status = 'Completed' then coalesce(r.completed_at, ?::timestamptz) else r.completed_at end,
                  updated_at = now()
             from jsonb_to_recordset(?::jsonb) as v (id uuid, status text)
            where r.id = v.id and r.envelope_id = ? and r.status is distinct from v.status`,
          [transition.occurredAt, JSON.stringify(transition.recipients), transition.envelopeId],
        );
        return { applied: true, deliveryIds };
      });
    },
  };
}

/** Queues the event's deliveries in the projection's transaction; a retry finds the same ones. */
async function queueWebhooks(
  tx: Parameters<typeof queueWebhookEventDeliveries>[0],
  transition: EnvelopeTransition,
): Promise<string[]> {
  if (!isWebhookEventType(transition.event.type)) return [];
  const [row] = await tx.execute<{ id: string; external_reference: string | null }[]>(
    `select a.id, e.external_reference from audit_event a join envelope e on e.id = a.envelope_id
      where a.envelope_id = ? and a.sequence = ?`,
    [transition.envelopeId, transition.sequence],
  );
  if (!row) return [];
  const event = webhookEventOf(transition, row.id, row.external_reference);
  return event ? queueWebhookEventDeliveries(tx, transition.organizationId, event) : [];
}
