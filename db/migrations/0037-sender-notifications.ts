// Sender notifications (issue 33, docs/notifications.md "Sender notifications"): what the user who sent an
// envelope — and, by the organization's `notify_administrators` setting, its team's or organization's
// administrators — is told of, one row per user and audit event (written in the projection's transaction, so a
// retried projection writes none twice), read or unread, and its email's way through the worker's sweep; each
// user's preferences (which kinds are emailed, one daily digest instead).
import { Migration } from '@mikro-orm/migrations';

export class Migration0037SenderNotifications extends Migration {
  override name = '0037-sender-notifications';

  override up(): void {
    this.addSql(
      `alter table organization add column notify_administrators text not null default 'none'
         check (notify_administrators in ('none', 'team', 'organization'))`,
    );
    this.addSql(`create table user_notification (
      id uuid primary key,
      organization_id uuid not null references organization (id) on delete cascade deferrable initially deferred,
      user_id uuid not null references app_user (id) on delete cascade deferrable initially deferred,
      envelope_id uuid not null references envelope (id) on delete cascade deferrable initially deferred,
      audit_event_id uuid not null references audit_event (id) on delete cascade deferrable initially deferred,
      kind text not null
        check (kind in ('completed', 'declined', 'cancelled', 'expired', 'expiring_soon', 'delivery_failed')),
      details jsonb not null default '{}'::jsonb,
      read_at timestamptz,
      created_at timestamptz not null default now(),
      email_state text not null default 'pending'
        check (email_state in ('pending', 'sent', 'off', 'failed')),
      email_attempts integer not null default 0,
      email_last_error text,
      emailed_at timestamptz,
      unique (audit_event_id, user_id)
    )`);
    this.addSql('create index user_notification_user on user_notification (user_id, created_at desc)');
    this.addSql(`create index user_notification_unread on user_notification (user_id) where read_at is null`);
    this.addSql(
      `create index user_notification_email_pending on user_notification (created_at) where email_state = 'pending'`,
    );
    this.addSql(`create table user_notification_preference (
      user_id uuid primary key references app_user (id) on delete cascade deferrable initially deferred,
      organization_id uuid not null references organization (id) on delete cascade deferrable initially deferred,
      email_off text[] not null default '{}',
      daily_digest boolean not null default false,
      last_digest_at timestamptz,
      updated_at timestamptz not null default now()
    )`);
  }

  override down(): void {
    this.addSql('drop table user_notification_preference');
    this.addSql('drop table user_notification');
    this.addSql('alter table organization drop column notify_administrators');
  }
}
