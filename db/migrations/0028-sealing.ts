// Sealed documents (docs/sealing.md): each organization's secure-signature policy with the bounds the platform
// set for it, and one row per sealed PDF — how a public verification recognizes Sigil's seal (by the SHA-256 of
// the seal's CMS) and what it may show (the envelope, the audit chain head sealed into the document).
import { Migration } from '@mikro-orm/migrations';

export class Migration0028Sealing extends Migration {
  override name = '0028-sealing';

  override up(): void {
    this.addSql(`create table secure_signature_policy (
        organization_id uuid primary key references organization (id) on delete cascade,
        level text not null default 'B-B' check (level in ('B-B', 'B-T', 'B-LT', 'B-LTA')),
        timestamp_required boolean not null default false,
        seal_audit_trail boolean not null default true,
        allowed_levels text[] not null default array['B-B', 'B-T', 'B-LT', 'B-LTA']
          check (cardinality(allowed_levels) between 1 and 4
             and allowed_levels <@ array['B-B', 'B-T', 'B-LT', 'B-LTA']),
        timestamp_mandatory boolean not null default false,
        audit_trail_seal_mandatory boolean not null default false,
        updated_at timestamptz not null default now(),
        check (level = any (allowed_levels)),
        check (not timestamp_required or level <> 'B-B'),
        check (not timestamp_mandatory or timestamp_required),
        check (not audit_trail_seal_mandatory or seal_audit_trail)
      )`);
    this.addSql(`create table sealed_document (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        envelope_id uuid not null references envelope (id) on delete cascade,
        stored_file_id uuid not null references stored_file (id) on delete cascade,
        kind text not null check (kind in ('final_pdf', 'audit_trail')),
        level text not null check (level in ('B-B', 'B-T', 'B-LT', 'B-LTA')),
        signature_sha256 text not null unique,
        certificate_sha256 text not null,
        sealed_sha256 text not null,
        original_sha256 text not null,
        signed_at timestamptz not null,
        timestamp_authority text,
        audit_chain_head text,
        audit_chain_length integer not null,
        created_at timestamptz not null default now(),
        unique (envelope_id, kind)
      )`);
    this.addSql('create index sealed_document_sealed_sha256_idx on sealed_document (sealed_sha256)');
  }

  override down(): void {
    this.addSql('drop table if exists sealed_document');
    this.addSql('drop table if exists secure_signature_policy');
  }
}
