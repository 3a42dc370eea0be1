// The counted plan limits as SQL, and the reservations that make them hold under concurrency (migration 0030,
// docs/billing.md "Limits under concurrency"). Every counted action of an organization first takes its
// organization's row lock (`lockOrganization`) in the transaction that acts, then counts what is used and
// reserved, then acts — so of N requests arriving at once exactly as many pass as the limit leaves.
//
// The API's use cases (services/usage/*) and the worker's notification activity share this module: the
// worker sends reminders and notices by SMS or WhatsApp, and each such message takes a credit first.
import type { EntityManager } from '@mikro-orm/postgresql';

type Sql = Pick<EntityManager, 'execute'>;

/** The calendar month (UTC) `now` falls in: the period of the monthly documents and SMS credits. */
export function creditPeriod(now: Date): { start: Date; end: Date } {
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}

/**
 * Serializes the organization's counted actions: taken first, inside the acting transaction, by every action that
 * counts against a limit (sends, text messages, webhook endpoints, users, teams, API keys, templates, contacts).
 * `for no key update` lets rows that reference the organization be inserted meanwhile.
 */
export async function lockOrganization(tx: Sql, organizationId: string): Promise<void> {
  await tx.execute('select id from organization where id = ? for no key update', [organizationId]);
}

// ── Documents ────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * SQL: the envelopes the organization `o` sent in a period — counted when their send reserved them
 * (`counted_at`), or when they were sent (`sent_at`, for sends before migration 0030), whatever their status
 * now. Parameters: start and end.
 */
export const ENVELOPES_SENT_SQL = `(select count(*) from envelope e
    where e.organization_id = o.id and coalesce(e.counted_at, e.sent_at) >= ?
      and coalesce(e.counted_at, e.sent_at) < ?)::int`;

/**
 * SQL: the rows of the organization `o`'s running bulk sends whose envelope is not counted yet: each will take a
 * document. Parameter: an envelope id whose own row is left out (the envelope being sent), or null.
 */
export const BULK_DOCUMENTS_RESERVED_SQL = `(select count(*) from bulk_send b
      join bulk_send_row r on r.bulk_send_id = b.id
      left join envelope re on re.id = r.envelope_id
    where b.organization_id = o.id and b.status = 'Running' and r.status in ('Pending', 'Created')
      and coalesce(re.counted_at, re.sent_at) is null and r.envelope_id is distinct from ?::uuid)::int`;

// ── SMS and WhatsApp credits ─────────────────────────────────────────────────────────────────────────────────

/** What a credit is held for: an invitation, a one-time code, or any other text message. */
export type CreditPurpose = 'invitation' | 'code' | 'message';

/**
 * SQL: the credits of the organization `o` (joined to its plan `p`) in a period — the plan's monthly credits and
 * the grants given in the period. Parameters: the period's start and end.
 */
export const SMS_CREDITS_INCLUDED_SQL = `(p.sms_credits_included + coalesce(
    (select sum(g.amount) from sms_credit_grant g
      where g.organization_id = o.id and g.created_at >= ? and g.created_at < ?), 0))::int`;

/** SQL: the SMS and WhatsApp messages the organization `o` sent in a period. Parameters: start and end. */
export const SMS_CREDITS_USED_SQL = `(select count(*) from notification n
    where n.organization_id = o.id and n.status = 'sent' and n.channel in ('Sms', 'WhatsApp')
      and n.sent_at >= ? and n.sent_at < ?)::int`;

/**
 * SQL: the credits the organization `o` holds for messages not sent yet — its open holds and the text messages
 * of its running bulk sends' rows not sent yet. Whatever month they were taken in, they are spent from the
 * current one. Parameter: an envelope id whose own bulk row is left out, or null.
 */
export const SMS_CREDITS_HELD_SQL = `((select count(*) from sms_credit_hold h
      where h.organization_id = o.id and h.state = 'held')
  + coalesce((select sum(r.text_messages) from bulk_send b
      join bulk_send_row r on r.bulk_send_id = b.id
      left join envelope re on re.id = r.envelope_id
    where b.organization_id = o.id and b.status = 'Running' and r.status in ('Pending', 'Created')
      and coalesce(re.counted_at, re.sent_at) is null and r.envelope_id is distinct from ?::uuid), 0))::int`;

export interface CreditBalance {
  included: number;
  used: number;
  held: number;
  /** included − used − held, never below 0. */
  remaining: number;
}

/** The organization's SMS credits this month: included, sent, held and what is left. */
export async function creditBalance(
  sql: Sql,
  organizationId: string,
  now = new Date(),
  exceptEnvelopeId: string | null = null,
): Promise<CreditBalance> {
  const period = creditPeriod(now);
  const [row] = await sql.execute<{ included: number; used: number; held: number }[]>(
    `select ${SMS_CREDITS_INCLUDED_SQL} as included, ${SMS_CREDITS_USED_SQL} as used,
            ${SMS_CREDITS_HELD_SQL} as held
       from organization o join plan p on p.name = o.plan_name
      where o.id = ?`,
    [period.start, period.end, period.start, period.end, exceptEnvelopeId, organizationId],
  );
  const included = Number(row?.included ?? 0);
  const used = Number(row?.used ?? 0);
  const held = Number(row?.held ?? 0);
  return { included, used, held, remaining: Math.max(0, included - used - held) };
}

