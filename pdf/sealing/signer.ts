// The platform's sealing signer. Sealing code sees only the `SealSigner` interface (a certificate, its chain,
// a sign operation and where revocation data comes from), so a key held elsewhere — a cloud KMS, an HSM — can be
// added as one more implementation. Two exist: a PKCS#12 file from configuration (production) and the
// development CA's seal certificate (development-ca.ts).
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  CryptoKeySigner,
  type DigestAlgorithm,
  P12Signer,
  type RevocationProvider,
  type Signer,
} from '@libpdf/core';
import * as x509 from '@peculiar/x509';
import type { SealingCertificateInfo } from '../../domain/secure-signature.ts';
import { developmentCrl, ensureDevelopmentCa } from './development-ca.ts';

export interface SealSigner extends Signer {
  readonly source: 'pkcs12' | 'development';
  /** The seal certificate, then its issuers up to the root (DER). */
  readonly chainDer: Uint8Array[];
  /**
   * Where B-LT and B-LTA get revocation data: the development CA issues its own CRLs; undefined means the
   * library's default (OCSP and CRL URLs named in the certificates).
   */
  readonly revocationProvider: RevocationProvider | undefined;
}

/** The signer could not be loaded (file missing, wrong passphrase, no key): readiness and finalization say why. */
export class SealSignerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealSignerError';
  }
}

export interface SealSignerSettings {
  pkcs12: { path: string; passphrase: string } | null;
  dataDir: string;
}

const loaded = new Map<string, Promise<SealSigner>>();

/** The signer for these settings, loaded once per process (a failed load is retried on the next call). */
export function loadSealSigner(settings: SealSignerSettings): Promise<SealSigner> {
  const key = settings.pkcs12
    ? `pkcs12:${settings.pkcs12.path}:${sha256Hex(Buffer.from(settings.pkcs12.passphrase))}`
    : `development:${settings.dataDir}`;
  let signer = loaded.get(key);
  if (!signer) {
    signer = settings.pkcs12 ? fromPkcs12(settings.pkcs12) : fromDevelopmentCa(settings.dataDir);
    loaded.set(key, signer);
    signer.catch(() => loaded.delete(key));
  }
  return signer;
}

async function fromPkcs12(pkcs12: { path: string; passphrase: string }): Promise<SealSigner> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(pkcs12.path));
  } catch (error) {
    throw new SealSignerError(
      `the PKCS#12 file ${pkcs12.path} (SEALING_PKCS12_PATH) cannot be read: ${(error as Error).message}`,
    );
  }
  let signer: P12Signer;
  try {
    signer = await P12Signer.create(bytes, pkcs12.passphrase);
  } catch (error) {
    throw new SealSignerError(
      `the PKCS#12 file ${pkcs12.path} could not be opened (wrong SEALING_PKCS12_PASSPHRASE, or no private key ` +
        `in it): ${(error as Error).message}`,
    );
  }
  return {
    source: 'pkcs12',
    certificate: signer.certificate,
    certificateChain: signer.certificateChain,
    chainDer: [signer.certificate, ...signer.certificateChain],
    keyType: signer.keyType,
    signatureAlgorithm: signer.signatureAlgorithm,
    revocationProvider: undefined,
    sign: (data: Uint8Array, algorithm: DigestAlgorithm) => signer.sign(data, algorithm),
  };
}

async function fromDevelopmentCa(dataDir: string): Promise<SealSigner> {
  const ca = await ensureDevelopmentCa(dataDir);
  const caDer = new Uint8Array(ca.caCertificate.rawData);
  const sealDer = new Uint8Array(ca.sealCertificate.rawData);
  const signer = new CryptoKeySigner(ca.sealKey, sealDer, 'RSA', 'RSASSA-PKCS1-v1_5', [caDer]);
  const caFingerprint = sha256Hex(caDer);
  return {
    source: 'development',
    certificate: signer.certificate,
    certificateChain: signer.certificateChain,
    chainDer: [sealDer, caDer],
    keyType: signer.keyType,
    signatureAlgorithm: signer.signatureAlgorithm,
    revocationProvider: {
      // Only for certificates this CA issued; anything else (a timestamp authority's chain) has no data here.
      async getCRL(cert: Uint8Array): Promise<Uint8Array | null> {
        const certificate = certificateOf(cert);
        if (certificate.issuer !== ca.caCertificate.subject) return null;
        if (sha256Hex(cert) === caFingerprint) return null;
        return developmentCrl(ca);
      },
    },
    sign: (data: Uint8Array, algorithm: DigestAlgorithm) => signer.sign(data, algorithm),
  };
}

/** What readiness and the verification show of the seal certificate. */
export function describeCertificate(signer: SealSigner): SealingCertificateInfo {
  const certificate = certificateOf(signer.certificate);
  return {
    subject: certificate.subject,
    issuer: certificate.issuer,
    serialNumber: certificate.serialNumber,
    notBefore: certificate.notBefore.toISOString(),
    notAfter: certificate.notAfter.toISOString(),
    sha256: sha256Hex(signer.certificate),
    source: signer.source,
    chain: signer.chainDer.map((der) => certificateOf(der).subject),
  };
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** An X.509 certificate from DER bytes (copied: the parser wants bytes of an ArrayBuffer of their own). */
export function certificateOf(der: Uint8Array): x509.X509Certificate {
  return new x509.X509Certificate(new Uint8Array(der));
}
