// Single sign-on with OpenID Connect per organization (issue 34, docs/sso.md): the organization's provider
// (issuer, client id, the client secret encrypted with the secrets key like MFA secrets, allowed email domains,
// just-in-time accounts with a default role, "SSO required" with a break-glass owner), and the sign-ins under
// way: one row per authorization request, found by the SHA-256 of its one-time `state`, holding the `nonce` and
// the PKCE verifier until the callback consumes it once (or it expires).
import { Migration } from '@mikro-orm/migrations';

export class Migration0043Sso extends Migration {
  override name = '0043-sso';

  override up(): void {
    this.addSql(`
      create table organization_sso (
        id uuid primary key,
        organization_id uuid not null unique references organization (id) deferrable initially deferred,
        issuer text not null,
        client_id text not null,
        client_secret_encrypted text not null,
        allowed_domains text[] not null default '{}',
        jit_enabled boolean not null default false,
        jit_role_id uuid references role (id) on delete set null deferrable initially deferred,
        sso_required boolean not null default false,
        break_glass_user_id uuid references app_user (id) on delete set null deferrable initially deferred,
        created_at timestamptz not null,
        updated_at timestamptz not null
      )`);
    // A domain leads one organization's users to its provider: no two organizations claim the same one.
    this.addSql(`
      create table sso_domain (
        domain text primary key,
        organization_id uuid not null references organization (id) on delete cascade deferrable initially deferred
      )`);
    this.addSql(`
      create table sso_sign_in (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade deferrable initially deferred,
        state_hash text not null unique,
        nonce text not null,
        code_verifier text not null,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        consumed_at timestamptz
      )`);
    this.addSql('create index sso_sign_in_expires_idx on sso_sign_in (expires_at)');
  }
}
