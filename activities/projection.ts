// Projection of the envelope workflow's transitions into PostgreSQL. Idempotent under retry: the
// audit event is keyed by (envelope, sequence) and the envelope row only moves forward in sequence.
import { ApplicationFailure } from '@temporalio/common';
import type { Orm } from '../db/orm.ts';
import type { EnvelopeTransition } from '../workflows/contracts.ts';

export interface ProjectionResult {
  /** False when this sequence had already been projected (a retried or replayed activity). */
  applied: boolean;
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
        if (envelope.projected_sequence >= transition.sequence) return { applied: false };

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
        return { applied: true };
      });
    },
  };
}
