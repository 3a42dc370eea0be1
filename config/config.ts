// Configuration: every setting Sigil reads from the environment, validated once at start.
// `.env.example` documents each variable; keep the two in step.
import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { STORAGE_VARIABLES, type StorageConfig, storageConfig } from './storage.ts';

const port = z.coerce.number().int().min(1).max(65535);
const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();
const booleanText = z
  .string()
  .regex(/^(true|false|1|0)$/i, 'must be true or false')
  .transform((value) => /^(true|1)$/i.test(value));

/** A comma-separated list (empty by default), trimmed, empty entries dropped; every entry must pass `valid`. */
const commaList = (valid: (entry: string) => boolean, message: string) =>
  z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    )
    .refine((entries) => entries.every(valid), message);
const schema = z.object({
  SIGIL_ENV: z.enum(['development', 'production', 'test']).default('development'),
  // Default: loopback outside production (the development capture and demo must not face the network).
  HOST: z.string().trim().min(1).optional(),
  PORT: port.default(3000),
  PUBLIC_BASE_URL: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().trim().min(1).default('.data'),
  // 32 random bytes in base64: encrypts MFA secrets at rest. Required in production; elsewhere generated once
  // under DATA_DIR (config/encryption-key.ts).
  SECRETS_ENCRYPTION_KEY: optionalText.pipe(
    z
      .string()
      .refine(
        (value) => Buffer.from(value, 'base64').length === 32 && /^[A-Za-z0-9+/]+={0,2}$/.test(value),
        'must be 32 bytes in base64 (for example: openssl rand -base64 32)',
      )
      .optional(),
  ),
  SIGIL_CACHE_DIR: z.string().trim().min(1).optional(),
  DATABASE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
      .optional(),
  ),
  EMBEDDED_POSTGRES_PORT: port.default(5433),
  // Connections each process keeps to PostgreSQL at most (the API's and the worker's pool each).
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  TEMPORAL_ADDRESS: optionalText.pipe(
    z
      .string()
      .regex(/^[^\s:/]+:\d+$/, 'must be host:port, for example temporal.internal:7233')
      .optional(),
  ),
  TEMPORAL_NAMESPACE: z.string().trim().min(1).default('default'),
  TEMPORAL_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_UI_URL: optionalText.pipe(z.url().optional()),
  TEMPORAL_CLI_PATH: optionalText,
  TEMPORAL_TEST_SERVER_PATH: optionalText,
  TEMPORAL_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(500).max(120_000).default(10_000),
  // Workflows a worker keeps in memory between tasks (unset: the SDK's default for the heap); an evicted
  // envelope costs one replay of its history at its next task.
  WORKER_MAX_CACHED_WORKFLOWS: optionalText.pipe(
    z.coerce
      .number<string | undefined>({ error: 'must be a whole number from 0' })
      .int('must be a whole number from 0')
      .min(0, 'must be a whole number from 0')
      .optional(),
  ),
  // Where workers keep the bundled workflow code, one file per version of it (unset: <SIGIL_CACHE_DIR>/workflow-bundles).
  WORKFLOW_BUNDLE_DIR: optionalText,
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(1).max(600).default(20),
  TRUSTED_PROXIES: commaList(
    (entry) => isIpOrCidr(entry),
    'must be a comma-separated list of IPs or CIDR ranges',
  ),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
  UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(100 * 1024 * 1024)
    .default(25 * 1024 * 1024),
  ENTERPRISE_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1200),
  TOKEN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  SIGNING_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(300),
  ENTERPRISE_UPLOAD_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(200),
  // Outside production only: the webhook retry schedule multiplied by this (0.001-1; tests, the chaos run).
  WEBHOOK_RETRY_DELAY_SCALE: optionalText.pipe(
    z.coerce
      .number<string | undefined>({ error: 'must be a number from 0.001 to 1' })
      .min(0.001, 'must be a number from 0.001 to 1')
      .max(1, 'must be a number from 0.001 to 1')
      .optional(),
  ),
  // Webhook attempts one worker process makes to one endpoint at once; more wait (activities/webhooks.ts).
  WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT: z.coerce.number().int().min(1).max(1000).default(8),
  // Outside production only: `low` work factors for the password and secret hashes (services/security/hash-cost.ts).
  SIGIL_HASH_COST: optionalText.pipe(z.enum(['standard', 'low']).optional()),
  // Unset (or empty): on in development and test, off in production.
  SANDBOX_ENABLED: optionalText.pipe(
    z
      .string()
      .regex(/^(true|false|1|0)$/i, 'must be true or false')
      .transform((value) => /^(true|1)$/i.test(value))
      .optional(),
  ),
  // Notifications (docs/notifications.md). Email: SMTP_URL, or SMTP_HOST with the others; SMS and WhatsApp:
  // Twilio. Cross-variable rules are in notificationProblems().
  SMTP_URL: optionalText.pipe(
    z
      .string()
      .regex(
        /^smtps?:\/\/[^/\s]+/,
        'must be an smtp:// or smtps:// URL, for example smtp://user:pass@host:587',
      )
      .optional(),
  ),
  SMTP_HOST: optionalText,
  SMTP_PORT: optionalText.pipe(
    z.coerce
      .number<string | undefined>({ error: 'must be a port number (1-65535)' })
      .int('must be a port number (1-65535)')
      .min(1, 'must be a port number (1-65535)')
      .max(65535, 'must be a port number (1-65535)')
      .optional(),
  ),
  SMTP_SECURE: optionalText.pipe(booleanText.optional()),
  SMTP_USER: optionalText,
  SMTP_PASSWORD: optionalText,
  MAIL_FROM: optionalText.pipe(z.email('must be an email address, for example sign@example.com').optional()),
  TWILIO_ACCOUNT_SID: optionalText.pipe(
    z
      .string()
      .regex(/^AC[0-9a-fA-F]{32}$/, 'must be a Twilio account SID (AC followed by 32 hexadecimal digits)')
      .optional(),
  ),
  TWILIO_AUTH_TOKEN: optionalText,
  TWILIO_SMS_FROM: optionalText.pipe(
    z
      .string()
      .regex(
        /^(\+[1-9]\d{6,14}|MG[0-9a-fA-F]{32})$/,
        'must be a phone number in E.164 (+15551234567) or a Messaging Service SID (MG…)',
      )
      .optional(),
  ),
  TWILIO_WHATSAPP_FROM: optionalText.pipe(
    z
      .string()
      .transform((value) => value.replace(/^whatsapp:/i, ''))
      .pipe(
        z.string().regex(/^\+[1-9]\d{6,14}$/, 'must be a phone number in E.164, for example +15551234567'),
      )
      .optional(),
  ),
  TWILIO_API_BASE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^https?:\/\/[^/\s]+/, 'must be an http:// or https:// URL')
      .optional(),
  ),
  // Bounces (docs/notifications.md "Bounces and carrier failures"): the domain of every email's VERP return path
  // (bounce+<notification id>@BOUNCE_DOMAIN; unset: MAIL_FROM stays the envelope sender), and the API process's
  // inbound SMTP server for delivery status notifications (off unless BOUNCE_SMTP_PORT is set).
  BOUNCE_DOMAIN: optionalText.pipe(
    z
      .string()
      .regex(
        /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i,
        'must be a domain name, for example bounces.example.com',
      )
      .optional(),
  ),
  BOUNCE_SMTP_PORT: optionalText.pipe(
    z.coerce
      .number<string | undefined>({ error: 'must be a port number (0-65535)' })
      .int('must be a port number (0-65535)')
      .min(0, 'must be a port number (0-65535)')
      .max(65535, 'must be a port number (0-65535)')
      .optional(),
  ),
  BOUNCE_SMTP_HOST: optionalText,
  BOUNCE_MAX_MESSAGE_BYTES: z.coerce
    .number()
    .int()
    .min(16 * 1024)
    .max(50 * 1024 * 1024)
    .default(1024 * 1024),
  // Sealing (docs/sealing.md): the platform's certificate as a PKCS#12 file (required in production; elsewhere
  // a development certificate authority under DATA_DIR), the RFC 3161 timestamp authorities tried in order,
  // and how long finalization waits for one before FinalPdfFailed.
  SEALING_PKCS12_PATH: optionalText,
  SEALING_PKCS12_PASSPHRASE: z.string().optional(),
  TIMESTAMP_AUTHORITY_URLS: commaList(
    (entry) => /^https?:\/\/[^/\s]+/.test(entry),
    'must be a comma-separated list of http:// or https:// URLs',
  ),
  TIMESTAMP_AUTHORITY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  SEALING_RETRY_INITIAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  SEALING_GIVE_UP_AFTER_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 86_400)
    .default(86_400),
  VERIFY_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  // Where files' bytes live (config/storage.ts, docs/deployment.md "Object storage"): STORAGE and S3_*.
  ...STORAGE_VARIABLES,
  // The orphan sweep's grace period: an unreferenced object untouched this long goes (at least an hour, so that
  // no put waits that long between its bytes and the row that references them).
  OBJECT_SWEEP_GRACE_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(30 * 24)
    .default(24),
});

