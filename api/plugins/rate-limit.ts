// Rate limiting of the public API, per (OAuth client, organization) and per bucket.
//
// Algorithm: fixed one-minute windows. Every request takes the next position of its bucket's current window
// (`<oauthClientId>:<organizationId>:standard|heavy`, window start = the minute it falls in) and is refused
// with 429 when its position exceeds the limit; the counter starts again at zero when the next
// minute begins. Known weakness of fixed windows: a client may spend its whole allowance at the end of one
// window and again at the start of the next, so up to twice the limit can pass within a few seconds around a
// window edge. Over any whole minute-aligned window the limit holds exactly, which is what the plans promise.
//
// Why PostgreSQL: several API processes serve the same clients behind a load balancer, so a per-process
// counter would multiply the allowance by the number of processes. The counter is one row per (bucket,
// window) in `rate_limit_window`, incremented atomically by a single
// `insert … on conflict do update set count = count + n returning count` (no read-modify-write race, no lock
// held across statements); every process sees the same count. A process takes several positions per
// statement when the window has plenty left (WindowLeases in rate-limit-policy.ts: a sixteenth of what is left,
// at most 64), so a busy client costs a statement per lease, not per request, and the limit still holds
// exactly: each admitted request holds a distinct position at or below it. The window is taken from this process's
// clock; API hosts are expected to run NTP, and a skew of a few hundred milliseconds only moves a request to
// the neighbouring window. Rows of finished windows are useless after the window ends: roughly one request
// in a hundred deletes windows older than five minutes in the background, keeping the table small.
//
// Limits: the plan's `rate_limit_per_minute` (Professional 60, Business 180, Premium 600), overridden by the
// organization's own `rate_limit_per_minute` when set (for any plan). A plan without a limit (Enterprise) and
// no override gets `config.api.enterpriseRatePerMinute`. Routes marked `config: { heavy: true }` (uploads
// and other heavy operations) count in a separate bucket with the lower `upload_rate_limit_per_minute`
// (organization override, then plan, then `config.api.enterpriseUploadRatePerMinute`), never higher than
// the client's ordinary limit. The limits are read with the token by the bearer check's one statement, never
// cached, so a changed plan or override applies from the next request in every API process.
//
// Headers on every answered request: `RateLimit-Limit`, `RateLimit-Remaining` (the limit less the request's
// position), `RateLimit-Reset` (seconds
// until the window ends) and the IETF draft's `RateLimit-Policy: <limit>;w=60`; a refused request also
// carries `Retry-After` (via `RateLimited`).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Orm } from '../../db/orm.ts';
import { RateLimited } from '../../services/errors.ts';
import {
  clientBucket,
  countRequests,
  type EnterpriseDefaults,
  type RateLimitBucket,
  type RateLimits,
  resolveLimits,
  WINDOW_SECONDS,
  WindowLeases,
  windowFor,
} from '../../services/usage/rate-limit-policy.ts';
import type { ApiPrincipal } from '../auth/principal.ts';

/** Windows that ended longer ago than this are deleted by the occasional clean-up. */
const RETAIN_WINDOWS_MS = 5 * 60 * 1000;
const DEFAULT_CLEANUP_PROBABILITY = 0.01;

export interface RateLimiterDeps {
  orm: Orm;
  config: { api: EnterpriseDefaults };
}

export interface RateLimiterOptions {
  /** Chance that a request also deletes old windows (default 0.01). */
  cleanupProbability?: number;
  /** The clock (tests). */
  now?: () => Date;
}

interface LimitRow {
  plan_rate: number | null;
  plan_upload_rate: number | null;
  org_rate: number | null;
  org_upload_rate: number | null;
}

/**
 * An onRequest hook for the authenticated /api/v1 scope: counts the request in its bucket, sets the RateLimit
 * headers and throws `RateLimited` once the bucket's limit is exceeded. Requests without a principal
 * (unauthenticated routes) are not limited here.
 */
