// Configuration: defaults a developer relies on, and refusals that name the variable to fix.
import { describe, expect, it } from 'vitest';
import { webhookDeliverySettings } from '../../activities/webhooks.ts';
import { ConfigError, loadConfig } from '../../config/config.ts';
import { hashCost } from '../../services/security/hash-cost.ts';

function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig defaults', () => {
  const config = loadConfig({});

  it('listens on port 3000 in development', () => {
    expect(config.env).toBe('development');
    expect(config.port).toBe(3000);
    expect(config.publicBaseUrl).toBe('http://localhost:3000');
  });

  it('listens on loopback outside production and on every interface in production, unless HOST says', () => {
    expect(config.host).toBe('127.0.0.1');
    expect(loadConfig({ SIGIL_ENV: 'test' }).host).toBe('127.0.0.1');
    const production = {
      SIGIL_ENV: 'production',
      SEALING_PKCS12_PATH: '/etc/sigil/seal.p12',
      SEALING_PKCS12_PASSPHRASE: 'test',
      DATABASE_URL: 'postgresql://db/sigil',
      TEMPORAL_ADDRESS: 't:7233',
      SECRETS_ENCRYPTION_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
    };
    expect(loadConfig(production).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ ...production, HOST: '10.0.0.5' }).host).toBe('10.0.0.5');
  });

  it('uses the Temporal ports 7233 (gRPC) and 8233 (UI)', () => {
    expect(config.temporal.port).toBe(7233);
    expect(config.temporal.uiPort).toBe(8233);
    expect(config.temporal.namespace).toBe('default');
  });

  it('without DATABASE_URL, points at the embedded PostgreSQL on loopback', () => {
    expect(config.database.embedded).toBe(true);
    expect(config.database.url).toBe('postgresql://sigil:sigil-local@127.0.0.1:5433/sigil');
  });

  it('the embedded URL follows EMBEDDED_POSTGRES_PORT', () => {
    const custom = loadConfig({ EMBEDDED_POSTGRES_PORT: '6543' });
    expect(custom.database.url).toBe('postgresql://sigil:sigil-local@127.0.0.1:6543/sigil');
  });

  it('without TEMPORAL_ADDRESS, runs the dev server on the local Temporal port', () => {
    expect(config.temporal.devServer).toBe(true);
    expect(config.temporal.address).toBe('127.0.0.1:7233');
    expect(loadConfig({ TEMPORAL_PORT: '7300' }).temporal.address).toBe('127.0.0.1:7300');
  });

  it('an empty DATABASE_URL or TEMPORAL_ADDRESS counts as unset', () => {
    const blank = loadConfig({ DATABASE_URL: '', TEMPORAL_ADDRESS: '  ' });
    expect(blank.database.embedded).toBe(true);
    expect(blank.temporal.devServer).toBe(true);
  });

  it('uses DATABASE_URL and TEMPORAL_ADDRESS when given, and then runs nothing embedded', () => {
    const external = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://app:pw@db.internal:5432/sigil',
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
    });
    expect(external.port).toBe(8080);
    expect(external.database).toMatchObject({
      url: 'postgres://app:pw@db.internal:5432/sigil',
      embedded: false,
    });
    expect(external.temporal).toMatchObject({ address: 'temporal.internal:7233', devServer: false });
  });
});

