// Idempotency records that survive a crash (api/plugins/idempotency.ts, docs/api.md "Idempotency"):
//   - a `processing` claim is a lease (`lease_expires_at`) that the live request renews every few seconds, so
//     the claim of a process that died runs out within seconds instead of blocking the key;
//   - `claim_id` names the attempt holding the claim and fences its writes: an attempt whose claim was taken
//     over can neither commit a result nor store its answer;
//   - `record_id` names the request across attempts (Temporal Update ids are derived from it) and `attempts`
//     counts them;
//   - `result_id` is written in the operation's own transaction (a create's envelope id), so a retry after a
//     crash between the commit and the stored answer finds what was made instead of making it again.
import { Migration } from '@mikro-orm/migrations';

export class Migration0011Idempotency extends Migration {
  override name = '0011-idempotency';

  override up(): void {
    this.addSql(`
      alter table idempotency_record
        add column record_id uuid not null default gen_random_uuid(),
        add column claim_id uuid,
        add column attempts integer not null default 1,
        add column lease_expires_at timestamptz,
        add column result_id uuid`);
    // Claims made before this migration keep the 10 minutes they were given.
    this.addSql(`
      update idempotency_record
         set claim_id = gen_random_uuid(), lease_expires_at = created_at + interval '10 minutes'
       where state = 'processing'`);
    this.addSql(`
      alter table idempotency_record
        add constraint idempotency_record_claim_check
          check (state <> 'processing' or (claim_id is not null and lease_expires_at is not null))`);
  }
}
