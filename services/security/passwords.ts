// Users' passwords: argon2id (RFC 9106) through Node's own crypto.argon2 (Node 24.7 and later; no native
// addon), with OWASP's recommended minimum parameters: 19 MiB of memory, 2 passes, 1 lane (hash-cost.ts).
// Stored in the PHC string format, so the parameters travel with each hash and can be raised later.
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { argon2Parameters } from './hash-cost.ts';

const argon2Async = promisify(argon2);

/** The standard parameters (what production uses). */
export const ARGON2_PARAMETERS = argon2Parameters('standard');

async function derive(
  password: string,
  nonce: Buffer,
  p: { memory: number; passes: number; parallelism: number; tagLength: number },
): Promise<Buffer> {
  return argon2Async('argon2id', {
    message: Buffer.from(password, 'utf8'),
    nonce,
    memory: p.memory,
    passes: p.passes,
    parallelism: p.parallelism,
    tagLength: p.tagLength,
  });
}

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

export async function hashPassword(password: string): Promise<string> {
  const nonce = randomBytes(16);
  const p = argon2Parameters();
  const tag = await derive(password, nonce, p);
  return `$argon2id$v=19$m=${p.memory},t=${p.passes},p=${p.parallelism}$${b64(nonce)}$${b64(tag)}`;
}

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = PHC.exec(stored);
  if (!match) return false;
  const [, m, t, p, nonce, tag] = match as unknown as [string, string, string, string, string, string];
  const expected = Buffer.from(tag, 'base64');
  const actual = await derive(password, Buffer.from(nonce, 'base64'), {
    memory: Number(m),
    passes: Number(t),
    parallelism: Number(p),
    tagLength: expected.length,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash of a random password with the current parameters: verified against when an account does not
 * exist (or has no password yet), so a sign-in takes as long whether or not the email is known.
 */
export const PADDING_PASSWORD_HASH: Promise<string> = hashPassword(randomBytes(16).toString('hex'));
