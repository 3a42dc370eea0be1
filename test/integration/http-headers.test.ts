// What every answer tells the browser, and whom a mutation must come from (issue 30): API answers are never
// kept by a cache (`Cache-Control: no-store`, decided once by the server for the application routes, /api/v1,
// the signer API, the backoffice and /oauth/token, errors included, unless a route says otherwise); production
// over https sends HSTS; an API process in production without TRUSTED_PROXIES says at start what that costs;
// with PUBLIC_BASE_URL set, the Origin check compares with it alone, never with a Host header the client chose.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRICT_TRANSPORT_SECURITY } from '../../api/http/server.ts';
import {
  type ApiHarness,
  buildTestApp,
  newIntegrator,
  openApiHarness,
  productionConfig,
} from '../support/api.ts';
import { signedInAdmin } from '../support/backoffice.ts';
import { testConfig } from '../support/context.ts';
import { documentFixture, documentTemplate } from '../support/documents.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let owner: SignedInUser;

beforeAll(async () => {
  harness = await openApiHarness();
  owner = await signedInUser(harness, { role: 'owner' });
});
afterAll(() => harness?.close());

const cacheControlOf = (response: LightMyRequestResponse) => response.headers['cache-control'];

describe('Cache-Control of the API', () => {
  it('is no-store on every authenticated or token-bearing answer, errors included', async () => {
    const organizationId = owner.organization.id;
    const templateId = await documentTemplate(harness.ctx, organizationId);
    const envelope = await documentFixture(harness.ctx, organizationId, templateId, { send: true });
    const link = await harness.app.inject({
      method: 'POST',
      url: `/api/documents/${envelope.id}/recipients/${envelope.recipientIds[0]}/signing-link`,
      headers: owner.headers,
      payload: {},
    });
    expect(link.statusCode, link.body).toBe(200);
    const signingToken = (link.json().url as string).split('/sign/')[1] as string;
    const integrator = await newIntegrator(harness);
    const bearer = await integrator.auth();
    const admin = await signedInAdmin(harness, 'cache');

    const answers: [string, Promise<LightMyRequestResponse>, number][] = [
      ['GET /api/auth/me', harness.app.inject({ url: '/api/auth/me', headers: owner.headers }), 200],
      ['GET /api/documents', harness.app.inject({ url: '/api/documents', headers: owner.headers }), 200],
      ['GET /api/templates', harness.app.inject({ url: '/api/templates', headers: owner.headers }), 200],
      ['POST …/signing-link', Promise.resolve(link), 200],
      ['GET /api/signing/{token}', harness.app.inject({ url: `/api/signing/${signingToken}` }), 200],
      ['GET /api/v1/templates', harness.app.inject({ url: '/api/v1/templates', headers: bearer }), 200],
      [
        'POST /oauth/token',
        harness.app.inject({
          method: 'POST',
          url: '/oauth/token',
          headers: {
            authorization: `Basic ${Buffer.from(`${integrator.clientId}:${integrator.clientSecret}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          payload: 'grant_type=client_credentials',
        }),
        200,
      ],
      [
        'GET /api/backoffice/session',
        harness.app.inject({ url: '/api/backoffice/session', headers: admin.headers }),
        200,
      ],
      ['GET /api/auth/me signed out', harness.app.inject({ url: '/api/auth/me' }), 401],
      ['GET /api/signing/{unknown}', harness.app.inject({ url: `/api/signing/${randomUUID()}` }), 404],
      ['GET /api/nothing', harness.app.inject({ url: '/api/nothing' }), 404],
    ];
    for (const [what, pending, status] of answers) {
      const response = await pending;
      expect(response.statusCode, `${what}: ${response.body.slice(0, 200)}`).toBe(status);
      expect(cacheControlOf(response), what).toBe('no-store');
    }

    // A route that says otherwise keeps its own: the envelope the page polls with If-None-Match.
    const polled = await harness.app.inject({ url: `/api/documents/${envelope.id}`, headers: owner.headers });
    expect(polled.statusCode).toBe(200);
    expect(cacheControlOf(polled)).toBe('private, no-cache');
    // Pages are the web app's business (revalidated, not no-store).
    expect(cacheControlOf(await harness.app.inject({ url: '/plans' }))).toBe('no-cache');
  });
});

describe('Strict-Transport-Security', () => {
  it('is sent in production with an https PUBLIC_BASE_URL, on every answer; not over http, not outside production', async () => {
    const apps: [string, FastifyInstance, string | undefined][] = [
      [
        'production, https',
        await buildTestApp(
          harness.ctx,
          productionConfig({ PUBLIC_BASE_URL: 'https://sign.example.test', TRUSTED_PROXIES: '10.0.0.1' }),
        ),
        STRICT_TRANSPORT_SECURITY,
      ],
      [
        'production, http',
        await buildTestApp(
          harness.ctx,
          productionConfig({ PUBLIC_BASE_URL: 'http://sign.example.test', TRUSTED_PROXIES: '10.0.0.1' }),
        ),
        undefined,
      ],
      [
        'test, https',
        await buildTestApp(harness.ctx, testConfig({ PUBLIC_BASE_URL: 'https://sign.example.test' })),
        undefined,
      ],
    ];
    try {
      for (const [what, app, expected] of apps) {
        for (const url of ['/api/health', '/api/auth/me', '/plans', '/nothing/here.js']) {
          const response = await app.inject({ url });
          expect(response.headers['strict-transport-security'], `${what}: ${url}`).toBe(expected);
        }
      }
    } finally {
      for (const [, app] of apps) await app.close();
    }
    expect(STRICT_TRANSPORT_SECURITY).toBe('max-age=31536000');
  });
});

describe('TRUSTED_PROXIES at start', () => {
  it('is warned about once in production when unset, and not when set or outside production', async () => {
    const warnings = async (config: ReturnType<typeof testConfig>) => {
      const lines: { level: number; msg: string }[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
      const app = await buildTestApp(harness.ctx, config, logger);
      await app.close();
      return lines.filter((line) => /TRUSTED_PROXIES/.test(line.msg));
    };
    const unset = await warnings(productionConfig());
    expect(unset).toHaveLength(1);
    expect(unset[0]?.level).toBe(40);
    expect(unset[0]?.msg).toMatch(/^TRUSTED_PROXIES is not set: .*docs\/deployment\.md/);
    expect(await warnings(productionConfig({ TRUSTED_PROXIES: '10.0.0.0/8' }))).toEqual([]);
    expect(await warnings(testConfig())).toEqual([]);
  });
});

describe('the Origin check of mutations', () => {
  const PUBLIC = 'https://sign.example.test';

  it('compares with PUBLIC_BASE_URL alone where it is set: a forged Host does not make an origin this server', async () => {
    const app = await buildTestApp(harness.ctx, testConfig({ PUBLIC_BASE_URL: PUBLIC }));
    try {
      const attempts: [Record<string, string>, number][] = [
        // The attacker's page, with a Host header naming the attacker's site.
        [{ host: 'evil.example', origin: 'http://evil.example' }, 403],
        [{ host: 'evil.example', referer: 'http://evil.example/page' }, 403],
        // The server's own address as a Host header is not a page of the public address either.
        [{ host: 'localhost:80', origin: 'http://localhost:80' }, 403],
        [{ host: 'evil.example', origin: PUBLIC }, 200],
        [{ origin: PUBLIC }, 200],
      ];
      for (const [headers, status] of attempts) {
        for (const url of ['/api/auth/logout', `/api/signing/${randomUUID()}/personal-stamps`]) {
          const response = await app.inject({ method: 'POST', url, headers, payload: {} });
          const where = `${url} with ${JSON.stringify(headers)}`;
          if (status === 403) {
            expect(response.statusCode, where).toBe(403);
            expect(response.json().error.code, where).toBe('cross_site_request');
          } else {
            // Past the Origin check: sign-out answers Ok, the stamp route reads its body (400).
            expect(response.statusCode, `${where}: ${response.body}`).toBe(
              url.endsWith('logout') ? 200 : 400,
            );
          }
        }
      }
    } finally {
      await app.close();
    }
  });

  it('still takes the request’s own address while PUBLIC_BASE_URL is unset (development)', async () => {
    const response = await harness.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { host: 'dev.example.test:5173', origin: 'http://dev.example.test:5173' },
      payload: {},
    });
    expect(response.statusCode, response.body).toBe(200);
  });
});
