// Projection of the envelope workflow's transitions into PostgreSQL. Idempotent under retry: the
// audit event is keyed by (envelope, sequence) and the envelope row only moves forward in sequence.
// A transition PostgreSQL refuses for a reason retrying cannot fix (a data exception or an integrity
// violation) fails at once as `ProjectionDataError`, and the workflow parks (docs/envelope-lifecycle.md,
// "When a transition cannot be recorded"); `recordProjectionFailure` then marks the envelope row.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { appendAuditEvent } from '../db/audit-chain.ts';
import type { Orm } from '../db/orm.ts';
import { releaseEnvelopeCredits } from '../db/usage-reservations.ts';
import { queueWebhookEventDeliveries } from '../db/webhook-deliveries.ts';
import { sanitizeText } from '../domain/text.ts';
import { isTerminalEnvelopeStatus, isWebhookEventType } from '../domain/vocabulary.ts';
import { recordSenderNotifications } from '../services/notifications/sender-notifications.ts';
import {
  type EnvelopeTransition,
  PROJECTION_DATA_ERROR,
  type ProjectionFailureRecord,
} from '../workflows/contracts.ts';
import type { WebhookEvent } from '../workflows/webhook-contracts.ts';
import { projectEnvelopeSettings } from './envelope-settings-projection.ts';

export interface ProjectionResult {
  /** False when this sequence had already been projected (a retried or replayed activity). */
  applied: boolean;
  /** Webhook deliveries queued for this event (the same ones on a retry); the workflow starts one child each. */
  deliveryIds?: string[];
}

/**
 * Event data that stays internal (the audit trail has it): where a signer was, and which app user cancelled
 * (for the sender notifications), never sent to webhooks.
 */
const PRIVATE_EVENT_DATA = ['ip', 'user_agent', 'cancelled_by_user_id'];

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

/** How often a running projection tells Temporal it is alive (its heartbeat timeout is 3 s). */
const HEARTBEAT_EVERY_MS = 1000;
const REASON_MAX = 500;

export function createProjectionActivities(deps: { orm: Orm }) {
  return {
    async projectEnvelopeTransition(transition: EnvelopeTransition): Promise<ProjectionResult> {
      try {
        return await whileHeartbeating(() => project(deps.orm, transition));
      } catch (error) {
        throw asProjectionFailure(error, transition);
      }
    },

    /**
     * Several queued transitions of one envelope, in order, in one transaction and one activity task (issue 19):
     * the same writes as projectEnvelopeTransition for each, so the same guarantees (in order, exactly once per
     * sequence, idempotent under retry). A refusal rolls the whole batch back and names the transition it met;
     * the workflow then projects one at a time, and parks on that one.
     */
    async projectEnvelopeTransitions(transitions: EnvelopeTransition[]): Promise<ProjectionResult[]> {
      const at = { current: 0 };
      try {
        return await whileHeartbeating(() => projectInOrder(deps.orm, transitions, at));
      } catch (error) {
        const transition = transitions[at.current];
        throw transition ? asProjectionFailure(error, transition) : error;
      }
    },

    /**
     * Marks the envelope row of a parked projection with the reason (already free of what PostgreSQL cannot
     * store) and the time; `sigil envelope stuck` and GET /api/health read them. The next transition written
     * clears both.
     */
    async recordProjectionFailure(record: ProjectionFailureRecord): Promise<void> {
      // Sliced first, then repaired: a cut through a surrogate pair leaves nothing unstorable behind.
      const reason = sanitizeText(record.reason.slice(0, REASON_MAX * 2), 'multiline');
      await whileHeartbeating(() =>
        deps.orm.em
          .fork()
          .getConnection()
          .execute(
            `update envelope set projection_error = ?, projection_failed_at = ?
              where id = ? and organization_id = ?`,
            [reason, record.since, record.envelopeId, record.organizationId],
          ),
      );
    },
  };
}

