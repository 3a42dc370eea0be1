// Webhook endpoints, their deliveries and every delivery attempt.
import { Migration } from '@mikro-orm/migrations';

export class Migration0007Webhooks extends Migration {
  override name = '0007-webhooks';

  override up(): void {
    // `event_types` empty means every event. The secret is kept in clear because each delivery is signed
    // with it; after a rotation the previous one signs too, until `previous_secret_expires_at`.
    this.addSql(`
      create table webhook_endpoint (
        id uuid primary key,
        organization_id uuid not null references organization (id) deferrable initially deferred,
        url text not null,
        event_types text[] not null default '{}',
        enabled boolean not null default true,
        secret text not null,
        previous_secret text,
        previous_secret_expires_at timestamptz,
        secret_rotated_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check ((previous_secret is null) = (previous_secret_expires_at is null))
      )`);
    this.addSql(
      'create index webhook_endpoint_organization_idx on webhook_endpoint (organization_id, created_at)',
    );

    // One row per (event, endpoint), plus one per test delivery and per replay. `payload` is the request body
    // exactly as sent ({ id, type, created_at, data }); the event columns beside it serve lookups.
    // `endpoint_url` is the URL at the time the delivery was queued. `last_error` is redacted: no secret, at
    // most a short excerpt of a response body.
    this.addSql(`
      create table webhook_delivery (
        id uuid primary key,
        endpoint_id uuid not null references webhook_endpoint (id) on delete cascade deferrable initially deferred,
        organization_id uuid not null references organization (id) deferrable initially deferred,
        kind text not null check (kind in ('event', 'test')),
        event_id text not null,
        event_type text not null,
        event_created_at timestamptz not null,
        payload text not null,
        status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
        attempt_count integer not null default 0 check (attempt_count >= 0),
        last_status_code integer,
        last_error text,
        last_attempt_at timestamptz,
        next_attempt_at timestamptz,
        delivered_at timestamptz,
        endpoint_url text not null,
        request_id text,
        replay_of uuid references webhook_delivery (id) on delete set null deferrable initially deferred,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    // An event is queued once per endpoint, however often the queuing activity is retried.
    this.addSql(`
      create unique index webhook_delivery_event_endpoint_key on webhook_delivery (endpoint_id, event_id)
        where kind = 'event' and replay_of is null`);
    this.addSql(
      'create index webhook_delivery_organization_idx on webhook_delivery (organization_id, created_at desc)',
    );
    this.addSql(
      'create index webhook_delivery_endpoint_idx on webhook_delivery (endpoint_id, created_at desc)',
    );
    this.addSql('create index webhook_delivery_replay_of_idx on webhook_delivery (replay_of)');

    this.addSql(`
      create table webhook_delivery_attempt (
        delivery_id uuid not null references webhook_delivery (id) on delete cascade deferrable initially deferred,
        attempt integer not null check (attempt >= 1),
        started_at timestamptz not null,
        duration_ms integer not null,
        status_code integer,
        error text,
        primary key (delivery_id, attempt)
      )`);
  }
}
