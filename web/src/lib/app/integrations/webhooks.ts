// What the webhook pages (/app/integrations/webhooks, its deliveries log and a delivery's page) share: the
// server's shapes (domain/webhook.ts, types only), the event names and delivery statuses (domain/vocabulary.ts),
// the badge tone of a delivery's status (kit.css, .app-badge), an endpoint's recent deliveries in words, and the
// deliveries log's filters as they stand in its address.
import type { z } from 'zod';
import { eventPermissions } from '../../../../../domain/credential-permissions.ts';
import {
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_EVENT_TYPES,
  type WebhookDeliveryStatus,
  type WebhookEventType,
} from '../../../../../domain/vocabulary.ts';
import type * as webhook from '../../../../../domain/webhook.ts';

export { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, type WebhookDeliveryStatus, type WebhookEventType };

export type WebhookEndpointList = z.output<typeof webhook.WebhookEndpointList>;
export type WebhookEndpointListItem = z.output<typeof webhook.WebhookEndpointListItem>;
export type WebhookDeliveryView = z.output<typeof webhook.WebhookDeliveryView>;
export type WebhookDeliveryList = z.output<typeof webhook.WebhookDeliveryList>;
/** An endpoint with its signing secret: the answer of a creation or a rotation, the only time it is shown. */
export type WebhookEndpointWithSecret = z.output<typeof webhook.WebhookEndpointWithSecret>;

/** The permissions `type` needs that `held` lacks (domain/credential-permissions.ts): empty, it may be chosen. */
export function eventLacks(type: WebhookEventType, held: readonly string[]): string[] {
  return eventPermissions(type).filter((permission) => !held.includes(permission));
}

export const DELIVERY_STATUS_TONES: Record<WebhookDeliveryStatus, string> = {
  pending: 'info',
  succeeded: 'good',
  failed: 'warn',
};

/** The events an endpoint receives: those ticked, or every event when none is. */
export function receivedEvents(endpoint: { eventTypes: readonly string[] }): readonly WebhookEventType[] {
  return endpoint.eventTypes.length === 0 ? WEBHOOK_EVENT_TYPES : (endpoint.eventTypes as WebhookEventType[]);
}

/**
 * An endpoint's deliveries of the last days in words: the share of the finished ones that arrived ("100%
 * delivered (1 of 1)"), and those still on their way; "No deliveries" when there were none.
 */
export function recentDeliveriesText(
  counts: { succeeded: number; failed: number; pending: number },
  t: (key: string, options?: { values: Record<string, number> }) => string,
): string {
  const finished = counts.succeeded + counts.failed;
  const parts = [
    ...(finished > 0
      ? [
          t('webhooks.recentRate', {
            values: {
              percent: Math.round((counts.succeeded / finished) * 100),
              succeeded: counts.succeeded,
              total: finished,
            },
          }),
        ]
      : []),
    ...(counts.pending > 0 ? [t('webhooks.recentPending', { values: { count: counts.pending } })] : []),
  ];
  return parts.length > 0 ? parts.join(', ') : t('webhooks.recentNone');
}

/** The deliveries log reads this many at a time. */
export const DELIVERIES_PAGE_SIZE = 50;

/** The deliveries log's filters, as its address holds them (`?endpointId=…&eventType=…&status=…`). */
export interface DeliveryFilter {
  endpointId: string;
  eventType: string;
  status: string;
}

export function deliveryFilterOf(url: URL): DeliveryFilter {
  return {
    endpointId: url.searchParams.get('endpointId') ?? '',
    eventType: url.searchParams.get('eventType') ?? '',
    status: url.searchParams.get('status') ?? '',
  };
}

/** The deliveries log's query for a filter, from `offset`: a filter left empty is left out. */
export function deliveryQuery(filter: DeliveryFilter, limit: number, offset = 0) {
  return {
    ...(filter.endpointId ? { endpointId: filter.endpointId } : {}),
    ...(filter.eventType ? { eventType: filter.eventType as WebhookEventType } : {}),
    ...(filter.status ? { status: filter.status as WebhookDeliveryStatus } : {}),
    limit,
    offset,
  };
}

/** The deliveries log, optionally of one endpoint, event type or status. */
export function deliveriesHref(filter: { endpointId?: string; eventType?: string; status?: string }): string {
  const query = new URLSearchParams(
    Object.entries(filter).filter((entry): entry is [string, string] => Boolean(entry[1])),
  ).toString();
  return `/app/integrations/webhooks/deliveries${query ? `?${query}` : ''}`;
}
