// Sandbox mode's pure parts: the SANDBOX_ENABLED setting and which header values ask for sandbox.
import { describe, expect, it } from 'vitest';
import { sandboxRequested } from '../../api/plugins/sandbox.ts';
import { ConfigError, loadConfig } from '../../config/config.ts';

const PRODUCTION = {
  SIGIL_ENV: 'production',
  SEALING_PKCS12_PATH: '/etc/sigil/seal.p12',
  SEALING_PKCS12_PASSPHRASE: 'test',
  DATABASE_URL: 'postgres://app:pw@db.internal:5432/sigil',
  TEMPORAL_ADDRESS: 'temporal.internal:7233',
  SECRETS_ENCRYPTION_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
};

describe('SANDBOX_ENABLED', () => {
  it('defaults to on in development and test, off in production', () => {
    expect(loadConfig({}).api.sandboxEnabled).toBe(true);
    expect(loadConfig({ SIGIL_ENV: 'test' }).api.sandboxEnabled).toBe(true);
    expect(loadConfig(PRODUCTION).api.sandboxEnabled).toBe(false);
    expect(loadConfig({ ...PRODUCTION, SANDBOX_ENABLED: '' }).api.sandboxEnabled).toBe(false);
  });

  it('is set explicitly with true or false (or 1 or 0), in any case', () => {
    expect(loadConfig({ ...PRODUCTION, SANDBOX_ENABLED: 'true' }).api.sandboxEnabled).toBe(true);
    expect(loadConfig({ ...PRODUCTION, SANDBOX_ENABLED: '1' }).api.sandboxEnabled).toBe(true);
    expect(loadConfig({ SANDBOX_ENABLED: 'FALSE' }).api.sandboxEnabled).toBe(false);
    expect(loadConfig({ SIGIL_ENV: 'test', SANDBOX_ENABLED: '0' }).api.sandboxEnabled).toBe(false);
  });

  it('refuses another value, naming the variable', () => {
    expect(() => loadConfig({ SANDBOX_ENABLED: 'maybe' })).toThrow(ConfigError);
    expect(() => loadConfig({ SANDBOX_ENABLED: 'maybe' })).toThrow(/SANDBOX_ENABLED: must be true or false/);
  });
});

describe('X-Service-Sandbox', () => {
  const asks = (value: string | string[] | undefined) =>
    sandboxRequested({ headers: { 'x-service-sandbox': value } });

  it('asks for sandbox with `true` in any case, surrounding spaces ignored', () => {
    expect(asks('true')).toBe(true);
    expect(asks('True')).toBe(true);
    expect(asks(' TRUE ')).toBe(true);
  });

  it('means production with any other value or none', () => {
    for (const value of [undefined, '', 'false', '1', 'yes', 'truee', ['true', 'true']]) {
      expect(asks(value), JSON.stringify(value)).toBe(false);
    }
  });
});
