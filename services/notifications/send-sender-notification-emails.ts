// The outbox of sender notifications (docs/notifications.md, "Sender notifications"): the worker's once-a-minute
// sweep emails the stored notifications not emailed yet, each user's in a transaction of their own that locks
// their waiting rows (`skip locked`: two workers never send the same row). By the user's preferences: a kind
// they switched off is not emailed (it stays in the app); with the daily digest, everything waiting goes in one
// email once 24 hours have passed since the last digest (the first, 24 hours after the digest was chosen);
// otherwise one email each. In the user's language, branded by their organization, with a link to the document
// page. A message is sent at least once: a worker that dies after the provider accepted it sends it again. A
// failure is kept on the row and tried at the next sweep, up to MAX_EMAIL_ATTEMPTS times, or once when it can
// never succeed (no provider in production, an address the server refuses).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SenderNotificationKind } from '../../domain/vocabulary.ts';
import { deliver, deliveryContext, routeFor } from '../../notifications/deliver.ts';
import { NotificationError, redactedMessage } from '../../notifications/errors.ts';
import { type RenderedEmail, senderName } from '../../notifications/messages.ts';
import {
  documentPageUrl,
  renderSenderDigest,
  renderSenderNotice,
  type SenderNotice,
  senderNoticeTemplateKind,
} from '../../notifications/sender-notices.ts';
import { storedTemplate } from '../../notifications/templates.ts';
import type { ServiceConfig } from '../context.ts';

/** A failing email is tried at this many sweeps (about as many minutes) before it is given up. */
export const MAX_EMAIL_ATTEMPTS = 5;
/** At most this many users' notifications per sweep; the rest wait for the next one. */
const USERS_PER_SWEEP = 200;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface SweepContext {
  em: EntityManager;
  config: ServiceConfig;
  /** The current time (tests pass one to reach the next digest without waiting a day). */
  clock?: () => Date;
}

export interface SweepResult {
  /** Emails sent: one per notification, or one per digest. */
  emails: number;
  /** Notifications not emailed because their user switched the kind off. */
  off: number;
  /** Notifications given up after failures. */
  failed: number;
}

interface WaitingRow {
  id: string;
  kind: SenderNotificationKind;
  envelope_id: string;
  details: Record<string, unknown>;
  email_attempts: number;
  title: string;
  organization_id: string;
}

interface Addressee {
  email: string;
  full_name: string;
  language: string;
  active: boolean;
  email_off: string[] | null;
  daily_digest: boolean | null;
  digest_since: Date | null;
  organization_name: string;
  sender_display_name: string | null;
  email_footer: string | null;
  reply_to_email: string | null;
}

export async function sendSenderNotificationEmails(ctx: SweepContext): Promise<SweepResult> {
  const now = ctx.clock?.() ?? new Date();
  const result: SweepResult = { emails: 0, off: 0, failed: 0 };
  const users = await ctx.em
    .fork()
    .getConnection()
    .execute<{ user_id: string }[]>(
      `select distinct user_id from user_notification where email_state = 'pending' limit ?`,
      [USERS_PER_SWEEP],
    );
  for (const { user_id: userId } of users) {
    const one = await ctx.em.fork().transactional((tx) => sendForUser(tx, ctx.config, userId, now));
    result.emails += one.emails;
    result.off += one.off;
    result.failed += one.failed;
  }
  return result;
}

