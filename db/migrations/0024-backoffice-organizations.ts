// The backoffice's organizations (docs/backoffice.md, "Organizations"):
//   - `organization.status`: `active` or `suspended` (a platform administrator's decision), with when and why it
//     was suspended; `organization.deleted_at`: a soft deletion — the organization is refused everywhere, as a
//     suspended one is, and listed only under the `deleted` status;
//   - `sms_credit_grant`: SMS credits a platform administrator gave an organization — how many, why, who (the
//     administrator's id and address, kept in clear so a grant outlives the administrator's removal) and when.
//     A grant counts in the calendar month (UTC) it is given, like the plan's own credits, so the index is by
//     organization and time.
import { Migration } from '@mikro-orm/migrations';

export class Migration0024BackofficeOrganizations extends Migration {
  override name = '0024-backoffice-organizations';

  override up(): void {
    this.addSql(`alter table organization
      add column status text not null default 'active' check (status in ('active', 'suspended')),
      add column suspended_at timestamptz,
      add column suspended_reason text,
      add column deleted_at timestamptz`);
    // The backoffice's list reads organizations newest first, a page at a time.
    this.addSql('create index organization_created_idx on organization (created_at desc, id desc)');
    this.addSql(`create table sms_credit_grant (
      id uuid primary key,
      organization_id uuid not null references organization (id) on delete cascade,
      amount integer not null check (amount > 0),
      reason text not null,
      granted_by_admin_id uuid,
      granted_by_email text,
      created_at timestamptz not null default now()
    )`);
    this.addSql(
      'create index sms_credit_grant_organization_idx on sms_credit_grant (organization_id, created_at)',
    );
  }

  override down(): void {
    this.addSql('drop table sms_credit_grant');
    this.addSql('drop index organization_created_idx');
    this.addSql(`alter table organization
      drop column deleted_at,
      drop column suspended_reason,
      drop column suspended_at,
      drop column status`);
  }
}
