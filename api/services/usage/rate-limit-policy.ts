// The rate-limit policy of the public API, shared by the limiter (api/plugins/rate-limit.ts) and the
// diagnostics (diagnostics.ts): fixed one-minute windows, the limits an organization gets from its plan and its
// own overrides, and the shared per-window counter in PostgreSQL. The plugin's header describes the
// algorithm and its trade-offs.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../../config/config.ts';

export const WINDOW_SECONDS = 60;
const WINDOW_MS = WINDOW_SECONDS * 1000;

export type RateLimitBucket = 'standard' | 'heavy';

export interface RateLimits {
  /** Requests per minute for ordinary calls. */
  standard: number;
  /** Requests per minute for uploads and other heavy operations (a separate bucket). */
  heavy: number;
}

/** The per-minute limits of a plan or an organization; null means "not set here". */
export interface LimitSource {
  ratePerMinute: number | null;
  uploadRatePerMinute: number | null;
}

export type EnterpriseDefaults = Pick<
  Config['api'],
  'enterpriseRatePerMinute' | 'enterpriseUploadRatePerMinute'
>;

/**
 * The limits of one organization: its own column wins, then its plan's, then the configured default for
 * plans without a limit (Enterprise). The heavy limit never exceeds the standard one.
 */
export function resolveLimits(
  plan: LimitSource,
  organization: LimitSource,
  defaults: EnterpriseDefaults,
): RateLimits {
  const standard = organization.ratePerMinute ?? plan.ratePerMinute ?? defaults.enterpriseRatePerMinute;
  const heavy =
    organization.uploadRatePerMinute ?? plan.uploadRatePerMinute ?? defaults.enterpriseUploadRatePerMinute;
  return { standard, heavy: Math.min(heavy, standard) };
}

/** The fixed one-minute window `now` falls in, and the whole seconds until it ends (1–60). */
export function windowFor(now: Date): { start: Date; resetSeconds: number } {
  const time = now.getTime();
  const start = Math.floor(time / WINDOW_MS) * WINDOW_MS;
  return { start: new Date(start), resetSeconds: Math.max(1, Math.ceil((start + WINDOW_MS - time) / 1000)) };
}

/** Counts one request in a bucket's window (shared by every process through PostgreSQL); returns the count. */
export async function countRequest(em: EntityManager, bucket: string, windowStart: Date): Promise<number> {
  // One atomic statement: no read-modify-write race between API processes, no lock held across statements.
  const rows = await em.getConnection().execute<{ count: number }[]>(
    `insert into rate_limit_window (bucket, window_start, count) values (?, ?::timestamptz, 1)
     on conflict (bucket, window_start) do update set count = rate_limit_window.count + 1
     returning count`,
    [bucket, windowStart.toISOString()],
  );
  const count = rows[0]?.count;
  if (count === undefined) throw new Error('rate limit: the counter upsert returned no row');
  return Number(count);
}

/** Requests counted so far in each bucket's window (a bucket without requests is absent). */
export async function countedRequestsIn(
  em: EntityManager,
  buckets: readonly string[],
  windowStart: Date,
): Promise<Map<string, number>> {
  if (buckets.length === 0) return new Map();
  const rows = await em.getConnection().execute<{ bucket: string; count: number }[]>(
    'select bucket, count from rate_limit_window where bucket = any(?::text[]) and window_start = ?::timestamptz',
    // An array literal: bucket names are uuids and a kind (no comma, quote or brace to escape).
    [`{${buckets.join(',')}}`, windowStart.toISOString()],
  );
  return new Map(rows.map((row) => [row.bucket, Number(row.count)]));
}

/** The bucket of an OAuth client's requests on behalf of an organization. */
export function clientBucket(oauthClientId: string, organizationId: string, kind: RateLimitBucket): string {
  return `${oauthClientId}:${organizationId}:${kind}`;
}
