// Per-client request statistics for diagnostics, as an onResponse hook of the /api/v1 scope: one-minute
// counters in api_request_stat plus the client's running totals and last-used time. Runs after the
// response went out and never fails a request: a database problem is logged and the counters skip it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Orm } from '../../db/orm.ts';

export interface RequestStatsDependencies {
  orm: Orm;
}

export function createRequestStats(deps: RequestStatsDependencies) {
  return async function recordRequestStats(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const principal = request.principal;
    if (!principal) return;
    const status = reply.statusCode;
    const error = status >= 400 ? 1 : 0;
    const rateLimited = status === 429 ? 1 : 0;
    try {
      // One statement (a data-modifying CTE), so the minute counter and the totals move together.
      await deps.orm.em
        .fork()
        .getConnection()
        .execute(
          `with stat as (
           insert into api_request_stat (oauth_client_id, minute, requests, errors, rate_limited)
           values (?, date_trunc('minute', now()), 1, ?, ?)
           on conflict (oauth_client_id, minute) do update
              set requests = api_request_stat.requests + 1,
                  errors = api_request_stat.errors + excluded.errors,
                  rate_limited = api_request_stat.rate_limited + excluded.rate_limited
         )
         update oauth_client
            set last_used_at = now(),
                request_count = request_count + 1,
                error_count = error_count + ?
          where id = ?`,
          [principal.oauthClientId, error, rateLimited, error, principal.oauthClientId],
          'run',
        );
    } catch (err) {
      request.log.warn(
        { err, oauthClientId: principal.oauthClientId },
        'could not record request statistics',
      );
    }
  };
}
