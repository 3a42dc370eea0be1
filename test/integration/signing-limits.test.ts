// The signer API is throttled per source address before any token is looked up.
import type { Connection } from '@temporalio/client';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app.ts';
import { randomToken } from '../../services/security/secrets.ts';
import { openTestContext, type TestContext, testConfig } from '../support/context.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await openTestContext();
});
afterAll(() => ctx.close());

describe('signer API rate limit', () => {
  it('answers 429 with Retry-After once an address exceeds its limit; other addresses are unaffected', async () => {
    const config = testConfig();
    const app = await buildApp({
      config: { ...config, api: { ...config.api, signingRatePerMinute: 2 } },
      orm: ctx.orm,
      temporal: {
        connection: ctx.temporal.connection as Connection,
        client: ctx.temporal,
        namespace: inject('namespace'),
      },
      logger: pino({ level: 'silent' }),
    });
    const view = (remoteAddress: string) =>
      app.inject({ method: 'GET', url: `/api/signing/${randomToken()}`, remoteAddress });
    expect((await view('203.0.113.90')).statusCode).toBe(404);
    const second = await view('203.0.113.90');
    expect(second.statusCode).toBe(404);
    expect(second.headers['ratelimit-remaining']).toBe('0');
    const third = await view('203.0.113.90');
    expect(third.statusCode).toBe(429);
    expect(third.json().error.code).toBe('rate_limited');
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect((await view('203.0.113.91')).statusCode).toBe(404);
    await app.close();
  });
});