async function project(orm: Orm, transition: EnvelopeTransition): Promise<ProjectionResult> {
  const [result] = await projectInOrder(orm, [transition], { current: 0 });
  return result as ProjectionResult;
}

/**
 * Projects transitions of one envelope, in order, in one transaction: the envelope row is locked once, and each
 * transition is written as projectEnvelopeTransition writes it alone. `at.current` is the index of the
 * transition being written, so a refusal can name it.
 */
async function projectInOrder(
  orm: Orm,
  transitions: readonly EnvelopeTransition[],
  at: { current: number },
): Promise<ProjectionResult[]> {
  const first = transitions[0];
  if (!first) return [];
  const em = orm.em.fork();
  return em.transactional(async (tx) => {
    // Row lock: concurrent retries of the same envelope's projections are serialized. With it, whether any
    // endpoint could receive a webhook of the organization: when none can, no event is looked up or queued.
    const [envelope] = await tx.execute<{ projected_sequence: number; webhooks: boolean }[]>(
      `select e.projected_sequence,
              exists (select 1 from webhook_endpoint w
                        join organization o on o.id = w.organization_id
                        join plan p on p.name = o.plan_name
                       where w.organization_id = e.organization_id and w.enabled and p.webhook_access) as webhooks
         from envelope e where e.id = ? and e.organization_id = ? for update of e`,
      [first.envelopeId, first.organizationId],
    );
    if (!envelope) {
      throw ApplicationFailure.nonRetryable(
        `Envelope ${first.envelopeId} of organization ${first.organizationId} does not exist.`,
        'EnvelopeNotFound',
      );
    }
    let projectedSequence = envelope.projected_sequence;
    const results: ProjectionResult[] = [];
    for (const [index, transition] of transitions.entries()) {
      at.current = index;
      if (transition.envelopeId !== first.envelopeId || transition.organizationId !== first.organizationId) {
        throw ApplicationFailure.nonRetryable(
          'A batch of projections must belong to one envelope.',
          'InvalidProjectionBatch',
        );
      }
      results.push(await projectOne(tx, transition, projectedSequence, envelope.webhooks));
      projectedSequence = Math.max(projectedSequence, transition.sequence);
    }
    return results;
  });
}

