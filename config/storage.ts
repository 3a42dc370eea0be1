// The storage port's settings (docs/deployment.md "Object storage"): STORAGE chooses PostgreSQL (the default)
// or S3-compatible object storage, whose endpoint, bucket, region, credentials, addressing style and
// server-side encryption come from the S3_* variables. Parsed with the rest of config/config.ts.
import { z } from 'zod';

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

/** The variables, spread into config/config.ts's schema. */
export const STORAGE_VARIABLES = {
  STORAGE: optionalText.pipe(z.enum(['postgres', 's3'], { error: 'must be postgres or s3' }).optional()),
  S3_ENDPOINT: optionalText.pipe(
    z.url({ error: 'must be a URL, for example http://127.0.0.1:8333' }).optional(),
  ),
  S3_BUCKET: optionalText.pipe(
    z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
        'must be a bucket name (3-63 lowercase letters, digits, dots, hyphens)',
      )
      .optional(),
  ),
  S3_REGION: optionalText,
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  S3_FORCE_PATH_STYLE: optionalText.pipe(
    z
      .string()
      .regex(/^(true|false|1|0)$/i, 'must be true or false')
      .transform((value) => /^(true|1)$/i.test(value))
      .optional(),
  ),
  S3_SERVER_SIDE_ENCRYPTION: optionalText.pipe(
    z.enum(['AES256', 'aws:kms'], { error: 'must be AES256 or aws:kms' }).optional(),
  ),
  S3_SSE_KMS_KEY_ID: optionalText,
  S3_KEY_PREFIX: optionalText.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9!_.*'()/-]*$/, "must use only letters, digits and !_.*'()/- (a safe S3 key prefix)")
      .optional(),
  ),
};

const storageSchema = z.object(STORAGE_VARIABLES);
type StorageVariables = z.infer<typeof storageSchema>;

export interface S3Settings {
  /** S3_ENDPOINT; undefined: AWS's own endpoint for the region. */
  endpoint: string | undefined;
  bucket: string;
  /** S3_REGION, default us-east-1 (what SeaweedFS and most S3-compatible stores accept). */
  region: string;
  /** S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY (never log the secret); null: the SDK's default chain. */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
  /** S3_FORCE_PATH_STYLE: bucket in the path (most S3-compatible stores) rather than the host name. */
  forcePathStyle: boolean;
  /** S3_SERVER_SIDE_ENCRYPTION on every put, and S3_SSE_KMS_KEY_ID with aws:kms; null: the bucket's default. */
  serverSideEncryption: { algorithm: 'AES256' | 'aws:kms'; kmsKeyId: string | undefined } | null;
  /** S3_KEY_PREFIX, put before every object's key (for example `sigil/`); empty by default. */
  keyPrefix: string;
}

/**
 * `kind` is where new bytes go (STORAGE). With STORAGE=postgres, S3 settings (S3_BUCKET and the rest) may still be
 * given: the bucket then holds objects `sigil storage migrate --to s3` moved there (readable while STORAGE is not
 * yet switched) and is the migration's target.
 */
export type StorageConfig = { kind: 'postgres'; s3?: S3Settings } | { kind: 's3'; s3: S3Settings };

/** The storage settings, with a problem per bad combination added to `problems`. */
export function storageConfig(v: StorageVariables, problems: string[]): StorageConfig {
  if (v.S3_ACCESS_KEY_ID && !v.S3_SECRET_ACCESS_KEY) {
    problems.push('S3_SECRET_ACCESS_KEY: required when S3_ACCESS_KEY_ID is set');
  }
  if (v.S3_SECRET_ACCESS_KEY && !v.S3_ACCESS_KEY_ID) {
    problems.push('S3_ACCESS_KEY_ID: required when S3_SECRET_ACCESS_KEY is set');
  }
  if (v.S3_SSE_KMS_KEY_ID && v.S3_SERVER_SIDE_ENCRYPTION !== 'aws:kms') {
    problems.push('S3_SSE_KMS_KEY_ID: needs S3_SERVER_SIDE_ENCRYPTION=aws:kms');
  }
  if (v.STORAGE !== 's3' && !v.S3_BUCKET) {
    const stray = (Object.keys(STORAGE_VARIABLES) as (keyof StorageVariables)[]).filter(
      (name) => name !== 'STORAGE' && v[name] !== undefined,
    );
    for (const name of stray)
      problems.push(
        `${name}: needs STORAGE=s3, or S3_BUCKET for a migration to S3 (files are stored in PostgreSQL otherwise)`,
      );
    return { kind: 'postgres' };
  }
  if (!v.S3_BUCKET) problems.push('S3_BUCKET: required when STORAGE=s3');
  const s3: S3Settings = {
    endpoint: v.S3_ENDPOINT,
    bucket: v.S3_BUCKET ?? '',
    region: v.S3_REGION ?? 'us-east-1',
    credentials:
      v.S3_ACCESS_KEY_ID && v.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: v.S3_ACCESS_KEY_ID, secretAccessKey: v.S3_SECRET_ACCESS_KEY }
        : null,
    forcePathStyle: v.S3_FORCE_PATH_STYLE ?? false,
    serverSideEncryption: v.S3_SERVER_SIDE_ENCRYPTION
      ? { algorithm: v.S3_SERVER_SIDE_ENCRYPTION, kmsKeyId: v.S3_SSE_KMS_KEY_ID }
      : null,
    keyPrefix: v.S3_KEY_PREFIX ?? '',
  };
  return v.STORAGE === 's3' ? { kind: 's3', s3 } : { kind: 'postgres', s3 };
}
