// Reads and writes of sealing (docs/sealing.md): an organization's secure-signature policy with its bounds
// (defaults when it has no row), and the record of each sealed document.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  DEFAULT_BOUNDS,
  DEFAULT_SECURE_SIGNATURE_SETTINGS,
  type PadesLevel,
  type SecureSignatureBounds,
  type SecureSignatureSettings,
} from '../domain/secure-signature.ts';

export interface StoredPolicy {
  settings: SecureSignatureSettings;
  bounds: SecureSignatureBounds;
  updatedAt: Date | null;
}

interface PolicyRow {
  level: PadesLevel;
  timestamp_required: boolean;
  seal_audit_trail: boolean;
  allowed_levels: PadesLevel[];
  timestamp_mandatory: boolean;
  audit_trail_seal_mandatory: boolean;
  updated_at: Date;
}

export async function loadSecureSignaturePolicy(
  em: EntityManager,
  organizationId: string,
  options: { forUpdate?: boolean } = {},
): Promise<StoredPolicy> {
  const [row] = await em.execute<PolicyRow[]>(
    `select level, timestamp_required, seal_audit_trail, allowed_levels, timestamp_mandatory,
            audit_trail_seal_mandatory, updated_at
       from secure_signature_policy where organization_id = ?${options.forUpdate ? ' for update' : ''}`,
    [organizationId],
  );
  if (!row) {
    return {
      settings: { ...DEFAULT_SECURE_SIGNATURE_SETTINGS },
      bounds: { ...DEFAULT_BOUNDS },
      updatedAt: null,
    };
  }
  return {
    settings: {
      level: row.level,
      timestampRequired: row.timestamp_required,
      sealAuditTrail: row.seal_audit_trail,
    },
    bounds: {
      allowedLevels: row.allowed_levels,
      timestampMandatory: row.timestamp_mandatory,
      auditTrailSealMandatory: row.audit_trail_seal_mandatory,
    },
    updatedAt: new Date(row.updated_at),
  };
}

export async function saveSecureSignaturePolicy(
  em: EntityManager,
  organizationId: string,
  policy: Pick<StoredPolicy, 'settings' | 'bounds'>,
): Promise<Date> {
  const [row] = await em.execute<{ updated_at: Date }[]>(
    `insert into secure_signature_policy (organization_id, level, timestamp_required, seal_audit_trail,
        allowed_levels, timestamp_mandatory, audit_trail_seal_mandatory, updated_at)
     values (?, ?, ?, ?, ?::text[], ?, ?, now())
     on conflict (organization_id) do update set
        level = excluded.level, timestamp_required = excluded.timestamp_required,
        seal_audit_trail = excluded.seal_audit_trail, allowed_levels = excluded.allowed_levels,
        timestamp_mandatory = excluded.timestamp_mandatory,
        audit_trail_seal_mandatory = excluded.audit_trail_seal_mandatory, updated_at = now()
     returning updated_at`,
    [
      organizationId,
      policy.settings.level,
      policy.settings.timestampRequired,
      policy.settings.sealAuditTrail,
      `{${policy.bounds.allowedLevels.join(',')}}`,
      policy.bounds.timestampMandatory,
      policy.bounds.auditTrailSealMandatory,
    ],
  );
  return new Date(row?.updated_at ?? Date.now());
}

export interface SealedDocumentRecord {
  id: string;
  organizationId: string;
  envelopeId: string;
  storedFileId: string;
  kind: 'final_pdf' | 'audit_trail';
  level: PadesLevel;
  signatureSha256: string;
  certificateSha256: string;
  sealedSha256: string;
  originalSha256: string;
  signedAt: Date;
  timestampAuthority: string | null;
  auditChainHead: string | null;
  auditChainLength: number;
}

export async function recordSealedDocument(em: EntityManager, record: SealedDocumentRecord): Promise<void> {
  await em.execute(
    `insert into sealed_document (id, organization_id, envelope_id, stored_file_id, kind, level,
        signature_sha256, certificate_sha256, sealed_sha256, original_sha256, signed_at, timestamp_authority,
        audit_chain_head, audit_chain_length)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      record.id,
      record.organizationId,
      record.envelopeId,
      record.storedFileId,
      record.kind,
      record.level,
      record.signatureSha256,
      record.certificateSha256,
      record.sealedSha256,
      record.originalSha256,
      record.signedAt,
      record.timestampAuthority,
      record.auditChainHead,
      record.auditChainLength,
    ],
  );
}

interface SealedRow {
  id: string;
  organization_id: string;
  envelope_id: string;
  stored_file_id: string;
  kind: 'final_pdf' | 'audit_trail';
  level: PadesLevel;
  signature_sha256: string;
  certificate_sha256: string;
  sealed_sha256: string;
  original_sha256: string;
  signed_at: Date;
  timestamp_authority: string | null;
  audit_chain_head: string | null;
  audit_chain_length: number;
}

const SEALED_COLUMNS = `id, organization_id, envelope_id, stored_file_id, kind, level, signature_sha256,
  certificate_sha256, sealed_sha256, original_sha256, signed_at, timestamp_authority, audit_chain_head,
  audit_chain_length`;

/** The sealed document whose seal has this CMS (SHA-256 of the /Contents), across all organizations. */
export async function findSealedDocumentBySignature(
  em: EntityManager,
  signatureSha256: string,
): Promise<SealedDocumentRecord | null> {
  const [row] = await em.execute<SealedRow[]>(
    `select ${SEALED_COLUMNS} from sealed_document where signature_sha256 = ?`,
    [signatureSha256],
  );
  return row ? fromRow(row) : null;
}

export async function sealedDocumentsOf(
  em: EntityManager,
  organizationId: string,
  envelopeId: string,
): Promise<SealedDocumentRecord[]> {
  const rows = await em.execute<SealedRow[]>(
    `select ${SEALED_COLUMNS} from sealed_document where organization_id = ? and envelope_id = ? order by kind`,
    [organizationId, envelopeId],
  );
  return rows.map(fromRow);
}

function fromRow(row: SealedRow): SealedDocumentRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    envelopeId: row.envelope_id,
    storedFileId: row.stored_file_id,
    kind: row.kind,
    level: row.level,
    signatureSha256: row.signature_sha256,
    certificateSha256: row.certificate_sha256,
    sealedSha256: row.sealed_sha256,
    originalSha256: row.original_sha256,
    signedAt: new Date(row.signed_at),
    timestampAuthority: row.timestamp_authority,
    auditChainHead: row.audit_chain_head,
    auditChainLength: Number(row.audit_chain_length),
  };
}
