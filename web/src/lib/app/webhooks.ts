// What the webhook pages (/app/integrations/webhooks, its deliveries log and a delivery's page) share: the
// server's shapes (domain/webhook.ts, types only), the event names and delivery statuses (domain/vocabulary.ts)
// and the badge tone of a delivery's status (app.css, .app-badge).
import type { z } from 'zod';
import { eventPermissions } from '../../../../domain/credential-permissions.ts';
import {
  WEBHOOK_DELIVERY_STATUSES,
  WEBHOOK_EVENT_TYPES,
  type WebhookDeliveryStatus,
  type WebhookEventType,
} from '../../../../domain/vocabulary.ts';
import type * as webhook from '../../../../domain/webhook.ts';

export { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, type WebhookDeliveryStatus, type WebhookEventType };

export type WebhookEndpointList = z.output<typeof webhook.WebhookEndpointList>;
export type WebhookEndpointListItem = z.output<typeof webhook.WebhookEndpointListItem>;
export type WebhookDeliveryView = z.output<typeof webhook.WebhookDeliveryView>;

/** The permissions `type` needs that `held` lacks (domain/credential-permissions.ts): empty, it may be chosen. */
export function eventLacks(type: WebhookEventType, held: readonly string[]): string[] {
  return eventPermissions(type).filter((permission) => !held.includes(permission));
}

export const DELIVERY_STATUS_TONES: Record<WebhookDeliveryStatus, string> = {
  pending: 'info',
  succeeded: 'good',
  failed: 'warn',
};

/** The deliveries log, optionally of one endpoint, event type or status. */
export function deliveriesHref(filter: { endpointId?: string; eventType?: string; status?: string }): string {
  const query = new URLSearchParams(
    Object.entries(filter).filter((entry): entry is [string, string] => Boolean(entry[1])),
  ).toString();
  return `/app/integrations/webhooks/deliveries${query ? `?${query}` : ''}`;
}
