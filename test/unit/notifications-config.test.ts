// The notification settings: SMTP from a URL or from its parts with MAIL_FROM, Twilio with at least one
// sender, and one clear problem per wrong or missing variable.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config/config.ts';

const SID = `AC${'a1'.repeat(16)}`;

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('notification settings', () => {
  it('has no provider by default', () => {
    expect(loadConfig({}).notifications).toEqual({ email: null, twilio: null });
  });

  it('reads SMTP from a URL, or from host and parts (port 587 with STARTTLS, 465 implicitly TLS)', () => {
    expect(
      loadConfig({ SMTP_URL: 'smtps://u:p@mail.example', MAIL_FROM: 'sign@example.com' }).notifications.email,
    ).toEqual({
      transport: { url: 'smtps://u:p@mail.example' },
      from: 'sign@example.com',
    });
    expect(
      loadConfig({ SMTP_HOST: 'mail.example', MAIL_FROM: 'sign@example.com' }).notifications.email,
    ).toEqual({
      transport: { host: 'mail.example', port: 587, secure: false },
      from: 'sign@example.com',
    });
    const full = loadConfig({
      SMTP_HOST: 'mail.example',
      SMTP_PORT: '465',
      SMTP_USER: 'mailer',
      SMTP_PASSWORD: 'pw',
      MAIL_FROM: 'sign@example.com',
    });
    expect(full.notifications.email?.transport).toEqual({
      host: 'mail.example',
      port: 465,
      secure: true,
      user: 'mailer',
      password: 'pw',
    });
    expect(
      loadConfig({ SMTP_HOST: 'h.example', SMTP_SECURE: 'true', MAIL_FROM: 'a@example.com' }).notifications
        .email?.transport,
    ).toMatchObject({ port: 465, secure: true });
  });

  it('names every inconsistent SMTP variable', () => {
    expect(problems({ SMTP_HOST: 'h.example' })).toEqual([
      'MAIL_FROM: required when an SMTP server is configured',
    ]);
    expect(problems({ MAIL_FROM: 'sign@example.com' })).toEqual([
      'MAIL_FROM: set, but no SMTP server is configured (SMTP_URL or SMTP_HOST)',
    ]);
    expect(problems({ SMTP_URL: 'smtp://h', SMTP_HOST: 'h', MAIL_FROM: 'a@example.com' })).toEqual([
      'SMTP_HOST: set either SMTP_URL or SMTP_HOST, not both',
    ]);
    expect(problems({ SMTP_HOST: 'h', SMTP_USER: 'u', MAIL_FROM: 'a@example.com' })).toEqual([
      'SMTP_PASSWORD: required when SMTP_USER is set',
    ]);
    expect(problems({ SMTP_PORT: '25' })).toEqual(['SMTP_PORT: needs SMTP_HOST (or use SMTP_URL)']);
    expect(
      problems({ SMTP_URL: 'https://mail.example', MAIL_FROM: 'nope', SMTP_PORT: 'x', SMTP_SECURE: 'maybe' }),
    ).toEqual([
      'SMTP_URL: must be an smtp:// or smtps:// URL, for example smtp://user:pass@host:587',
      'SMTP_PORT: must be a port number (1-65535)',
      'SMTP_SECURE: must be true or false',
      'MAIL_FROM: must be an email address, for example sign@example.com',
    ]);
  });

  it('never puts a password in a problem', () => {
    const found = problems({ SMTP_URL: 'http://user:hunter2@mail.example', MAIL_FROM: 'a@example.com' });
    expect(found.join('\n')).not.toContain('hunter2');
  });

  it('reads Twilio with its senders; WhatsApp numbers may carry the whatsapp: prefix', () => {
    const config = loadConfig({
      TWILIO_ACCOUNT_SID: SID,
      TWILIO_AUTH_TOKEN: 'token',
      TWILIO_SMS_FROM: `MG${'0'.repeat(32)}`,
      TWILIO_WHATSAPP_FROM: 'whatsapp:+14155238886',
    });
    expect(config.notifications.twilio).toEqual({
      accountSid: SID,
      authToken: 'token',
      smsFrom: `MG${'0'.repeat(32)}`,
      whatsappFrom: '+14155238886',
      apiBaseUrl: 'https://api.twilio.com',
    });
    const local = loadConfig({
      TWILIO_ACCOUNT_SID: SID,
      TWILIO_AUTH_TOKEN: 'token',
      TWILIO_SMS_FROM: '+15005550006',
      TWILIO_API_BASE_URL: 'http://127.0.0.1:4010/',
    });
    expect(local.notifications.twilio).toMatchObject({
      whatsappFrom: null,
      apiBaseUrl: 'http://127.0.0.1:4010',
    });
  });

  it('names every inconsistent Twilio variable', () => {
    expect(problems({ TWILIO_ACCOUNT_SID: SID })).toEqual([
      'TWILIO_AUTH_TOKEN: required when TWILIO_ACCOUNT_SID is set',
      'TWILIO_SMS_FROM: set it or TWILIO_WHATSAPP_FROM (or both) when TWILIO_ACCOUNT_SID is set',
    ]);
    expect(problems({ TWILIO_SMS_FROM: '+15005550006', TWILIO_AUTH_TOKEN: 't' })).toEqual([
      'TWILIO_AUTH_TOKEN: needs TWILIO_ACCOUNT_SID',
      'TWILIO_SMS_FROM: needs TWILIO_ACCOUNT_SID',
    ]);
    expect(
      problems({ TWILIO_ACCOUNT_SID: 'SK123', TWILIO_SMS_FROM: '0501234567', TWILIO_AUTH_TOKEN: 't' }),
    ).toEqual([
      'TWILIO_ACCOUNT_SID: must be a Twilio account SID (AC followed by 32 hexadecimal digits)',
      'TWILIO_SMS_FROM: must be a phone number in E.164 (+15551234567) or a Messaging Service SID (MG…)',
    ]);
    expect(
      problems({
        SIGIL_ENV: 'production',
        SEALING_PKCS12_PATH: '/etc/sigil/seal.p12',
        SEALING_PKCS12_PASSPHRASE: 'test',
        DATABASE_URL: 'postgres://db/sigil',
        TEMPORAL_ADDRESS: 'temporal:7233',
        SECRETS_ENCRYPTION_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=',
        TWILIO_ACCOUNT_SID: SID,
        TWILIO_AUTH_TOKEN: 't',
        TWILIO_SMS_FROM: '+15005550006',
        TWILIO_API_BASE_URL: 'http://twilio-proxy.internal',
      }),
    ).toEqual(['TWILIO_API_BASE_URL: must be https:// when SIGIL_ENV=production']);
  });
});

