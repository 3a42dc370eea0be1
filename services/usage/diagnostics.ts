// Integration diagnostics of an organization. GET /api/v1/diagnostics: recent request counts, the calling
// client's rate-limit state, OAuth clients with secret-expiry warnings, and webhook delivery counts. The
// Integrations area: each client's rate-limit state (GET /api/api-keys, list-api-keys.ts) and each client's
// requests over the last 24 hours and 7 days (GET /api/api-keys/diagnostics). One counting of
// api_request_stat and of the rate-limit windows for both.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config/config.ts';
import { Organization, Plan } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { listOAuthClients } from '../oauth-clients/list-oauth-clients.ts';
import {
  clientBucket,
  countedRequestsIn,
  type RateLimitBucket,
  resolveLimits,
  WINDOW_SECONDS,
  windowFor,
} from './rate-limit-policy.ts';

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

/** Requests, errors (4xx and 5xx answers) and rate-limit refusals (429) of /api/v1 in a period. */
interface RequestCounts {
  requests: number;
  errors: number;
  rateLimited: number;
}

/** A rate-limit bucket's state in the current one-minute window. */
interface BucketState {
  limit: number;
  used: number;
  remaining: number;
  resetSeconds: number;
}

/** An OAuth client's rate-limit state now: its ordinary and its heavy (upload) bucket. */
export interface RateLimitState {
  windowSeconds: number;
  standard: BucketState;
  heavy: BucketState;
}

const NO_REQUESTS: RequestCounts = { requests: 0, errors: 0, rateLimited: 0 };

/**
 * The organization's requests per OAuth client since each of the `since` times (api_request_stat's one-minute
 * counters, one statement): `counts.get(clientId)?.[period]`. A client without requests is absent.
 */
async function requestCountsByClient<Period extends string>(
  em: EntityManager,
  organizationId: string,
  since: Record<Period, Date>,
): Promise<Map<string, Record<Period, RequestCounts>>> {
  const periods = Object.keys(since) as Period[];
  const starts = periods.map((period) => since[period].toISOString());
  const earliest = new Date(Math.min(...periods.map((period) => since[period].getTime()))).toISOString();
  const columns = periods.flatMap((_, index) =>
    ['requests', 'errors', 'rate_limited'].map(
      (column) => `sum(s.${column}) filter (where s.minute >= ?::timestamptz) as ${column}_${index}`,
    ),
  );
  const rows = await em.getConnection().execute<Record<string, string | number | null>[]>(
    `select s.oauth_client_id, ${columns.join(', ')}
       from api_request_stat s join oauth_client c on c.id = s.oauth_client_id
      where c.organization_id = ? and s.minute >= ?::timestamptz
      group by s.oauth_client_id`,
    [...starts.flatMap((start) => [start, start, start]), organizationId, earliest],
  );
  return new Map(
    rows.map((row) => [
      String(row.oauth_client_id),
      Object.fromEntries(
        periods.map((period, index) => [
          period,
          {
            requests: Number(row[`requests_${index}`] ?? 0),
            errors: Number(row[`errors_${index}`] ?? 0),
            rateLimited: Number(row[`rate_limited_${index}`] ?? 0),
          },
        ]),
      ) as Record<Period, RequestCounts>,
    ]),
  );
}

/** The sum of every client's counts in a period. */
function totalOf<Period extends string>(
  counts: Map<string, Record<Period, RequestCounts>>,
  period: Period,
): RequestCounts {
  let total = NO_REQUESTS;
  for (const client of counts.values()) {
    const add = client[period];
    total = {
      requests: total.requests + add.requests,
      errors: total.errors + add.errors,
      rateLimited: total.rateLimited + add.rateLimited,
    };
  }
  return total;
}

/** Each client's rate-limit state in the current window, from the organization's and its plan's limits. */
export async function clientRateLimits(
  ctx: DataContext & { config: Pick<Config, 'api'> },
  organization: Organization,
  plan: Plan,
  oauthClientIds: readonly string[],
  now = new Date(),
): Promise<Map<string, RateLimitState>> {
  const limits = resolveLimits(
    { ratePerMinute: plan.ratePerMinute ?? null, uploadRatePerMinute: plan.uploadRatePerMinute ?? null },
    {
      ratePerMinute: organization.ratePerMinute ?? null,
      uploadRatePerMinute: organization.uploadRatePerMinute ?? null,
    },
    ctx.config.api,
  );
  const window = windowFor(now);
  const kinds: RateLimitBucket[] = ['standard', 'heavy'];
  const used = await countedRequestsIn(
    ctx.em,
    oauthClientIds.flatMap((id) => kinds.map((kind) => clientBucket(id, organization.id, kind))),
    window.start,
  );
  const state = (id: string, kind: RateLimitBucket): BucketState => {
    const count = used.get(clientBucket(id, organization.id, kind)) ?? 0;
    return {
      limit: limits[kind],
      used: count,
      remaining: Math.max(0, limits[kind] - count),
      resetSeconds: window.resetSeconds,
    };
  };
  return new Map(
    oauthClientIds.map((id) => [
      id,
      { windowSeconds: WINDOW_SECONDS, standard: state(id, 'standard'), heavy: state(id, 'heavy') },
    ]),
  );
}

/**
 * Requests, errors and rate-limit refusals of each OAuth client of the organization over the last 24 hours and
 * the last 7 days (GET /api/api-keys/diagnostics), oldest client first.
 */
export async function clientDiagnostics(ctx: DataContext, organizationId: string, now = new Date()) {
  const clients = await listOAuthClients(ctx, organizationId);
  const counts = await requestCountsByClient(ctx.em, organizationId, {
    last24Hours: new Date(now.getTime() - DAY_MS),
    last7Days: new Date(now.getTime() - 7 * DAY_MS),
  });
  return {
    generatedAt: now.toISOString(),
    totals: { last24Hours: totalOf(counts, 'last24Hours'), last7Days: totalOf(counts, 'last7Days') },
    apiKeys: clients.map((client) => ({
      id: client.id,
      clientId: client.clientId,
      name: client.name,
      last24Hours: counts.get(client.id)?.last24Hours ?? NO_REQUESTS,
      last7Days: counts.get(client.id)?.last7Days ?? NO_REQUESTS,
    })),
  };
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

  const counts = await requestCountsByClient(em, principal.organizationId, {
    lastHour: new Date(now.getTime() - HOUR_MS),
    last24Hours: new Date(now.getTime() - DAY_MS),
  });
  const rateLimits = await clientRateLimits(ctx, organization, plan, [principal.oauthClientId], now);
  const caller = rateLimits.get(principal.oauthClientId) as RateLimitState;

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
    requests: { lastHour: totalOf(counts, 'lastHour'), last24Hours: totalOf(counts, 'last24Hours') },
    rateLimits: caller,
    oauthClients: clients.map((client) => ({
      clientId: client.clientId,
      name: client.name,
      scopes: client.scopes,
      ipAllowlist: client.ipAllowlist,
      lastUsedAt: client.lastUsedAt ? client.lastUsedAt.toISOString() : null,
      requestCount: client.requestCount,
      errorCount: client.errorCount,
      errorRate: client.errorRate,
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
      ...(await webhookCounts(new Date(now.getTime() - DAY_MS))),
    },
  };
}
