// `sigil webhook …`: the operator commands for webhook endpoints and their deliveries, on the same services
// the API and the business app's /api/webhooks routes use.
import { setTimeout as delay } from 'node:timers/promises';
import type { Config } from '../../config/config.ts';
import type { WebhookDeliveryView, WebhookEndpointView } from '../../domain/webhook.ts';
import type { DataContext, ServiceContext } from '../../services/context.ts';
import { InvalidRequest } from '../../services/errors.ts';

export const WEBHOOK_CLI_USAGE = `  webhook create  --org ORG_ID --url URL [--events "type type ..."] [--disable]
                  prints the endpoint's signing secret once
  webhook list    --org ORG_ID
  webhook update  --org ORG_ID --endpoint ENDPOINT_ID [--url URL] [--events "type ..."|all] [--enable|--disable]
  webhook delete  --org ORG_ID --endpoint ENDPOINT_ID
  webhook rotate-secret --org ORG_ID --endpoint ENDPOINT_ID
                  prints the new secret once; the previous one keeps signing for 24 hours
  webhook test    --org ORG_ID --endpoint ENDPOINT_ID [--wait]
  webhook deliveries --org ORG_ID [--endpoint ENDPOINT_ID] [--limit N]
  webhook replay  --org ORG_ID --delivery DELIVERY_ID [--wait]
`;

export const WEBHOOK_CLI_OPTIONS = {
  url: { type: 'string' },
  events: { type: 'string' },
  enable: { type: 'boolean' },
  disable: { type: 'boolean' },
  endpoint: { type: 'string' },
  delivery: { type: 'string' },
  limit: { type: 'string' },
  wait: { type: 'boolean' },
} as const;

interface WebhookCliValues {
  org?: string;
  url?: string;
  events?: string;
  enable?: boolean;
  disable?: boolean;
  endpoint?: string;
  delivery?: string;
  limit?: string;
  wait?: boolean;
}

interface CliRuntime {
  data(): Promise<DataContext & { config: Config }>;
  services(): Promise<ServiceContext & { config: Config }>;
}

type Output = { json: unknown; text: string };

/** How long `--wait` waits for the first attempt: one attempt's timeout plus scheduling. */
const WAIT_MS = 20_000;

function required(values: WebhookCliValues, name: keyof WebhookCliValues): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new InvalidRequest(`--${name} is required.`);
  return value;
}

/** `--events "a b"` → the types; `all` (or nothing given) → every event. */
function eventTypes(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const types = value.split(/[\s,]+/).filter(Boolean);
  return types.length === 1 && types[0] === 'all' ? [] : types;
}

function enabledFlag(values: WebhookCliValues): boolean | undefined {
  if (values.enable && values.disable) throw new InvalidRequest('Give --enable or --disable, not both.');
  return values.enable ? true : values.disable ? false : undefined;
}

function endpointText(endpoint: WebhookEndpointView): string {
  return [
    `webhook endpoint ${endpoint.id}${endpoint.enabled ? '' : '  (disabled)'}`,
    `  url            ${endpoint.url}`,
    `  events         ${endpoint.eventTypes.length > 0 ? endpoint.eventTypes.join(' ') : '(all)'}`,
    `  secret         ${endpoint.secretHint}`,
    ...(endpoint.previousSecretExpiresAt
      ? [`  previous       ${endpoint.previousSecretHint}  signs until ${endpoint.previousSecretExpiresAt}`]
      : []),
  ].join('\n');
}

function deliveryText(delivery: WebhookDeliveryView): string {
  return [
    `delivery ${delivery.id}  ${delivery.eventType}  ${delivery.status}  attempts ${delivery.attemptCount}` +
      `${delivery.lastStatusCode !== null ? `  HTTP ${delivery.lastStatusCode}` : ''}`,
    `  event ${delivery.eventId} (${delivery.kind}${delivery.replayOf ? `, replay of ${delivery.replayOf}` : ''})` +
      `  to ${delivery.endpointUrl}  queued ${delivery.createdAt}`,
    ...(delivery.lastError ? [`  last error     ${delivery.lastError}`] : []),
    ...(delivery.nextAttemptAt ? [`  next attempt   ${delivery.nextAttemptAt}`] : []),
  ].join('\n');
}

/** With --wait: the delivery once its first attempt is recorded (or as it is after WAIT_MS). */
async function waitForAttempt(ctx: DataContext, organizationId: string, delivery: WebhookDeliveryView) {
  const deadline = Date.now() + WAIT_MS;
  let current = delivery;
  while (current.status === 'pending' && current.attemptCount === 0 && Date.now() < deadline) {
    await delay(200);
    current = await (await import('../../services/webhooks/list-webhook-deliveries.ts')).getWebhookDelivery(
      ctx,
      organizationId,
      delivery.id,
    );
  }
  return current;
}

