// Plan limits that hold under concurrency (issue 30, docs/billing.md "Limits under concurrency"). A counted action
// reserves what it uses in the same transaction as the action, under the organization's row lock, so requests
// arriving at once cannot all pass one check:
//   - `envelope.counted_at`: when a send took one of the month's documents (set by the send's reservation, before
//     its workflow starts; the projection sets it from `sent_at` for any send that did not). The monthly document
//     limit counts `coalesce(counted_at, sent_at)` (envelopes sent before this migration have only `sent_at`), by
//     `envelope_counted_idx`; `envelope_sent_idx` is no longer read.
//   - `sms_credit_hold`: one SMS/WhatsApp credit held for a message not sent yet — an envelope's invitations and
//     first one-time codes (taken when it is sent), or a message about to go out (a reminder, a notice, another
//     code). `held` until its message is recorded sent (`spent`, in the same statement that records the message)
//     or it is given back (`released`: the message failed for good, the envelope ended or was deleted unsent, or
//     the send was refused). The credits left are the month's credits less the messages sent less the holds.
//   - `bulk_send_row.text_messages`: the text messages a row's envelope will need; a running bulk send's rows not
//     sent yet hold their documents and text messages, so a bulk send and single sends cannot overrun together.
import { Migration } from '@mikro-orm/migrations';

export class Migration0030UsageReservations extends Migration {
  override name = '0030-usage-reservations';

  override up(): void {
    this.addSql('alter table envelope add column counted_at timestamptz');
    this.addSql(
      `create index envelope_counted_idx on envelope (organization_id, (coalesce(counted_at, sent_at)))
        where coalesce(counted_at, sent_at) is not null`,
    );
    this.addSql(`create table sms_credit_hold (
      id uuid primary key,
      organization_id uuid not null references organization (id) on delete cascade,
      envelope_id uuid references envelope (id) on delete cascade,
      recipient_id uuid references recipient (id) on delete cascade,
      purpose text not null check (purpose in ('invitation', 'code', 'message')),
      notification_id uuid unique,
      state text not null default 'held' check (state in ('held', 'spent', 'released')),
      created_at timestamptz not null default now(),
      settled_at timestamptz
    )`);
    this.addSql(
      `create index sms_credit_hold_open_idx on sms_credit_hold (organization_id) where state = 'held'`,
    );
    this.addSql(
      `create index sms_credit_hold_envelope_idx on sms_credit_hold (envelope_id, recipient_id, purpose)
        where state = 'held'`,
    );
    this.addSql(
      'alter table bulk_send_row add column text_messages integer not null default 0 check (text_messages >= 0)',
    );
    this.addSql(`create index bulk_send_running_idx on bulk_send (organization_id) where status = 'Running'`);
  }
}
