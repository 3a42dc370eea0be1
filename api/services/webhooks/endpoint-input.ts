// The fields of an endpoint a caller may set, shared by create and update.
import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../../../workflows/webhook-contracts.ts';
import { WEBHOOK_URL_MAX_LENGTH } from './webhook-url.ts';

export const WebhookUrl = z.string().trim().min(1, 'url is required').max(WEBHOOK_URL_MAX_LENGTH);

/** Event names of the specification; empty (or absent at creation) subscribes to every event. */
export const WebhookEventTypes = z
  .array(
    z.enum(WEBHOOK_EVENT_TYPES, {
      message: `each event type must be one of: ${WEBHOOK_EVENT_TYPES.join(' ')}`,
    }),
  )
  .max(WEBHOOK_EVENT_TYPES.length * 2)
  .transform((types) => [...new Set(types)]);
