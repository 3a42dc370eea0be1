// Notifications: the organization's email branding (sender display name, reply-to address, footer) and the
// record of every message sent or attempted through a provider (notifications/, activities/notifications.ts).
import { Migration } from '@mikro-orm/migrations';

export class Migration0008Notifications extends Migration {
  override name = '0008-notifications';

  override up(): void {
    // All optional: the display name falls back to the organization's name, no reply-to means replies go to
    // MAIL_FROM, no footer means the default line naming the organization.
    this.addSql(`
      alter table organization
        add column sender_display_name text,
        add column reply_to_email text,
        add column email_footer text`);

    // One row per message, keyed by the id its sender chose (the workflow's, so a retried activity finds the
    // row of its earlier attempts and never sends twice once one attempt succeeded). No message body is kept:
    // bodies hold signing links and one-time codes. `last_error` is redacted (no credentials, bounded length).
    // `envelope_id`/`recipient_id` are null for messages about no envelope; `recipient_id` is null for notices
    // to the envelope's sender. `to_address` is null only for a failure because the addressee has no address.
    this.addSql(`
      create table notification (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade deferrable initially deferred,
        envelope_id uuid references envelope (id) on delete cascade deferrable initially deferred,
        recipient_id uuid references recipient (id) on delete cascade deferrable initially deferred,
        kind text not null
          check (kind in ('invitation', 'reminder', 'otp', 'completed', 'declined', 'cancelled')),
        channel text not null check (channel in ('Email', 'Sms', 'WhatsApp')),
        to_address text,
        language text not null,
        provider text not null check (provider in ('smtp', 'twilio', 'dev-capture', 'none')),
        status text not null check (status in ('sent', 'failed')),
        provider_message_id text,
        attempts integer not null check (attempts >= 1),
        last_error text,
        created_at timestamptz not null default now(),
        last_attempt_at timestamptz not null,
        sent_at timestamptz
      )`);
    this.addSql('create index notification_envelope_idx on notification (envelope_id, created_at)');
    this.addSql('create index notification_recipient_idx on notification (recipient_id, created_at)');
    // SMS credits are counted per organization and month from the sent Sms and WhatsApp rows.
    this.addSql(
      'create index notification_organization_idx on notification (organization_id, channel, created_at)',
    );
  }
}
