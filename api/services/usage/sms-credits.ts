// SMS credits: each organization's plan includes a number of SMS and WhatsApp messages per calendar month
// (UTC), and a platform administrator may give it more (`sms_credit_grant`, docs/backoffice.md "Credits"): a
// grant counts in the calendar month it is given, like the plan's own credits. Every such message sent
// (invitations, reminders, notices, one-time codes; through Twilio or, in development and test, into the
// capture) uses one credit, counted from the `notification` records. Sending an envelope that needs more
// messages than the credits left is refused before anything starts. The two SQL expressions below are the one
// definition of "included" and "used": this service and the backoffice's list of organizations read them.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthenticationMethod, DeliveryChannel, RecipientType } from '../../../domain/vocabulary.ts';
import { Conflict } from '../../errors.ts';

const TEXT_CHANNELS: readonly string[] = ['Sms', 'WhatsApp'];

export interface SmsCredits {
  included: number;
  used: number;
  remaining: number;
  period: { start: Date; end: Date };
}

export function creditPeriod(now: Date): { start: Date; end: Date } {
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}

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

export async function smsCredits(
  em: EntityManager,
  organizationId: string,
  now = new Date(),
): Promise<SmsCredits> {
  const period = creditPeriod(now);
  const [row] = await em.execute<{ included: number; used: number }[]>(
    `select ${SMS_CREDITS_INCLUDED_SQL} as included, ${SMS_CREDITS_USED_SQL} as used
       from organization o join plan p on p.name = o.plan_name
      where o.id = ?`,
    [period.start, period.end, period.start, period.end, organizationId],
  );
  const included = Number(row?.included ?? 0);
  const used = Number(row?.used ?? 0);
  return { included, used, remaining: Math.max(0, included - used), period };
}

/**
 * Text messages an envelope needs at least: one invitation for each acting recipient whose channel is SMS or
 * WhatsApp, and one code for each recipient who verifies by one.
 */
export function textMessagesNeeded(
  recipients: readonly {
    type: RecipientType;
    deliveryChannel: DeliveryChannel;
    authenticationMethod: AuthenticationMethod;
  }[],
): number {
  return recipients
    .filter((r) => r.type !== 'Cc')
    .reduce(
      (sum, r) =>
        sum +
        (TEXT_CHANNELS.includes(r.deliveryChannel) ? 1 : 0) +
        (r.authenticationMethod !== 'SecureLink' ? 1 : 0),
      0,
    );
}

/** Refuses (409 `sms_credits_exhausted`) when fewer credits are left than `needed`. */
export async function requireSmsCredits(
  em: EntityManager,
  organizationId: string,
  needed: number,
  action: string,
): Promise<void> {
  if (needed === 0) return;
  const credits = await smsCredits(em, organizationId);
  if (credits.remaining >= needed) return;
  throw new Conflict(
    `Cannot ${action}: it needs ${needed} SMS/WhatsApp message${needed === 1 ? '' : 's'} and the organization has ${credits.remaining} of its ${credits.included} monthly SMS credits left (until ${credits.period.end.toISOString()}).`,
    [{ field: 'smsCredits', message: `${credits.remaining} left, ${needed} needed` }],
    'sms_credits_exhausted',
  );
}
