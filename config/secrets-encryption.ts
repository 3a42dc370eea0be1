// Secrets at rest (users' TOTP secrets): AES-256-GCM with the process's key (config/encryption-key.ts), a
// random 96-bit nonce per value, stored as `v1.<nonce>.<ciphertext+tag>` in base64url. The version lets a
// later key rotation tell old values from new ones.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export function encryptSecret(key: Buffer, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${nonce.toString('base64url')}.${sealed.toString('base64url')}`;
}

/** The plaintext; throws when the value was not made with this key or was changed. */
export function decryptSecret(key: Buffer, stored: string): string {
  const [version, nonce, sealed] = stored.split('.');
  if (version !== VERSION || !nonce || !sealed) throw new Error('not an encrypted secret of this version');
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString(
    'utf8',
  );
}
