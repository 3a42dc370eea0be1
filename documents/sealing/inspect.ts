// Reads the signatures of a PDF and checks each one cryptographically, for the public verification. A
// signature's /ByteRange names the signed bytes and leaves out exactly its /Contents (the CMS, hex-encoded), so
// the two are found from the byte range itself; the CMS is checked with PKI.js over those bytes, including the
// message digest, and the signature timestamp (or a document timestamp's token) is read for its time.
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

const SIGNATURE_TIMESTAMP_OID = '1.2.840.113549.1.9.16.2.14';
const COMMON_NAME_OID = '2.5.4.3';
const ORGANIZATION_OID = '2.5.4.10';

// Passed explicitly to every check: PKI.js keeps one global engine, which other code (the signing library)
// replaces with its own.
const engine = new pkijs.CryptoEngine({
  name: 'sigil-node-webcrypto',
  crypto: globalThis.crypto as never,
});

export interface FoundSignature {
  fieldName: string | null;
  kind: 'signature' | 'document_timestamp';
  subFilter: string | null;
  byteRange: [number, number, number, number];
  /** The CMS, without the zero padding of its placeholder. */
  contents: Uint8Array<ArrayBuffer>;
  /** The /M entry of the signature dictionary. */
  statedTime: Date | null;
}

const BYTE_RANGE = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g;

/** Every signature dictionary with a well-formed /ByteRange, in file order. */
export function findSignatures(bytes: Uint8Array): FoundSignature[] {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const found: FoundSignature[] = [];
  for (const match of text.matchAll(BYTE_RANGE)) {
    const range = match.slice(1, 5).map(Number) as [number, number, number, number];
    const [start, firstLength, second, secondLength] = range;
    if (start !== 0 || second <= firstLength || second + secondLength > bytes.byteLength) continue;
    const gap = text.slice(firstLength, second).trim();
    if (!gap.startsWith('<') || !gap.endsWith('>')) continue;
    const hex = gap.slice(1, -1).replace(/\s+/g, '');
    if (!/^[0-9a-fA-F]*$/.test(hex)) continue;
    const contents = trimDer(Buffer.from(hex, 'hex'));
    if (!contents) continue;
    // The dictionary around the /ByteRange: from its object's start to the object's end.
    const objectStart = text.lastIndexOf(' obj', match.index);
    const objectEnd = text.indexOf('endobj', match.index);
    const dictionary = text.slice(Math.max(0, objectStart), objectEnd === -1 ? undefined : objectEnd);
    const type = /\/Type\s*\/(\w+)/.exec(dictionary)?.[1];
    found.push({
      fieldName: fieldNameOf(text, objectStart),
      kind: type === 'DocTimeStamp' ? 'document_timestamp' : 'signature',
      subFilter: /\/SubFilter\s*\/([\w.]+)/.exec(dictionary)?.[1] ?? null,
      byteRange: range,
      contents,
      statedTime: parsePdfDate(/\/M\s*\((D:[^)]*)\)/.exec(dictionary)?.[1]),
    });
  }
  return found;
}

/** The field whose /V points at the signature object (for naming the seal among several signatures). */
function fieldNameOf(text: string, objectStart: number): string | null {
  const header = /(\d+)\s+(\d+)\s*$/.exec(text.slice(Math.max(0, objectStart - 24), objectStart));
  if (!header) return null;
  const reference = new RegExp(`/V\\s+${header[1]}\\s+${header[2]}\\s+R`);
  for (const match of text.matchAll(/\/FT\s*\/Sig/g)) {
    const from = text.lastIndexOf('obj', match.index);
    const to = text.indexOf('endobj', match.index);
    const field = text.slice(from, to === -1 ? undefined : to);
    if (reference.test(field)) return /\/T\s*\(([^)]*)\)/.exec(field)?.[1] ?? null;
  }
  return null;
}

/** The DER element at the start of a zero-padded buffer, or null when it is not one. */
function trimDer(buffer: Buffer): Uint8Array<ArrayBuffer> | null {
  if (buffer.length < 2) return null;
  const parsed = asn1js.fromBER(new Uint8Array(buffer).buffer);
  if (parsed.offset === -1) return null;
  return new Uint8Array(buffer.subarray(0, parsed.offset));
}

export interface CheckedSignature {
  found: FoundSignature;
  /** The CMS verifies over exactly the bytes its /ByteRange names (message digest and signature). */
  cryptographicallyValid: boolean;
  coversWholeFile: boolean;
  /** DER of the signer's certificate, when the CMS carries it. */
  signerCertificate: Uint8Array | null;
  signerName: string;
  /** The RFC 3161 time: the signature timestamp, or a document timestamp's own time. */
  timestamp: { time: Date; authority: string } | null;
  problem: string | null;
}

