// Sealed documents (docs/sealing.md): the PAdES levels, an organization's secure-signature policy and the
// bounds the platform sets for it, the readiness report, and the public verification's answer. The
// specification names the routes and the request type (UpdateBackofficeSecureSignaturePolicyConfigurationRequest,
// shared by the organization's and the backoffice's PUT); its fields are ours.
import { z } from 'zod';
import { IsoDateTime } from './common.ts';

/** PAdES baseline levels, weakest first (ETSI EN 319 142-1). */
export const PADES_LEVELS = ['B-B', 'B-T', 'B-LT', 'B-LTA'] as const;
export type PadesLevel = (typeof PADES_LEVELS)[number];

/** Whether a level carries a signature timestamp (and so needs a timestamp authority). */
export function levelNeedsTimestamp(level: PadesLevel): boolean {
  return level !== 'B-B';
}

/** Whether a level embeds revocation data (and so needs it fetchable). */
export function levelNeedsRevocationData(level: PadesLevel): boolean {
  return level === 'B-LT' || level === 'B-LTA';
}

export function levelRank(level: PadesLevel): number {
  return PADES_LEVELS.indexOf(level);
}

const Level = (field: string) =>
  z.enum(PADES_LEVELS, { message: `${field} must be one of ${PADES_LEVELS.join(', ')}` });

/** What the platform allows an organization to choose (set in the backoffice). */
export const SecureSignatureBounds = z.object({
  /** The levels the organization may choose from. */
  allowedLevels: z.array(z.enum(PADES_LEVELS)),
  /** The organization cannot turn `timestampRequired` off. */
  timestampMandatory: z.boolean(),
  /** The organization cannot turn `sealAuditTrail` off. */
  auditTrailSealMandatory: z.boolean(),
});
export type SecureSignatureBounds = z.output<typeof SecureSignatureBounds>;

export const DEFAULT_BOUNDS: SecureSignatureBounds = {
  allowedLevels: [...PADES_LEVELS],
  timestampMandatory: false,
  auditTrailSealMandatory: false,
};

/** The policy itself: what every final PDF (and audit trail) of the organization is sealed with. */
export const SecureSignatureSettings = z.object({
  level: z.enum(PADES_LEVELS),
  /**
   * true: with no timestamp authority answering, finalization waits and retries (then FinalPdfFailed);
   * false: the document is sealed at B-B instead (its seal record, and so the verification, shows the level).
   * Only with B-T or higher.
   */
  timestampRequired: z.boolean(),
  /** The audit-trail PDF is sealed too. */
  sealAuditTrail: z.boolean(),
});
export type SecureSignatureSettings = z.output<typeof SecureSignatureSettings>;

export const DEFAULT_SECURE_SIGNATURE_SETTINGS: SecureSignatureSettings = {
  level: 'B-B',
  timestampRequired: false,
  sealAuditTrail: true,
};

export const ReadinessCheck = z.object({
  /** certificate, private_key, timestamp_authority, revocation, policy */
  check: z.enum(['certificate', 'private_key', 'timestamp_authority', 'revocation', 'policy']),
  ok: z.boolean(),
  /** What was checked and what was found, in a sentence. */
  detail: z.string(),
  /** The authority's URL for `timestamp_authority`. */
  target: z.string().nullable(),
  /** How long the check's request took, for network checks. */
  durationMs: z.number().int().nullable(),
});
export type ReadinessCheck = z.output<typeof ReadinessCheck>;

export const SealingCertificateInfo = z.object({
  subject: z.string(),
  issuer: z.string(),
  serialNumber: z.string(),
  notBefore: IsoDateTime,
  notAfter: IsoDateTime,
  sha256: z.string(),
  /** `pkcs12` (configured) or `development` (the development CA under the data directory). */
  source: z.enum(['pkcs12', 'development']),
  /** Subjects from the seal certificate up to its root. */
  chain: z.array(z.string()),
});
export type SealingCertificateInfo = z.output<typeof SealingCertificateInfo>;

