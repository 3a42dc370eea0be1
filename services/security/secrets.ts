// Secrets at rest: client secrets and passwords get a slow hash (scrypt); tokens are 256-bit random
// values stored as SHA-256.
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { scryptParameters } from './hash-cost.ts';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

const SCRYPT_MAXMEM = 64 * 1024 * 1024;

/** A new random token: 32 bytes (256 bits), base64url. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** `scrypt$N$r$p$salt$hash`, so parameters can be raised later without breaking stored hashes. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const SCRYPT = scryptParameters();
  const hash = await scryptAsync(secret, salt, SCRYPT.keyLength, {
    N: SCRYPT.N,
    r: SCRYPT.r,
    p: SCRYPT.p,
    maxmem: SCRYPT_MAXMEM,
  });
  return [
    'scrypt',
    SCRYPT.N,
    SCRYPT.r,
    SCRYPT.p,
    salt.toString('base64url'),
    hash.toString('base64url'),
  ].join('$');
}

/**
 * A well-formed hash with the current parameters that no secret is known to match: its salt and hash are
 * random bytes, not the hash of anything. Verifying a secret against it costs exactly what verifying against
 * a real hash costs, which is what it is for: the token endpoint pads a client's real hashes with it so every
 * attempt, for any client id, evaluates scrypt the same number of times.
 */
export const PADDING_SECRET_HASH = [
  'scrypt',
  scryptParameters().N,
  scryptParameters().r,
  scryptParameters().p,
  'RgzmcjMWhDlmqfWxHDp-PQ',
  'PkkwECL8pJDEo_u7aLn5gEzhEYtoYXbRzi4Vzs1EFP0',
].join('$');

/**
 * Whether `secret` matches the stored hash. Always evaluates scrypt once, also for a damaged record (which
 * refuses every secret), so the time taken does not tell a damaged record from a real one.
 */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const matched = await scryptMatches(secret, stored);
  if (matched !== undefined) return matched;
  // A damaged record: spend the time of a verification anyway, then refuse.
  await scryptMatches(secret, PADDING_SECRET_HASH);
  return false;
}

/** True or false when scrypt ran on a well-formed record, undefined when the record is damaged. */
async function scryptMatches(secret: string, stored: string): Promise<boolean | undefined> {
  const [scheme, n, r, p, salt, hash, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash || rest.length > 0) return undefined;
  const expected = Buffer.from(hash, 'base64url');
  // A damaged record must refuse every secret, never accept one: require a full-length hash.
  if (expected.length < scryptParameters('standard').keyLength) return undefined;
  try {
    const actual = await scryptAsync(secret, Buffer.from(salt, 'base64url'), expected.length, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: SCRYPT_MAXMEM,
    });
    return timingSafeEqual(actual, expected);
  } catch {
    // Parameters no scrypt accepts (or beyond the memory limit): a damaged record.
    return undefined;
  }
}
