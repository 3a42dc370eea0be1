// The sealing tests' instruments, checked against each other: a PAdES B-T signature made by @libpdf/core with
// a timestamp from the test timestamp authority (test/support/timestamp-authority.ts: OpenSSL's `ts -reply`
// behind node:http) is judged by the two independent validators (test/support/pdf-validators.ts: poppler's
// pdfsig and pyHanko). Each must say valid for the untouched file, invalid for a file with one signed byte
// changed, and "not the whole document" for a file with an incremental update appended; and the authority's
// outages must fail a timestamp request quickly and recover on the same URL. Needs no database or Temporal.
import 'reflect-metadata';
import { createHash, webcrypto } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CryptoKeySigner, HttpTimestampAuthority, PDF, StandardFonts, TimestampError } from '@libpdf/core';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPdfsig, runPyhankoValidate } from '../support/pdf-validators.ts';
import { startTestTimestampAuthority, type TestTimestampAuthority } from '../support/timestamp-authority.ts';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
} as const;
const DAY_MS = 86_400_000;
const SIGNER_COMMON_NAME = 'Sigil Test Seal';
const FIELD = 'Seal';
/** A failing request must fail well inside this, far below the client's own timeout. */
const QUICKLY_MS = 5_000;

let tsa: TestTimestampAuthority;
let dir: string;
let signerCaPath: string;
let signer: CryptoKeySigner;
/** The B-T signed PDF every test starts from. */
let signed: Uint8Array;

/** A root CA and the seal certificate it issues, with @peculiar/x509 (WebCrypto keys). */
async function makeSigner(): Promise<{ signer: CryptoKeySigner; caPem: string }> {
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + 365 * DAY_MS);
  const caKeys = await webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Sigil Test Signer Root CA, O=Sigil (tests)',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: RSA,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const sealKeys = await webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify']);
  const seal = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: `CN=${SIGNER_COMMON_NAME}, O=Sigil (tests)`,
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingKey: caKeys.privateKey,
    publicKey: sealKeys.publicKey,
    signingAlgorithm: RSA,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.nonRepudiation,
        true,
      ),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
      await x509.SubjectKeyIdentifierExtension.create(sealKeys.publicKey),
    ],
  });
  return {
    signer: new CryptoKeySigner(
      sealKeys.privateKey,
      new Uint8Array(seal.rawData),
      'RSA',
      'RSASSA-PKCS1-v1_5',
      [new Uint8Array(ca.rawData)],
    ),
    caPem: ca.toString('pem'),
  };
}

async function onePagePdf(): Promise<Uint8Array> {
  const pdf = PDF.create();
  const page = pdf.addPage();
  page.drawText('Sealed by the timestamp authority test', { x: 50, y: 700, font: StandardFonts.Helvetica });
  return pdf.save();
}

function digestOf(text: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(text).digest());
}

/** Elapsed milliseconds and the rejection of `promise` (which must reject). */
async function timedRejection(promise: Promise<unknown>): Promise<{ ms: number; error: Error }> {
  const started = performance.now();
  try {
    await promise;
  } catch (error) {
    return { ms: performance.now() - started, error: error as Error };
  }
  throw new Error('expected a rejection, but it resolved');
}

/** The `cause.code` of a failed fetch (ECONNREFUSED, ECONNRESET, …). */
function causeCode(error: Error): unknown {
  return (error.cause as NodeJS.ErrnoException | undefined)?.code;
}

beforeAll(async () => {
  tsa = await startTestTimestampAuthority();
  dir = await mkdtemp(join(tmpdir(), 'sigil-tsa-test-'));
  const made = await makeSigner();
  signer = made.signer;
  signerCaPath = join(dir, 'signer-ca.pem');
  await writeFile(signerCaPath, made.caPem);
  const pdf = await PDF.load(await onePagePdf());
  const result = await pdf.sign({
    signer,
    level: 'B-T',
    timestampAuthority: new HttpTimestampAuthority(tsa.url, { timeout: 20_000 }),
    fieldName: FIELD,
  });
  expect(result.warnings).toEqual([]);
  signed = result.bytes;
});

