// Signing links: one secret URL per acting recipient, stored only as the SHA-256 of its 256-bit token.
import { Migration } from '@mikro-orm/migrations';

export class Migration0005Signing extends Migration {
  override name = '0005-signing';

  override up(): void {
    this.addSql(`
      create table signing_link (
        token_hash text primary key,
        recipient_id uuid not null references recipient (id) on delete cascade deferrable initially deferred,
        envelope_id uuid not null references envelope (id) on delete cascade deferrable initially deferred,
        organization_id uuid not null references organization (id) deferrable initially deferred,
        created_at timestamptz not null default now(),
        revoked_at timestamptz
      )`);
    this.addSql('create index signing_link_recipient_idx on signing_link (recipient_id)');
  }
}
