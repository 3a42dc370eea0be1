// Reminder and deadline settings (issue 33, docs/envelope-lifecycle.md "Reminders and deadline warnings"): the
// organization's "expiring soon" lead time (0: off, the default), each envelope's own copy of the four settings
// (written when it is created; null for envelopes created before, which were sent with the organization's), and
// the two new message kinds to recipients: `expiring_soon` and `expired`.
import { Migration } from '@mikro-orm/migrations';

const KINDS_BEFORE = ['invitation', 'reminder', 'otp', 'completed', 'declined', 'cancelled'];
const KINDS = [...KINDS_BEFORE, 'expiring_soon', 'expired'];

const kindCheck = (kinds: string[]) =>
  `alter table notification add constraint notification_kind_check check (kind in (${kinds.map((k) => `'${k}'`).join(', ')}))`;

export class Migration0038DeadlineWarnings extends Migration {
  override name = '0038-deadline-warnings';

  override up(): void {
    this.addSql(
      'alter table organization add column expiring_soon_days integer not null default 0 check (expiring_soon_days between 0 and 365)',
    );
    this.addSql('alter table envelope add column deadline_settings jsonb');
    this.addSql('alter table notification drop constraint notification_kind_check');
    this.addSql(kindCheck(KINDS));
  }

  override down(): void {
    this.addSql('alter table notification drop constraint notification_kind_check');
    this.addSql(kindCheck(KINDS_BEFORE));
    this.addSql('alter table envelope drop column deadline_settings');
    this.addSql('alter table organization drop column expiring_soon_days');
  }
}
