// Sandbox next to the rest of Sigil: a full integrator flow in sandbox contacts nobody (no message captured, no
// notification recorded, no webhook delivery queued, although the organization has an endpoint); webhook test
// deliveries still work with the sandbox header; the IP allowlist and the rate limit apply to sandbox requests.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevNotification, Notification, SandboxEnvelope, WebhookDelivery } from '../../db/entities/index.ts';
import { createOAuthClient } from '../../services/oauth-clients/create-oauth-client.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';
import { startWebhookReceiver, verifies, type WebhookReceiver } from '../support/webhook-receiver.ts';

const SANDBOX = { 'x-service-sandbox': 'true' };

let harness: ApiHarness;
let receiver: WebhookReceiver;
let acme: Integrator;

beforeAll(async () => {
  harness = await openApiHarness();
  receiver = await startWebhookReceiver();
  acme = await newIntegrator(harness);
});
afterAll(async () => {
  await receiver?.close();
  await harness?.close();
});

async function counts(organizationId: string) {
  const em = harness.ctx.orm.em.fork();
  return {
    captured: await em.count(DevNotification, { organizationId }),
    notifications: await em.count(Notification, { organizationId }),
    deliveries: await em.count(WebhookDelivery, { organizationId }),
  };
}

describe('sandbox contacts nobody', () => {
  it('token → create → send → remind → Completed → downloads: no message, no notification, no webhook', async () => {
    const endpoint = await createWebhookEndpoint(harness.ctx, {
      organizationId: acme.organizationId,
      url: `${receiver.url}/sandbox-org`,
    });
    const headers = { ...(await acme.auth()), ...SANDBOX };
    const before = await counts(acme.organizationId);

    const created = await harness.app.inject({
      method: 'POST',
      url: '/api/v1/envelopes/from-template',
      headers,
      payload: {
        title: 'Sandbox agreement',
        templateId: acme.templateId,
        recipients: [
          {
            roleName: 'Client',
            fullName: 'Dana Levi',
            phone: '+972501234567',
            deliveryChannel: 'Sms',
            authenticationMethod: 'OtpSms',
          },
          { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
        ],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    for (const step of ['send', 'remind']) {
      const response = await harness.app.inject({
        method: 'POST',
        url: `/api/v1/envelopes/${id}/${step}`,
        headers,
      });
      expect(response.statusCode, `${step}: ${response.body}`).toBe(200);
    }
    const completed = await harness.app.inject({
      method: 'POST',
      url: `/api/v1/sandbox/envelopes/${id}/Completed`,
      headers,
    });
    expect(completed.statusCode, completed.body).toBe(200);
    for (const document of ['final-pdf', 'audit-trail']) {
      const download = await harness.app.inject({
        method: 'GET',
        url: `/api/v1/envelopes/${id}/documents/${document}`,
        headers,
      });
      expect(download.statusCode).toBe(200);
      expect(download.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    }
    expect(await harness.ctx.orm.em.fork().count(SandboxEnvelope, { id })).toBe(1);

    // Give anything that might have been started a moment, then check nothing was.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await counts(acme.organizationId)).toEqual(before);
    expect(receiver.received.filter((r) => r.path === '/sandbox-org')).toHaveLength(0);

    // A webhook test delivery needs no recipients: with the sandbox header it is sent and signed as usual.
    const test = await harness.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/${endpoint.id}/test`,
      headers: { ...(await acme.auth(['webhooks.manage'])), ...SANDBOX },
    });
    expect(test.statusCode, test.body).toBe(202);
    const [delivered] = await receiver.waitFor(1, (r) => r.path === '/sandbox-org');
    expect(delivered && verifies(delivered, endpoint.secret)).toBe(true);
  });
});

describe('sandbox requests pass the ordinary checks', () => {
  it('the OAuth client IP allowlist refuses other addresses', async () => {
    const client = await createOAuthClient(harness.ctx, {
      organizationId: acme.organizationId,
      name: 'Allowlisted',
      scopes: ['envelopes.read'],
      ipAllowlist: ['10.9.9.9'],
    });
    const token = await harness.app.inject({
      method: 'POST',
      url: '/oauth/token',
      remoteAddress: '10.9.9.9',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: 'grant_type=client_credentials',
    });
    expect(token.statusCode, token.body).toBe(200);
    const authorization = `Bearer ${token.json().access_token}`;
    const url = `/api/v1/envelopes/${randomUUID()}`;
    const allowed = await harness.app.inject({
      method: 'GET',
      url,
      remoteAddress: '10.9.9.9',
      headers: { authorization, ...SANDBOX },
    });
    expect(allowed.statusCode).toBe(404);
    const refused = await harness.app.inject({ method: 'GET', url, headers: { authorization, ...SANDBOX } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.message).toMatch(/allow/i);
  });

  it('the plan rate limit counts sandbox requests and answers 429', async () => {
    const busy = await newIntegrator(harness);
    const headers = { ...(await busy.auth()), ...SANDBOX };
    let answered = 0;
    let limited: Awaited<ReturnType<typeof harness.app.inject>> | undefined;
    for (let i = 0; i < 400 && !limited; i += 1) {
      const response = await harness.app.inject({
        method: 'GET',
        url: `/api/v1/envelopes/${randomUUID()}`,
        headers,
      });
      if (response.statusCode === 429) limited = response;
      else answered += 1;
    }
    // Business plan: 180 requests a minute (the window may roll over once during the loop).
    expect(limited?.statusCode).toBe(429);
    expect(answered).toBeGreaterThanOrEqual(180);
    expect(limited?.headers['retry-after']).toBeDefined();
  });
});