afterAll(async () => {
  await tsa?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a B-T seal made with the test timestamp authority', () => {
  it('took one token from the authority', () => {
    expect(tsa.requests()).toBe(1);
    expect(tsa.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/tsa$/);
    expect(tsa.caCertificatePem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(tsa.tsaCertificatePem).toMatch(/^-----BEGIN CERTIFICATE-----/);
  });

  it('is valid for pdfsig: an ETSI.CAdES.detached signature over the whole document', async () => {
    const result = await runPdfsig(signed);
    expect(result.signatures).toHaveLength(1);
    const [signature] = result.signatures;
    expect(signature).toMatchObject({
      field: FIELD,
      signerCommonName: SIGNER_COMMON_NAME,
      subFilter: 'ETSI.CAdES.detached',
      signatureValidation: 'Signature is Valid.',
      signatureValid: true,
      totalDocumentSigned: true,
      hashAlgorithm: 'SHA-256',
    });
    // Two ranges around the /Contents hole, the second ending at the end of the file.
    expect(signature?.signedRanges).toHaveLength(2);
    expect(signature?.signedRanges[0]?.[0]).toBe(0);
    expect(signature?.signedRanges[1]?.[1]).toBe(signed.byteLength);
  });

  it('is valid for pyHanko with the signer CA and the TSA CA as the only trust roots', async () => {
    const result = await runPyhankoValidate(signed, {
      trustRootPaths: [signerCaPath, tsa.caCertificatePath],
    });
    expect(result).toMatchObject({
      valid: true,
      intact: true,
      coversEntireFile: true,
      hasSignatureTimestamp: true,
    });
    expect(result.exitCode).toBe(0);
    expect(result.signatures).toHaveLength(1);
    const [signature] = result.signatures;
    expect(signature).toMatchObject({
      field: FIELD,
      signerTrust: 'trusted',
      modifications: 'none',
      timestampIntact: true,
      timestampTrusted: true,
      error: null,
    });
    expect(signature?.signerSubject).toContain(SIGNER_COMMON_NAME);
    // The token's time is OpenSSL's clock, which is this machine's.
    const stamped = Date.parse(signature?.signatureTimestamp ?? '');
    expect(Math.abs(stamped - Date.now())).toBeLessThan(10 * 60_000);
  });

  it('is not valid for pyHanko without the TSA CA: the trust roots are really the ones given', async () => {
    const result = await runPyhankoValidate(signed, { trustRootPaths: [signerCaPath] });
    expect(result.valid).toBe(false);
    expect(result.intact).toBe(true);
    expect(result.signatures[0]).toMatchObject({ signerTrust: 'trusted', timestampTrusted: false });
  });
});

describe('a seal with one signed byte changed', () => {
  let tampered: Uint8Array;

  beforeAll(async () => {
    // The second line is PDF's binary comment ("%" and four bytes above 127): changing one of its bytes leaves
    // the file readable, and it lies in the first signed range.
    const comment = signed.indexOf(0x0a) + 1;
    expect(signed[comment]).toBe('%'.charCodeAt(0));
    const offset = comment + 1;
    const [first] = (await runPdfsig(signed)).signatures[0]?.signedRanges ?? [];
    expect(offset).toBeLessThan(first?.[1] ?? 0);
    tampered = new Uint8Array(signed);
    tampered[offset] = (tampered[offset] ?? 0) ^ 0x01;
  });

  it('is invalid for pdfsig (digest mismatch)', async () => {
    const [signature] = (await runPdfsig(tampered)).signatures;
    expect(signature).toMatchObject({
      field: FIELD,
      signatureValid: false,
      signatureValidation: 'Digest Mismatch.',
      totalDocumentSigned: true,
    });
  });

  it('is invalid for pyHanko (cryptographically unsound)', async () => {
    const result = await runPyhankoValidate(tampered, {
      trustRootPaths: [signerCaPath, tsa.caCertificatePath],
    });
    expect(result).toMatchObject({ valid: false, intact: false, exitCode: 1 });
    expect(result.signatures[0]).toMatchObject({ field: FIELD, valid: false, intact: false, error: null });
  });
});

describe('a seal with an incremental update appended', () => {
  let updated: Uint8Array;

  beforeAll(async () => {
    const pdf = await PDF.load(signed);
    const page = pdf.getPage(0);
    if (!page) throw new Error('the signed PDF has no page');
    page.drawText('Added after sealing', { x: 50, y: 600, font: StandardFonts.Helvetica });
    updated = await pdf.save({ incremental: true });
    // Appended: the sealed bytes are untouched, so the signature over them still holds.
    expect(updated.byteLength).toBeGreaterThan(signed.byteLength);
    expect(Buffer.from(updated.subarray(0, signed.byteLength)).equals(Buffer.from(signed))).toBe(true);
  });

  it('is "not total document signed" for pdfsig', async () => {
    const [signature] = (await runPdfsig(updated)).signatures;
    expect(signature).toMatchObject({ field: FIELD, signatureValid: true, totalDocumentSigned: false });
  });

  it('does not cover the entire file for pyHanko, which judges the page change illegitimate', async () => {
    const result = await runPyhankoValidate(updated, {
      trustRootPaths: [signerCaPath, tsa.caCertificatePath],
    });
    expect(result).toMatchObject({ valid: false, intact: true, coversEntireFile: false, exitCode: 1 });
    expect(result.signatures[0]).toMatchObject({ modifications: 'illegitimate', signerTrust: 'trusted' });
  });
});

describe('the test timestamp authority', () => {
  const client = () => new HttpTimestampAuthority(tsa.url, { timeout: 30_000 });

  it('answers concurrent requests, each with a token of its own', async () => {
    const before = tsa.requests();
    const tokens = await Promise.all(
      Array.from({ length: 6 }, (_, index) => client().timestamp(digestOf(`concurrent ${index}`), 'SHA-256')),
    );
    expect(tsa.requests()).toBe(before + 6);
    const distinct = new Set(tokens.map((token) => createHash('sha256').update(token).digest('hex')));
    expect(distinct.size).toBe(6);
  });

  it('refuses connections while down (refuse), then answers again on the same URL', async () => {
    await tsa.setDown('refuse');
    const refused = await timedRejection(fetch(tsa.url, { method: 'POST' }));
    expect(causeCode(refused.error)).toBe('ECONNREFUSED');
    const failed = await timedRejection(client().timestamp(digestOf('refused'), 'SHA-256'));
    expect(failed.error).toBeInstanceOf(TimestampError);
    expect(failed.ms).toBeLessThan(QUICKLY_MS);

    await tsa.setDown(false);
    const before = tsa.requests();
    const token = await client().timestamp(digestOf('back after refusing'), 'SHA-256');
    expect(token.byteLength).toBeGreaterThan(0);
    expect(tsa.requests()).toBe(before + 1);
  });

  it('answers 503 while down (error503), then answers again', async () => {
    await tsa.setDown('error503');
    const before = tsa.requests();
    const response = await fetch(tsa.url, {
      method: 'POST',
      headers: { 'content-type': 'application/timestamp-query' },
      body: new Uint8Array([0x30, 0x00]),
    });
    expect(response.status).toBe(503);
    await response.arrayBuffer();
    const failed = await timedRejection(client().timestamp(digestOf('503'), 'SHA-256'));
    expect(failed.error).toBeInstanceOf(TimestampError);
    expect(failed.error.message).toContain('503');
    expect(failed.ms).toBeLessThan(QUICKLY_MS);
    expect(tsa.requests()).toBe(before);

    await tsa.setDown(false);
    await client().timestamp(digestOf('back after 503'), 'SHA-256');
    expect(tsa.requests()).toBe(before + 1);
  });

  it('turns away what is not a timestamp query', async () => {
    const get = await fetch(tsa.url);
    expect(get.status).toBe(405);
    await get.arrayBuffer();
    const wrongType = await fetch(tsa.url, { method: 'POST', body: 'hello' });
    expect(wrongType.status).toBe(415);
    await wrongType.arrayBuffer();
  });

  it('never answers while hanging, and close() ends the hanging request and everything else', async () => {
    const hanging = await startTestTimestampAuthority();
    const url = hanging.url;
    await hanging.setDown('hang');
    const pending = new HttpTimestampAuthority(url, { timeout: 120_000 }).timestamp(
      digestOf('hang'),
      'SHA-256',
    );
    const outcome = timedRejection(pending);
    await expect.poll(() => hanging.received()).toBe(1);
    // Still unanswered a moment later.
    const early = await Promise.race([outcome.then(() => 'settled'), sleep(300).then(() => 'pending')]);
    expect(early).toBe('pending');

    const closing = performance.now();
    await hanging.close();
    expect(performance.now() - closing).toBeLessThan(QUICKLY_MS);
    const { error } = await outcome;
    expect(error).toBeInstanceOf(TimestampError);
    // Dropped by close(), not by the client's two-minute timeout.
    expect(performance.now() - closing).toBeLessThan(QUICKLY_MS);
    expect(hanging.requests()).toBe(0);
    const gone = await timedRejection(fetch(url, { method: 'POST' }));
    expect(causeCode(gone.error)).toBe('ECONNREFUSED');
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