/**
 * Holds credits for an envelope's messages (its send's reservation, a delegate's invitation; the caller checked
 * the balance); the holds' ids.
 */
export async function holdCredits(
  tx: Sql,
  organizationId: string,
  envelopeId: string,
  holds: readonly { recipientId: string; purpose: CreditPurpose }[],
): Promise<string[]> {
  if (holds.length === 0) return [];
  const rows = await tx.execute<{ id: string }[]>(
    `insert into sms_credit_hold (id, organization_id, envelope_id, recipient_id, purpose)
     select gen_random_uuid(), ?::uuid, ?::uuid, h.recipient_id, h.purpose
       from jsonb_to_recordset(?::jsonb) as h (recipient_id uuid, purpose text)
     returning id`,
    [
      organizationId,
      envelopeId,
      JSON.stringify(holds.map((h) => ({ recipient_id: h.recipientId, purpose: h.purpose }))),
    ],
  );
  return rows.map((row) => row.id);
}

/** Whether the envelope holds a credit for this recipient and purpose that no message has taken yet. */
export async function hasUnusedHold(
  sql: Sql,
  envelopeId: string,
  recipientId: string,
  purpose: CreditPurpose,
): Promise<boolean> {
  const rows = await sql.execute<{ id: string }[]>(
    `select id from sms_credit_hold
      where envelope_id = ? and recipient_id = ? and purpose = ? and state = 'held' and notification_id is null
      limit 1`,
    [envelopeId, recipientId, purpose],
  );
  return rows.length > 0;
}

/** Gives back holds no message took (what they were held for will not happen: a refused delegation). */
export async function releaseHolds(sql: Sql, holdIds: readonly string[]): Promise<void> {
  if (holdIds.length === 0) return;
  await sql.execute(
    `update sms_credit_hold set state = 'released', settled_at = now()
      where id = any(?::uuid[]) and state = 'held' and notification_id is null`,
    [`{${holdIds.join(',')}}`],
  );
}

export interface CreditRequest {
  organizationId: string;
  envelopeId: string | null;
  recipientId: string | null;
  purpose: CreditPurpose;
  /** The message that will use the credit (the notification's id, the same on every retry). */
  notificationId: string;
}

/**
 * Takes one credit for a text message about to be sent, under the organization's lock, and answers whether it
 * got one: the credit this message already took (a retry), else a credit its envelope holds for this recipient
 * and purpose (its invitation, its first code), else a new one when the month has one left. The hold is spent
 * when the message is recorded sent (notifications/deliver.ts, in the same statement) and released when it
 * fails for good (`releaseMessageCredit`). Runs in `tx`'s transaction, or opens one.
 */
export async function takeTextCredit(em: EntityManager, request: CreditRequest): Promise<boolean> {
  const take = async (tx: EntityManager): Promise<boolean> => {
    await lockOrganization(tx, request.organizationId);
    const [mine] = await tx.execute<{ state: string }[]>(
      'select state from sms_credit_hold where notification_id = ?',
      [request.notificationId],
    );
    if (mine && mine.state !== 'released') return true;
    if (request.envelopeId && request.recipientId) {
      const claimed = await tx.execute<{ id: string }[]>(
        `update sms_credit_hold set notification_id = ?
          where id = (select id from sms_credit_hold
                       where envelope_id = ? and recipient_id = ? and purpose = ? and state = 'held'
                         and notification_id is null
                       limit 1)
          returning id`,
        [request.notificationId, request.envelopeId, request.recipientId, request.purpose],
      );
      if (claimed.length > 0) return true;
    }
    if ((await creditBalance(tx, request.organizationId)).remaining < 1) return false;
    await tx.execute(
      `insert into sms_credit_hold (id, organization_id, envelope_id, recipient_id, purpose, notification_id)
       values (gen_random_uuid(), ?, ?, ?, ?, ?)
       on conflict (notification_id) do update set state = 'held', settled_at = null`,
      [
        request.organizationId,
        request.envelopeId,
        request.recipientId,
        request.purpose,
        request.notificationId,
      ],
    );
    return true;
  };
  return em.isInTransaction() ? take(em) : em.transactional(take);
}

/** Gives back the credit a message took when the message failed for good (nothing when it took none). */
export async function releaseMessageCredit(sql: Sql, notificationId: string): Promise<void> {
  await sql.execute(
    `update sms_credit_hold set state = 'released', settled_at = now()
      where notification_id = ? and state = 'held'`,
    [notificationId],
  );
}

/**
 * Gives back every credit an envelope still holds: it ended (completed, declined, cancelled, expired) or was
 * deleted unsent, so its messages not sent yet never will be.
 */
export async function releaseEnvelopeCredits(sql: Sql, envelopeId: string): Promise<void> {
  await sql.execute(
    `update sms_credit_hold set state = 'released', settled_at = now()
      where envelope_id = ? and state = 'held'`,
    [envelopeId],
  );
}
