// Seals a rendered PDF: one PAdES signature (ETSI.CAdES.detached) by the platform's certificate, added as an
// incremental update, at the level asked for — B-B (signature), B-T (with an RFC 3161 signature timestamp),
// B-LT (with the certificates and revocation data in a DSS) or B-LTA (and an archival document timestamp).
// The CMS is built by @libpdf/core; nothing here encodes ASN.1 by hand.
import { PDF } from '@libpdf/core';
import { levelNeedsTimestamp, type PadesLevel } from '../../domain/secure-signature.ts';
import { findSignatures } from './inspect.ts';
import { type SealSigner, sha256Hex } from './signer.ts';
import { type TimestampAuthorityChain, TimestampUnavailableError } from './timestamps.ts';

export const SEAL_FIELD_NAME = 'SigilSeal';

export interface SealRequest {
  signer: SealSigner;
  level: PadesLevel;
  /** Needed for B-T and above. */
  timestamps: TimestampAuthorityChain | null;
  /** Shown by PDF readers as the signature's reason. */
  reason: string;
  signingTime?: Date;
}

export interface SealResult {
  bytes: Uint8Array;
  level: PadesLevel;
  signedAt: Date;
  /** The authority that timestamped the signature (B-T and above). */
  timestampAuthority: string | null;
  /** SHA-256 of the seal's CMS (its /Contents): how a verification finds the seal's record. */
  signatureSha256: string;
  certificateSha256: string;
  warnings: string[];
}

/** Throws TimestampUnavailableError when the level needs a timestamp and no authority answered. */
export async function sealPdf(pdfBytes: Uint8Array, request: SealRequest): Promise<SealResult> {
  const { level, signer } = request;
  const needsTimestamp = levelNeedsTimestamp(level);
  if (needsTimestamp && !request.timestamps) throw new TimestampUnavailableError([]);
  const signedAt = request.signingTime ?? new Date();
  const pdf = await PDF.load(pdfBytes);
  const result = await pdf.sign({
    signer,
    level,
    fieldName: SEAL_FIELD_NAME,
    reason: request.reason,
    signingTime: signedAt,
    subFilter: 'ETSI.CAdES.detached',
    digestAlgorithm: 'SHA-256',
    // Room for the certificate chain and a timestamp token with its own chain.
    estimatedSize: needsTimestamp ? 32_768 : 16_384,
    ...(needsTimestamp && request.timestamps ? { timestampAuthority: request.timestamps } : {}),
    ...(level === 'B-LT' || level === 'B-LTA'
      ? {
          longTermValidation: true,
          ...(signer.revocationProvider ? { revocationProvider: signer.revocationProvider } : {}),
        }
      : {}),
    ...(level === 'B-LTA' ? { archivalTimestamp: true } : {}),
  });
  let bytes = result.bytes;
  if (level === 'B-LTA' && request.timestamps && !hasDocumentTimestamp(bytes)) {
    // The archival timestamp covers the signature and its validation data.
    const stamped = await PDF.load(bytes);
    const archived = await stamped.addTimestamp({
      timestampAuthority: request.timestamps,
      longTermValidation: true,
      ...(signer.revocationProvider ? { revocationProvider: signer.revocationProvider } : {}),
    });
    bytes = archived.bytes;
  }
  const seal = findSignatures(bytes).find((signature) => signature.fieldName === SEAL_FIELD_NAME);
  if (!seal) throw new Error('the sealed PDF has no seal signature (internal error)');
  return {
    bytes,
    level,
    signedAt,
    timestampAuthority: needsTimestamp ? (request.timestamps?.answeredBy ?? null) : null,
    signatureSha256: sha256Hex(seal.contents),
    certificateSha256: sha256Hex(signer.certificate),
    warnings: result.warnings.map((warning) => `${warning.code}: ${warning.message}`),
  };
}

function hasDocumentTimestamp(bytes: Uint8Array): boolean {
  return findSignatures(bytes).some((signature) => signature.kind === 'document_timestamp');
}
