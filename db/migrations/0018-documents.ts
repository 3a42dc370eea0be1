// The business app's documents (docs/documents.md): who sent an envelope, and the indexes of the documents list.
//   - `envelope.created_by_user_id`: the user who created the envelope in the business app; null for an
//     envelope of the public API (an integration) or the operator CLI, and for every envelope made before this.
//   - `envelope.team_id`: that user's team when they created it (kept when they change teams later); null
//     without a team. A deleted team leaves its envelopes without one.
//   Both decide who sees the envelope (docs/documents.md, "Who sees which envelope").
//
// The list is ordered newest first (created_at, then id, both descending) and read a page at a time from a
// cursor, so each way of narrowing it has an index in that order:
//   - envelope_list_idx (organization_id, created_at, id): a role that reads every envelope, the "all" tab;
//   - envelope_list_sender_idx (organization_id, created_by_user_id, created_at, id): one's own envelopes, the
//     sender filter, and integrations' envelopes (created_by_user_id is null);
//   - envelope_list_team_idx (organization_id, team_id, created_at, id), for rows with a team: the team's;
//   - envelope_list_status_idx (organization_id, status, created_at, id): the status tabs; it replaces
//     envelope_organization_status_idx (organization_id, status), its prefix;
//   - envelope_list_template_idx (organization_id, template_id, created_at, id): the template filter;
//   - recipient_email_idx (lower(email)): "action needed", the envelopes waiting on the signed-in user's address.
// Search (title, external reference, recipients' names and addresses, any part of them, without regard to case)
// reads trigram indexes (pg_trgm, as the contacts' search: created when the extension can be; without it a
// search scans the organization's envelopes).
import { Migration } from '@mikro-orm/migrations';

export class Migration0018Documents extends Migration {
  override name = '0018-documents';

  override up(): void {
    this.addSql(
      'alter table envelope add column created_by_user_id uuid references app_user (id) on delete set null',
    );
    this.addSql('alter table envelope add column team_id uuid references team (id) on delete set null');

    this.addSql('create index envelope_list_idx on envelope (organization_id, created_at desc, id desc)');
    this.addSql(
      'create index envelope_list_sender_idx on envelope (organization_id, created_by_user_id, created_at desc, id desc)',
    );
    this.addSql(
      'create index envelope_list_team_idx on envelope (organization_id, team_id, created_at desc, id desc) where team_id is not null',
    );
    this.addSql(
      'create index envelope_list_status_idx on envelope (organization_id, status, created_at desc, id desc)',
    );
    this.addSql('drop index envelope_organization_status_idx');
    this.addSql(
      'create index envelope_list_template_idx on envelope (organization_id, template_id, created_at desc, id desc)',
    );
    this.addSql('create index recipient_email_idx on recipient (lower(email)) where email is not null');

    this.addSql(`
      do $$
      begin
        create extension if not exists pg_trgm;
      exception when others then
        raise notice 'pg_trgm is not available (%): the documents search scans without trigram indexes', sqlerrm;
      end
      $$`);
    this.addSql(`
      do $$
      declare
        ops text;
      begin
        if exists (select 1 from pg_extension where extname = 'pg_trgm') then
          -- The operator class in the extension's own schema, wherever it was installed.
          ops := (select format('%I.gin_trgm_ops', n.nspname) from pg_extension e
                    join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm');
          execute format('create index envelope_title_trgm_idx on envelope using gin (lower(title) %s)', ops);
          execute format(
            'create index envelope_reference_trgm_idx on envelope using gin (lower(external_reference) %s)', ops);
          execute format(
            'create index recipient_name_trgm_idx on recipient using gin (lower(full_name) %s)', ops);
          execute format('create index recipient_email_trgm_idx on recipient using gin (lower(email) %s)', ops);
        end if;
      end
      $$`);
  }
}
