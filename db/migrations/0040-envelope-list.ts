// The public API's list and search of envelopes (issue 34, GET /api/v1/envelopes; docs/performance.md, "Listing
// envelopes"), indexed for a million envelopes in one organization. Migration 0018 already serves the sort by
// creation (envelope_list_idx), the status and template filters and the text query on titles, recipients' names
// and emails (trigram indexes). Added here:
//   - the sort by last change, in both orders: (organization_id, updated_at desc, id desc);
//   - the external system filter, newest first within it;
//   - the external reference filter in the list's order (0001's index has no sort key after the reference:
//     every envelope sharing a reference was read and sorted);
//   - a trigram index on recipients' phones (the text query matches phones too), when pg_trgm exists, as in 0018.
import { Migration } from '@mikro-orm/migrations';

export class Migration0040EnvelopeList extends Migration {
  override name = '0040-envelope-list';

  override up(): void {
    this.addSql(
      'create index envelope_list_updated_idx on envelope (organization_id, updated_at desc, id desc)',
    );
    this.addSql(`
      create index envelope_list_system_idx on envelope (organization_id, external_system, created_at desc, id desc)
       where external_system is not null`);
    this.addSql(`
      create index envelope_list_reference_idx on envelope (organization_id, external_reference, created_at desc, id desc)
       where external_reference is not null`);
    this.addSql('drop index envelope_external_reference_idx');
    this.addSql(`
      do $$
      declare
        ops text;
      begin
        if exists (select 1 from pg_extension where extname = 'pg_trgm') then
          ops := (select format('%I.gin_trgm_ops', n.nspname) from pg_extension e
                    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm');
          execute format('create index recipient_phone_trgm_idx on recipient using gin (lower(phone) %s)', ops);
        end if;
      end
      $$`);
  }
}