export const SecureSignatureReadiness = z.object({
  /** Every check passed: the platform can seal at every level (or, for an organization, at its policy). */
  ready: z.boolean(),
  /** The organization asked about, or null for the platform as a whole. */
  organizationId: z.uuid().nullable(),
  /** The highest level the platform can seal at right now. */
  highestReadyLevel: z.enum(PADES_LEVELS).nullable(),
  certificate: SealingCertificateInfo.nullable(),
  checks: z.array(ReadinessCheck),
  checkedAt: IsoDateTime,
});
export type SecureSignatureReadiness = z.output<typeof SecureSignatureReadiness>;

export const SecureSignaturePolicy = SecureSignatureSettings.extend({
  organizationId: z.uuid(),
  bounds: SecureSignatureBounds,
  /** Whether the platform can meet the policy now; when false, `problems` says why (shown before sending). */
  satisfiable: z.boolean(),
  problems: z.array(z.string()),
  updatedAt: IsoDateTime.nullable(),
});
export type SecureSignaturePolicy = z.output<typeof SecureSignaturePolicy>;

export const UpdateBackofficeSecureSignaturePolicyConfigurationRequest = z.strictObject({
  level: Level('level').optional(),
  timestampRequired: z.boolean({ message: 'timestampRequired must be true or false' }).optional(),
  sealAuditTrail: z.boolean({ message: 'sealAuditTrail must be true or false' }).optional(),
  /** Platform operators only (the backoffice route); an organization sending it is refused. */
  bounds: z
    .strictObject({
      allowedLevels: z
        .array(Level('bounds.allowedLevels[]'))
        .min(1, 'bounds.allowedLevels must name at least one level')
        .max(PADES_LEVELS.length)
        .refine((levels) => new Set(levels).size === levels.length, 'bounds.allowedLevels has a level twice')
        .optional(),
      timestampMandatory: z
        .boolean({ message: 'bounds.timestampMandatory must be true or false' })
        .optional(),
      auditTrailSealMandatory: z
        .boolean({ message: 'bounds.auditTrailSealMandatory must be true or false' })
        .optional(),
    })
    .optional(),
});
export type UpdateBackofficeSecureSignaturePolicyConfigurationRequest = z.output<
  typeof UpdateBackofficeSecureSignaturePolicyConfigurationRequest
>;

export const ReadinessQuery = z.strictObject({
  organizationId: z.uuid({ message: 'organizationId must be a uuid' }).optional(),
});

/** POST /api/verify: what a dropped PDF proves. */
export const VerificationResult = z.object({
  /**
   * `intact`: sealed by Sigil and unchanged since; `modified`: sealed by Sigil, changed since (an edit in the
   * signed bytes or something appended); `not_sealed`: no signature at all; `unknown_seal`: signed, but not
   * by Sigil's seal (or by a seal Sigil has no record of).
   */
  verdict: z.enum(['intact', 'modified', 'not_sealed', 'unknown_seal']),
  sealedBySigil: z.boolean(),
  unmodified: z.boolean(),
  /** Which of the envelope's documents this is. */
  document: z.enum(['final_pdf', 'audit_trail']).nullable(),
  signature: z
    .object({
      signerName: z.string(),
      certificateSha256: z.string(),
      subFilter: z.string(),
      level: z.enum(PADES_LEVELS).nullable(),
      /** The signing time the seal states. */
      signedAt: IsoDateTime.nullable(),
      /** The RFC 3161 timestamp's time and its authority's name, when there is one. */
      timestamp: z.object({ time: IsoDateTime, authority: z.string() }).nullable(),
      /** The signature is cryptographically sound over the bytes it covers. */
      cryptographicallyValid: z.boolean(),
      coversWholeFile: z.boolean(),
    })
    .nullable(),
  envelope: z
    .object({
      id: z.uuid(),
      title: z.string(),
      completedAt: IsoDateTime.nullable(),
      signers: z.array(z.object({ name: z.string(), role: z.string(), completedAt: IsoDateTime.nullable() })),
    })
    .nullable(),
  auditChain: z
    .object({
      intact: z.boolean(),
      /** The head sealed into the document, and the events it covered. */
      sealedHead: z.string().nullable(),
      sealedEvents: z.number().int().nullable(),
      /** Events recorded now. */
      events: z.number().int(),
    })
    .nullable(),
  /** Sentences explaining the verdict, in order of importance. */
  reasons: z.array(z.string()),
});
export type VerificationResult = z.output<typeof VerificationResult>;
