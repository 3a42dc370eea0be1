// Sender notifications (docs/notifications.md, "Sender notifications"): when the projection writes an event the
// user who sent the envelope must hear of — completed, declined, cancelled by someone else, expired, expiring
// soon, a delivery that failed — one `user_notification` row per user to tell, in the projection's own
// transaction (so a crash loses none and a retried projection writes none twice: one row per audit event and
// user). Told: the envelope's creator (an active user), and the organization's administrators (built-in Owner or
// Administrator role) when its `notify_administrators` setting says `organization`, or those of the envelope's
// team when it says `team`. A cancel tells no one when the sender cancelled it themselves; whoever acted is never
// told of their own act. The emails are sent later by the worker's sweep (send-sender-notification-emails.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SenderNotificationKind } from '../../domain/vocabulary.ts';

/** The projected events that tell the sender something, and what they tell. */
const KIND_OF_EVENT: Readonly<Record<string, SenderNotificationKind>> = {
  'envelope.completed': 'completed',
  'recipient.declined': 'declined',
  'envelope.cancelled': 'cancelled',
  'envelope.expired': 'expired',
  'envelope.expiring_soon': 'expiring_soon',
  // One row per recipient whose message failed (it names the recipient, the channel and why); the envelope-wide
  // `envelope.delivery_failed` that may follow in the same decision names no reason, so it adds no second row.
  'recipient.delivery_failed': 'delivery_failed',
};

export function senderNotificationKindOf(eventType: string): SenderNotificationKind | null {
  return KIND_OF_EVENT[eventType] ?? null;
}

export interface ProjectedEvent {
  envelopeId: string;
  sequence: number;
  type: string;
  /** The user whose act this event is, when the event data names one (`cancelled_by_user_id`). */
  data: Record<string, unknown>;
}

/**
 * Records the notifications of one projected event, in `tx` (the projection's transaction, after its audit
 * event is written). Answers how many rows it wrote (0 when the event tells no one, or on a retry).
 */
export async function recordSenderNotifications(tx: EntityManager, event: ProjectedEvent): Promise<number> {
  const kind = senderNotificationKindOf(event.type);
  if (!kind) return 0;
  const actor = typeof event.data.cancelled_by_user_id === 'string' ? event.data.cancelled_by_user_id : null;
  const rows = await tx.execute<{ id: string }[]>(
    `insert into user_notification (id, organization_id, user_id, envelope_id, audit_event_id, kind, details,
                                    created_at, email_state)
     select gen_random_uuid(), e.organization_id, u.id, e.id, a.id, ?,
            jsonb_strip_nulls(jsonb_build_object(
              'recipient_id', a.recipient_id,
              'recipient_name', rc.full_name,
              'channel', case when ? = 'delivery_failed'
                              then coalesce(a.data->>'channel', rc.delivery_channel) end,
              'reason', coalesce(a.data->>'reason', a.data->>'message'),
              'failure_type', a.data->>'failure_type',
              'expires_at', case when ? in ('expired', 'expiring_soon')
                                 then coalesce(a.data->>'expires_at', to_json(e.expires_at) #>> '{}') end)),
            a.occurred_at, 'pending'
       from envelope e
       join audit_event a on a.envelope_id = e.id and a.sequence = ?
       join organization o on o.id = e.organization_id
       join app_user u on u.organization_id = e.organization_id and u.status = 'active' and u.deleted_at is null
       join role r on r.id = u.role_id
       left join recipient rc on rc.id = a.recipient_id
      where e.id = ?
        and (u.id = e.created_by_user_id
             or (r.built_in in ('owner', 'administrator')
                 and (o.notify_administrators = 'organization'
                      or (o.notify_administrators = 'team' and e.team_id is not null and u.team_id = e.team_id))))
        and u.id is distinct from ?::uuid
        and not (? = 'cancelled' and ?::uuid is not null and ?::uuid = e.created_by_user_id)
     on conflict (audit_event_id, user_id) do nothing
     returning id`,
    [kind, kind, kind, event.sequence, event.envelopeId, actor, kind, actor, actor],
  );
  return rows.length;
}
