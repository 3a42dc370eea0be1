// Plans edited from the backoffice (issue 35, docs/backoffice.md "Plans"): each plan carries the version its last
// change made (an edit names the version it read; another edit in between answers 409), and `plan_version` keeps
// every change — who made it, when, the reason given and each field's value before and after.
import { Migration } from '@mikro-orm/migrations';

export class Migration0045PlanVersions extends Migration {
  override name = '0045-plan-versions';

  override up(): void {
    this.addSql('alter table plan add column version integer not null default 1');
    this.addSql(`
      create table plan_version (
        id uuid primary key,
        plan_name text not null references plan (name) on update cascade,
        version integer not null,
        changed_at timestamptz not null,
        changed_by_admin_id uuid references platform_admin (id) on delete set null,
        changed_by_email text,
        reason text,
        changes jsonb not null,
        unique (plan_name, version)
      )`);
  }
}
