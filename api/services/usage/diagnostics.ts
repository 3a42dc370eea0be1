// Integration diagnostics of an organization (GET /api/v1/diagnostics): recent request counts, the calling
// client's rate-limit state, OAuth clients with secret-expiry warnings, and webhook delivery counts.
import type { Config } from '../../../config/config.ts';
import { Organization, Plan } from '../../../db/entities/index.ts';

import type { DataContext } from '../context.ts';
import { listOAuthClients } from '../oauth-clients/list-oauth-clients.ts';
import {
  clientBucket,
  countedRequests,
  type RateLimitBucket,
  resolveLimits,
  WINDOW_SECONDS,
  windowFor,
} from './rate-limit-policy.ts';

const HOUR_MS = 3600_000;

interface StatRow {
  requests: string | number | null;
  errors: string | number | null;
  rate_limited: string | number | null;
}

export async function diagnostics(
  ctx: DataContext & { config: Pick<Config, 'api'> },
  /** The calling OAuth client and the organization it acts for. */
  principal: { organizationId: string; oauthClientId: string },
  now = new Date(),
) {
  const { em } = ctx;
  const connection = em.getConnection();
  const organization = await em.findOneOrFail(Organization, { id: principal.organizationId });
  const plan = await em.findOneOrFail(Plan, { name: organization.planName });

  const counts = async (since: Date) => {
    const [row] = await connection.execute<StatRow[]>(
      `select sum(s.requests) as requests, sum(s.errors) as errors, sum(s.rate_limited) as rate_limited
         from api_request_stat s join oauth_client c on c.id = s.oauth_client_id
        where c.organization_id = ? and s.minute >= ?::timestamptz`,
      [principal.organizationId, since.toISOString()],
    );
    return {
      requests: Number(row?.requests ?? 0),
      errors: Number(row?.errors ?? 0),
      rateLimited: Number(row?.rate_limited ?? 0),
    };
  };

  const limits = resolveLimits(
    { ratePerMinute: plan.ratePerMinute ?? null, uploadRatePerMinute: plan.uploadRatePerMinute ?? null },
    {
      ratePerMinute: organization.ratePerMinute ?? null,
      uploadRatePerMinute: organization.uploadRatePerMinute ?? null,
    },
    ctx.config.api,
  );
  const window = windowFor(now);
  const rateLimit = async (kind: RateLimitBucket) => {
    const used = await countedRequests(
      em,
      clientBucket(principal.oauthClientId, principal.organizationId, kind),
      window.start,
    );
    return {
      limit: limits[kind],
      used,
      remaining: Math.max(0, limits[kind] - used),
      resetSeconds: window.resetSeconds,
    };
  };

  const webhookCounts = async (since: Date) => {
    const [row] = await connection.execute<{ endpoints: string; deliveries: string; failed: string }[]>(
      `select (select count(*) from webhook_endpoint where organization_id = ?) as endpoints,
              count(d.id) as deliveries, count(d.id) filter (where d.status = 'failed') as failed
         from webhook_delivery d
        where d.organization_id = ? and d.created_at >= ?::timestamptz`,
      [principal.organizationId, principal.organizationId, since.toISOString()],
    );
    return {
      endpoints: Number(row?.endpoints ?? 0),
      deliveriesLast24Hours: Number(row?.deliveries ?? 0),
      failedLast24Hours: Number(row?.failed ?? 0),
    };
  };

  const clients = await listOAuthClients(ctx, principal.organizationId);
  return {
    generatedAt: now.toISOString(),
    requests: {
      lastHour: await counts(new Date(now.getTime() - HOUR_MS)),
      last24Hours: await counts(new Date(now.getTime() - 24 * HOUR_MS)),
    },
    rateLimits: {
      windowSeconds: WINDOW_SECONDS,
      standard: await rateLimit('standard'),
      heavy: await rateLimit('heavy'),
    },
    oauthClients: clients.map((client) => ({
      clientId: client.clientId,
      name: client.name,
      scopes: client.scopes,
      ipAllowlist: client.ipAllowlist,
      lastUsedAt: client.lastUsedAt ? client.lastUsedAt.toISOString() : null,
      requestCount: client.requestCount,
      errorCount: client.errorCount,
      errorRate: client.requestCount > 0 ? client.errorCount / client.requestCount : 0,
      activeSecrets: client.secrets.map((secret) => ({
        id: secret.id,
        hint: secret.hint,
        expiresAt: secret.expiresAt.toISOString(),
        expiresSoon: secret.expiresSoon,
      })),
      warnings: [
        ...(client.secrets.length === 0 ? ['The client has no active secret and cannot obtain tokens.'] : []),
        ...client.secrets
          .filter((secret) => secret.expiresSoon)
          .map((secret) => `Secret …${secret.hint} expires on ${secret.expiresAt.toISOString()}; rotate it.`),
      ],
    })),
    webhooks: {
      available: plan.webhookAccess,
      ...(await webhookCounts(new Date(now.getTime() - 24 * HOUR_MS))),
    },
  };
}