export function createRateLimiter(deps: RateLimiterDeps, options: RateLimiterOptions = {}) {
  const cleanupProbability = options.cleanupProbability ?? DEFAULT_CLEANUP_PROBABILITY;
  const clock = options.now ?? (() => new Date());

  async function loadLimits(organizationId: string): Promise<RateLimits> {
    const rows = await deps.orm.em.getConnection().execute<LimitRow[]>(
      `select p.rate_limit_per_minute as plan_rate, p.upload_rate_limit_per_minute as plan_upload_rate,
              o.rate_limit_per_minute as org_rate, o.upload_rate_limit_per_minute as org_upload_rate
         from organization o
         join plan p on p.name = o.plan_name
        where o.id = ?`,
      [organizationId],
    );
    const row = rows[0];
    if (!row) throw new Error(`rate limit: organization ${organizationId} does not exist`);
    return resolveLimits(
      { ratePerMinute: row.plan_rate, uploadRatePerMinute: row.plan_upload_rate },
      { ratePerMinute: row.org_rate, uploadRatePerMinute: row.org_upload_rate },
      deps.config.api,
    );
  }

  /**
   * The limits of this request: from what the bearer check read with the token (the one statement every /api/v1
   * request runs anyway), else read now. Never cached, so a changed plan or override applies from the next
   * request in every API process.
   */
  function limitsOf(principal: ApiPrincipal): Promise<RateLimits> | RateLimits {
    const sources = principal.rateLimitSources;
    if (sources) return resolveLimits(sources.plan, sources.organization, deps.config.api);
    return loadLimits(principal.organizationId);
  }

  const leases = new WindowLeases((bucket, windowStart, n) =>
    countRequests(deps.orm.em, bucket, windowStart, n),
  );

  function cleanUp(request: FastifyRequest, now: Date): void {
    const before = new Date(windowFor(now).start.getTime() - RETAIN_WINDOWS_MS);
    deps.orm.em
      .getConnection()
      .execute('delete from rate_limit_window where window_start < ?::timestamptz', [before.toISOString()])
      .catch((error: unknown) => request.log.warn({ err: error }, 'rate limit: deleting old windows failed'));
  }

  return async function rateLimit(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const principal = request.principal;
    if (!principal) return;
    const now = clock();
    const kind: RateLimitBucket = request.routeOptions.config?.heavy ? 'heavy' : 'standard';
    const limits = await limitsOf(principal);
    const limit = limits[kind];
    const window = windowFor(now);
    const count = await leases.take(
      clientBucket(principal.oauthClientId, principal.organizationId, kind),
      window.start,
      limit,
    );
    if (cleanupProbability > 0 && Math.random() < cleanupProbability) cleanUp(request, now);

    reply.header('RateLimit-Limit', String(limit));
    reply.header('RateLimit-Remaining', String(Math.max(0, limit - count)));
    reply.header('RateLimit-Reset', String(window.resetSeconds));
    reply.header('RateLimit-Policy', `${limit};w=${WINDOW_SECONDS}`);
    if (count > limit) {
      const what = kind === 'heavy' ? 'upload and other heavy requests' : 'requests';
      throw new RateLimited(
        `Rate limit exceeded: at most ${limit} ${what} per minute (${WINDOW_SECONDS}-second window) for this ` +
          `client and organization. Retry in ${window.resetSeconds} seconds.`,
        window.resetSeconds,
      );
    }
  };
}

/**
 * An onRequest hook that limits requests per source address (`request.ip`, after trusted proxies) in the
 * bucket `<name>:<address>`, for routes without an OAuth client to count by: the token endpoint and the
 * signer API. Sets the RateLimit headers; over the limit throws `RateLimited` naming `what`.
 */
export function createAddressThrottle(
  deps: Pick<RateLimiterDeps, 'orm'>,
  options: { name: string; limit: number; what: string },
) {
  const leases = new WindowLeases((bucket, windowStart, n) =>
    countRequests(deps.orm.em, bucket, windowStart, n),
  );
  return async function throttleAddress(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const window = windowFor(new Date());
    const count = await leases.take(`${options.name}:${request.ip}`, window.start, options.limit);
    reply.header('RateLimit-Limit', String(options.limit));
    reply.header('RateLimit-Remaining', String(Math.max(0, options.limit - count)));
    reply.header('RateLimit-Reset', String(window.resetSeconds));
    if (count > options.limit) {
      throw new RateLimited(
        `Too many ${options.what} from ${request.ip}: at most ${options.limit} per minute. Retry in ${window.resetSeconds} seconds.`,
        window.resetSeconds,
      );
    }
  };
}
