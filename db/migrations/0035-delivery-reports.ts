// What happened to a message after its provider accepted it (issue 33, docs/notifications.md "Bounces and
// carrier failures"): an email's delivery status notification (matched by its VERP return path) or Twilio's
// status callback. `delivery_status` is `delivered` or `failed`; `delivery_detail` the DSN's status code and
// diagnostic or Twilio's status and error code; `delivery_failure_reported_at` marks the failure handed to the
// envelope's workflow, so a second report of the same message changes nothing.
import { Migration } from '@mikro-orm/migrations';

export class Migration0035DeliveryReports extends Migration {
  override name = '0035-delivery-reports';

  override up(): void {
    this.addSql(
      `alter table notification
         add column delivery_status text check (delivery_status in ('delivered', 'failed')),
         add column delivery_detail text,
         add column delivery_reported_at timestamptz,
         add column delivery_failure_reported_at timestamptz`,
    );
  }
}
