// A hash chain through every envelope's audit events (docs/audit-chain.md): each event stores its place in the
// chain, the previous event's hash and the SHA-256 of its canonical form with that hash, so editing, removing or
// reordering any stored event breaks the chain; the envelope keeps the head (the last hash) and the length.
// `sigil_audit_hash` is the one definition of the canonical form, used by the inserts, this backfill and the
// verification alike. Events recorded before this migration are chained here, per envelope in the order of
// their sequence numbers.
import { Migration } from '@mikro-orm/migrations';

export class Migration0027AuditChain extends Migration {
  override name = '0027-audit-chain';

  override up(): void {
    this.addSql(`create function sigil_audit_hash(
        envelope_id uuid, organization_id uuid, sequence integer, type text, recipient_id uuid, data jsonb,
        occurred_at timestamptz, chain_index integer, prev_hash bytea
      ) returns bytea language sql stable parallel safe as $$
        select sha256(convert_to(concat_ws(chr(31),
          'sigil-audit-v1',
          envelope_id::text,
          organization_id::text,
          sequence::text,
          type,
          coalesce(recipient_id::text, ''),
          data::text,
          to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
          chain_index::text,
          coalesce(encode(prev_hash, 'hex'), '')
        ), 'UTF8'))
      $$`);
    this.addSql(`alter table audit_event
      add column chain_index integer,
      add column prev_hash bytea,
      add column hash bytea`);
    this.addSql(`alter table envelope
      add column audit_chain_head bytea,
      add column audit_chain_length integer not null default 0`);
    // The events recorded so far, chained per envelope in the order of their sequence numbers.
    this.addSql(`do $$
      declare
        event record;
        current_envelope uuid := null;
        previous bytea := null;
        position integer := 0;
        digest bytea;
      begin
        for event in select * from audit_event order by envelope_id, sequence loop
          if current_envelope is distinct from event.envelope_id then
            if current_envelope is not null then
              update envelope set audit_chain_head = previous, audit_chain_length = position
               where id = current_envelope;
            end if;
            current_envelope := event.envelope_id;
            previous := null;
            position := 0;
          end if;
          position := position + 1;
          digest := sigil_audit_hash(event.envelope_id, event.organization_id, event.sequence, event.type,
            event.recipient_id, event.data, event.occurred_at, position, previous);
          update audit_event set chain_index = position, prev_hash = previous, hash = digest
           where id = event.id;
          previous := digest;
        end loop;
        if current_envelope is not null then
          update envelope set audit_chain_head = previous, audit_chain_length = position
           where id = current_envelope;
        end if;
      end
    $$`);
    this.addSql(
      'create unique index audit_event_chain_idx on audit_event (envelope_id, chain_index) where chain_index is not null',
    );
  }

  override down(): void {
    this.addSql('drop index audit_event_chain_idx');
    this.addSql('alter table envelope drop column audit_chain_head, drop column audit_chain_length');
    this.addSql('alter table audit_event drop column chain_index, drop column prev_hash, drop column hash');
    this.addSql('drop function sigil_audit_hash');
  }
}
