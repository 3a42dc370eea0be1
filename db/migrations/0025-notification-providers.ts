// The notification providers a platform administrator sets in the backoffice (docs/backoffice.md,
// "Providers"): one row per provider kind (`smtp`, `sms`, `whatsapp`) with its settings, and its secret (the
// SMTP password or the Twilio auth token) encrypted with the secrets key (AES-256-GCM,
// config/secrets-encryption.ts). A row wins over the environment variables for its kind.
import { Migration } from '@mikro-orm/migrations';

export class Migration0025NotificationProviders extends Migration {
  override name = '0025-notification-providers';

  override up(): void {
    this.addSql(`create table notification_provider_setting (
      kind text primary key check (kind in ('smtp', 'sms', 'whatsapp')),
      settings jsonb not null,
      secret_encrypted text,
      updated_at timestamptz not null default now(),
      updated_by_email text
    )`);
  }

  override down(): void {
    this.addSql('drop table notification_provider_setting');
  }
}
