// The Integrations area's diagnostics (GET /api/integrations/diagnostics, docs/integrations.md, "Diagnostics"):
// per API key (OAuth client) its requests, errors and rate-limit refusals of the last 24 hours and 7 days with
// its rate-limit state now; per webhook endpoint its deliveries by outcome over the same two windows with the
// success rate; and the latest failed deliveries.
import { z } from 'zod';
import { RateLimitStateView } from './api-key.ts';
import { IsoDateTime } from './common.ts';

/** The two windows every figure is given for, counted back from `generatedAt`. */
export const DIAGNOSTICS_WINDOWS = ['last24Hours', 'last7Days'] as const;
export type DiagnosticsWindow = (typeof DIAGNOSTICS_WINDOWS)[number];

/** How many failed deliveries the diagnostics list. */
export const RECENT_FAILURES_LIMIT = 5;

const ClientCounts = z.object({
  requests: z.number().int().describe('Requests to /api/v1 in the window'),
  errors: z.number().int().describe('Answers with a 4xx or 5xx status, the 429s included'),
  rateLimited: z.number().int().describe('Requests refused with 429 by the rate limit'),
  errorRate: z.number().nullable().describe('errors / requests; null without requests'),
});

const DeliveryCounts = z.object({
  succeeded: z.number().int(),
  failed: z.number().int().describe('Deliveries that gave up after their last attempt'),
  pending: z.number().int().describe('Deliveries still being attempted'),
  successRate: z
    .number()
    .nullable()
    .describe('succeeded / (succeeded + failed); null when none has finished'),
});

const perWindow = <Schema extends z.ZodType>(schema: Schema) =>
  z.object({ last24Hours: schema, last7Days: schema });

export const IntegrationsDiagnostics = z.object({
  generatedAt: IsoDateTime.describe('The moment the windows are counted back from'),
  apiAccess: z.boolean().describe('The plan includes API access and the organization’s API flag is on'),
  webhookAccess: z.boolean().describe('The plan includes webhooks'),
  clients: z
    .array(
      z.object({
        id: z.uuid(),
        clientId: z.string(),
        name: z.string(),
        lastUsedAt: IsoDateTime.nullable(),
        ...perWindow(ClientCounts).shape,
        rateLimit: RateLimitStateView,
      }),
    )
    .describe('The API keys (OAuth clients), oldest first'),
  totals: perWindow(ClientCounts).describe('Every API key together'),
  webhookEndpoints: z
    .array(
      z.object({
        id: z.uuid(),
        url: z.string(),
        enabled: z.boolean(),
        ...perWindow(DeliveryCounts).shape,
      }),
    )
    .describe('The webhook endpoints, oldest first; deliveries counted by when they were queued'),
  webhookTotals: perWindow(DeliveryCounts).describe('Every endpoint together'),
  recentFailures: z
    .array(
      z.object({
        id: z.uuid().describe('The delivery: /app/integrations/webhooks/deliveries/{id}'),
        endpointId: z.uuid(),
        endpointUrl: z.string(),
        eventType: z.string(),
        attemptCount: z.number().int(),
        lastStatusCode: z.number().int().nullable(),
        lastError: z.string().nullable().describe('Redacted, as in the delivery log'),
        createdAt: IsoDateTime,
        lastAttemptAt: IsoDateTime.nullable(),
      }),
    )
    .describe(
      `The latest failed deliveries of the last 7 days, newest first (at most ${RECENT_FAILURES_LIMIT})`,
    ),
});
export type IntegrationsDiagnostics = z.output<typeof IntegrationsDiagnostics>;
