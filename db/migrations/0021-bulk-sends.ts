// Bulk sends (docs/bulk-send.md): a published template sent to many recipients from a CSV file, one envelope per
// row, by the Temporal workflow `bulk-send-<id>`.
//   - `bulk_send`: one run — who started it (the envelopes' sender: user and team), the template, the
//     settings every row shares (`settings`: title, workflow type, deadline, per-role channel and
//     authentication), its status (`Running` until every row is done, then `Completed`; `Cancelled` when a
//     user stopped it), the row count and the workflow's id;
//   - `bulk_send_row`: one CSV row — its number as a spreadsheet shows it (the header is row 1), the create
//     request it was checked as (`request`, the body of POST /api/v1/envelopes/from-template), its status
//     (`Pending` → `Created` → `Sent`, or `Failed` with `error`, or `Skipped` when the run was cancelled) and
//     the envelope made from it. `envelope_id` is written in the transaction that creates the envelope, so a
//     worker that dies between creating and sending finds the envelope again and never makes a second one.
// And `envelope_sent_idx`: the envelopes an organization sent in a period, which the monthly document limit counts
// at every send (services/usage/envelope-quota.ts) — an index range instead of the organization's envelopes.
import { Migration } from '@mikro-orm/migrations';

export class Migration0021BulkSends extends Migration {
  override name = '0021-bulk-sends';

  override up(): void {
    this.addSql(`create table bulk_send (
      id uuid primary key,
      organization_id uuid not null references organization (id) on delete cascade,
      template_id uuid not null references template (id),
      created_by_user_id uuid references app_user (id) on delete set null deferrable initially deferred,
      team_id uuid references team (id) on delete set null deferrable initially deferred,
      filename text,
      settings jsonb not null,
      status text not null default 'Running' check (status in ('Running', 'Completed', 'Cancelled')),
      total integer not null check (total >= 1),
      workflow_id text not null,
      created_at timestamptz not null default now(),
      finished_at timestamptz
    )`);
    this.addSql(
      'create index bulk_send_organization_idx on bulk_send (organization_id, created_at desc, id)',
    );
    this.addSql(`create table bulk_send_row (
      bulk_send_id uuid not null references bulk_send (id) on delete cascade,
      row_number integer not null check (row_number >= 2),
      request jsonb not null,
      status text not null default 'Pending'
        check (status in ('Pending', 'Created', 'Sent', 'Failed', 'Skipped')),
      envelope_id uuid references envelope (id) on delete set null,
      error text,
      updated_at timestamptz not null default now(),
      primary key (bulk_send_id, row_number)
    )`);
    this.addSql('create index bulk_send_row_status_idx on bulk_send_row (bulk_send_id, status, row_number)');
    this.addSql('create index bulk_send_row_envelope_idx on bulk_send_row (envelope_id)');
    this.addSql(
      'create index envelope_sent_idx on envelope (organization_id, sent_at) where sent_at is not null',
    );
  }
}
