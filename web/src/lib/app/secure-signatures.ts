// Sealed documents in the pages (docs/sealing.md): the server's shapes (domain/secure-signature.ts, imported as
// types only, so the browser bundle gets no zod), the PAdES levels with their names and a sentence each, the
// readiness checks in words, the request a policy form sends, and how a certificate's fingerprint is shown.
import type { z } from 'zod';
import type * as sealing from '../../../../domain/secure-signature.ts';

export type PadesLevel = sealing.PadesLevel;
export type SecureSignaturePolicy = z.output<typeof sealing.SecureSignaturePolicy>;
export type SecureSignatureReadiness = z.output<typeof sealing.SecureSignatureReadiness>;
export type ReadinessCheck = z.output<typeof sealing.ReadinessCheck>;
export type VerificationResult = z.output<typeof sealing.VerificationResult>;
export type PolicyChange = z.input<typeof sealing.UpdateBackofficeSecureSignaturePolicyConfigurationRequest>;

/** The levels, weakest first (the server's PADES_LEVELS: the type fails if they change). */
export const PADES_LEVELS: typeof sealing.PADES_LEVELS = ['B-B', 'B-T', 'B-LT', 'B-LTA'];

export const LEVEL_NAME_KEYS: Record<PadesLevel, string> = {
  'B-B': 'sealing.level.name.BB',
  'B-T': 'sealing.level.name.BT',
  'B-LT': 'sealing.level.name.BLT',
  'B-LTA': 'sealing.level.name.BLTA',
};

/** What each level adds, in a sentence. */
export const LEVEL_HINT_KEYS: Record<PadesLevel, string> = {
  'B-B': 'sealing.level.hint.BB',
  'B-T': 'sealing.level.hint.BT',
  'B-LT': 'sealing.level.hint.BLT',
  'B-LTA': 'sealing.level.hint.BLTA',
};

export const CHECK_KEYS: Record<ReadinessCheck['check'], string> = {
  certificate: 'sealing.check.certificate',
  private_key: 'sealing.check.privateKey',
  timestamp_authority: 'sealing.check.timestampAuthority',
  revocation: 'sealing.check.revocation',
  policy: 'sealing.check.policy',
};

export const CERTIFICATE_SOURCE_KEYS: Record<
  NonNullable<SecureSignatureReadiness['certificate']>['source'],
  string
> = {
  pkcs12: 'sealing.certificate.source.pkcs12',
  development: 'sealing.certificate.source.development',
};

/** Whether a level carries a signature timestamp (domain/secure-signature.ts, levelNeedsTimestamp). */
export function levelNeedsTimestamp(level: PadesLevel): boolean {
  return level !== 'B-B';
}

/** A SHA-256 in hexadecimal as colon-separated byte pairs in capitals: `3A:F0:…`. */
export function fingerprint(hex: string): string {
  return (hex.toUpperCase().match(/[0-9A-F]{2}/g) ?? []).join(':');
}

/** The fingerprint's first and last four bytes, for a line where the whole one does not fit. */
export function shortFingerprint(hex: string): string {
  const pairs = fingerprint(hex).split(':');
  if (pairs.length <= 8) return pairs.join(':');
  return `${pairs.slice(0, 4).join(':')}…${pairs.slice(-4).join(':')}`;
}

/** What a policy form holds: the policy's settings, and (for the platform's operators) its bounds. */
export interface PolicyForm {
  level: PadesLevel;
  timestampRequired: boolean;
  sealAuditTrail: boolean;
  allowedLevels: PadesLevel[];
  timestampMandatory: boolean;
  auditTrailSealMandatory: boolean;
}

export function policyFormOf(policy: SecureSignaturePolicy): PolicyForm {
  return {
    level: policy.level,
    timestampRequired: policy.timestampRequired,
    sealAuditTrail: policy.sealAuditTrail,
    allowedLevels: [...policy.bounds.allowedLevels],
    timestampMandatory: policy.bounds.timestampMandatory,
    auditTrailSealMandatory: policy.bounds.auditTrailSealMandatory,
  };
}

/**
 * The request a form sends: every setting (a timestamp is never required at B-B, which has none; a bound that
 * makes a setting mandatory keeps it on), and with `withBounds` the bounds too, in the levels' order.
 */
export function policyRequest(form: PolicyForm, withBounds: boolean): PolicyChange {
  const request: PolicyChange = {
    level: form.level,
    timestampRequired: levelNeedsTimestamp(form.level) && (form.timestampRequired || form.timestampMandatory),
    sealAuditTrail: form.sealAuditTrail || form.auditTrailSealMandatory,
  };
  if (withBounds) {
    request.bounds = {
      allowedLevels: PADES_LEVELS.filter((level) => form.allowedLevels.includes(level)),
      timestampMandatory: form.timestampMandatory,
      auditTrailSealMandatory: form.auditTrailSealMandatory,
    };
  }
  return request;
}
