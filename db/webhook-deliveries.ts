// Queuing webhook deliveries in PostgreSQL: the request body of an event, and the fan-out of one event to
// every endpoint of an organization that subscribes to it. Used by the API (test deliveries, replays) and
// by the activities (lifecycle events); the delivery itself is the workflow webhookDeliveryWorkflow.
import type { EntityManager } from '@mikro-orm/postgresql';
import { eventPermissions } from '../domain/credential-permissions.ts';
import { BUILT_IN_ROLE_PERMISSIONS, BUILT_IN_ROLES } from '../domain/permissions.ts';
import { isWebhookEventType, type WebhookEventType } from '../domain/vocabulary.ts';
import type { WebhookEvent } from '../workflows/webhook-contracts.ts';

/** The request body of a delivery: `{ id, type, created_at, data }` in this order, compact JSON. */
export function webhookPayloadBody(event: WebhookEvent): string {
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.created_at, data: event.data });
}

/** Throws a TypeError naming what is wrong with an event (a programming error: events are built in code). */
export function assertWebhookEvent(event: WebhookEvent): void {
  if (typeof event.id !== 'string' || event.id.length === 0 || event.id.length > 200) {
    throw new TypeError('webhook event: id must be a string of 1-200 characters');
  }
  if (typeof event.type !== 'string' || !isWebhookEventType(event.type)) {
    throw new TypeError(`webhook event: unknown type ${String(event.type)}`);
  }
  if (typeof event.created_at !== 'string' || Number.isNaN(Date.parse(event.created_at))) {
    throw new TypeError('webhook event: created_at must be an ISO 8601 date-time');
  }
  if (event.data === null || typeof event.data !== 'object' || Array.isArray(event.data)) {
    throw new TypeError('webhook event: data must be an object');
  }
}

/**
 * The insert of an event's deliveries, one per enabled endpoint of the organization subscribed to its type on a
 * plan with webhooks, returning their `id` and `created_at`; its parameters are `eventDeliveriesValues`. Part
 * of a larger statement too: an envelope's creation queues `envelope.created` in the statement that writes it.
 * An endpoint a user last changed receives the event only while that user is active and their role holds the
 * event's permissions (domain/credential-permissions.ts; issue 30): a built-in role by name (its permissions are
 * code), a custom one by its stored list. An endpoint the operator made (no changer) is not bounded.
 */
export const EVENT_DELIVERIES_INSERT = `
  insert into webhook_delivery
         (id, endpoint_id, organization_id, kind, event_id, event_type, event_created_at, payload, endpoint_url)
  select gen_random_uuid(), e.id, e.organization_id, 'event', ?, ?, ?::timestamptz, ?, e.url
    from webhook_endpoint e
    join organization o on o.id = e.organization_id
    join plan p on p.name = o.plan_name
   where e.organization_id = ? and e.enabled and p.webhook_access
     and (cardinality(e.event_types) = 0 or ?::text = any (e.event_types))
     and (e.changed_by_user_id is null or exists (
           select 1 from app_user u join role r on r.id = u.role_id
            where u.id = e.changed_by_user_id and u.status = 'active'
              and (r.built_in = any (?::text[]) or (r.built_in is null and r.permissions @> ?::text[]))))
  on conflict (endpoint_id, event_id) where kind = 'event' and replay_of is null do nothing
  returning id, created_at`;

/** The parameters of EVENT_DELIVERIES_INSERT, in order; checks the event first. */
export function eventDeliveriesValues(organizationId: string, event: WebhookEvent): unknown[] {
  assertWebhookEvent(event);
  const needed = eventPermissions(event.type as WebhookEventType);
  const holders = BUILT_IN_ROLES.filter((role) =>
    needed.every((permission) => BUILT_IN_ROLE_PERMISSIONS[role].includes(permission)),
  );
  return [
    event.id,
    event.type,
    event.created_at,
    webhookPayloadBody(event),
    organizationId,
    event.type,
    // Array literals: role and permission names hold no comma, quote or brace.
    `{${holders.join(',')}}`,
    `{${needed.join(',')}}`,
  ];
}

/**
 * Creates one pending delivery of `event` for every enabled endpoint of the organization that subscribes to
 * its type (an endpoint without event types subscribes to all), provided the organization's plan includes
 * webhooks. Returns the delivery ids — the existing ones when the event was queued before, so a retried
 * activity queues nothing twice. Call it inside the transaction that records the event (`em` may be a
 * transaction's entity manager), then start `webhookDeliveryWorkflow` for each id with
 * `webhookDeliveryChildOptions(id)` (workflows/webhook-contracts.ts).
 */
export async function queueWebhookEventDeliveries(
  em: EntityManager,
  organizationId: string,
  event: WebhookEvent,
): Promise<string[]> {
  // One statement: the deliveries it inserts, with those an earlier attempt inserted (which the insert skips).
  // The insert's rows are not visible to the same statement's read of the table, so the two never overlap.
  // The read sees what was committed when the statement began: two attempts of one event must not run at once
  // (a projection holds its envelope's row lock; an envelope's creation makes a new event id).
  const rows = await em.execute<{ id: string }[]>(
    `with inserted as (${EVENT_DELIVERIES_INSERT})
     select id from (
       select id, created_at from inserted
       union all
       select id, created_at from webhook_delivery
        where organization_id = ? and event_id = ? and kind = 'event' and replay_of is null
     ) queued
     order by created_at, id`,
    [...eventDeliveriesValues(organizationId, event), organizationId, event.id],
  );
  return rows.map((row) => row.id);
}

/** Pending deliveries queued more than `olderThanMs` ago and never attempted: their start was lost. */
export async function unstartedWebhookDeliveryIds(
  em: EntityManager,
  olderThanMs: number,
  limit: number,
): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select id from webhook_delivery
      where status = 'pending' and attempt_count = 0 and created_at < now() - make_interval(secs => ?)
      order by created_at limit ?`,
    [olderThanMs / 1000, limit],
  );
  return rows.map((row) => row.id);
}
