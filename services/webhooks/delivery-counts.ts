// The organization's webhook deliveries by outcome per endpoint since each of some moments, in one statement
// (SQL count filters over webhook_delivery, served by its (organization_id, created_at) index): the webhooks
// list's recent deliveries (list-webhook-endpoints.ts) and the Integrations diagnostics (24 hours, 7 days;
// services/usage/integrations-diagnostics.ts) count them the same way. A delivery counts by when it was
// queued (created_at); a replay is a delivery of its own.
import type { EntityManager } from '@mikro-orm/postgresql';

/** Deliveries of an endpoint in a period by their status now. */
export interface DeliveryCounts {
  succeeded: number;
  failed: number;
  pending: number;
}

export const NO_DELIVERIES: DeliveryCounts = { succeeded: 0, failed: 0, pending: 0 };

const STATUSES = ['succeeded', 'failed', 'pending'] as const;

/** `counts.get(endpointId)?.[period]`; an endpoint without deliveries in any period is absent. */
export async function deliveryCountsByEndpoint<Period extends string>(
  em: EntityManager,
  organizationId: string,
  since: Record<Period, Date>,
): Promise<Map<string, Record<Period, DeliveryCounts>>> {
  const periods = Object.keys(since) as Period[];
  const starts = periods.map((period) => since[period].toISOString());
  const earliest = new Date(Math.min(...periods.map((period) => since[period].getTime()))).toISOString();
  const columns = periods.flatMap((_, index) =>
    STATUSES.map(
      (status) =>
        `count(*) filter (where d.status = '${status}' and d.created_at >= ?::timestamptz) as ${status}_${index}`,
    ),
  );
  const rows = await em.getConnection().execute<Record<string, string | number | null>[]>(
    `select d.endpoint_id, ${columns.join(', ')}
       from webhook_delivery d
      where d.organization_id = ? and d.created_at >= ?::timestamptz
      group by d.endpoint_id`,
    [...starts.flatMap((start) => STATUSES.map(() => start)), organizationId, earliest],
  );
  return new Map(
    rows.map((row) => [
      String(row.endpoint_id),
      Object.fromEntries(
        periods.map((period, index) => [
          period,
          {
            succeeded: Number(row[`succeeded_${index}`] ?? 0),
            failed: Number(row[`failed_${index}`] ?? 0),
            pending: Number(row[`pending_${index}`] ?? 0),
          },
        ]),
      ) as Record<Period, DeliveryCounts>,
    ]),
  );
}

/** succeeded / (succeeded + failed): the share of finished deliveries that arrived; null when none finished. */
export function successRate(counts: DeliveryCounts): number | null {
  const finished = counts.succeeded + counts.failed;
  return finished === 0 ? null : counts.succeeded / finished;
}
