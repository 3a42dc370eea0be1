// Secrets never reach the logs: bearer tokens, client secrets and signing-link tokens in URL paths.
import { Writable } from 'node:stream';
import type { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app.ts';
import { createLogger } from '../../config/logger.ts';
import { randomToken } from '../../services/security/secrets.ts';
import { openTestContext, type TestContext, testConfig } from '../support/context.ts';

let ctx: TestContext;
let lines: string[];

beforeAll(async () => {
  ctx = await openTestContext();
});
afterAll(() => ctx.close());

async function appLoggingTo(sink: string[]) {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      sink.push(chunk.toString());
      done();
    },
  });
  return buildApp({
    config: testConfig(),
    orm: ctx.orm,
    temporal: {
      connection: ctx.temporal.connection as Connection,
      client: ctx.temporal,
      namespace: inject('namespace'),
    },
    logger: createLogger({ logLevel: 'trace' }, 'sigil-test', stream),
  });
}

describe('logs', () => {
  it('contain no signing-link token, bearer token or client secret', async () => {
    lines = [];
    const app = await appLoggingTo(lines);
    const linkToken = randomToken();
    const bearer = randomToken();
    const clientSecret = randomToken();
    await app.inject({ method: 'GET', url: `/api/signing/${linkToken}` });
    await app.inject({
      method: 'POST',
      url: `/api/signing/${linkToken}/complete`,
      payload: { consent: true },
    });
    await app.inject({ method: 'GET', url: `/${linkToken}/document` });
    await app.inject({
      method: 'GET',
      url: '/api/v1/organization',
      headers: { authorization: `Bearer ${bearer}` },
    });
    await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=client_credentials&client_id=someone&client_secret=${clientSecret}`,
    });
    await app.close();

    const text = lines.join('');
    expect(lines.length).toBeGreaterThan(5);
    expect(text).toContain('/api/signing/[token]');
    expect(text).toContain('/[token]/document');
    for (const secret of [linkToken, bearer, clientSecret]) expect(text).not.toContain(secret);
  });
});