/** The cross-variable rules of the notification settings: one problem per variable, like the schema's. */
function notificationProblems(v: z.infer<typeof schema>): string[] {
  const problems: string[] = [];
  if (v.SMTP_URL && v.SMTP_HOST) problems.push('SMTP_HOST: set either SMTP_URL or SMTP_HOST, not both');
  const smtpParts = (['SMTP_PORT', 'SMTP_SECURE', 'SMTP_USER', 'SMTP_PASSWORD'] as const).filter(
    (name) => v[name] !== undefined,
  );
  if (!v.SMTP_HOST) {
    for (const name of smtpParts) {
      problems.push(
        v.SMTP_URL
          ? `${name}: not used with SMTP_URL (put it in the URL) — set SMTP_HOST instead of SMTP_URL to use it`
          : `${name}: needs SMTP_HOST (or use SMTP_URL)`,
      );
    }
  } else if (Boolean(v.SMTP_USER) !== Boolean(v.SMTP_PASSWORD)) {
    problems.push(
      v.SMTP_USER
        ? 'SMTP_PASSWORD: required when SMTP_USER is set'
        : 'SMTP_USER: required when SMTP_PASSWORD is set',
    );
  }
  const smtp = Boolean(v.SMTP_URL || v.SMTP_HOST);
  if (smtp && !v.MAIL_FROM) problems.push('MAIL_FROM: required when an SMTP server is configured');
  if (!smtp && v.MAIL_FROM)
    problems.push('MAIL_FROM: set, but no SMTP server is configured (SMTP_URL or SMTP_HOST)');

  const twilioParts = (
    ['TWILIO_AUTH_TOKEN', 'TWILIO_SMS_FROM', 'TWILIO_WHATSAPP_FROM', 'TWILIO_API_BASE_URL'] as const
  ).filter((name) => v[name] !== undefined);
  if (!v.TWILIO_ACCOUNT_SID) {
    for (const name of twilioParts) problems.push(`${name}: needs TWILIO_ACCOUNT_SID`);
  } else {
    if (!v.TWILIO_AUTH_TOKEN) problems.push('TWILIO_AUTH_TOKEN: required when TWILIO_ACCOUNT_SID is set');
    if (!v.TWILIO_SMS_FROM && !v.TWILIO_WHATSAPP_FROM) {
      problems.push(
        'TWILIO_SMS_FROM: set it or TWILIO_WHATSAPP_FROM (or both) when TWILIO_ACCOUNT_SID is set',
      );
    }
  }
  if (v.SIGIL_ENV === 'production' && v.TWILIO_API_BASE_URL?.startsWith('http://')) {
    problems.push('TWILIO_API_BASE_URL: must be https:// when SIGIL_ENV=production');
  }
  return problems;
}

