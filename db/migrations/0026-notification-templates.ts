// The texts a platform administrator stored for a message kind in a language (docs/backoffice.md,
// "Notification templates"): one row per kind and language, replacing the built-in texts while it exists
// (a reset deletes it). The texts a kind lacks (an SMS-only code's subject) are null.
import { Migration } from '@mikro-orm/migrations';

export class Migration0026NotificationTemplates extends Migration {
  override name = '0026-notification-templates';

  override up(): void {
    this.addSql(`create table notification_template (
      kind text not null,
      language text not null check (language in ('en', 'he')),
      subject text,
      body text,
      sms text,
      updated_at timestamptz not null default now(),
      updated_by_email text,
      primary key (kind, language)
    )`);
  }

  override down(): void {
    this.addSql('drop table notification_template');
  }
}
