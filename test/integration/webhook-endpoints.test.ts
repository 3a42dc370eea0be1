// Webhook endpoint management through the services (what the CLI and, later, the application routes call):
// URL rules in production and development, create, list, update, delete and rotation, organization scoping,
// and the worker's own refusal of private targets in production.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookActivities } from '../../activities/webhooks.ts';
import { WebhookDelivery, WebhookEndpoint } from '../../db/entities/index.ts';
import { queueWebhookEventDeliveries } from '../../db/webhook-deliveries.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import { deleteWebhookEndpoint } from '../../services/webhooks/delete-webhook-endpoint.ts';
import { listWebhookDeliveries } from '../../services/webhooks/list-webhook-deliveries.ts';
import { listWebhookEndpoints } from '../../services/webhooks/list-webhook-endpoints.ts';
import { rotateWebhookSecret } from '../../services/webhooks/rotate-webhook-secret.ts';
import { updateWebhookEndpoint } from '../../services/webhooks/update-webhook-endpoint.ts';
import { openTestContext, servicesOn, type TestContext } from '../support/context.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

let ctx: TestContext;
let receiver: WebhookReceiver;

beforeAll(async () => {
  ctx = await openTestContext();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
});

async function newOrganization(plan: 'Business' | 'Starter' = 'Business') {
  return (await createOrganization(ctx, { name: `Hooks ${randomUUID().slice(0, 6)}`, plan })).id;
}

/** Production rules, with DNS answered by the test. */
function production(dns: Record<string, string[]> = {}) {
  return servicesOn(ctx.orm, {
    config: { env: 'production' as const },
    resolveHost: async (name: string) => {
      const addresses = dns[name];
      if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      return addresses;
    },
  });
}

