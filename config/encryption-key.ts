// The key that encrypts secrets at rest (users' MFA secrets): SECRETS_ENCRYPTION_KEY in production; elsewhere a
// key generated once into the data directory (`secrets-encryption.key`, mode 0600, never committed: DATA_DIR
// is ignored by git), so `npm start` needs no setting and restarts keep every enrolment working.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.ts';

export const DEV_KEY_FILE = 'secrets-encryption.key';

export function resolveEncryptionKey(
  config: Pick<Config, 'env' | 'dataDir' | 'secretsEncryptionKey'>,
): Buffer {
  if (config.secretsEncryptionKey) return Buffer.from(config.secretsEncryptionKey, 'base64');
  if (config.env === 'production') {
    // loadConfig refuses this already; kept so no caller can end up with a generated key in production.
    throw new Error('SECRETS_ENCRYPTION_KEY is required when SIGIL_ENV=production');
  }
  const file = join(config.dataDir, DEV_KEY_FILE);
  try {
    const stored = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (stored.length === 32) return stored;
    throw new Error(`${file} does not hold 32 bytes in base64: delete it to generate a new key`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  // `wx`: two processes starting together cannot both write; the loser reads the winner's key.
  try {
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  }
}

/** The key, resolved the first time it is asked for (a development key file is written only then). */
export function lazySecretsKey(
  config: Pick<Config, 'env' | 'dataDir' | 'secretsEncryptionKey'>,
): () => Buffer {
  let key: Buffer | undefined;
  return () => {
    key ??= resolveEncryptionKey(config);
    return key;
  };
}