describe('bounce settings', () => {
  it('are off by default: no VERP domain, no receiver', () => {
    expect(loadConfig({}).bounces).toEqual({ domain: null, smtp: null, maxMessageBytes: 1024 * 1024 });
  });

  it('listen on loopback outside production and on every interface in production, unless a host is given', () => {
    const local = loadConfig({ BOUNCE_DOMAIN: 'Bounces.Example.com', BOUNCE_SMTP_PORT: '2525' }).bounces;
    expect(local).toEqual({
      domain: 'bounces.example.com',
      smtp: { host: '127.0.0.1', port: 2525 },
      maxMessageBytes: 1024 * 1024,
    });
    const production = loadConfig({
      SIGIL_ENV: 'production',
      DATABASE_URL: 'postgres://sigil@db/sigil',
      TEMPORAL_ADDRESS: 'temporal:7233',
      SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      SEALING_PKCS12_PATH: '/etc/sigil/seal.p12',
      SEALING_PKCS12_PASSPHRASE: 'x',
      BOUNCE_DOMAIN: 'bounces.example.com',
      BOUNCE_SMTP_PORT: '25',
    }).bounces;
    expect(production.smtp).toEqual({ host: '0.0.0.0', port: 25 });
    expect(
      loadConfig({ BOUNCE_DOMAIN: 'b.example.com', BOUNCE_SMTP_PORT: '25', BOUNCE_SMTP_HOST: '10.0.0.5' })
        .bounces.smtp,
    ).toEqual({ host: '10.0.0.5', port: 25 });
  });

  it('names each wrong or missing variable', () => {
    expect(problems({ BOUNCE_SMTP_PORT: '2525' })).toEqual([
      'BOUNCE_SMTP_PORT: needs BOUNCE_DOMAIN (the domain of the return paths it receives)',
    ]);
    expect(problems({ BOUNCE_DOMAIN: 'b.example.com', BOUNCE_SMTP_HOST: '0.0.0.0' })).toEqual([
      'BOUNCE_SMTP_HOST: needs BOUNCE_SMTP_PORT',
    ]);
    expect(problems({ BOUNCE_DOMAIN: 'not a domain' })).toEqual([
      'BOUNCE_DOMAIN: must be a domain name, for example bounces.example.com',
    ]);
    expect(problems({ BOUNCE_MAX_MESSAGE_BYTES: '10' })[0]).toMatch(/^BOUNCE_MAX_MESSAGE_BYTES: /);
  });
});
