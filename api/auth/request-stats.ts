// Per-client request statistics for diagnostics, counted by an onResponse hook of the /api/v1 scope: one-minute
// counters in api_request_stat plus the client's running totals and last-used time.
//
// Off the hot path (issue 19): a response only adds to counters in memory. They are written in one statement
// per flush, at most `flushIntervalMs` (200 ms) after the first request counted since the last flush, and when
// the app closes. Several API processes add to the same rows (the statement adds, it never overwrites), so the
// totals are the same as with a statement per request. The price: a process that dies loses the counters of
// its last flush interval, and a flush that fails is logged and dropped. Counting never fails a request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Orm } from '../../db/orm.ts';

export interface RequestStatsDependencies {
  orm: Orm;
}

export interface RequestStatsOptions {
  /** The longest a counted request waits before it is written (default 200 ms). */
  flushIntervalMs?: number;
}

export interface RequestStats {
  /** The onResponse hook. */
  record(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Writes what is counted now (the app's onClose hook calls it). */
  flush(): Promise<void>;
}

const DEFAULT_FLUSH_INTERVAL_MS = 200;
const MINUTE_MS = 60_000;

interface Counters {
  oauthClientId: string;
  minute: number;
  requests: number;
  errors: number;
  rateLimited: number;
  lastUsedAt: number;
}

// One statement (data-modifying CTEs), so the minute counters and the totals move together. A client deleted
// since its requests were counted is skipped: its rows are gone with it.
const FLUSH_SQL = `
  with batch as (
    select b.client, b.minute, b.requests, b.errors, b.rate_limited, b.last_used
      from unnest(?::uuid[], ?::timestamptz[], ?::int[], ?::int[], ?::int[], ?::timestamptz[])
           as b(client, minute, requests, errors, rate_limited, last_used)
     where exists (select 1 from oauth_client c where c.id = b.client)
  ), stat as (
    insert into api_request_stat (oauth_client_id, minute, requests, errors, rate_limited)
    select client, minute, requests, errors, rate_limited from batch
    on conflict (oauth_client_id, minute) do update
       set requests = api_request_stat.requests + excluded.requests,
           errors = api_request_stat.errors + excluded.errors,
           rate_limited = api_request_stat.rate_limited + excluded.rate_limited
  )
  update oauth_client c
     set last_used_at = greatest(c.last_used_at, t.last_used),
         request_count = c.request_count + t.requests,
         error_count = c.error_count + t.errors
    from (select client, sum(requests) as requests, sum(errors) as errors, max(last_used) as last_used
            from batch group by client) t
   where c.id = t.client`;

export function createRequestStats(
  deps: RequestStatsDependencies,
  options: RequestStatsOptions = {},
): RequestStats {
  const interval = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
  let pending = new Map<string, Counters>();
  let timer: NodeJS.Timeout | undefined;
  let log: FastifyRequest['log'] | undefined;
  let writing: Promise<void> = Promise.resolve();

  async function write(batch: Counters[]): Promise<void> {
    // Array literals: uuids, ISO timestamps and integers hold no comma, quote or brace to escape.
    const column = (values: (string | number)[]) => `{${values.join(',')}}`;
    const iso = (ms: number) => new Date(ms).toISOString();
    try {
      await deps.orm.em
        .fork()
        .getConnection()
        .execute(
          FLUSH_SQL,
          [
            column(batch.map((c) => c.oauthClientId)),
            column(batch.map((c) => iso(c.minute))),
            column(batch.map((c) => c.requests)),
            column(batch.map((c) => c.errors)),
            column(batch.map((c) => c.rateLimited)),
            column(batch.map((c) => iso(c.lastUsedAt))),
          ],
          'run',
        );
    } catch (err) {
      log?.warn(
        { err, clients: [...new Set(batch.map((c) => c.oauthClientId))] },
        'could not record request statistics',
      );
    }
  }

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const batch = [...pending.values()];
    pending = new Map();
    // Flushes are written one after another, so a close waits for the one in flight.
    writing = writing.then(() => (batch.length > 0 ? write(batch) : undefined));
    return writing;
  }

  return {
    async record(request, reply) {
      const principal = request.principal;
      if (!principal) return;
      log = request.log;
      const now = Date.now();
      const minute = Math.floor(now / MINUTE_MS) * MINUTE_MS;
      const key = `${principal.oauthClientId}:${minute}`;
      let counters = pending.get(key);
      if (!counters) {
        counters = {
          oauthClientId: principal.oauthClientId,
          minute,
          requests: 0,
          errors: 0,
          rateLimited: 0,
          lastUsedAt: now,
        };
        pending.set(key, counters);
      }
      const status = reply.statusCode;
      counters.requests += 1;
      if (status >= 400) counters.errors += 1;
      if (status === 429) counters.rateLimited += 1;
      counters.lastUsedAt = now;
      if (!timer) {
        timer = setTimeout(() => void flush(), interval);
        timer.unref();
      }
    },
    flush,
  };
}
