// The monthly envelope quota: each organization's plan allows a number of envelopes sent per calendar month
// (UTC; null: no limit). An envelope counts in the month its send reserved it (`envelope.counted_at`, set under
// the organization's lock by send-reservation.ts before its workflow starts), and a running bulk send's rows not
// sent yet are reserved too. The billing summary shows what is left; a bulk send that needs more envelopes than
// are left is refused before it starts.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  BULK_DOCUMENTS_RESERVED_SQL,
  creditPeriod,
  ENVELOPES_SENT_SQL,
} from '../../db/usage-reservations.ts';
import { Conflict } from '../errors.ts';

export { ENVELOPES_SENT_SQL };

export interface EnvelopeQuota {
  /** Envelopes the plan allows per month; null: no limit. */
  limit: number | null;
  sent: number;
  /** Rows of running bulk sends not sent yet: each will take a document. */
  reserved: number;
  /** null: no limit. */
  remaining: number | null;
  period: { start: Date; end: Date };
}

/** The quota; `exceptEnvelopeId`: an envelope whose own bulk row is not counted as reserved (it is being sent). */
export async function envelopeQuota(
  em: Pick<EntityManager, 'execute'>,
  organizationId: string,
  now = new Date(),
  exceptEnvelopeId: string | null = null,
): Promise<EnvelopeQuota> {
  const period = creditPeriod(now);
  const [row] = await em.execute<{ limit: number | null; sent: number; reserved: number }[]>(
    `select p.monthly_document_limit as limit, ${ENVELOPES_SENT_SQL} as sent,
            ${BULK_DOCUMENTS_RESERVED_SQL} as reserved
       from organization o join plan p on p.name = o.plan_name
      where o.id = ?`,
    [period.start, period.end, exceptEnvelopeId, organizationId],
  );
  const limit = row?.limit ?? null;
  const sent = Number(row?.sent ?? 0);
  const reserved = Number(row?.reserved ?? 0);
  return {
    limit,
    sent,
    reserved,
    remaining: limit === null ? null : Math.max(0, limit - sent - reserved),
    period,
  };
}

/** 409 `document_limit_reached`: `needed` envelopes and fewer left this month. */
export function documentLimitReached(quota: EnvelopeQuota, needed: number, action: string): Conflict {
  const reserved = quota.reserved > 0 ? `, ${quota.reserved} more reserved by bulk sends in progress` : '';
  return new Conflict(
    `Cannot ${action}: it needs ${needed} envelope${needed === 1 ? '' : 's'} and the plan allows ${quota.remaining} more this month (${quota.sent} of its monthly document limit of ${quota.limit} sent${reserved}, until ${quota.period.end.toISOString()}).`,
    [{ field: 'monthlyDocumentLimit', message: `${quota.remaining} left, ${needed} needed` }],
    'document_limit_reached',
  );
}

/**
 * Refuses (409 `document_limit_reached`) when the plan allows fewer envelopes this month than `needed`: an early
 * answer before work begins; what holds under concurrency is the reservation the send itself takes.
 */
export async function requireEnvelopeQuota(
  em: EntityManager,
  organizationId: string,
  needed: number,
  action: string,
): Promise<EnvelopeQuota> {
  const quota = await envelopeQuota(em, organizationId);
  if (quota.remaining === null || quota.remaining >= needed) return quota;
  throw documentLimitReached(quota, needed, action);
}
