// The platform backoffice's administrators (docs/backoffice.md), a population of their own, apart from the
// organizations' users:
//   - `platform_admin`: an administrator — address (lower case, unique), full name, argon2id password hash,
//     when and from where they last signed in;
//   - `platform_admin_session`: a backoffice browser session (only the SHA-256 of the cookie's token), with
//     its idle and absolute ends;
//   - `platform_admin_code`: a sign-in code sent by email after the right password (only its hash), its expiry,
//     the wrong attempts against it and when it was used;
//   - `platform_admin_allowed_domain`: the email domains administrators' addresses may have;
//   - `platform_admin_ip_allowlist`: the addresses and CIDR ranges the backoffice answers (none: any);
//   - `backoffice_audit_event`: every backoffice action — who (an administrator, or the operator CLI), when,
//     from which address, what (an action and its details, never a secret). It keeps the actor's address in
//     clear, so an entry outlives the administrator's removal.
import { Migration } from '@mikro-orm/migrations';

export class Migration0023BackofficeAdmins extends Migration {
  override name = '0023-backoffice-admins';

  override up(): void {
    this.addSql(`create table platform_admin (
      id uuid primary key,
      email text not null unique check (email = lower(email)),
      full_name text not null,
      password_hash text not null,
      created_at timestamptz not null default now(),
      last_sign_in_at timestamptz,
      last_sign_in_ip text
    )`);
    this.addSql(`create table platform_admin_session (
      id uuid primary key,
      token_hash text not null unique,
      admin_id uuid not null references platform_admin (id) on delete cascade,
      created_at timestamptz not null default now(),
      last_seen_at timestamptz not null,
      expires_at timestamptz not null,
      ended_at timestamptz,
      ended_reason text,
      ip_address text,
      user_agent text
    )`);
    this.addSql('create index platform_admin_session_admin_idx on platform_admin_session (admin_id)');
    this.addSql(`create table platform_admin_code (
      id uuid primary key,
      admin_id uuid not null references platform_admin (id) on delete cascade,
      code_hash text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      attempts integer not null default 0,
      used_at timestamptz,
      ip_address text
    )`);
    this.addSql(
      'create index platform_admin_code_admin_idx on platform_admin_code (admin_id, created_at desc)',
    );
    this.addSql(`create table platform_admin_allowed_domain (
      id uuid primary key,
      domain text not null unique check (domain = lower(domain)),
      created_at timestamptz not null default now()
    )`);
    this.addSql(`create table platform_admin_ip_allowlist (
      id uuid primary key,
      entry text not null unique,
      description text,
      created_at timestamptz not null default now()
    )`);
    this.addSql(`create table backoffice_audit_event (
      id uuid primary key,
      occurred_at timestamptz not null default now(),
      actor_admin_id uuid,
      actor_email text,
      actor_kind text not null check (actor_kind in ('platform_admin', 'operator_cli', 'visitor')),
      ip_address text,
      action text not null,
      target_id uuid,
      details jsonb not null default '{}'
    )`);
    this.addSql(
      'create index backoffice_audit_event_time_idx on backoffice_audit_event (occurred_at desc, id desc)',
    );
  }

  override down(): void {
    this.addSql('drop table backoffice_audit_event');
    this.addSql('drop table platform_admin_ip_allowlist');
    this.addSql('drop table platform_admin_allowed_domain');
    this.addSql('drop table platform_admin_code');
    this.addSql('drop table platform_admin_session');
    this.addSql('drop table platform_admin');
  }
}