async function sendForUser(
  tx: EntityManager,
  config: ServiceConfig,
  userId: string,
  now: Date,
): Promise<SweepResult> {
  const result: SweepResult = { emails: 0, off: 0, failed: 0 };
  const rows = await tx.execute<WaitingRow[]>(
    `select n.id, n.kind, n.envelope_id, n.details, n.email_attempts, e.title, n.organization_id
       from user_notification n join envelope e on e.id = n.envelope_id
      where n.user_id = ? and n.email_state = 'pending'
      order by n.created_at, n.id
      for update of n skip locked`,
    [userId],
  );
  if (rows.length === 0) return result;
  const [to] = await tx.execute<Addressee[]>(
    `select u.email, u.full_name, u.language, (u.status = 'active' and u.deleted_at is null) as active,
            p.email_off, p.daily_digest, p.last_digest_at as digest_since,
            o.name as organization_name, o.sender_display_name, o.email_footer, o.reply_to_email
       from app_user u join organization o on o.id = u.organization_id
       left join user_notification_preference p on p.user_id = u.id
      where u.id = ?`,
    [userId],
  );
  const off = rows.filter((row) => !to?.active || (to.email_off ?? []).includes(row.kind));
  if (off.length > 0) {
    await setState(tx, off, 'off', null, now);
    result.off = off.length;
  }
  const waiting = rows.filter((row) => !off.includes(row));
  if (!to || waiting.length === 0) return result;
  const addressee = {
    fullName: to.full_name,
    language: to.language,
    branding: {
      organizationName: to.organization_name,
      senderDisplayName: to.sender_display_name,
      emailFooter: to.email_footer,
    },
    baseUrl: config.publicBaseUrl,
  };
  const notices = waiting.map(noticeOf);
  if (to.daily_digest) {
    const since = to.digest_since ? new Date(to.digest_since) : null;
    if (since && now.getTime() - since.getTime() < DAY_MS) return result;
    const email = renderSenderDigest(
      notices,
      addressee,
      await storedTemplate(tx, 'sender_digest', to.language),
    );
    const outcome = await send(
      tx,
      config,
      to,
      email,
      waiting[0] as WaitingRow,
      `${config.publicBaseUrl}/app`,
    );
    await settle(tx, waiting, outcome, now, result);
    if (outcome === null) {
      await tx.execute('update user_notification_preference set last_digest_at = ? where user_id = ?', [
        now,
        userId,
      ]);
    }
    return result;
  }
  for (const [index, row] of waiting.entries()) {
    const notice = notices[index] as SenderNotice;
    const email = renderSenderNotice(
      notice,
      addressee,
      await storedTemplate(tx, senderNoticeTemplateKind(notice.kind), to.language),
    );
    const outcome = await send(
      tx,
      config,
      to,
      email,
      row,
      documentPageUrl(config.publicBaseUrl, row.envelope_id),
    );
    await settle(tx, [row], outcome, now, result);
  }
  return result;
}

function noticeOf(row: WaitingRow): SenderNotice {
  const text = (key: string) => (typeof row.details[key] === 'string' ? (row.details[key] as string) : null);
  const expires = text('expires_at');
  return {
    kind: row.kind,
    envelopeId: row.envelope_id,
    title: row.title,
    recipientName: text('recipient_name'),
    channel: text('channel'),
    reason: text('reason'),
    expiresAt: expires ? new Date(expires) : null,
  };
}

/** Sends one email; null when it went out, else the failure (its message redacted) and whether to try again. */
async function send(
  tx: EntityManager,
  config: ServiceConfig,
  to: Addressee,
  email: RenderedEmail,
  row: WaitingRow,
  link: string,
): Promise<{ error: string; retryable: boolean } | null> {
  const branding = { organizationName: to.organization_name, senderDisplayName: to.sender_display_name };
  let secrets: string[] = [];
  try {
    const delivery = await deliveryContext(tx, config);
    secrets = delivery.secrets;
    await deliver(
      tx,
      routeFor(delivery, 'Email'),
      {
        channel: 'Email',
        to: to.email,
        text: email.text,
        email: {
          subject: email.subject,
          html: email.html,
          fromName: senderName(branding),
          replyTo: to.reply_to_email,
          language: email.language,
        },
      },
      {
        kind: 'sender_notification',
        signingLink: link,
        envelopeId: row.envelope_id,
        organizationId: row.organization_id,
      },
    );
    return null;
  } catch (error) {
    if (error instanceof NotificationError) {
      return { error: `${error.type}: ${redactedMessage(error, secrets)}`, retryable: error.retryable };
    }
    return { error: redactedMessage(error, secrets), retryable: true };
  }
}

async function settle(
  tx: EntityManager,
  rows: readonly WaitingRow[],
  outcome: { error: string; retryable: boolean } | null,
  now: Date,
  result: SweepResult,
): Promise<void> {
  if (outcome === null) {
    await setState(tx, rows, 'sent', null, now);
    result.emails += 1;
    return;
  }
  const givenUp = rows.filter((row) => !outcome.retryable || row.email_attempts + 1 >= MAX_EMAIL_ATTEMPTS);
  const again = rows.filter((row) => !givenUp.includes(row));
  if (givenUp.length > 0) await setState(tx, givenUp, 'failed', outcome.error, now);
  if (again.length > 0) await setState(tx, again, 'pending', outcome.error, now);
  result.failed += givenUp.length;
}

async function setState(
  tx: EntityManager,
  rows: readonly WaitingRow[],
  state: 'sent' | 'off' | 'failed' | 'pending',
  error: string | null,
  now: Date,
): Promise<void> {
  await tx.execute(
    `update user_notification
        set email_state = ?,
            email_attempts = email_attempts + case when ? in ('sent', 'failed', 'pending') then 1 else 0 end,
            email_last_error = coalesce(?, email_last_error),
            emailed_at = case when ? = 'sent' then ?::timestamptz else emailed_at end
      where id = any(?::uuid[])`,
    [state, state, error, state, now, `{${rows.map((row) => row.id).join(',')}}`],
  );
}