function isIpOrCidr(value: string): boolean {
  const [address = '', prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

export type SigilEnv = z.infer<typeof schema>['SIGIL_ENV'];

/** The name of every variable Sigil reads (docker-compose.yml may set only these: test/unit/docker-compose.test.ts). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(schema.shape);

/** The embedded development cluster listens on loopback only; these credentials never leave the machine. */
export const EMBEDDED_POSTGRES = { user: 'sigil', password: 'sigil-local', database: 'sigil' } as const;

export function embeddedPostgresUrl(port: number, database: string = EMBEDDED_POSTGRES.database): string {
  return `postgresql://${EMBEDDED_POSTGRES.user}:${EMBEDDED_POSTGRES.password}@127.0.0.1:${port}/${database}`;
}

export interface Config {
  env: SigilEnv;
  host: string;
  port: number;
  publicBaseUrl: string;
  /**
   * Whether PUBLIC_BASE_URL was given. Then it is the one origin the web app's pages are served from: the
   * application routes' Origin check compares with it alone, never with the request's Host header.
   */
  publicBaseUrlSet: boolean;
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
  dataDir: string;
  cacheDir: string;
  /** SECRETS_ENCRYPTION_KEY (base64), or null: a development key under `dataDir` (config/encryption-key.ts). */
  secretsEncryptionKey: string | null;
  database: {
    /** DATABASE_URL, or in development the embedded cluster that `npm start` runs. */
    url: string;
    /** True when DATABASE_URL was not set: `npm start` then runs embedded PostgreSQL. */
    embedded: boolean;
    embeddedPort: number;
    /** DATABASE_POOL_MAX: the most connections each process's pool opens. */
    poolMax: number;
  };
  temporal: {
    /** TEMPORAL_ADDRESS, or in development the dev server that `npm start` runs. */
    address: string;
    /** True when TEMPORAL_ADDRESS was not set: `npm start` then runs the Temporal dev server. */
    devServer: boolean;
    namespace: string;
    port: number;
    uiPort: number;
    uiUrl: string | undefined;
    cliPath: string | undefined;
    testServerPath: string | undefined;
    /**
     * The longest the API waits for one Temporal call (an Update, an update-with-start, a workflow start)
     * before it answers 503; an Update whose wait ran out may still be applied later.
     */
    requestTimeoutMs: number;
    /** WORKER_MAX_CACHED_WORKFLOWS, or undefined: the SDK's default. */
    workerMaxCachedWorkflows: number | undefined;
    /** WORKFLOW_BUNDLE_DIR: where workers keep the bundled workflow code (temporal/worker/workflow-bundle.ts). */
    workflowBundleDir: string;
  };
  shutdownGraceMs: number;
  api: {
    /** Proxies whose X-Forwarded-For is believed when determining a client's address (IP allowlists). */
    trustedProxies: string[];
    accessTokenTtlSeconds: number;
    uploadMaxBytes: number;
    /** Enterprise rate limits when the organization has no limit of its own. */
    enterpriseRatePerMinute: number;
    enterpriseUploadRatePerMinute: number;
    /** Whether `X-Service-Sandbox: true` and the sandbox simulation routes are served (otherwise 403). */
    sandboxEnabled: boolean;
    /** POST /oauth/token requests per minute per source address. */
    tokenRatePerMinute: number;
    /** Signer API requests per minute per source address. */
    signingRatePerMinute: number;
  };
  webhooks: {
    /**
     * The documented retry schedule of webhook deliveries (30 s, 2 min, 8 min, 32 min) is multiplied by this
     * before each wait: 1 in production; WEBHOOK_RETRY_DELAY_SCALE elsewhere (tests and the chaos run).
     */
    retryDelayScale: number;
    /** WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT: attempts one worker process makes to one endpoint at once. */
    maxConcurrentPerEndpoint: number;
  };
  /** Notification providers (docs/notifications.md); null: the channel has none. */
  notifications: NotificationsConfig;
  /** Bounces: VERP return paths and the inbound SMTP server for DSNs (docs/notifications.md). */
  bounces: BouncesConfig;
  sealing: SealingConfig;
  /** The storage port's implementation: PostgreSQL (default) or S3-compatible (config/storage.ts). */
  storage: StorageConfig;
  /** OBJECT_SWEEP_GRACE_HOURS: the `sigil-object-sweep` Schedule's grace period (docs/deployment.md). */
  objectSweepGraceHours: number;
}

/** Sealing of final PDFs and audit trails (docs/sealing.md). */
export interface SealingConfig {
  /** SEALING_PKCS12_PATH and its passphrase (never log it); null: the development CA under `dataDir`. */
  pkcs12: { path: string; passphrase: string } | null;
  /** RFC 3161 timestamp authorities, tried in order. */
  timestampAuthorities: string[];
  timestampTimeoutMs: number;
  /** The first wait after no authority answered; each later wait doubles, up to 5 minutes. */
  retryInitialMs: number;
  /** How long finalization keeps retrying a required timestamp before FinalPdfFailed. */
  giveUpAfterMs: number;
  /** POST /api/verify requests per minute per source address. */
  verifyRatePerMinute: number;
}

export interface BouncesConfig {
  /** BOUNCE_DOMAIN: emails leave with the return path bounce+<notification id>@<domain>; null: MAIL_FROM. */
  domain: string | null;
  /** The inbound SMTP server for DSNs; null (BOUNCE_SMTP_PORT unset): not run. */
  smtp: { host: string; port: number } | null;
  /** BOUNCE_MAX_MESSAGE_BYTES: larger messages are refused (552). */
  maxMessageBytes: number;
}

export interface NotificationsConfig {
  email: SmtpSettings | null;
  twilio: TwilioSettings | null;
}

export interface SmtpSettings {
  /** SMTP_URL, or built from SMTP_HOST and the others. Holds the password: never log it. */
  transport:
    | { url: string }
    | { host: string; port: number; secure: boolean; user?: string; password?: string };
  /** MAIL_FROM: the envelope sender and From address; the display name is the organization's. */
  from: string;
}

export interface TwilioSettings {
  accountSid: string;
  /** Never log it. */
  authToken: string;
  /** E.164 number or Messaging Service SID (MG…); null: no SMS through Twilio. */
  smsFrom: string | null;
  /** E.164 number without the `whatsapp:` prefix; null: no WhatsApp through Twilio. */
  whatsappFrom: string | null;
  /** Where Twilio's REST API is reached: https://api.twilio.com, or TWILIO_API_BASE_URL (tests, proxies). */
  apiBaseUrl: string;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Reads and validates the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`),
    );
  }
  const v = parsed.data;
  const problems: string[] = [];
  if (v.SIGIL_ENV === 'production') {
    const missing = (['DATABASE_URL', 'TEMPORAL_ADDRESS', 'SECRETS_ENCRYPTION_KEY'] as const).filter(
      (name) => !v[name],
    );
    problems.push(...missing.map((name) => `${name}: required when SIGIL_ENV=production`));
    if (v.WEBHOOK_RETRY_DELAY_SCALE !== undefined && v.WEBHOOK_RETRY_DELAY_SCALE !== 1) {
      problems.push(
        'WEBHOOK_RETRY_DELAY_SCALE: not allowed when SIGIL_ENV=production (deliveries keep the documented schedule)',
      );
    }
    if (v.SIGIL_HASH_COST === 'low') {
      problems.push('SIGIL_HASH_COST: `low` is not allowed when SIGIL_ENV=production (tests only)');
    }
    if (!v.SEALING_PKCS12_PATH) {
      problems.push(
        "SEALING_PKCS12_PATH: required when SIGIL_ENV=production (the platform's sealing certificate, PKCS#12)",
      );
    }
  }
  if (v.SEALING_PKCS12_PATH && v.SEALING_PKCS12_PASSPHRASE === undefined) {
    problems.push('SEALING_PKCS12_PASSPHRASE: required when SEALING_PKCS12_PATH is set');
  }
  problems.push(...notificationProblems(v));
  if (v.BOUNCE_SMTP_PORT !== undefined && !v.BOUNCE_DOMAIN) {
    problems.push('BOUNCE_SMTP_PORT: needs BOUNCE_DOMAIN (the domain of the return paths it receives)');
  }
  if (v.BOUNCE_SMTP_HOST && v.BOUNCE_SMTP_PORT === undefined) {
    problems.push('BOUNCE_SMTP_HOST: needs BOUNCE_SMTP_PORT');
  }
  const storage = storageConfig(v, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    env: v.SIGIL_ENV,
    host: v.HOST ?? (v.SIGIL_ENV === 'production' ? '0.0.0.0' : '127.0.0.1'),
    port: v.PORT,
    publicBaseUrl: (v.PUBLIC_BASE_URL ?? `http://localhost:${v.PORT}`).replace(/\/+$/, ''),
    publicBaseUrlSet: v.PUBLIC_BASE_URL !== undefined,
    logLevel: v.LOG_LEVEL,
    dataDir: resolve(v.DATA_DIR),
    cacheDir: resolve(v.SIGIL_CACHE_DIR ?? join(homedir(), '.cache', 'sigil')),
    secretsEncryptionKey: v.SECRETS_ENCRYPTION_KEY ?? null,
    database: {
      url: v.DATABASE_URL ?? embeddedPostgresUrl(v.EMBEDDED_POSTGRES_PORT),
      embedded: !v.DATABASE_URL,
      embeddedPort: v.EMBEDDED_POSTGRES_PORT,
      poolMax: v.DATABASE_POOL_MAX,
    },
    temporal: {
      address: v.TEMPORAL_ADDRESS ?? `127.0.0.1:${v.TEMPORAL_PORT}`,
      devServer: !v.TEMPORAL_ADDRESS,
      namespace: v.TEMPORAL_NAMESPACE,
      port: v.TEMPORAL_PORT,
      uiPort: v.TEMPORAL_UI_PORT,
      uiUrl: v.TEMPORAL_UI_URL,
      cliPath: v.TEMPORAL_CLI_PATH,
      testServerPath: v.TEMPORAL_TEST_SERVER_PATH,
      requestTimeoutMs: v.TEMPORAL_REQUEST_TIMEOUT_MS,
      workerMaxCachedWorkflows: v.WORKER_MAX_CACHED_WORKFLOWS,
      workflowBundleDir: resolve(
        v.WORKFLOW_BUNDLE_DIR ??
          join(v.SIGIL_CACHE_DIR ?? join(homedir(), '.cache', 'sigil'), 'workflow-bundles'),
      ),
    },
    shutdownGraceMs: v.SHUTDOWN_GRACE_SECONDS * 1000,
    api: {
      trustedProxies: v.TRUSTED_PROXIES,
      accessTokenTtlSeconds: v.ACCESS_TOKEN_TTL_SECONDS,
      uploadMaxBytes: v.UPLOAD_MAX_BYTES,
      enterpriseRatePerMinute: v.ENTERPRISE_RATE_LIMIT_PER_MINUTE,
      enterpriseUploadRatePerMinute: v.ENTERPRISE_UPLOAD_RATE_LIMIT_PER_MINUTE,
      tokenRatePerMinute: v.TOKEN_RATE_LIMIT_PER_MINUTE,
      signingRatePerMinute: v.SIGNING_RATE_LIMIT_PER_MINUTE,
      sandboxEnabled: v.SANDBOX_ENABLED ?? v.SIGIL_ENV !== 'production',
    },
    webhooks: {
      retryDelayScale: v.WEBHOOK_RETRY_DELAY_SCALE ?? 1,
      maxConcurrentPerEndpoint: v.WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT,
    },
    notifications: notificationsConfig(v),
    bounces: {
      domain: v.BOUNCE_DOMAIN?.toLowerCase() ?? null,
      smtp:
        v.BOUNCE_SMTP_PORT === undefined
          ? null
          : {
              host: v.BOUNCE_SMTP_HOST ?? (v.SIGIL_ENV === 'production' ? '0.0.0.0' : '127.0.0.1'),
              port: v.BOUNCE_SMTP_PORT,
            },
      maxMessageBytes: v.BOUNCE_MAX_MESSAGE_BYTES,
    },
    sealing: {
      pkcs12: v.SEALING_PKCS12_PATH
        ? { path: resolve(v.SEALING_PKCS12_PATH), passphrase: v.SEALING_PKCS12_PASSPHRASE ?? '' }
        : null,
      timestampAuthorities: v.TIMESTAMP_AUTHORITY_URLS,
      timestampTimeoutMs: v.TIMESTAMP_AUTHORITY_TIMEOUT_MS,
      retryInitialMs: v.SEALING_RETRY_INITIAL_SECONDS * 1000,
      giveUpAfterMs: v.SEALING_GIVE_UP_AFTER_SECONDS * 1000,
      verifyRatePerMinute: v.VERIFY_RATE_LIMIT_PER_MINUTE,
    },
    storage,
    objectSweepGraceHours: v.OBJECT_SWEEP_GRACE_HOURS,
  };
}

function notificationsConfig(v: z.infer<typeof schema>): NotificationsConfig {
  let email: SmtpSettings | null = null;
  if (v.MAIL_FROM && v.SMTP_URL) email = { transport: { url: v.SMTP_URL }, from: v.MAIL_FROM };
  if (v.MAIL_FROM && v.SMTP_HOST) {
    const port = v.SMTP_PORT ?? (v.SMTP_SECURE ? 465 : 587);
    email = {
      transport: {
        host: v.SMTP_HOST,
        port,
        secure: v.SMTP_SECURE ?? port === 465,
        ...(v.SMTP_USER && v.SMTP_PASSWORD ? { user: v.SMTP_USER, password: v.SMTP_PASSWORD } : {}),
      },
      from: v.MAIL_FROM,
    };
  }
  const twilio: TwilioSettings | null =
    v.TWILIO_ACCOUNT_SID && v.TWILIO_AUTH_TOKEN
      ? {
          accountSid: v.TWILIO_ACCOUNT_SID,
          authToken: v.TWILIO_AUTH_TOKEN,
          smsFrom: v.TWILIO_SMS_FROM ?? null,
          whatsappFrom: v.TWILIO_WHATSAPP_FROM ?? null,
          apiBaseUrl: (v.TWILIO_API_BASE_URL ?? 'https://api.twilio.com').replace(/\/+$/, ''),
        }
      : null;
  return { email, twilio };
}

/** Like loadConfig, but prints the problems and exits: for entry points. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nSee .env.example for every variable and its meaning.\n`);
      process.exit(78);
    }
    throw error;
  }
}