async function queued(
  values: WebhookCliValues,
  ctx: DataContext,
  organizationId: string,
  delivery: WebhookDeliveryView,
  what: string,
): Promise<Output> {
  const shown = values.wait ? await waitForAttempt(ctx, organizationId, delivery) : delivery;
  return {
    json: shown,
    text: `${what} queued\n${deliveryText(shown)}${
      values.wait ? '' : '\nFollow it with `sigil webhook deliveries` (or add --wait).'
    }`,
  };
}

export const WEBHOOK_COMMANDS: Record<
  string,
  (values: WebhookCliValues, runtime: CliRuntime) => Promise<Output>
> = {
  'webhook create': async (values, runtime) => {
    const enabled = enabledFlag(values);
    const endpoint = await (
      await import('../../services/webhooks/create-webhook-endpoint.ts')
    ).createWebhookEndpoint(await runtime.data(), {
      organizationId: required(values, 'org'),
      url: required(values, 'url'),
      eventTypes: eventTypes(values.events) as never,
      enabled: enabled ?? true,
    });
    return {
      json: endpoint,
      text: [
        endpointText(endpoint),
        `  signing secret ${endpoint.secret}`,
        'The secret is shown only now; store it with the receiver. It verifies X-Service-Signature.',
      ].join('\n'),
    };
  },

  'webhook list': async (values, runtime) => {
    const endpoints = await (
      await import('../../services/webhooks/list-webhook-endpoints.ts')
    ).listWebhookEndpoints(await runtime.data(), required(values, 'org'));
    return {
      json: endpoints,
      text: endpoints.length === 0 ? 'no webhook endpoints' : endpoints.map(endpointText).join('\n\n'),
    };
  },

  'webhook update': async (values, runtime) => {
    const endpoint = await (
      await import('../../services/webhooks/update-webhook-endpoint.ts')
    ).updateWebhookEndpoint(await runtime.data(), {
      organizationId: required(values, 'org'),
      endpointId: required(values, 'endpoint'),
      url: values.url,
      eventTypes: eventTypes(values.events) as never,
      enabled: enabledFlag(values),
    });
    return { json: endpoint, text: `updated\n${endpointText(endpoint)}` };
  },

  'webhook delete': async (values, runtime) => {
    const deleted = await (
      await import('../../services/webhooks/delete-webhook-endpoint.ts')
    ).deleteWebhookEndpoint(await runtime.data(), required(values, 'org'), required(values, 'endpoint'));
    return { json: deleted, text: `webhook endpoint ${deleted.id} deleted, with its delivery records` };
  },

  'webhook rotate-secret': async (values, runtime) => {
    const rotated = await (
      await import('../../services/webhooks/rotate-webhook-secret.ts')
    ).rotateWebhookSecret(await runtime.data(), required(values, 'org'), required(values, 'endpoint'));
    return {
      json: rotated,
      text: [
        endpointText(rotated),
        `  new secret     ${rotated.secret}`,
        'The new secret is shown only now. Until the time above every delivery carries two signatures:',
        'X-Service-Signature (new secret) and X-Service-Signature-Previous (old secret).',
      ].join('\n'),
    };
  },

  'webhook test': async (values, runtime) => {
    const ctx = await runtime.services();
    const organizationId = required(values, 'org');
    const delivery = await (await import('../../services/webhooks/send-test-delivery.ts')).sendTestDelivery(
      ctx,
      organizationId,
      required(values, 'endpoint'),
    );
    return queued(values, ctx, organizationId, delivery, 'test delivery');
  },

  'webhook deliveries': async (values, runtime) => {
    const limit = values.limit === undefined ? undefined : Number(values.limit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 500)) {
      throw new InvalidRequest('--limit must be a whole number from 1 to 500.');
    }
    const deliveries = await (
      await import('../../services/webhooks/list-webhook-deliveries.ts')
    ).listWebhookDeliveries(await runtime.data(), required(values, 'org'), {
      endpointId: values.endpoint,
      limit,
    });
    return {
      json: deliveries,
      text: deliveries.length === 0 ? 'no webhook deliveries' : deliveries.map(deliveryText).join('\n'),
    };
  },

  'webhook replay': async (values, runtime) => {
    const ctx = await runtime.services();
    const organizationId = required(values, 'org');
    const delivery = await (
      await import('../../services/webhooks/replay-webhook-delivery.ts')
    ).replayWebhookDelivery(ctx, organizationId, required(values, 'delivery'));
    return queued(values, ctx, organizationId, delivery, 'replay');
  },
};
