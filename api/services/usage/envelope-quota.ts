// The monthly envelope quota: each organization's plan allows a number of envelopes sent per calendar month
// (UTC; null: no limit). An envelope counts in the month it is sent (`envelope.sent_at`). The billing summary
// shows what is left; a bulk send that needs more envelopes than are left is refused before it starts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Conflict } from '../../errors.ts';
import { creditPeriod } from './sms-credits.ts';

export interface EnvelopeQuota {
  /** Envelopes the plan allows per month; null: no limit. */
  limit: number | null;
  sent: number;
  /** null: no limit. */
  remaining: number | null;
  period: { start: Date; end: Date };
}

/**
 * SQL: the envelopes the organization `o` sent in a period (by `sent_at`, whatever their status now); the one
 * definition this service and the backoffice's list of organizations read. Parameters: start and end.
 */
export const ENVELOPES_SENT_SQL = `(select count(*) from envelope e
    where e.organization_id = o.id and e.sent_at >= ? and e.sent_at < ?)::int`;

export async function envelopeQuota(
  em: EntityManager,
  organizationId: string,
  now = new Date(),
): Promise<EnvelopeQuota> {
  const period = creditPeriod(now);
  const [row] = await em.execute<{ limit: number | null; sent: number }[]>(
    `select p.monthly_document_limit as limit, ${ENVELOPES_SENT_SQL} as sent
       from organization o join plan p on p.name = o.plan_name
      where o.id = ?`,
    [period.start, period.end, organizationId],
  );
  const limit = row?.limit ?? null;
  const sent = Number(row?.sent ?? 0);
  return { limit, sent, remaining: limit === null ? null : Math.max(0, limit - sent), period };
}

/** Refuses (409 `document_limit_reached`) when the plan allows fewer envelopes this month than `needed`. */
export async function requireEnvelopeQuota(
  em: EntityManager,
  organizationId: string,
  needed: number,
  action: string,
): Promise<EnvelopeQuota> {
  const quota = await envelopeQuota(em, organizationId);
  if (quota.remaining === null || quota.remaining >= needed) return quota;
  throw new Conflict(
    `Cannot ${action}: it needs ${needed} envelope${needed === 1 ? '' : 's'} and the plan allows ${quota.remaining} more this month (${quota.sent} of its monthly document limit of ${quota.limit} sent, until ${quota.period.end.toISOString()}).`,
    [{ field: 'monthlyDocumentLimit', message: `${quota.remaining} left, ${needed} needed` }],
    'document_limit_reached',
  );
}