export async function checkSignature(bytes: Uint8Array, found: FoundSignature): Promise<CheckedSignature> {
  const [, firstLength, second, secondLength] = found.byteRange;
  const signed = Buffer.concat([
    Buffer.from(bytes.subarray(0, firstLength)),
    Buffer.from(bytes.subarray(second, second + secondLength)),
  ]);
  const base = {
    found,
    coversWholeFile: second + secondLength === bytes.byteLength,
    signerCertificate: null,
    signerName: '',
    timestamp: null,
  };
  let signedData: pkijs.SignedData;
  try {
    const info = pkijs.ContentInfo.fromBER(found.contents);
    signedData = new pkijs.SignedData({ schema: info.content });
  } catch (error) {
    return {
      ...base,
      cryptographicallyValid: false,
      problem: `the signature is not a CMS structure: ${error}`,
    };
  }
  const signerCertificate = certificateOfSigner(signedData);
  let cryptographicallyValid = false;
  let problem: string | null = null;
  try {
    const verified = await signedData.verify(
      {
        signer: 0,
        data: new Uint8Array(signed).buffer,
        checkChain: false,
        extendedMode: true,
      },
      engine,
    );
    cryptographicallyValid = verified.signatureVerified === true;
    if (!cryptographicallyValid)
      problem = verified.message || 'the signature does not match the signed bytes';
  } catch (error) {
    const message = (error as { message?: string }).message ?? String(error);
    problem = `the signature does not match the signed bytes (${message})`;
  }
  return {
    ...base,
    cryptographicallyValid,
    problem,
    signerCertificate: signerCertificate ? new Uint8Array(signerCertificate.toSchema().toBER()) : null,
    signerName: signerCertificate ? nameOf(signerCertificate.subject) : '',
    timestamp:
      found.kind === 'document_timestamp' ? timestampOf(signedData) : signatureTimestampOf(signedData),
  };
}

function certificateOfSigner(signedData: pkijs.SignedData): pkijs.Certificate | null {
  const signerInfo = signedData.signerInfos[0];
  const certificates = (signedData.certificates ?? []).filter(
    (c): c is pkijs.Certificate => c instanceof pkijs.Certificate,
  );
  if (!signerInfo) return null;
  const sid = signerInfo.sid;
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    return (
      certificates.find((c) => c.serialNumber.isEqual(sid.serialNumber) && c.issuer.isEqual(sid.issuer)) ??
      null
    );
  }
  return certificates[0] ?? null;
}

function signatureTimestampOf(signedData: pkijs.SignedData): { time: Date; authority: string } | null {
  const attribute = signedData.signerInfos[0]?.unsignedAttrs?.attributes.find(
    (a) => a.type === SIGNATURE_TIMESTAMP_OID,
  );
  const token = attribute?.values[0];
  if (!token) return null;
  try {
    const info = new pkijs.ContentInfo({ schema: token });
    return timestampOf(new pkijs.SignedData({ schema: info.content }));
  } catch {
    return null;
  }
}

/** The time and issuer of a timestamp token's TSTInfo. */
function timestampOf(token: pkijs.SignedData): { time: Date; authority: string } | null {
  const content = token.encapContentInfo.eContent;
  if (!content) return null;
  try {
    const tstInfo = pkijs.TSTInfo.fromBER(content.getValue());
    const issuer = certificateOfSigner(token);
    return { time: tstInfo.genTime, authority: issuer ? nameOf(issuer.subject) : 'unknown authority' };
  } catch {
    return null;
  }
}

function nameOf(name: pkijs.RelativeDistinguishedNames): string {
  const value = (oid: string) =>
    name.typesAndValues.find((entry) => entry.type === oid)?.value.valueBlock.value as string | undefined;
  return value(COMMON_NAME_OID) ?? value(ORGANIZATION_OID) ?? 'unnamed';
}

/** D:YYYYMMDDHHmmSSOHH'mm' → Date. */
export function parsePdfDate(value: string | undefined): Date | null {
  const match = value
    ? /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+-])?(\d{2})?'?(\d{2})?'?$/.exec(value)
    : null;
  if (!match) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', sign, oh = '00', om = '00'] = match;
  const offset = sign === '+' || sign === '-' ? `${sign}${oh}:${om}` : 'Z';
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`);
  return Number.isNaN(date.getTime()) ? null : date;
}
