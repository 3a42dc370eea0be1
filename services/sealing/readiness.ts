// Readiness of sealing (docs/sealing.md, "Readiness"): whether the platform can seal now, checked for real —
// the certificate loaded, in its validity period and signed by each issuer of its chain; the private key
// signing a probe that the certificate's public key verifies; a timestamp request to each configured
// authority; revocation data fetched (the development CA issues a CRL, a configured certificate's CRL is
// downloaded from the address it names); and, for one organization, whether its policy can be met. An
// organization's answer is kept for a minute so its settings page and the send page do not query every
// authority on each view; the backoffice asks afresh.
import { createHash, randomBytes } from 'node:crypto';
import { HttpTimestampAuthority } from '@libpdf/core';
import * as x509 from '@peculiar/x509';
import type { Config } from '../../config/config.ts';
import {
  levelNeedsRevocationData,
  levelNeedsTimestamp,
  type PadesLevel,
  type ReadinessCheck,
  type SecureSignatureReadiness,
  type SecureSignatureSettings,
} from '../../domain/secure-signature.ts';
import { developmentCrl, ensureDevelopmentCa } from '../../pdf/sealing/development-ca.ts';
import {
  certificateOf,
  describeCertificate,
  loadSealSigner,
  type SealSigner,
} from '../../pdf/sealing/signer.ts';
import type { ServiceConfig } from '../context.ts';

export interface SealingSettings {
  pkcs12: { path: string; passphrase: string } | null;
  dataDir: string;
  timestampAuthorities: string[];
  timestampTimeoutMs: number;
}

/** The sealing settings of a service configuration (defaults: development CA, no timestamp authority). */
export function sealingSettingsOf(config: ServiceConfig): SealingSettings {
  const sealing: Partial<Config['sealing']> = config.sealing ?? {};
  return {
    pkcs12: sealing.pkcs12 ?? null,
    dataDir: config.dataDir ?? '.data',
    timestampAuthorities: sealing.timestampAuthorities ?? [],
    timestampTimeoutMs: sealing.timestampTimeoutMs ?? 10_000,
  };
}

/** The platform's checks (no policy). */
export async function checkPlatformReadiness(
  settings: SealingSettings,
): Promise<Omit<SecureSignatureReadiness, 'organizationId'>> {
  const checks: ReadinessCheck[] = [];
  let signer: SealSigner | null = null;
  try {
    signer = await loadSealSigner(settings);
  } catch (error) {
    checks.push(check('certificate', false, (error as Error).message));
  }
  let certificate: SecureSignatureReadiness['certificate'] = null;
  if (signer) {
    certificate = describeCertificate(signer);
    checks.push(certificateCheck(signer));
    checks.push(await privateKeyCheck(signer));
  }
  const authorities = await Promise.all(
    settings.timestampAuthorities.map((url) => timestampCheck(url, settings.timestampTimeoutMs)),
  );
  if (authorities.length === 0) {
    checks.push(
      check(
        'timestamp_authority',
        false,
        'No timestamp authority is configured (TIMESTAMP_AUTHORITY_URLS): documents can be sealed at B-B only.',
      ),
    );
  }
  checks.push(...authorities);
  if (signer) checks.push(await revocationCheck(signer, settings));
  const ok = (kind: ReadinessCheck['check']) => checks.filter((c) => c.check === kind).every((c) => c.ok);
  const sealing = ok('certificate') && ok('private_key');
  const timestamps = checks.some((c) => c.check === 'timestamp_authority' && c.ok);
  const revocation = checks.some((c) => c.check === 'revocation' && c.ok);
  const highestReadyLevel: PadesLevel | null = !sealing
    ? null
    : !timestamps
      ? 'B-B'
      : !revocation
        ? 'B-T'
        : 'B-LTA';
  return {
    ready: checks.every((c) => c.ok),
    highestReadyLevel,
    certificate,
    checks,
    checkedAt: new Date().toISOString(),
  };
}

