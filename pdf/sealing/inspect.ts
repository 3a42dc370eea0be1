// Reads the signatures of a PDF and checks each one cryptographically, for the public verification. A
// signature's /ByteRange names the signed bytes and leaves out exactly its /Contents (the CMS, hex-encoded); a
// signature is found by its dictionary (a /ByteRange and a /Contents holding a CMS), and a byte range that does
// not leave out exactly that /Contents is reported as changed rather than hiding the signature; the CMS is checked with PKI.js over those bytes, including the
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
  /**
   * Whether the /ByteRange is what a signer writes: four offsets from the start of the file, within it, leaving
   * out exactly the dictionary's /Contents. A seal whose byte range was edited is still found (by its
   * /Contents), so that verification can say it was changed rather than that the file is not sealed.
   */
  byteRangeIntact: boolean;
  /** The CMS, without the zero padding of its placeholder. */
  contents: Uint8Array<ArrayBuffer>;
  /** The /M entry of the signature dictionary. */
  statedTime: Date | null;
}

const BYTE_RANGE = /\/ByteRange\s*\[([^\]]*)\]/g;
const CONTENTS = /\/Contents\s*<([0-9a-fA-F\s]*)>/;

/** Every signature dictionary with a /ByteRange and a CMS in its /Contents, in file order. */
export function findSignatures(bytes: Uint8Array): FoundSignature[] {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const found: FoundSignature[] = [];
  for (const match of text.matchAll(BYTE_RANGE)) {
    // The dictionary around the /ByteRange: from its object's start to the object's end.
    const objectStart = text.lastIndexOf(' obj', match.index);
    const objectEnd = text.indexOf('endobj', match.index);
    const from = Math.max(0, objectStart);
    const dictionary = text.slice(from, objectEnd === -1 ? undefined : objectEnd);
    const literal = CONTENTS.exec(dictionary);
    if (!literal) continue;
    const contents = trimDer(Buffer.from((literal[1] as string).replace(/\s+/g, ''), 'hex'));
    if (!contents) continue;
    const numbers = (match[1] as string).trim().split(/\s+/);
    const range = (
      numbers.length === 4 && numbers.every((n) => /^\d{1,15}$/.test(n)) ? numbers.map(Number) : [0, 0, 0, 0]
    ) as [number, number, number, number];
    const [start, firstLength, second, secondLength] = range;
    const literalAt = from + literal.index + literal[0].indexOf('<');
    const literalEnd = from + literal.index + literal[0].length;
    const byteRangeIntact =
      numbers.length === 4 &&
      start === 0 &&
      second > firstLength &&
      second + secondLength <= bytes.byteLength &&
      text.slice(firstLength, literalAt).trim() === '' &&
      text.slice(literalEnd, second).trim() === '' &&
      firstLength <= literalAt &&
      second >= literalEnd;
    const type = /\/Type\s*\/(\w+)/.exec(dictionary)?.[1];
    found.push({
      fieldName: fieldNameOf(text, objectStart),
      kind: type === 'DocTimeStamp' ? 'document_timestamp' : 'signature',
      subFilter: /\/SubFilter\s*\/([\w.]+)/.exec(dictionary)?.[1] ?? null,
      byteRange: range,
      byteRangeIntact,
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
    coversWholeFile: found.byteRangeIntact && second + secondLength === bytes.byteLength,
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
  const { cryptographicallyValid, problem } = found.byteRangeIntact
    ? await verifyOver(signedData, signed)
    : {
        cryptographicallyValid: false,
        problem: 'the byte range no longer names the signed bytes (it was changed)',
      };
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

/** The CMS checked over `signed`: its message digest and its signature. */
async function verifyOver(
  signedData: pkijs.SignedData,
  signed: Buffer,
): Promise<{ cryptographicallyValid: boolean; problem: string | null }> {
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
    if (verified.signatureVerified === true) return { cryptographicallyValid: true, problem: null };
    return {
      cryptographicallyValid: false,
      problem: verified.message || 'the signature does not match the signed bytes',
    };
  } catch (error) {
    const message = (error as { message?: string }).message ?? String(error);
    return {
      cryptographicallyValid: false,
      problem: `the signature does not match the signed bytes (${message})`,
    };
  }
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
