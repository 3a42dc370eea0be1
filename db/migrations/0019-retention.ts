// Archive, delete and retention (docs/envelope-lifecycle.md, "After signing: archive, delete, retention"):
//   - `envelope.previous_status`: the status an envelope had before it was archived or deleted (what
//     unarchiving restores, and what reports count a deleted envelope as), present on every archived or
//     deleted envelope; `archived_at`, `deleted_at`;
//     `files_purged_at`: when the retention run purged a deleted envelope's files (null: not yet);
//   - `stored_file.purged_at`: the file's bytes were purged (its content is empty); its name, type, size and
//     SHA-256 stay, so the record of what existed does;
//   - `organization.retention_deleted_days`: days a deleted envelope's files are kept (null: 30);
//   - a partial index on the envelopes waiting for their purge, which the daily run reads.
import { Migration } from '@mikro-orm/migrations';

// Written out, not imported: a shipped migration must never change. Every status but the two it is kept for.
const PREVIOUS_STATUSES = [
  'Draft',
  'ReadyToSend',
  'Sending',
  'Sent',
  'Opened',
  'InProgress',
  'WaitingForNextSigner',
  'ProcessingFinalPdf',
  'Completed',
  'DeliveryFailed',
  'FinalPdfFailed',
  'Declined',
  'Cancelled',
  'Expired',
];

export class Migration0019Retention extends Migration {
  override name = '0019-retention';

  override up(): void {
    this.addSql(`
      alter table envelope
        add column previous_status text
          check (previous_status in (${PREVIOUS_STATUSES.map((status) => `'${status}'`).join(', ')})),
        add column archived_at timestamptz,
        add column deleted_at timestamptz,
        add column files_purged_at timestamptz,
        add constraint envelope_closed_previous_status_check
          check (status not in ('Archived', 'Deleted') or previous_status is not null)`);
    this.addSql(`
      create index envelope_purge_due_idx on envelope (deleted_at)
        where status = 'Deleted' and files_purged_at is null`);
    this.addSql('alter table stored_file add column purged_at timestamptz');
    this.addSql(`
      alter table organization
        add column retention_deleted_days integer
          check (retention_deleted_days between 1 and 3650)`);
  }
}
