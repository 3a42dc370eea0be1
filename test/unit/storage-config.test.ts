// The storage port's settings (config/storage.ts): PostgreSQL unless STORAGE=s3, the S3 settings read whole (also
// under STORAGE=postgres when a bucket is named: the target of `sigil storage migrate --to s3`), and every bad
// combination refused by name with what to do.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config/config.ts';

function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig({ SIGIL_ENV: 'test', ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('storage settings', () => {
  it('stores in PostgreSQL by default', () => {
    expect(loadConfig({ SIGIL_ENV: 'test' }).storage).toEqual({ kind: 'postgres' });
  });

  it('reads every S3 setting with STORAGE=s3', () => {
    const config = loadConfig({
      SIGIL_ENV: 'test',
      STORAGE: 's3',
      S3_ENDPOINT: 'http://127.0.0.1:8333',
      S3_BUCKET: 'sigil-files',
      S3_REGION: 'eu-central-1',
      S3_ACCESS_KEY_ID: 'key-id',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_FORCE_PATH_STYLE: 'true',
      S3_SERVER_SIDE_ENCRYPTION: 'aws:kms',
      S3_SSE_KMS_KEY_ID: 'alias/sigil',
      S3_KEY_PREFIX: 'sigil/',
    });
    expect(config.storage).toEqual({
      kind: 's3',
      s3: {
        endpoint: 'http://127.0.0.1:8333',
        bucket: 'sigil-files',
        region: 'eu-central-1',
        credentials: { accessKeyId: 'key-id', secretAccessKey: 'secret' },
        forcePathStyle: true,
        serverSideEncryption: { algorithm: 'aws:kms', kmsKeyId: 'alias/sigil' },
        keyPrefix: 'sigil/',
      },
    });
  });

  it('defaults the region, the addressing and the credentials chain', () => {
    const { storage } = loadConfig({ SIGIL_ENV: 'test', STORAGE: 's3', S3_BUCKET: 'sigil-files' });
    expect(storage).toMatchObject({
      kind: 's3',
      s3: {
        endpoint: undefined,
        region: 'us-east-1',
        credentials: null,
        forcePathStyle: false,
        keyPrefix: '',
      },
    });
  });

  it('refuses STORAGE=s3 without a bucket, half a key pair and a KMS key without aws:kms', () => {
    expect(problems({ STORAGE: 's3', S3_ACCESS_KEY_ID: 'id', S3_SSE_KMS_KEY_ID: 'k' })).toEqual([
      'S3_SECRET_ACCESS_KEY: required when S3_ACCESS_KEY_ID is set',
      'S3_SSE_KMS_KEY_ID: needs S3_SERVER_SIDE_ENCRYPTION=aws:kms',
      'S3_BUCKET: required when STORAGE=s3',
    ]);
  });

  it('keeps S3 settings with a bucket under STORAGE=postgres (a migration to S3): new files still go to PostgreSQL', () => {
    const { storage } = loadConfig({
      SIGIL_ENV: 'test',
      S3_BUCKET: 'sigil-files',
      S3_FORCE_PATH_STYLE: 'true',
    });
    expect(storage).toMatchObject({ kind: 'postgres', s3: { bucket: 'sigil-files', forcePathStyle: true } });
  });

  it('refuses S3 settings without STORAGE=s3 or a bucket, and bad values by name', () => {
    expect(problems({ S3_ENDPOINT: 'http://127.0.0.1:8333' })).toEqual([
      'S3_ENDPOINT: needs STORAGE=s3, or S3_BUCKET for a migration to S3 (files are stored in PostgreSQL otherwise)',
    ]);
    const bad = problems({ STORAGE: 'disk', S3_ENDPOINT: 'not a url', S3_SERVER_SIDE_ENCRYPTION: 'rot13' });
    expect(bad.map((problem) => problem.split(':')[0])).toEqual([
      'STORAGE',
      'S3_ENDPOINT',
      'S3_SERVER_SIDE_ENCRYPTION',
    ]);
    expect(bad[0]).toBe('STORAGE: must be postgres or s3');
  });
});
