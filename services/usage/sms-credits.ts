// SMS credits: each organization's plan includes a number of SMS and WhatsApp messages per calendar month
// (UTC), and a platform administrator may give it more (`sms_credit_grant`, docs/backoffice.md "Credits"): a
// grant counts in the calendar month it is given, like the plan's own credits. Every such message (invitations,
// reminders, notices, one-time codes; through Twilio or, in development and test, into the capture) takes a
// credit before it goes out, under the organization's lock, and uses it once recorded sent; a send holds the
// credits of its envelope's invitations and first codes (db/usage-reservations.ts). What is left is the month's
// credits less the messages sent less the credits held, so requests arriving at once cannot overrun it.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  type CreditPurpose,
  creditBalance,
  creditPeriod,
  SMS_CREDITS_INCLUDED_SQL,
  SMS_CREDITS_USED_SQL,
} from '../../db/usage-reservations.ts';
import type { AuthenticationMethod, DeliveryChannel, RecipientType } from '../../domain/vocabulary.ts';
import { Conflict } from '../errors.ts';

const TEXT_CHANNELS: readonly string[] = ['Sms', 'WhatsApp'];

export interface SmsCredits {
  included: number;
  used: number;
  /** Held for messages not sent yet (an envelope's invitations and codes, bulk sends in progress). */
  held: number;
  remaining: number;
  period: { start: Date; end: Date };
}

export { creditPeriod, SMS_CREDITS_INCLUDED_SQL, SMS_CREDITS_USED_SQL };

export async function smsCredits(
  em: EntityManager,
  organizationId: string,
  now = new Date(),
): Promise<SmsCredits> {
  return { ...(await creditBalance(em, organizationId, now)), period: creditPeriod(now) };
}

type TextRecipient = {
  type: RecipientType;
  deliveryChannel: DeliveryChannel;
  authenticationMethod: AuthenticationMethod;
};

/**
 * The text messages a recipient needs at least: an invitation when their channel is SMS or WhatsApp, and a code
 * when they verify by one; none for Cc.
 */
export function textMessagesOf(recipient: TextRecipient): CreditPurpose[] {
  if (recipient.type === 'Cc') return [];
  return [
    ...(TEXT_CHANNELS.includes(recipient.deliveryChannel) ? (['invitation'] as const) : []),
    ...(recipient.authenticationMethod !== 'SecureLink' ? (['code'] as const) : []),
  ];
}

/** Text messages an envelope needs at least (textMessagesOf for each recipient). */
export function textMessagesNeeded(recipients: readonly TextRecipient[]): number {
  return recipients.reduce((sum, r) => sum + textMessagesOf(r).length, 0);
}

/** 409 `sms_credits_exhausted`: `needed` messages and fewer credits left. */
export function smsCreditsExhausted(
  credits: Pick<SmsCredits, 'remaining' | 'included' | 'period'>,
  needed: number,
  action: string,
): Conflict {
  return new Conflict(
    `Cannot ${action}: it needs ${needed} SMS/WhatsApp message${needed === 1 ? '' : 's'} and the organization has ${credits.remaining} of its ${credits.included} monthly SMS credits left (until ${credits.period.end.toISOString()}).`,
    [{ field: 'smsCredits', message: `${credits.remaining} left, ${needed} needed` }],
    'sms_credits_exhausted',
  );
}

/**
 * Refuses (409 `sms_credits_exhausted`) when fewer credits are left than `needed`: an early answer before work
 * begins (a bulk send's check); what holds under concurrency is the reservation the action itself takes.
 */
export async function requireSmsCredits(
  em: EntityManager,
  organizationId: string,
  needed: number,
  action: string,
): Promise<void> {
  if (needed === 0) return;
  const credits = await smsCredits(em, organizationId);
  if (credits.remaining >= needed) return;
  throw smsCreditsExhausted(credits, needed, action);
}