/** The platform's checks and whether one organization's policy can be met. */
export async function checkOrganizationReadiness(
  settings: SealingSettings,
  organizationId: string,
  policy: SecureSignatureSettings,
): Promise<SecureSignatureReadiness> {
  const platform = await checkPlatformReadiness(settings);
  const problems = policyProblems(platform, policy);
  const checks = [
    ...platform.checks.filter((c) => relevantTo(c, policy)),
    check(
      'policy',
      problems.length === 0,
      problems.length === 0
        ? `The policy (${policy.level}${policy.timestampRequired ? ', timestamp required' : ''}) can be met.`
        : problems.join(' '),
    ),
  ];
  return { ...platform, organizationId, ready: checks.every((c) => c.ok), checks };
}

/** Why a policy cannot be met with what the platform has now (empty: it can). */
export function policyProblems(
  platform: Pick<SecureSignatureReadiness, 'highestReadyLevel' | 'checks'>,
  policy: SecureSignatureSettings,
): string[] {
  const problems: string[] = [];
  if (platform.highestReadyLevel === null) {
    problems.push("The platform's seal certificate cannot be used now, so no document can be sealed.");
    return problems;
  }
  const timestamps = platform.checks.some((c) => c.check === 'timestamp_authority' && c.ok);
  const revocation = platform.checks.some((c) => c.check === 'revocation' && c.ok);
  if (levelNeedsTimestamp(policy.level) && !timestamps) {
    problems.push(
      policy.timestampRequired
        ? `No timestamp authority answers, and the policy requires a timestamp (${policy.level}): completed envelopes will wait in finalization until one answers.`
        : `No timestamp authority answers: documents will be sealed at B-B instead of ${policy.level}.`,
    );
  }
  if (levelNeedsRevocationData(policy.level) && timestamps && !revocation) {
    problems.push(`Revocation data cannot be fetched, which ${policy.level} embeds.`);
  }
  return problems;
}

function relevantTo(c: ReadinessCheck, policy: SecureSignatureSettings): boolean {
  if (c.check === 'timestamp_authority') return levelNeedsTimestamp(policy.level);
  if (c.check === 'revocation') return levelNeedsRevocationData(policy.level);
  return true;
}

const CACHE_MS = 60_000;
let cached: {
  key: string;
  at: number;
  value: Promise<Omit<SecureSignatureReadiness, 'organizationId'>>;
} | null = null;

/** The platform's checks, at most a minute old (for the organization's settings and the send page). */
export function recentPlatformReadiness(
  settings: SealingSettings,
): Promise<Omit<SecureSignatureReadiness, 'organizationId'>> {
  const key = JSON.stringify([settings.pkcs12?.path, settings.dataDir, settings.timestampAuthorities]);
  if (!cached || cached.key !== key || Date.now() - cached.at > CACHE_MS) {
    cached = { key, at: Date.now(), value: checkPlatformReadiness(settings) };
  }
  return cached.value;
}

function certificateCheck(signer: SealSigner): ReadinessCheck {
  const chain = signer.chainDer.map((der) => certificateOf(der));
  const seal = chain[0] as x509.X509Certificate;
  const now = Date.now();
  if (seal.notBefore.getTime() > now) {
    return check(
      'certificate',
      false,
      `The seal certificate is valid only from ${seal.notBefore.toISOString()}.`,
    );
  }
  if (seal.notAfter.getTime() <= now) {
    return check('certificate', false, `The seal certificate expired on ${seal.notAfter.toISOString()}.`);
  }
  const days = Math.floor((seal.notAfter.getTime() - now) / 86_400_000);
  const root = chain.at(-1) as x509.X509Certificate;
  const complete = root.subject === root.issuer;
  return check(
    'certificate',
    true,
    `"${seal.subject}" is valid until ${seal.notAfter.toISOString().slice(0, 10)} (${days} days); ` +
      (complete
        ? `its chain of ${chain.length} certificates ends at the root "${root.subject}".`
        : `its chain ends at "${root.subject}", issued by "${root.issuer}", which is not in the file (validators need it in their trust store).`),
  );
}