describe('loadConfig refusals', () => {
  it.each(['abc', '0', '70000', '3000.5'])('a bad PORT (%s) is named', (value) => {
    const error = configError({ PORT: value });
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(/^PORT: /);
  });

  it.each(['mysql://u:p@db/sigil', 'db.internal:5432', 'http://db.internal/sigil'])(
    'a non-postgres DATABASE_URL (%s) is named',
    (value) => {
      const error = configError({ DATABASE_URL: value });
      expect(error.problems).toEqual(['DATABASE_URL: must be a postgres:// or postgresql:// URL']);
    },
  );

  it('accepts both postgres:// and postgresql:// URLs', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://h/db' }).database.url).toBe('postgres://h/db');
    expect(loadConfig({ DATABASE_URL: 'postgresql://h/db' }).database.url).toBe('postgresql://h/db');
  });

  it.each(['temporal.internal', 'temporal.internal:port', 'grpc://temporal.internal:7233'])(
    'a bad TEMPORAL_ADDRESS (%s) is named',
    (value) => {
      const error = configError({ TEMPORAL_ADDRESS: value });
      expect(error.problems).toHaveLength(1);
      expect(error.problems[0]).toMatch(/^TEMPORAL_ADDRESS: must be host:port/);
    },
  );

  it('reports every bad variable at once, one problem each', () => {
    const error = configError({ PORT: 'abc', DATABASE_URL: 'mysql://x', TEMPORAL_ADDRESS: 'nope' });
    expect(error.problems).toHaveLength(3);
    const names = error.problems.map((problem) => problem.split(':')[0]).sort();
    expect(names).toEqual(['DATABASE_URL', 'PORT', 'TEMPORAL_ADDRESS']);
    expect(error.message).toContain('Invalid configuration');
    for (const name of names) expect(error.message).toContain(name);
  });

  it('production without DATABASE_URL, TEMPORAL_ADDRESS, SECRETS_ENCRYPTION_KEY and SEALING_PKCS12_PATH is refused, naming each', () => {
    const error = configError({ SIGIL_ENV: 'production' });
    expect(error.problems).toEqual([
      'DATABASE_URL: required when SIGIL_ENV=production',
      'TEMPORAL_ADDRESS: required when SIGIL_ENV=production',
      'SECRETS_ENCRYPTION_KEY: required when SIGIL_ENV=production',
      "SEALING_PKCS12_PATH: required when SIGIL_ENV=production (the platform's sealing certificate, PKCS#12)",
    ]);
  });

  it('production with only one of them names the missing one', () => {
    const error = configError({
      SIGIL_ENV: 'production',
      SEALING_PKCS12_PATH: '/etc/sigil/seal.p12',
      SEALING_PKCS12_PASSPHRASE: 'test',
      DATABASE_URL: 'postgres://db/sigil',
      SECRETS_ENCRYPTION_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
    });
    expect(error.problems).toEqual(['TEMPORAL_ADDRESS: required when SIGIL_ENV=production']);
  });

  it('production with all three is accepted and runs nothing embedded', () => {
    const config = loadConfig({
      SIGIL_ENV: 'production',
      SEALING_PKCS12_PATH: '/etc/sigil/seal.p12',
      SEALING_PKCS12_PASSPHRASE: 'test',
      DATABASE_URL: 'postgres://db/sigil',
      TEMPORAL_ADDRESS: 'temporal:7233',
      SECRETS_ENCRYPTION_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
    });
    expect(config.env).toBe('production');
    expect(config.database.embedded).toBe(false);
    expect(config.temporal.devServer).toBe(false);
  });

  it('WEBHOOK_RETRY_DELAY_SCALE shortens the retry schedule outside production only, within 0.001–1', () => {
    expect(loadConfig({ SIGIL_ENV: 'development' }).webhooks.retryDelayScale).toBe(1);
    expect(
      loadConfig({ SIGIL_ENV: 'development', WEBHOOK_RETRY_DELAY_SCALE: '0.02' }).webhooks.retryDelayScale,
    ).toBe(0.02);
    for (const value of ['0', '2', 'fast']) {
      expect(configError({ WEBHOOK_RETRY_DELAY_SCALE: value }).problems).toEqual([
        'WEBHOOK_RETRY_DELAY_SCALE: must be a number from 0.001 to 1',
      ]);
    }
    expect(
      configError({
        SIGIL_ENV: 'production',
        SEALING_PKCS12_PATH: '/etc/sigil/seal.p12',
        SEALING_PKCS12_PASSPHRASE: 'test',
        DATABASE_URL: 'postgres://db/sigil',
        TEMPORAL_ADDRESS: 'temporal:7233',
        SECRETS_ENCRYPTION_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
        WEBHOOK_RETRY_DELAY_SCALE: '0.02',
      }).problems,
    ).toEqual([
      'WEBHOOK_RETRY_DELAY_SCALE: not allowed when SIGIL_ENV=production (deliveries keep the documented schedule)',
    ]);
    // And the worker's settings ignore a scale in production even if one reached them.
    expect(webhookDeliverySettings('production', 0.02).retryDelayScale).toBe(1);
    expect(webhookDeliverySettings('test', 0.02).retryDelayScale).toBe(0.02);
  });

  it('SIGIL_HASH_COST=low is refused in production, and ignored there even if it reached the hashes', () => {
    expect(
      configError({
        SIGIL_ENV: 'production',
        SEALING_PKCS12_PATH: '/etc/sigil/seal.p12',
        SEALING_PKCS12_PASSPHRASE: 'test',
        DATABASE_URL: 'postgres://db/sigil',
        TEMPORAL_ADDRESS: 'temporal:7233',
        SECRETS_ENCRYPTION_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
        SIGIL_HASH_COST: 'low',
      }).problems,
    ).toEqual(['SIGIL_HASH_COST: `low` is not allowed when SIGIL_ENV=production (tests only)']);
    expect(configError({ SIGIL_HASH_COST: 'cheap' }).problems[0]).toMatch(/^SIGIL_HASH_COST: /);
    expect(hashCost({ SIGIL_ENV: 'production', SIGIL_HASH_COST: 'low' })).toBe('standard');
    expect(hashCost({ SIGIL_ENV: 'test', SIGIL_HASH_COST: 'low' })).toBe('low');
    expect(hashCost({})).toBe('standard');
  });

  it('SECRETS_ENCRYPTION_KEY must be 32 bytes in base64', () => {
    for (const value of ['short', Buffer.alloc(16).toString('base64'), 'not base64!!']) {
      expect(configError({ SECRETS_ENCRYPTION_KEY: value }).problems).toEqual([
        'SECRETS_ENCRYPTION_KEY: must be 32 bytes in base64 (for example: openssl rand -base64 32)',
      ]);
    }
    expect(
      loadConfig({ SECRETS_ENCRYPTION_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=' })
        .secretsEncryptionKey,
    ).toBe('AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=');
    expect(loadConfig({}).secretsEncryptionKey).toBeNull();
  });

  it('an unknown SIGIL_ENV is refused', () => {
    expect(configError({ SIGIL_ENV: 'staging' }).problems[0]).toMatch(/^SIGIL_ENV: /);
  });

  it('sealing: the PKCS#12 passphrase comes with its file, authorities are URLs, defaults are the development CA', () => {
    expect(configError({ SEALING_PKCS12_PATH: '/etc/sigil/seal.p12' }).problems).toEqual([
      'SEALING_PKCS12_PASSPHRASE: required when SEALING_PKCS12_PATH is set',
    ]);
    expect(configError({ TIMESTAMP_AUTHORITY_URLS: 'https://tsa.example/tsr, ftp://x' }).problems[0]).toBe(
      'TIMESTAMP_AUTHORITY_URLS: must be a comma-separated list of http:// or https:// URLs',
    );
    expect(configError({ SEALING_GIVE_UP_AFTER_SECONDS: '0' }).problems[0]).toMatch(
      /^SEALING_GIVE_UP_AFTER_SECONDS: /,
    );
    const defaults = loadConfig({});
    expect(defaults.sealing).toEqual({
      pkcs12: null,
      timestampAuthorities: [],
      timestampTimeoutMs: 10_000,
      retryInitialMs: 10_000,
      giveUpAfterMs: 86_400_000,
      verifyRatePerMinute: 30,
    });
    const configured = loadConfig({
      SEALING_PKCS12_PATH: 'seal.p12',
      SEALING_PKCS12_PASSPHRASE: '',
      TIMESTAMP_AUTHORITY_URLS: 'https://a.example/tsr , http://b.example/',
    });
    expect(configured.sealing.pkcs12).toEqual({
      path: expect.stringMatching(/\/seal\.p12$/),
      passphrase: '',
    });
    expect(configured.sealing.timestampAuthorities).toEqual(['https://a.example/tsr', 'http://b.example/']);
  });

  it('WORKER_MAX_CACHED_WORKFLOWS bounds the workflow cache, unset is the SDK default', () => {
    expect(loadConfig({}).temporal.workerMaxCachedWorkflows).toBeUndefined();
    expect(loadConfig({ WORKER_MAX_CACHED_WORKFLOWS: '500' }).temporal.workerMaxCachedWorkflows).toBe(500);
    expect(configError({ WORKER_MAX_CACHED_WORKFLOWS: '-1' }).problems).toEqual([
      'WORKER_MAX_CACHED_WORKFLOWS: must be a whole number from 0',
    ]);
  });

  it('DATABASE_POOL_MAX sizes each process’s PostgreSQL pool (default 10, 1 to 200)', () => {
    expect(loadConfig({}).database.poolMax).toBe(10);
    expect(loadConfig({ DATABASE_POOL_MAX: '4' }).database.poolMax).toBe(4);
    expect(configError({ DATABASE_POOL_MAX: '0' }).problems[0]).toMatch(/^DATABASE_POOL_MAX: /);
  });

  it('WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT bounds a worker’s attempts to one endpoint (default 8, 1 to 1000)', () => {
    expect(loadConfig({}).webhooks.maxConcurrentPerEndpoint).toBe(8);
    expect(loadConfig({ WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT: '2' }).webhooks.maxConcurrentPerEndpoint).toBe(
      2,
    );
    for (const bad of ['0', '1001', '2.5', 'many']) {
      expect(configError({ WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT: bad }).problems[0]).toMatch(
        /^WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT: /,
      );
    }
    expect(webhookDeliverySettings('production', 1, 3).maxConcurrentPerEndpoint).toBe(3);
  });
});
