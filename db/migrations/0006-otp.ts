// One-time codes for recipients who authenticate by SMS or WhatsApp, the signer sessions a verified code
// opens, and the development capture of outgoing notifications (never written in production).
import { Migration } from '@mikro-orm/migrations';

export class Migration0006Otp extends Migration {
  override name = '0006-otp';

  override up(): void {
    // A code is kept only as a hash (see services/signing/otp-policy.ts). `closed_reason` says why a code
    // can no longer be used; an open code past `expires_at` is expired.
    this.addSql(`
      create table otp_code (
        id uuid primary key,
        recipient_id uuid not null references recipient (id) on delete cascade deferrable initially deferred,
        envelope_id uuid not null references envelope (id) on delete cascade deferrable initially deferred,
        organization_id uuid not null references organization (id) deferrable initially deferred,
        channel text not null check (channel in ('Sms', 'WhatsApp')),
        code_hash text not null,
        attempts integer not null default 0 check (attempts >= 0),
        created_at timestamptz not null,
        expires_at timestamptz not null,
        closed_at timestamptz,
        closed_reason text check (closed_reason in ('verified', 'superseded', 'expired', 'too_many_attempts'))
      )`);
    this.addSql('create index otp_code_recipient_idx on otp_code (recipient_id, created_at desc)');

    // Opened by a verified code; the token travels in X-Signing-Session and only its SHA-256 is stored.
    this.addSql(`
      create table signer_session (
        token_hash text primary key,
        recipient_id uuid not null references recipient (id) on delete cascade deferrable initially deferred,
        envelope_id uuid not null references envelope (id) on delete cascade deferrable initially deferred,
        organization_id uuid not null references organization (id) deferrable initially deferred,
        created_at timestamptz not null,
        expires_at timestamptz not null
      )`);
    this.addSql('create index signer_session_recipient_idx on signer_session (recipient_id)');

    // What development and test would have sent. `kind` and `channel` stay unconstrained so new kinds of
    // notification need no migration.
    this.addSql(`
      create table dev_notification (
        id uuid primary key,
        kind text not null,
        channel text not null,
        to_address text not null,
        subject text,
        body text not null,
        signing_link text,
        otp_code text,
        envelope_id uuid references envelope (id) on delete cascade deferrable initially deferred,
        recipient_id uuid references recipient (id) on delete cascade deferrable initially deferred,
        organization_id uuid references organization (id) on delete cascade deferrable initially deferred,
        created_at timestamptz not null default now()
      )`);
    this.addSql('create index dev_notification_created_idx on dev_notification (created_at desc)');
    this.addSql('create index dev_notification_to_idx on dev_notification (to_address, created_at desc)');
    this.addSql('create index dev_notification_envelope_idx on dev_notification (envelope_id)');
    this.addSql('create index dev_notification_recipient_idx on dev_notification (recipient_id)');
  }
}
