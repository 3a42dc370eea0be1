// Organization settings the envelope workflow uses: automatic reminders and the grace window in which an
// expired envelope can still be extended.
import { Migration } from '@mikro-orm/migrations';

export class Migration0004EnvelopeSettings extends Migration {
  override name = '0004-envelope-settings';

  override up(): void {
    // Null interval: no automatic reminders.
    this.addSql(
      'alter table organization add column reminder_interval_days integer check (reminder_interval_days between 1 and 365)',
    );
    this.addSql(
      'alter table organization add column max_automatic_reminders integer not null default 3 check (max_automatic_reminders between 0 and 50)',
    );
    this.addSql(
      'alter table organization add column expired_extension_grace_days integer not null default 30 check (expired_extension_grace_days between 0 and 365)',
    );
  }
}
