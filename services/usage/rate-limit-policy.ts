// The rate-limit policy of the public API, shared by the limiter (api/plugins/rate-limit.ts) and the
// diagnostics (diagnostics.ts): fixed one-minute windows, the limits an organization gets from its plan and its
// own overrides, and the shared per-window counter in PostgreSQL. The plugin's header describes the
// algorithm and its trade-offs.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config/config.ts';

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

/**
 * Counts `n` requests in a bucket's window (shared by every process through PostgreSQL); returns the count after
 * them. The caller holds the positions count − n + 1 … count (see WindowLeases).
 */
export async function countRequests(
  em: EntityManager,
  bucket: string,
  windowStart: Date,
  n = 1,
): Promise<number> {
  // One atomic statement: no read-modify-write race between API processes, no lock held across statements.
  const rows = await em.getConnection().execute<{ count: number }[]>(
    `insert into rate_limit_window (bucket, window_start, count) values (?, ?::timestamptz, ?)
     on conflict (bucket, window_start) do update set count = rate_limit_window.count + excluded.count
     returning count`,
    [bucket, windowStart.toISOString(), n],
  );
  const count = rows[0]?.count;
  if (count === undefined) throw new Error('rate limit: the counter upsert returned no row');
  return Number(count);
}

/** A lease holds at most this many positions… */
const MAX_LEASE = 64;
/** …and at most this fraction of what the window had left when it was taken. */
const LEASE_FRACTION = 16;
const MAX_LEASED_BUCKETS = 10_000;

interface Lease {
  window: number;
  /** Positions this process took from the shared counter and has not handed out: [first, last] ranges. */
  ranges: [number, number][];
  /** The highest count the shared counter answered this process in the window. */
  count: number;
}

/**
 * Hands out the positions of a window's shared counter (1, 2, 3, … across every API process) to requests: a
 * position at or below the limit admits its request, one above refuses it. Taking a position from the database
 * for every request costs a statement per request; so a process takes a lease of several positions in one
 * statement and hands them out from memory. The lease is small while little is known or little is left: one
 * position for the window's first request, then a sixteenth of what the window had left (at most 64), and one
 * position at a time once the limit is reached — so each refusal is still counted.
 *
 * Guarantee: every admitted request holds a distinct position ≤ limit, so the limit holds exactly across any
 * number of processes. Price: positions a process leased and did not use (it stopped receiving that client's
 * requests, or it died) are lost for the window, so a client can be refused a few requests early; and the
 * window's count, shown by the diagnostics, runs ahead of the requests by those positions.
 */
export class WindowLeases {
  readonly #leases = new Map<string, Lease>();
  readonly #increment: (bucket: string, windowStart: Date, n: number) => Promise<number>;

  constructor(increment: (bucket: string, windowStart: Date, n: number) => Promise<number>) {
    this.#increment = increment;
  }

  /** The request's position in the bucket's window: admitted when ≤ limit. */
  async take(bucket: string, windowStart: Date, limit: number): Promise<number> {
    const window = windowStart.getTime();
    const held = this.#current(bucket, window);
    const position = held ? nextPosition(held) : undefined;
    if (position !== undefined) return position;

    const known = held?.count;
    const left = known === undefined ? 0 : limit - known;
    const size = left <= 0 ? 1 : Math.min(MAX_LEASE, Math.max(1, Math.floor(left / LEASE_FRACTION)));
    const count = await this.#increment(bucket, windowStart, size);
    const first = count - size + 1;
    // Another request of this process may have taken a lease meanwhile: keep both.
    const lease = this.#current(bucket, window) ?? this.#start(bucket, window);
    lease.count = Math.max(lease.count, count);
    const last = Math.min(count, limit);
    if (first + 1 <= last) lease.ranges.push([first + 1, last]);
    return first;
  }

  #current(bucket: string, window: number): Lease | undefined {
    const lease = this.#leases.get(bucket);
    return lease && lease.window === window ? lease : undefined;
  }

  #start(bucket: string, window: number): Lease {
    if (this.#leases.size >= MAX_LEASED_BUCKETS) {
      for (const [key, lease] of this.#leases) if (lease.window !== window) this.#leases.delete(key);
      if (this.#leases.size >= MAX_LEASED_BUCKETS) this.#leases.clear();
    }
    const lease: Lease = { window, ranges: [], count: 0 };
    this.#leases.set(bucket, lease);
    return lease;
  }
}

function nextPosition(lease: Lease): number | undefined {
  const range = lease.ranges[0];
  if (!range) return undefined;
  const position = range[0];
  if (position >= range[1]) lease.ranges.shift();
  else range[0] = position + 1;
  return position;
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
