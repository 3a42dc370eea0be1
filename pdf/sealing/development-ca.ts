// The development certificate authority: outside production, when no PKCS#12 file is configured, Sigil seals
// with a certificate issued by a CA of its own, generated once under the data directory (`sealing/`, never
// committed: DATA_DIR is ignored by git) by the first process that needs it — `npm start` does so at start.
// The CA also issues the certificate revocation lists that B-LT and B-LTA embed (revocation.ts).
import 'reflect-metadata';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

// The platform's WebCrypto (Node's global `crypto`). Its types are Node's to the server's compiler and the DOM's
// to the web app's type check (which reaches this file through the API's types), so both are derived from it.
const webcrypto = globalThis.crypto;
x509.cryptoProvider.set(webcrypto as never);

type CryptoKey = Awaited<ReturnType<typeof webcrypto.subtle.importKey>>;

export const RSA_SIGNING = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
} as const;

const DAY_MS = 86_400_000;
const FILES = {
  caCertificate: 'ca.crt.pem',
  caKey: 'ca.key.pem',
  sealCertificate: 'seal.crt.pem',
  sealKey: 'seal.key.pem',
} as const;

export interface DevelopmentCa {
  directory: string;
  caCertificate: x509.X509Certificate;
  caKey: CryptoKey;
  sealCertificate: x509.X509Certificate;
  sealKey: CryptoKey;
}

export function developmentCaDirectory(dataDir: string): string {
  return join(dataDir, 'sealing');
}

/** Loads the development CA, generating it first when the data directory has none. */
export async function ensureDevelopmentCa(dataDir: string): Promise<DevelopmentCa & { created: boolean }> {
  const directory = developmentCaDirectory(dataDir);
  const existing = await loadDevelopmentCa(directory);
  if (existing) return { ...existing, created: false };
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const generated = await generate(directory);
  // Written to a private temporary folder and renamed into place: two processes starting together cannot mix
  // their halves; the one that loses the rename reads the winner's files.
  const staging = `${directory}/.staging-${process.pid}-${Date.now()}`;
  mkdirSync(staging, { mode: 0o700 });
  writeFileSync(join(staging, FILES.caCertificate), generated.caCertificate.toString('pem'));
  writeFileSync(join(staging, FILES.sealCertificate), generated.sealCertificate.toString('pem'));
  writeFileSync(join(staging, FILES.caKey), await privateKeyPem(generated.caKey), { mode: 0o600 });
  writeFileSync(join(staging, FILES.sealKey), await privateKeyPem(generated.sealKey), { mode: 0o600 });
  const bundle = join(directory, 'current');
  try {
    renameSync(staging, bundle);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    const winner = await loadDevelopmentCa(directory);
    if (winner) return { ...winner, created: false };
    throw error;
  }
  return { ...generated, directory: bundle, created: true };
}

async function loadDevelopmentCa(directory: string): Promise<DevelopmentCa | null> {
  const bundle = join(directory, 'current');
  let texts: Record<keyof typeof FILES, string>;
  try {
    texts = {
      caCertificate: readFileSync(join(bundle, FILES.caCertificate), 'utf8'),
      caKey: readFileSync(join(bundle, FILES.caKey), 'utf8'),
      sealCertificate: readFileSync(join(bundle, FILES.sealCertificate), 'utf8'),
      sealKey: readFileSync(join(bundle, FILES.sealKey), 'utf8'),
    };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return {
    directory: bundle,
    caCertificate: new x509.X509Certificate(texts.caCertificate),
    caKey: await importPrivateKey(texts.caKey),
    sealCertificate: new x509.X509Certificate(texts.sealCertificate),
    sealKey: await importPrivateKey(texts.sealKey),
  };
}

async function generate(directory: string): Promise<DevelopmentCa> {
  const now = new Date(Date.now() - 60_000);
  const caKeys = await webcrypto.subtle.generateKey(RSA_SIGNING, true, ['sign', 'verify']);
  const caCertificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: 'CN=Sigil Development Root CA, O=Sigil (development only)',
    notBefore: now,
    notAfter: new Date(now.getTime() + 10 * 365 * DAY_MS),
    keys: caKeys,
    signingAlgorithm: RSA_SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const sealKeys = await webcrypto.subtle.generateKey(RSA_SIGNING, true, ['sign', 'verify']);
  const sealCertificate = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: 'CN=Sigil Document Seal (development only), O=Sigil (development only)',
    issuer: caCertificate.subject,
    notBefore: now,
    notAfter: new Date(now.getTime() + 3 * 365 * DAY_MS),
    signingKey: caKeys.privateKey,
    publicKey: sealKeys.publicKey,
    signingAlgorithm: RSA_SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation,
        true,
      ),
      await x509.AuthorityKeyIdentifierExtension.create(caCertificate),
      await x509.SubjectKeyIdentifierExtension.create(sealKeys.publicKey),
    ],
  });
  return {
    directory,
    caCertificate,
    caKey: caKeys.privateKey,
    sealCertificate,
    sealKey: sealKeys.privateKey,
  };
}

/** A certificate revocation list of the development CA (it revokes nothing), valid for a week. */
export async function developmentCrl(ca: DevelopmentCa): Promise<Uint8Array> {
  const now = new Date(Date.now() - 60_000);
  const crl = await x509.X509CrlGenerator.create({
    issuer: ca.caCertificate.subject,
    thisUpdate: now,
    nextUpdate: new Date(now.getTime() + 7 * DAY_MS),
    signingKey: ca.caKey,
    signingAlgorithm: RSA_SIGNING,
    extensions: [await x509.AuthorityKeyIdentifierExtension.create(ca.caCertificate)],
  });
  return new Uint8Array(crl.rawData);
}

function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] as number) & 0x7f; // positive
  return Buffer.from(bytes).toString('hex');
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

async function importPrivateKey(pem: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----(BEGIN|END) PRIVATE KEY-----|\s+/g, ''), 'base64');
  return webcrypto.subtle.importKey('pkcs8', der, RSA_SIGNING, true, ['sign']);
}
