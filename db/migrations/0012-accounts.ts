// The business application's accounts (docs/accounts.md): organization users with their roles and teams,
// browser sessions, single-use tokens of emailed links, MFA, sign-in throttling, the security log, and the
// organization settings the specification lists.
import { Migration } from '@mikro-orm/migrations';

export class Migration0012Accounts extends Migration {
  override name = '0012-accounts';

  override up(): void {
    this.addSql(`
      alter table organization
        add column mfa_required boolean not null default false,
        add column session_timeout_minutes integer not null default 60
          check (session_timeout_minutes between 5 and 1440),
        add column default_authentication_method text not null default 'SecureLink'
          check (default_authentication_method in ('SecureLink', 'OtpSms', 'OtpWhatsApp')),
        add column default_expiration_days integer check (default_expiration_days between 1 and 365),
        add column consent_text text,
        add column privacy_notice text,
        add column retention_completed_days integer check (retention_completed_days between 1 and 3650),
        add column retention_unfinished_days integer check (retention_unfinished_days between 1 and 3650)`);

    this.addSql(`
      create table role (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        name text not null,
        built_in text check (built_in in ('owner', 'administrator', 'sender', 'member')),
        permissions text[] not null default '{}',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (organization_id, name),
        unique (organization_id, built_in)
      )`);

    this.addSql(`
      create table team (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        name text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        unique (organization_id, name)
      )`);

    // One account per email address across the service: a sign-in names no organization. A deleted user keeps
    // its row (its name stays attributable in logs and audit trails) with the address freed.
    this.addSql(`
      create table app_user (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        email text not null,
        full_name text not null,
        password_hash text,
        status text not null check (status in ('invited', 'active', 'deactivated', 'deleted')),
        email_verified_at timestamptz,
        role_id uuid not null references role (id),
        team_id uuid references team (id) on delete set null,
        language text not null default 'en' check (language in ('en', 'he')),
        totp_secret_encrypted text,
        totp_pending_secret_encrypted text,
        totp_enabled_at timestamptz,
        invited_at timestamptz,
        invited_by uuid references app_user (id) on delete set null,
        last_login_at timestamptz,
        deleted_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      )`);
    this.addSql(`create unique index app_user_email_unique on app_user (email) where status <> 'deleted'`);
    this.addSql('create index app_user_organization_idx on app_user (organization_id)');

    this.addSql(`
      create table mfa_backup_code (
        id uuid primary key,
        user_id uuid not null references app_user (id) on delete cascade,
        code_hash text not null,
        used_at timestamptz,
        created_at timestamptz not null default now()
      )`);
    this.addSql('create index mfa_backup_code_user_idx on mfa_backup_code (user_id)');

    // A browser session: only the SHA-256 of its cookie is stored. `state` says what it may do:
    // `mfa_pending` only the second sign-in step, `mfa_enrolment_required` only MFA enrolment, `active` all.
    this.addSql(`
      create table user_session (
        id uuid primary key,
        token_hash text not null unique,
        user_id uuid not null references app_user (id) on delete cascade,
        organization_id uuid not null references organization (id) on delete cascade,
        state text not null check (state in ('mfa_pending', 'mfa_enrolment_required', 'active')),
        created_at timestamptz not null default now(),
        last_seen_at timestamptz not null default now(),
        expires_at timestamptz not null,
        ended_at timestamptz,
        ended_reason text,
        ip_address text,
        user_agent text
      )`);
    this.addSql('create index user_session_user_idx on user_session (user_id) where ended_at is null');

    // Single-use tokens of emailed links, stored as SHA-256.
    this.addSql(`
      create table account_token (
        id uuid primary key,
        token_hash text not null unique,
        kind text not null check (kind in ('verify_email', 'reset_password', 'invite')),
        user_id uuid not null references app_user (id) on delete cascade,
        expires_at timestamptz not null,
        used_at timestamptz,
        created_at timestamptz not null default now()
      )`);
    this.addSql('create index account_token_user_idx on account_token (user_id, kind)');

    // Failed sign-ins counted per account and per source address (docs/accounts.md, "Abuse").
    this.addSql(`
      create table login_throttle (
        key text primary key,
        failures integer not null default 0,
        first_failure_at timestamptz not null default now(),
        last_failure_at timestamptz not null default now(),
        locked_until timestamptz
      )`);

    this.addSql(`
      create table security_event (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        type text not null,
        actor_user_id uuid references app_user (id) on delete set null,
        subject_user_id uuid references app_user (id) on delete set null,
        subject_email text,
        ip_address text,
        details jsonb not null default '{}',
        occurred_at timestamptz not null default now()
      )`);
    this.addSql(
      'create index security_event_organization_idx on security_event (organization_id, occurred_at desc, id desc)',
    );

    // Every existing organization gets the built-in roles. Their permissions are not stored: they come from
    // domain/permissions.ts (BUILT_IN_ROLE_PERMISSIONS), so a change there reaches every organization.
    this.addSql(`
      insert into role (id, organization_id, name, built_in)
      select gen_random_uuid(), o.id, r.name, r.built_in
        from organization o
        cross join (values ('Owner', 'owner'), ('Administrator', 'administrator'), ('Sender', 'sender'),
                           ('Read-only member', 'member')) as r (name, built_in)`);
  }
}
