// The Integrations area's diagnostics (GET /api/integrations/diagnostics, docs/integrations.md, "Diagnostics"):
// each API key's requests, errors and rate-limit refusals over the last 24 hours and 7 days — counted once, by
// clientDiagnostics (diagnostics.ts), as GET /api/api-keys/diagnostics counts them — with its last use and its
// rate-limit state now (list-api-keys.ts); each webhook endpoint's deliveries by outcome over the same windows
// (delivery-counts.ts, as the webhooks list counts them) and its success rate; the latest failed deliveries.
import type { Config } from '../../config/config.ts';
import {
  type DiagnosticsWindow,
  type IntegrationsDiagnostics,
  RECENT_FAILURES_LIMIT,
} from '../../domain/integrations.ts';
import type { DataContext } from '../context.ts';
import { listApiKeys } from '../oauth-clients/list-api-keys.ts';
import {
  type DeliveryCounts,
  deliveryCountsByEndpoint,
  NO_DELIVERIES,
  successRate,
} from '../webhooks/delivery-counts.ts';
import { listWebhookEndpoints } from '../webhooks/list-webhook-endpoints.ts';
import { webhookAccessOf } from '../webhooks/webhook-records.ts';
import { clientDiagnostics } from './diagnostics.ts';

const DAY_MS = 86_400_000;

interface RequestCounts {
  requests: number;
  errors: number;
  rateLimited: number;
}

function withErrorRate(counts: RequestCounts) {
  return { ...counts, errorRate: counts.requests === 0 ? null : counts.errors / counts.requests };
}

function withSuccessRate(counts: DeliveryCounts) {
  return { ...counts, successRate: successRate(counts) };
}

function perWindow<In, Out>(figures: Record<DiagnosticsWindow, In>, map: (value: In) => Out) {
  return { last24Hours: map(figures.last24Hours), last7Days: map(figures.last7Days) };
}

export async function integrationsDiagnostics(
  ctx: DataContext & { config: Pick<Config, 'api'> },
  organizationId: string,
  now = new Date(),
): Promise<IntegrationsDiagnostics> {
  // The same clock for both countings, so the two tables cover the same windows.
  const requests = await clientDiagnostics(ctx, organizationId, now);
  const { apiAccess, apiKeys } = await listApiKeys(ctx, organizationId);
  const keys = new Map(apiKeys.map((key) => [key.id, key]));

  const endpoints = await listWebhookEndpoints(ctx, organizationId);
  const plan = await webhookAccessOf(ctx.em, organizationId);
  const since: Record<DiagnosticsWindow, Date> = {
    last24Hours: new Date(now.getTime() - DAY_MS),
    last7Days: new Date(now.getTime() - 7 * DAY_MS),
  };
  const deliveries =
    endpoints.length === 0
      ? new Map<string, Record<DiagnosticsWindow, DeliveryCounts>>()
      : await deliveryCountsByEndpoint(ctx.em, organizationId, since);
  const endpointCounts = endpoints.map((endpoint) => ({
    endpoint,
    counts: deliveries.get(endpoint.id) ?? { last24Hours: NO_DELIVERIES, last7Days: NO_DELIVERIES },
  }));
  const webhookTotal = (window: DiagnosticsWindow): DeliveryCounts =>
    endpointCounts.reduce(
      (sum, { counts }) => ({
        succeeded: sum.succeeded + counts[window].succeeded,
        failed: sum.failed + counts[window].failed,
        pending: sum.pending + counts[window].pending,
      }),
      NO_DELIVERIES,
    );

  const failures = await ctx.em.getConnection().execute<
    {
      id: string;
      endpoint_id: string;
      endpoint_url: string;
      event_type: string;
      attempt_count: number;
      last_status_code: number | null;
      last_error: string | null;
      created_at: Date;
      last_attempt_at: Date | null;
    }[]
  >(
    `select id, endpoint_id, endpoint_url, event_type, attempt_count, last_status_code, last_error, created_at,
            last_attempt_at
       from webhook_delivery
      where organization_id = ? and created_at >= ?::timestamptz and status = 'failed'
      order by coalesce(last_attempt_at, created_at) desc, id
      limit ?`,
    [organizationId, since.last7Days.toISOString(), RECENT_FAILURES_LIMIT],
  );

  return {
    generatedAt: requests.generatedAt,
    apiAccess: apiAccess.available,
    webhookAccess: plan.webhookAccess,
    clients: requests.apiKeys.flatMap((client) => {
      const key = keys.get(client.id);
      // Deleted between the two reads: left out, as it would be a moment later.
      if (!key) return [];
      return [
        {
          id: client.id,
          clientId: client.clientId,
          name: client.name,
          lastUsedAt: key.lastUsedAt,
          ...perWindow(client, withErrorRate),
          rateLimit: key.rateLimit,
        },
      ];
    }),
    totals: perWindow(requests.totals, withErrorRate),
    webhookEndpoints: endpointCounts.map(({ endpoint, counts }) => ({
      id: endpoint.id,
      url: endpoint.url,
      enabled: endpoint.enabled,
      ...perWindow(counts, withSuccessRate),
    })),
    webhookTotals: {
      last24Hours: withSuccessRate(webhookTotal('last24Hours')),
      last7Days: withSuccessRate(webhookTotal('last7Days')),
    },
    recentFailures: failures.map((row) => ({
      id: row.id,
      endpointId: row.endpoint_id,
      endpointUrl: row.endpoint_url,
      eventType: row.event_type,
      attemptCount: Number(row.attempt_count),
      lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
      lastError: row.last_error,
      createdAt: new Date(row.created_at).toISOString(),
      lastAttemptAt: row.last_attempt_at ? new Date(row.last_attempt_at).toISOString() : null,
    })),
  };
}
