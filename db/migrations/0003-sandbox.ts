// Sandbox mode of the public API: synthetic envelopes, kept apart from the production tables. Each row holds
// the whole envelope as the API shows it (jsonb); the columns beside it are what lookups need.
import { Migration } from '@mikro-orm/migrations';

export class Migration0003Sandbox extends Migration {
  override name = '0003-sandbox';

  override up(): void {
    this.addSql(`
      create table sandbox_envelope (
        id uuid primary key,
        organization_id uuid not null references organization (id) deferrable initially deferred,
        external_reference text,
        document jsonb not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(
      'create index sandbox_envelope_organization_idx on sandbox_envelope (organization_id, created_at desc)',
    );
    this.addSql(`
      create index sandbox_envelope_reference_idx on sandbox_envelope (organization_id, external_reference, created_at desc)
       where external_reference is not null`);
  }
}
