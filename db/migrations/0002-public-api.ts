// The public API's state: access tokens, rate-limit windows, idempotency records, per-client request
// statistics, and envelope field values (initial values now, signer values later).
import { Migration } from '@mikro-orm/migrations';

export class Migration0002PublicApi extends Migration {
  override name = '0002-public-api';

  override up(): void {
    this.addSql(`
      create table oauth_access_token (
        token_hash text primary key,
        oauth_client_id uuid not null references oauth_client (id) on delete cascade deferrable initially deferred,
        organization_id uuid not null references organization (id) deferrable initially deferred,
        scopes text[] not null,
        expires_at timestamptz not null,
        created_at timestamptz not null default now()
      )`);
    this.addSql('create index oauth_access_token_expires_idx on oauth_access_token (expires_at)');

    // Fixed one-minute windows per bucket; shared by every API process through PostgreSQL.
    this.addSql(`
      create table rate_limit_window (
        bucket text not null,
        window_start timestamptz not null,
        count integer not null,
        primary key (bucket, window_start)
      )`);

    this.addSql(`
      create table idempotency_record (
        organization_id uuid not null references organization (id) deferrable initially deferred,
        idempotency_key text not null,
        request_hash text not null,
        method text not null,
        path text not null,
        state text not null check (state in ('processing', 'completed')),
        response_status integer,
        response_body text,
        response_content_type text,
        created_at timestamptz not null default now(),
        expires_at timestamptz not null,
        primary key (organization_id, idempotency_key)
      )`);
    this.addSql('create index idempotency_record_expires_idx on idempotency_record (expires_at)');

    this.addSql(`
      create table api_request_stat (
        oauth_client_id uuid not null references oauth_client (id) on delete cascade deferrable initially deferred,
        minute timestamptz not null,
        requests integer not null default 0,
        errors integer not null default 0,
        rate_limited integer not null default 0,
        primary key (oauth_client_id, minute)
      )`);

    this.addSql(`
      create table envelope_field_value (
        id uuid primary key,
        envelope_id uuid not null references envelope (id) on delete cascade deferrable initially deferred,
        field_id uuid not null references template_field (id) deferrable initially deferred,
        value jsonb not null,
        source text not null check (source in ('initial', 'recipient')),
        recipient_id uuid references recipient (id) deferrable initially deferred,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (envelope_id, field_id)
      )`);

    this.addSql("alter table organization add column supported_languages text[] not null default '{en,he}'");
    this.addSql('alter table organization add column upload_rate_limit_per_minute integer');
    this.addSql('alter table stored_file add column page_count integer');
    this.addSql('alter table envelope add column reminder_count integer not null default 0');
    this.addSql('alter table envelope add column last_reminded_at timestamptz');
  }
}
