// Passkeys (WebAuthn) as a second factor (docs/accounts.md, "Two-step verification", "Passkeys"):
//   - `passkey`: one row per registered credential of a user: its id as the authenticator gave it (base64url,
//     unique), the COSE public key (base64url), the signature counter (a counter that goes backwards is refused),
//     the transports the browser reported, a name the user chose, and when it was made and last used;
//   - `user_session.webauthn_challenge`: the one challenge the session's last options carried (prefixed with
//     what it is for: `register:` or `sign_in:`), until it is answered or `webauthn_challenge_expires_at`.
import { Migration } from '@mikro-orm/migrations';

export class Migration0014Passkeys extends Migration {
  override name = '0014-passkeys';

  override up(): void {
    this.addSql(`
      create table passkey (
        id uuid primary key,
        user_id uuid not null references app_user (id) on delete cascade,
        credential_id text not null unique,
        public_key text not null,
        counter bigint not null default 0 check (counter >= 0),
        transports text[] not null default '{}',
        name text not null,
        created_at timestamptz not null default now(),
        last_used_at timestamptz
      )`);
    this.addSql('create index passkey_user_id_idx on passkey (user_id)');
    this.addSql('alter table user_session add column webauthn_challenge text');
    this.addSql('alter table user_session add column webauthn_challenge_expires_at timestamptz');
  }
}