describe('endpoint URL rules', () => {
  it.each([
    ['http://hooks.example.com/sigil', /must start with https:\/\//],
    ['https://127.0.0.1/hook', /127\.0\.0\.1 is a loopback address .*only to public addresses/],
    ['https://10.1.2.3/hook', /10\.1\.2\.3 is a private address \(10\.0\.0\.0\/8\)/],
    ['https://172.20.0.5/hook', /private address/],
    ['https://192.168.0.10:8443/hook', /private address/],
    ['https://169.254.169.254/latest/meta-data', /link-local address/],
    ['https://[::1]/hook', /loopback/],
    ['https://[fd12:3456::1]/hook', /unique-local address/],
    ['https://[fe80::1]/hook', /link-local address/],
    ['https://[::ffff:10.0.0.1]/hook', /private address/],
    ['https://localhost/hook', /loopback host/],
    ['https://api.localhost/hook', /loopback host/],
    [
      'https://intranet.example.com/hook',
      /intranet\.example\.com resolves to 10\.9\.8\.7 is a private address/,
    ],
    ['https://dual.example.com/hook', /resolves to fd00::7 is a unique-local address/],
    ['https://nowhere.example.com/hook', /cannot be resolved/],
    ['https://user:pass@hooks.example.com/hook', /user name and password are not allowed/],
    ['https://hooks.example.com/hook#part', /fragment/],
    ['ftp://hooks.example.com/hook', /must start with https:\/\//],
    ['hooks.example.com/hook', /is not an absolute URL/],
  ])('refuses %s in production (400)', async (url, message) => {
    const organizationId = await newOrganization();
    const dns = {
      'intranet.example.com': ['10.9.8.7'],
      'dual.example.com': ['93.184.216.34', 'fd00::7'],
      'hooks.example.com': ['93.184.216.34'],
    };
    const refusal = createWebhookEndpoint(production(dns), { organizationId, url });
    await expect(refusal).rejects.toMatchObject({ status: 400, code: 'invalid_request', message });
    await expect(refusal).rejects.toMatchObject({ details: [{ field: 'url' }] });
  });

  it('accepts a public https URL in production', async () => {
    const organizationId = await newOrganization();
    const endpoint = await createWebhookEndpoint(production({ 'hooks.example.com': ['93.184.216.34'] }), {
      organizationId,
      url: 'https://hooks.example.com/sigil?tenant=7',
      eventTypes: ['envelope.completed', 'envelope.completed', 'document.final_pdf_ready'],
    });
    expect(endpoint).toMatchObject({
      url: 'https://hooks.example.com/sigil?tenant=7',
      eventTypes: ['envelope.completed', 'document.final_pdf_ready'],
      enabled: true,
      previousSecretExpiresAt: null,
    });
    expect(endpoint.secret).toMatch(/^whsec_[\w-]{43}$/);
    expect(endpoint.secretHint).toBe(`…${endpoint.secret.slice(-4)}`);
    const literal = await createWebhookEndpoint(production(), {
      organizationId,
      url: 'https://93.184.216.34/x',
    });
    expect(literal.url).toBe('https://93.184.216.34/x');
  });

  it('allows http and loopback or private addresses in development and test', async () => {
    const organizationId = await newOrganization();
    for (const env of ['development', 'test'] as const) {
      for (const url of ['http://127.0.0.1:9/hook', 'http://localhost:3000/hook', 'https://10.0.0.8/hook']) {
        const endpoint = await createWebhookEndpoint(servicesOn(ctx.orm, { config: { env } }), {
          organizationId,
          url,
        });
        expect(endpoint.url).toBe(url);
      }
    }
    await expect(
      createWebhookEndpoint(servicesOn(ctx.orm, { config: { env: 'development' as const } }), {
        organizationId,
        url: 'ftp://x/y',
      }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('refuses unknown event types', async () => {
    const organizationId = await newOrganization();
    await expect(
      createWebhookEndpoint(ctx, {
        organizationId,
        url: 'http://127.0.0.1/x',
        eventTypes: ['envelope.lost'] as never,
      }),
    ).rejects.toMatchObject({ status: 400, message: /each event type must be one of: envelope\.created/ });
  });
});

describe('endpoint management', () => {
  it('lists, updates, rotates and deletes, never showing a secret after it was issued', async () => {
    const organizationId = await newOrganization();
    const created = await createWebhookEndpoint(ctx, {
      organizationId,
      url: 'http://127.0.0.1:9/a',
      eventTypes: ['envelope.sent'],
    });
    const [listed] = await listWebhookEndpoints(ctx, organizationId);
    expect(listed).toMatchObject({ id: created.id, url: created.url, eventTypes: ['envelope.sent'] });
    expect(JSON.stringify(listed)).not.toContain(created.secret);

    const updated = await updateWebhookEndpoint(ctx, {
      organizationId,
      endpointId: created.id,
      url: 'http://127.0.0.1:9/b',
      eventTypes: [],
      enabled: false,
    });
    expect(updated).toMatchObject({ url: 'http://127.0.0.1:9/b', eventTypes: [], enabled: false });
    await expect(
      updateWebhookEndpoint(ctx, { organizationId, endpointId: created.id }),
    ).rejects.toMatchObject({
      status: 400,
    });
    await expect(
      updateWebhookEndpoint(production(), {
        organizationId,
        endpointId: created.id,
        url: 'https://10.0.0.1/',
      }),
    ).rejects.toMatchObject({ status: 400 });

    const first = await rotateWebhookSecret(ctx, organizationId, created.id);
    const second = await rotateWebhookSecret(ctx, organizationId, created.id);
    // The second rotation keeps the secret it retired, not the original one.
    const row = await ctx.orm.em.fork().findOneOrFail(WebhookEndpoint, { id: created.id });
    expect(row.secret).toBe(second.secret);
    expect(row.previousSecret).toBe(first.secret);
    expect(second.previousSecretHint).toBe(`…${first.secret.slice(-4)}`);
    expect(JSON.stringify(await listWebhookEndpoints(ctx, organizationId))).not.toMatch(
      new RegExp(
        [created.secret, first.secret, second.secret].map((s) => s.replace(/[-]/g, '\\-')).join('|'),
      ),
    );

    // Its deliveries go with it.
    await ctx.orm.em.fork().nativeUpdate(WebhookEndpoint, { id: created.id }, { enabled: true });
    const [deliveryId] = await queueWebhookEventDeliveries(ctx.orm.em.fork(), organizationId, {
      id: randomUUID(),
      type: 'envelope.sent',
      created_at: new Date().toISOString(),
      data: { envelope_id: randomUUID() },
    });
    expect(deliveryId).toBeDefined();
    expect(await deleteWebhookEndpoint(ctx, organizationId, created.id)).toEqual({
      id: created.id,
      deleted: true,
    });
    expect(await listWebhookEndpoints(ctx, organizationId)).toEqual([]);
    expect(await ctx.orm.em.fork().count(WebhookDelivery, { id: deliveryId as string })).toBe(0);
  });

  it('keeps every organization to its own endpoints and deliveries (404)', async () => {
    const mine = await newOrganization();
    const theirs = await newOrganization();
    const endpoint = await createWebhookEndpoint(ctx, {
      organizationId: theirs,
      url: 'http://127.0.0.1:9/x',
    });
    await expect(rotateWebhookSecret(ctx, mine, endpoint.id)).rejects.toMatchObject({ status: 404 });
    await expect(deleteWebhookEndpoint(ctx, mine, endpoint.id)).rejects.toMatchObject({ status: 404 });
    await expect(
      updateWebhookEndpoint(ctx, { organizationId: mine, endpointId: endpoint.id, enabled: false }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(listWebhookDeliveries(ctx, mine, { endpointId: endpoint.id })).rejects.toMatchObject({
      status: 404,
    });
    expect(await listWebhookEndpoints(ctx, mine)).toEqual([]);
  });

  it('refuses endpoints on a plan without webhooks (403)', async () => {
    const organizationId = await newOrganization('Starter');
    await expect(
      createWebhookEndpoint(ctx, { organizationId, url: 'http://127.0.0.1:9/x' }),
    ).rejects.toMatchObject({
      status: 403,
      code: 'forbidden',
      message: /Webhooks are not included in the Starter plan of this organization/,
    });
  });
});

describe('delivery in production', () => {
  it('refuses at connect time what resolves to a private address, and records why', async () => {
    const organizationId = await newOrganization();
    const em = ctx.orm.em.fork();
    const activities = createWebhookActivities({ orm: ctx.orm, webhooks: { allowPrivateTargets: false } });
    const port = new URL(receiver.url).port;
    const cases = [
      { url: `http://127.0.0.1:${port}/p`, error: /must use https/ },
      { url: `https://127.0.0.1:${port}/p`, error: /Refused target: 127\.0\.0\.1 is a loopback address/ },
      // Saved while the name looked public; at delivery it resolves to loopback and is refused.
      {
        url: `https://localhost:${port}/p`,
        error: /Refused target: localhost resolves to .* loopback address/,
      },
    ];
    for (const { url, error } of cases) {
      const endpoint = await createWebhookEndpoint(ctx, { organizationId, url });
      const [deliveryId] = await queueWebhookEventDeliveries(em, organizationId, {
        id: randomUUID(),
        type: 'envelope.sent',
        created_at: new Date().toISOString(),
        data: {},
      });
      if (!deliveryId) throw new Error('nothing queued');
      const outcome = await activities.attemptWebhookDelivery({
        deliveryId,
        attempt: 1,
        retryDelayMs: 30_000,
      });
      expect(outcome).toEqual({ status: 'pending', statusCode: null, retryDelayMs: 30_000 });
      const [record] = await listWebhookDeliveries(ctx, organizationId, { endpointId: endpoint.id });
      expect(record?.lastError).toMatch(error);
      expect(record?.attempts).toHaveLength(1);
      await deleteWebhookEndpoint(ctx, organizationId, endpoint.id);
    }
    expect(receiver.received.filter((request) => request.path === '/p')).toEqual([]);
  });
});
