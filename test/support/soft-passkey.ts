// A passkey made in software, for tests that need valid WebAuthn answers without a browser (the browser
// journeys use Chromium's virtual authenticator instead): an ES256 key, a `none` attestation, signed
// assertions and the client data a browser would send for the given options and origin.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

type Cbor = number | string | Uint8Array | CborMap | { [key: string]: Cbor };
interface CborMap extends Map<number | string, Cbor> {}

/** CBOR (RFC 8949) for the few shapes an attestation object holds: small ints, text, bytes and maps. */
function cbor(value: Cbor): Buffer {
  const head = (major: number, length: number): Buffer => {
    if (length < 24) return Buffer.from([(major << 5) | length]);
    if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
    if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
    const buffer = Buffer.alloc(5);
    buffer[0] = (major << 5) | 26;
    buffer.writeUInt32BE(length, 1);
    return buffer;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([
    head(5, entries.length),
    ...entries.flatMap(([key, item]) => [cbor(key), cbor(item)]),
  ]);
}

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

export interface SoftRegistration {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; attestationObject: string; transports: string[] };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: 'platform';
}

export interface SoftAssertion {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; authenticatorData: string; signature: string };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: 'platform';
}

export interface SoftPasskey {
  /** A RegistrationResponseJSON answering `options` (their `challenge` and `rp.id`) as a browser at `origin` would. */
  register(options: { challenge: string; rp: { id?: string } }, origin: string): SoftRegistration;
  /** An AuthenticationResponseJSON for sign-in `options` (their `challenge` and `rpId`), signed with the key. */
  assert(options: { challenge: string; rpId?: string }, origin: string): SoftAssertion;
}

const rpIdHash = (rpId: string) => createHash('sha256').update(rpId).digest();
const clientDataOf = (type: string, challenge: string, origin: string) =>
  Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));

/** A new credential: an ES256 key pair and a random credential id; its signature counter starts at 0. */
export function softPasskey(): SoftPasskey {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const credentialId = randomBytes(32);
  let counter = 0;
  const counterBytes = () => {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(counter);
    return bytes;
  };
  return {
    register(options, origin) {
      const rpId = options.rp.id ?? new URL(origin).hostname;
      const credentialIdLength = Buffer.alloc(2);
      credentialIdLength.writeUInt16BE(credentialId.length);
      const authenticatorData = Buffer.concat([
        rpIdHash(rpId),
        Buffer.from([0x45]), // user present, user verified, attested credential data
        counterBytes(),
        Buffer.alloc(16), // AAGUID: none
        credentialIdLength,
        credentialId,
        coseKeyOf(publicKey),
      ]);
      const attestation = cbor({ fmt: 'none', attStmt: {}, authData: authenticatorData });
      return {
        id: base64url(credentialId),
        rawId: base64url(credentialId),
        type: 'public-key',
        response: {
          clientDataJSON: base64url(clientDataOf('webauthn.create', options.challenge, origin)),
          attestationObject: base64url(attestation),
          transports: ['internal'],
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },
    assert(options, origin) {
      counter += 1;
      const rpId = options.rpId ?? new URL(origin).hostname;
      const authenticatorData = Buffer.concat([rpIdHash(rpId), Buffer.from([0x05]), counterBytes()]);
      const clientData = clientDataOf('webauthn.get', options.challenge, origin);
      const signed = Buffer.concat([authenticatorData, createHash('sha256').update(clientData).digest()]);
      return {
        id: base64url(credentialId),
        rawId: base64url(credentialId),
        type: 'public-key',
        response: {
          clientDataJSON: base64url(clientData),
          authenticatorData: base64url(authenticatorData),
          // ECDSA with SHA-256, DER-encoded as WebAuthn wants it (Node's default for EC keys).
          signature: base64url(sign('sha256', signed, privateKey)),
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },
  };
}

function coseKeyOf(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  return cbor(
    new Map<number, Cbor>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x as string, 'base64url')],
      [-3, Buffer.from(jwk.y as string, 'base64url')],
    ]),
  );
}

/** A registration by a new software passkey (for tests that never sign in with it). */
export const softRegistration = (options: { challenge: string; rp: { id?: string } }, origin: string) =>
  softPasskey().register(options, origin);