/** One transition, in the transaction that holds the envelope row's lock. */
async function projectOne(
  tx: Parameters<typeof queueWebhookEventDeliveries>[0],
  transition: EnvelopeTransition,
  projectedSequence: number,
  webhooks: boolean,
): Promise<ProjectionResult> {
  const appended = await appendAuditEvent(tx, {
    envelopeId: transition.envelopeId,
    organizationId: transition.organizationId,
    sequence: transition.sequence,
    type: transition.event.type,
    recipientId: transition.event.recipientId,
    data: transition.event.data,
    occurredAt: transition.occurredAt,
  });
  // The sender's notifications of this event, with its audit event (services/notifications/sender-notifications.ts).
  if (appended) {
    await recordSenderNotifications(tx, {
      envelopeId: transition.envelopeId,
      sequence: transition.sequence,
      type: transition.event.type,
      data: transition.event.data,
    });
  }
  // `transition.webhooks`: the workflow starts deliveries for this transition, so it gets ids (none when no
  // endpoint can receive them).
  const deliveryIds = transition.webhooks ? (webhooks ? await queueWebhooks(tx, transition) : []) : undefined;
  if (projectedSequence >= transition.sequence) return { applied: false, deliveryIds };

  // An envelope archived or deleted meanwhile keeps that status, and the workflow's becomes the one unarchiving
  // restores: a transition may come after the envelope looked finished (a completion's second event,
  // `document.final_pdf_ready`; an extension of an Expired envelope within its grace window, which the
  // service refuses for an archived or deleted one, but which may already have been on its way).
  await tx.execute(
    `update envelope
            set status = case when status in ('Archived', 'Deleted') then status else ? end,
                previous_status = case when status in ('Archived', 'Deleted') then ? else previous_status end,
                projected_sequence = ?,
                sent_at = case when ?::text = 'envelope.sent' then coalesce(sent_at, ?::timestamptz) else sent_at end,
                counted_at = case when ?::text = 'envelope.sent' then coalesce(counted_at, ?::timestamptz) else counted_at end,
                completed_at = case when ?::text = 'Completed' then coalesce(completed_at, ?::timestamptz) else completed_at end,
                expires_at = case when ?::boolean then ?::timestamptz else expires_at end,
                reminder_count = reminder_count + case when ?::text = 'envelope.reminded' then 1 else 0 end,
                last_reminded_at = case when ?::text = 'envelope.reminded' then ?::timestamptz else last_reminded_at end,
                projection_error = null,
                projection_failed_at = null,
                updated_at = now()
          where id = ?`,
    [
      transition.envelopeStatus,
      transition.envelopeStatus,
      transition.sequence,
      transition.event.type,
      transition.occurredAt,
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
  // An envelope that ended sends no more messages: the credits it still holds for them go back
  // (db/usage-reservations.ts).
  if (isTerminalEnvelopeStatus(transition.envelopeStatus))
    await releaseEnvelopeCredits(tx, transition.envelopeId);
  await tx.execute(
    `update recipient r
            set status = v.status,
                completed_at = case when v.status = 'Completed' then coalesce(r.completed_at, ?::timestamptz) else r.completed_at end,
                updated_at = now()
           from jsonb_to_recordset(?::jsonb) as v (id uuid, status text)
          where r.id = v.id and r.envelope_id = ? and r.status is distinct from v.status`,
    [transition.occurredAt, JSON.stringify(transition.recipients), transition.envelopeId],
  );
  if (transition.event.type === 'recipient.delegated') await delegateRecipient(tx, transition);
  if (transition.event.type === 'envelope.settings_updated') await projectEnvelopeSettings(tx, transition);
  if (transition.event.type === 'recipient.corrected') await correctRecipient(tx, transition);
  return { applied: true, deliveryIds };
}

/**
 * A recipient handed their part to another person (docs/signing.md): the delegate becomes who the recipient
 * is (name, address, number, channel; their language when they gave one), and everything of the person before
 * ends with it — their links (an old link answers 404 like any ended one), signer sessions and one-time codes,
 * and the values they saved (the delegate fills and signs on their own; a value they overwrote that the sender
 * had prefilled is gone with it). In the projection's transaction, so the invitation the workflow sends once
 * this is written reaches the delegate.
 */
async function delegateRecipient(
  tx: Parameters<typeof queueWebhookEventDeliveries>[0],
  transition: EnvelopeTransition,
): Promise<void> {
  const { recipientId, data } = transition.event;
  const text = (key: string): string | null => (typeof data[key] === 'string' ? (data[key] as string) : null);
  const name = text('delegated_to_name');
  const channel = text('delegated_to_channel');
  if (!recipientId || !name || !channel) return;
  await tx.execute(
    `update recipient set full_name = ?, email = ?, phone = ?, delivery_channel = ?,
            language = coalesce(?, language), updated_at = now()
      where id = ? and envelope_id = ?`,
    [
      name,
      text('delegated_to_email'),
      text('delegated_to_phone'),
      channel,
      text('delegated_to_language'),
      recipientId,
      transition.envelopeId,
    ],
  );
  await tx.execute(
    'update signing_link set revoked_at = now() where recipient_id = ? and revoked_at is null',
    [recipientId],
  );
  await tx.execute('delete from signer_session where recipient_id = ?', [recipientId]);
  await tx.execute('delete from otp_code where recipient_id = ?', [recipientId]);
  await tx.execute(
    `delete from envelope_field_value where envelope_id = ? and recipient_id = ? and source = 'recipient'`,
    [transition.envelopeId, recipientId],
  );
}

/**
 * The sender corrected a recipient (docs/envelope-lifecycle.md, "Correcting a recipient"): each changed field's
 * new value is written to the recipient's row, and what was reached at the old contact ends as with a
 * delegation — the links (an old link answers 404 like any ended one), signer sessions, one-time codes and the
 * values saved through them. In the projection's transaction, so the invitation the workflow sends once this is
 * written goes to the new address.
 */
async function correctRecipient(
  tx: Parameters<typeof queueWebhookEventDeliveries>[0],
  transition: EnvelopeTransition,
): Promise<void> {
  const { recipientId, data } = transition.event;
  const changes = (data.changes ?? {}) as Record<string, { new?: unknown } | undefined>;
  const columns: Record<string, string> = {
    fullName: 'full_name',
    email: 'email',
    phone: 'phone',
    deliveryChannel: 'delivery_channel',
    language: 'language',
  };
  const sets: string[] = [];
  const values: unknown[] = [];
  for (const [field, column] of Object.entries(columns)) {
    const change = changes[field];
    if (!change) continue;
    sets.push(`${column} = ?`);
    values.push(typeof change.new === 'string' ? change.new : null);
  }
  if (!recipientId) return;
  if (sets.length > 0) {
    await tx.execute(
      `update recipient set ${sets.join(', ')}, updated_at = now() where id = ? and envelope_id = ?`,
      [...values, recipientId, transition.envelopeId],
    );
  }
  await tx.execute(
    'update signing_link set revoked_at = now() where recipient_id = ? and revoked_at is null',
    [recipientId],
  );
  await tx.execute('delete from signer_session where recipient_id = ?', [recipientId]);
  await tx.execute('delete from otp_code where recipient_id = ?', [recipientId]);
  await tx.execute(
    `delete from envelope_field_value where envelope_id = ? and recipient_id = ? and source = 'recipient'`,
    [transition.envelopeId, recipientId],
  );
}

/**
 * PostgreSQL refusals that no retry can fix become one non-retryable `ProjectionDataError` naming the
 * transition and the SQLSTATE: class 22 (data exceptions such as 22P05, an escaped NUL in jsonb, or 22021),
 * class 23 (integrity violations), and 08P01, which is how PostgreSQL answers a NUL in a text parameter.
 * Anything else (a lost connection, a timeout, a deadlock, a serialization failure) is thrown as it is and
 * retried.
 */
export function asProjectionFailure(error: unknown, transition: EnvelopeTransition): unknown {
  const sqlState = sqlStateOf(error);
  if (!sqlState || !(sqlState.startsWith('22') || sqlState.startsWith('23') || sqlState === '08P01')) {
    return error;
  }
  const message = sanitizeText(driverMessageOf(error).slice(0, REASON_MAX), 'line');
  return ApplicationFailure.create({
    type: PROJECTION_DATA_ERROR,
    nonRetryable: true,
    message: `PostgreSQL refused transition ${transition.sequence} (${transition.event.type}) of envelope ${transition.envelopeId}: SQLSTATE ${sqlState}: ${message}`,
    details: [{ sqlState }],
  });
}

/** The SQLSTATE of a PostgreSQL error, as the driver reports it (MikroORM copies it onto its exception). */
function sqlStateOf(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * PostgreSQL's own message and detail, without the statement a wrapper may put before it (`<sql> - <message>`)
 * or the lines it may add after it.
 */
function driverMessageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split('\n').find((line) => line.trim() !== '') ?? '';
  const own = first.includes(' - ') ? (first.split(' - ').at(-1) ?? first) : first;
  const detail = (error as { detail?: unknown }).detail;
  return typeof detail === 'string' && detail !== '' ? `${own} (${detail})` : own;
}

/**
 * Runs `work`, heartbeating every second while it takes: a projection is one short transaction, so Temporal
 * notices a worker that died in the middle of one within the 3-second heartbeat timeout. Outside an activity
 * (tests call the function directly) it only runs `work`.
 */
export async function whileHeartbeating<T>(work: () => Promise<T>, everyMs = HEARTBEAT_EVERY_MS): Promise<T> {
  let context: Context | undefined;
  try {
    context = Context.current();
  } catch {
    return work();
  }
  const timer = setInterval(() => context?.heartbeat(), everyMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
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
