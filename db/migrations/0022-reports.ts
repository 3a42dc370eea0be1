// Reports (docs/reports.md): the indexes the report of a date range reads its facts through, so a range of an
// organization with 100,000 envelopes and a million audit events is an index range, not a scan:
//   - `envelope_completed_idx` (organization_id, completed_at): the envelopes completed in the range (the sends
//     already have `envelope_sent_idx`, migration 0021);
//   - `audit_event_report_idx` (organization_id, type, occurred_at), partial: only the events that end or fail an
//     envelope — declined, cancelled, expired, delivery failed — a small part of the audit log;
//   - `notification_sms_sent_idx` (organization_id, sent_at), partial: the SMS and WhatsApp messages sent (the
//     credits used in the range), and `notification_failed_idx` (organization_id, last_attempt_at), partial:
//     the messages that failed.
import { Migration } from '@mikro-orm/migrations';

export class Migration0022Reports extends Migration {
  override name = '0022-reports';

  override up(): void {
    this.addSql(
      'create index envelope_completed_idx on envelope (organization_id, completed_at) where completed_at is not null',
    );
    this.addSql(`
      create index audit_event_report_idx on audit_event (organization_id, type, occurred_at)
        where type in ('recipient.declined', 'envelope.cancelled', 'envelope.expired', 'envelope.delivery_failed')`);
    this.addSql(`
      create index notification_sms_sent_idx on notification (organization_id, sent_at)
        where status = 'sent' and channel in ('Sms', 'WhatsApp')`);
    this.addSql(`
      create index notification_failed_idx on notification (organization_id, last_attempt_at)
        where status = 'failed'`);
  }
}
