// POST /api/verify (docs/sealing.md, "Verification"): what a PDF someone holds proves, for anyone, with no
// account. The seal is recognized by its CMS (the SHA-256 of the signature's /Contents is recorded when the
// document is sealed), checked cryptographically over the bytes its byte range names, and the whole file is
// compared with the sealed file: an edit inside the signed bytes breaks the signature, an edited byte range
// no longer names them (the seal is still recognized by its CMS, so this is `modified`, not `not_sealed`),
// anything appended after sealing (an incremental update) makes the file differ. The answer shows only what the audit trail
// already shows — the envelope's title and its signers with their completion times — and whether the stored
// audit chain is still intact and still holds the head sealed into the document.

import { verifyAuditChain } from '../../db/audit-chain.ts';
import { Envelope, Recipient } from '../../db/entities/index.ts';
import { findSealedDocumentBySignature, type SealedDocumentRecord } from '../../db/sealing.ts';
import type { VerificationResult } from '../../domain/secure-signature.ts';
import { type CheckedSignature, checkSignature, findSignatures } from '../../pdf/sealing/inspect.ts';
import { SEAL_FIELD_NAME } from '../../pdf/sealing/seal.ts';
import { sha256Hex } from '../../pdf/sealing/signer.ts';
import type { DataContext } from '../context.ts';
import { InvalidRequest } from '../errors.ts';

const PDF_MAGIC = Buffer.from('%PDF-');

export async function verifyDocument(ctx: DataContext, bytes: Uint8Array): Promise<VerificationResult> {
  if (bytes.byteLength === 0) {
    throw new InvalidRequest('Invalid request: body: send the PDF to verify as the body (application/pdf)', [
      { field: 'body', message: 'send the PDF to verify as the body (application/pdf)' },
    ]);
  }
  // A PDF may have a few bytes of junk before its header; readers accept up to 1 KiB.
  if (Buffer.from(bytes.subarray(0, 1024)).indexOf(PDF_MAGIC) === -1) {
    throw new InvalidRequest('Invalid request: body: the file is not a PDF', [
      { field: 'body', message: 'the file is not a PDF (no %PDF- header)' },
    ]);
  }
  const signatures = findSignatures(bytes);
  const seal =
    signatures.find((s) => s.kind === 'signature' && s.fieldName === SEAL_FIELD_NAME) ??
    signatures.find((s) => s.kind === 'signature');
  if (!seal) {
    return {
      verdict: 'not_sealed',
      sealedBySigil: false,
      unmodified: false,
      document: null,
      signature: null,
      envelope: null,
      auditChain: null,
      reasons: [
        'The file has no digital signature, so nothing proves where it came from or that it is unchanged.',
      ],
    };
  }
  const checked = await checkSignature(bytes, seal);
  const record = await findSealedDocumentBySignature(ctx.em, sha256Hex(seal.contents));
  const certificateSha256 = checked.signerCertificate ? sha256Hex(checked.signerCertificate) : '';
  const signature: VerificationResult['signature'] = {
    signerName: checked.signerName,
    certificateSha256,
    subFilter: seal.subFilter ?? 'unknown',
    level: record?.level ?? null,
    signedAt: seal.statedTime?.toISOString() ?? null,
    timestamp: checked.timestamp
      ? { time: checked.timestamp.time.toISOString(), authority: checked.timestamp.authority }
      : null,
    cryptographicallyValid: checked.cryptographicallyValid,
    coversWholeFile: checked.coversWholeFile,
  };
  if (!record || record.certificateSha256 !== certificateSha256) {
    return {
      verdict: 'unknown_seal',
      sealedBySigil: false,
      unmodified: false,
      document: null,
      signature,
      envelope: null,
      auditChain: null,
      reasons: [
        `The file is signed by "${checked.signerName || 'an unnamed signer'}", but not with a seal Sigil made: Sigil has no record of this signature.`,
      ],
    };
  }
  const unmodified = checked.cryptographicallyValid && sha256Hex(bytes) === record.sealedSha256;
  const reasons = explain(checked, record, bytes, unmodified);
  return {
    verdict: unmodified ? 'intact' : 'modified',
    sealedBySigil: true,
    unmodified,
    document: record.kind,
    signature,
    envelope: await envelopeOf(ctx, record),
    auditChain: await auditChainOf(ctx, record),
    reasons,
  };
}

function explain(
  checked: CheckedSignature,
  record: SealedDocumentRecord,
  bytes: Uint8Array,
  unmodified: boolean,
): string[] {
  const what = record.kind === 'final_pdf' ? 'signed document' : 'audit trail';
  if (unmodified) {
    return [
      `Sigil sealed this ${what} (${record.level}) on ${record.signedAt.toISOString()} and it is unchanged since: every byte is the sealed file's.`,
    ];
  }
  if (!checked.found.byteRangeIntact) {
    return [
      `This ${what} was sealed by Sigil, but its seal's byte range was changed afterwards: it no longer names the signed bytes, so the seal proves nothing about this file.`,
    ];
  }
  if (!checked.cryptographicallyValid) {
    return [
      `This ${what} was sealed by Sigil, but its content was changed afterwards: the seal no longer matches the signed bytes.`,
    ];
  }
  const [, , second, secondLength] = checked.found.byteRange;
  const sealedRevisionEnd = second + secondLength;
  return [
    bytes.byteLength > sealedRevisionEnd && !checked.coversWholeFile
      ? `This ${what} was sealed by Sigil, and something was added after sealing (${bytes.byteLength - sealedRevisionEnd} bytes after the sealed revision): what it shows may differ from what was sealed.`
      : `This ${what} was sealed by Sigil, but the file differs from the sealed file.`,
  ];
}

async function envelopeOf(
  ctx: DataContext,
  record: SealedDocumentRecord,
): Promise<VerificationResult['envelope']> {
  const envelope = await ctx.em.findOne(Envelope, {
    id: record.envelopeId,
    organizationId: record.organizationId,
  });
  if (!envelope) return null;
  const recipients = await ctx.em.find(
    Recipient,
    { envelopeId: envelope.id, type: 'Signer' },
    { orderBy: { signingOrder: 'asc', position: 'asc', id: 'asc' } },
  );
  return {
    id: envelope.id,
    title: envelope.title,
    completedAt: envelope.completedAt?.toISOString() ?? null,
    signers: recipients.map((r) => ({
      name: r.fullName,
      role: r.roleName,
      completedAt: r.completedAt?.toISOString() ?? null,
    })),
  };
}

async function auditChainOf(
  ctx: DataContext,
  record: SealedDocumentRecord,
): Promise<VerificationResult['auditChain']> {
  const verification = await verifyAuditChain(ctx.em, record.envelopeId);
  if (!verification) return null;
  let holdsSealedHead = record.auditChainHead === null;
  if (record.auditChainHead !== null) {
    const [event] = await ctx.em.execute<{ hash: string }[]>(
      `select encode(hash, 'hex') as hash from audit_event where envelope_id = ? and chain_index = ?`,
      [record.envelopeId, record.auditChainLength],
    );
    holdsSealedHead = event?.hash === record.auditChainHead;
  }
  return {
    intact: verification.intact && holdsSealedHead,
    sealedHead: record.auditChainHead,
    sealedEvents: record.auditChainLength,
    events: verification.events,
  };
}