async function privateKeyCheck(signer: SealSigner): Promise<ReadinessCheck> {
  const probe = randomBytes(32);
  try {
    const signature = await signer.sign(probe, 'SHA-256');
    if (signer.keyType === 'RSA' && signer.signatureAlgorithm === 'RSASSA-PKCS1-v1_5') {
      const certificate = certificateOf(signer.certificate);
      const publicKey = await certificate.publicKey.export(
        { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
        ['verify'],
        globalThis.crypto as never,
      );
      const verified = await globalThis.crypto.subtle.verify(
        'RSASSA-PKCS1-v1_5',
        publicKey as never,
        new Uint8Array(signature),
        new Uint8Array(probe),
      );
      if (!verified) {
        return check(
          'private_key',
          false,
          "The private key's signature does not match the certificate's key.",
        );
      }
    }
    return check(
      'private_key',
      true,
      `The private key signs (${signer.keyType}, ${signer.signatureAlgorithm}).`,
    );
  } catch (error) {
    return check('private_key', false, `The private key cannot sign: ${(error as Error).message}`);
  }
}

async function timestampCheck(url: string, timeoutMs: number): Promise<ReadinessCheck> {
  const started = performance.now();
  const authority = new HttpTimestampAuthority(url, {
    timeout: timeoutMs,
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }),
  });
  try {
    const digest = createHash('sha256').update(randomBytes(32)).digest();
    const token = await authority.timestamp(new Uint8Array(digest), 'SHA-256');
    return {
      ...check('timestamp_authority', true, `Answered a timestamp request (${token.byteLength} bytes).`),
      target: url,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    const cause =
      (error as Error).cause instanceof Error ? ` (${((error as Error).cause as Error).message})` : '';
    return {
      ...check('timestamp_authority', false, `No timestamp: ${(error as Error).message}${cause}`),
      target: url,
      durationMs: Math.round(performance.now() - started),
    };
  }
}

async function revocationCheck(signer: SealSigner, settings: SealingSettings): Promise<ReadinessCheck> {
  const started = performance.now();
  const timed = (c: ReadinessCheck): ReadinessCheck => ({
    ...c,
    durationMs: Math.round(performance.now() - started),
  });
  if (signer.source === 'development') {
    try {
      const crl = await developmentCrl(await ensureDevelopmentCa(settings.dataDir));
      return timed(
        check(
          'revocation',
          true,
          `The development CA issues its own revocation list (${crl.byteLength} bytes).`,
        ),
      );
    } catch (error) {
      return timed(
        check('revocation', false, `The development CA cannot issue a CRL: ${(error as Error).message}`),
      );
    }
  }
  const certificate = certificateOf(signer.certificate);
  const points = certificate.getExtension(x509.CRLDistributionPointsExtension);
  const urls = (points?.distributionPoints ?? []).flatMap((point) =>
    (point.distributionPoint?.fullName ?? [])
      .map((name) => name.uniformResourceIdentifier)
      .filter((uri): uri is string => typeof uri === 'string' && /^https?:\/\//.test(uri)),
  );
  if (urls.length === 0) {
    return timed(
      check(
        'revocation',
        false,
        'The seal certificate names no CRL address (CRL distribution points), so B-LT and B-LTA cannot embed revocation data.',
      ),
    );
  }
  const failures: string[] = [];
  for (const url of urls) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(settings.timestampTimeoutMs) });
      if (!response.ok) {
        failures.push(`${url}: HTTP ${response.status}`);
        continue;
      }
      const body = new Uint8Array(await response.arrayBuffer());
      new x509.X509Crl(body);
      return {
        ...timed(check('revocation', true, `Fetched the CRL (${body.byteLength} bytes).`)),
        target: url,
      };
    } catch (error) {
      failures.push(`${url}: ${(error as Error).message}`);
    }
  }
  return timed(check('revocation', false, `No CRL could be fetched: ${failures.join('; ')}`));
}

function check(kind: ReadinessCheck['check'], ok: boolean, detail: string): ReadinessCheck {
  return { check: kind, ok, detail, target: null, durationMs: null };
}
