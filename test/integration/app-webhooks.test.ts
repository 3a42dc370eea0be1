// Webhooks in the business app through HTTP with signed-in sessions on real PostgreSQL and the shared worker
// (docs/webhooks.md, "Webhooks in the business app"): an endpoint created through POST /api/webhooks gets a
// delivery signed with the secret shown once (checked by the receiver's own HMAC code); a delivery the
// receiver failed is replayed and then succeeds; the list, filters and detail of the delivery log; rotation
// with its grace period; permissions, other organizations, refused input naming its field, and a plan
// without webhooks.
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueWebhookEventDeliveries } from '../../db/webhook-deliveries.ts';
import { WEBHOOK_EVENT_TYPES } from '../../domain/vocabulary.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import { type WebhookEvent, webhookDeliveryWorkflowId } from '../../workflows/webhook-contracts.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectError } from '../support/app-requests.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';
import {
  deliveryIdOf,
  type ReceivedRequest,
  startWebhookReceiver,
  verifies,
  type WebhookReceiver,
} from '../support/webhook-receiver.ts';

let harness: ApiHarness;
let receiver: WebhookReceiver;
let owner: SignedInUser;
let reader: SignedInUser;
let member: SignedInUser;
let stranger: SignedInUser;

beforeAll(async () => {
  harness = await openApiHarness();
  receiver = await startWebhookReceiver();
  owner = await signedInUser(harness, { role: 'owner' });
  member = await signedInUser(harness, { role: 'member', organizationId: owner.organization.id });
  const role = await callAs(harness.app, owner, 'POST', '/api/roles', {
    name: 'Integration readers',
    permissions: ['integrations:read'],
  });
  reader = await signedInUser(harness, { role: role.id, organizationId: owner.organization.id });
  stranger = await signedInUser(harness, { role: 'owner' });
});
afterAll(async () => {
  await receiver?.close();
  await harness?.close();
});

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** An endpoint of `as`'s organization on the receiver, under a path of its own. */
async function newEndpoint(as: SignedInUser, eventTypes?: string[]) {
  const path = `/hooks/${randomUUID()}`;
  const created = await callAs(harness.app, as, 'POST', '/api/webhooks', {
    url: `${receiver.url}${path}`,
    ...(eventTypes ? { eventTypes } : {}),
  });
  return { endpoint: created, path, ours: (request: ReceivedRequest) => request.path === path };
}

/** The delivery, read through the detail route, once its first attempt is recorded. */
async function attempted(as: SignedInUser, deliveryId: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const record = await callAs(harness.app, as, 'GET', `/api/webhooks/deliveries/${deliveryId}`);
    if (record.attemptCount >= 1) return record;
    if (Date.now() > deadline) throw new Error(`delivery ${deliveryId} never attempted`);
    await delay(100);
  }
}

describe('endpoints', () => {
  it('creates an endpoint whose secret is shown once and signs its test delivery', async () => {
    const { endpoint, ours } = await newEndpoint(owner, ['envelope.completed', 'envelope.sent']);
    expect(endpoint.secret).toMatch(/^whsec_[\w-]{43}$/);
    expect(endpoint).toMatchObject({
      eventTypes: ['envelope.completed', 'envelope.sent'],
      enabled: true,
      secretHint: `…${endpoint.secret.slice(-4)}`,
    });

    const list = await callAs(harness.app, owner, 'GET', '/api/webhooks');
    expect(list).toMatchObject({ webhookAccess: true, planName: 'Business', secretGraceHours: 24 });
    const listed = list.endpoints.find((item: { id: string }) => item.id === endpoint.id);
    expect(listed).toMatchObject({ url: endpoint.url, recentDeliveries: { succeeded: 0, failed: 0 } });
    expect(JSON.stringify(list)).not.toContain(endpoint.secret);

    const queued = await callAs(harness.app, owner, 'POST', `/api/webhooks/${endpoint.id}/test`);
    expect(queued).toMatchObject({ endpointId: endpoint.id, kind: 'test', status: 'pending' });
    const [request] = await receiver.waitFor(1, ours);
    if (!request) throw new Error('no request');
    expect(deliveryIdOf(request)).toBe(queued.id);
    expect(verifies(request, endpoint.secret)).toBe(true);
    expect(verifies(request, `${endpoint.secret}x`)).toBe(false);

    const record = await attempted(owner, queued.id);
    expect(record).toMatchObject({
      status: 'succeeded',
      eventType: 'envelope.completed',
      endpointUrl: endpoint.url,
      lastStatusCode: 200,
      lastError: null,
    });
    expect(typeof record.requestId).toBe('string');
    expect(record.attempts).toHaveLength(1);
    expect(record.attempts[0]).toMatchObject({ attempt: 1, statusCode: 200, error: null });

    const after = await callAs(harness.app, owner, 'GET', '/api/webhooks');
    expect(after.endpoints.find((item: { id: string }) => item.id === endpoint.id).recentDeliveries).toEqual({
      succeeded: 1,
      failed: 0,
      pending: 0,
    });
  });

  it('replays a delivery the receiver failed, and the replay succeeds', async () => {
    const { endpoint, ours } = await newEndpoint(owner);
    receiver.answer((request) =>
      ours(request) ? { status: 500, body: `down, key ${endpoint.secret}` } : { status: 200 },
    );
    const failing = await callAs(harness.app, owner, 'POST', `/api/webhooks/${endpoint.id}/test`);
    const [failed] = await receiver.waitFor(1, ours);
    const record = await attempted(owner, failing.id);
    expect(record).toMatchObject({ status: 'pending', attemptCount: 1, lastStatusCode: 500 });
    // Redacted: the secret echoed by the receiver is not shown.
    expect(record.lastError).toBe('HTTP 500: down, key [redacted]');
    expect(record.attempts[0]).toMatchObject({ statusCode: 500, error: 'HTTP 500: down, key [redacted]' });

    receiver.answer(() => ({ status: 200 }));
    const replay = await callAs(harness.app, owner, 'POST', `/api/webhooks/deliveries/${failing.id}/replay`);
    expect(replay.id).not.toBe(failing.id);
    expect(replay).toMatchObject({ replayOf: failing.id, eventId: failing.eventId, status: 'pending' });
    const [, replayed] = await receiver.waitFor(2, ours);
    if (!failed || !replayed) throw new Error('missing requests');
    expect(deliveryIdOf(replayed)).toBe(replay.id);
    expect(replayed.rawBody).toBe(failed.rawBody);
    expect(verifies(replayed, endpoint.secret)).toBe(true);
    expect(await attempted(owner, replay.id)).toMatchObject({ status: 'succeeded', lastStatusCode: 200 });

    // The log's filters: the endpoint's deliveries, by status.
    const all = await callAs(harness.app, owner, 'GET', `/api/webhooks/deliveries?endpointId=${endpoint.id}`);
    expect(all.total).toBe(2);
    expect(all.deliveries.map((delivery: { id: string }) => delivery.id)).toEqual([replay.id, failing.id]);
    const succeeded = await callAs(
      harness.app,
      owner,
      'GET',
      `/api/webhooks/deliveries?endpointId=${endpoint.id}&status=succeeded&eventType=envelope.completed`,
    );
    expect(succeeded.deliveries.map((delivery: { id: string }) => delivery.id)).toEqual([replay.id]);
    const none = await callAs(
      harness.app,
      owner,
      'GET',
      `/api/webhooks/deliveries?endpointId=${endpoint.id}&eventType=envelope.sent`,
    );
    expect(none).toEqual({ deliveries: [], total: 0, nextOffset: null });
    const page = await callAs(
      harness.app,
      owner,
      'GET',
      `/api/webhooks/deliveries?endpointId=${endpoint.id}&limit=1`,
    );
    expect(page).toMatchObject({ total: 2, nextOffset: 1 });
    expect(page.deliveries).toHaveLength(1);

    await harness.ctx.temporal.workflow
      .getHandle(webhookDeliveryWorkflowId(failing.id))
      .terminate('test done');
  });

  it('answers a repeated test request with the same Idempotency-Key with the first delivery', async () => {
    const { endpoint, ours } = await newEndpoint(owner);
    const key = `test-${randomUUID()}`;
    const send = () =>
      harness.app.inject({
        method: 'POST',
        url: `/api/webhooks/${endpoint.id}/test`,
        headers: { ...owner.headers, 'idempotency-key': key },
      });
    const first = await send();
    expect(first.statusCode, first.body).toBe(200);
    const again = await send();
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().id).toBe(first.json().id);
    await receiver.waitFor(1, ours);
    expect(
      (await callAs(harness.app, owner, 'GET', `/api/webhooks/deliveries?endpointId=${endpoint.id}`)).total,
    ).toBe(1);
  });

  it('changes, disables, rotates and deletes an endpoint', async () => {
    const { endpoint } = await newEndpoint(owner);
    const changed = await callAs(harness.app, owner, 'PUT', `/api/webhooks/${endpoint.id}`, {
      url: `${receiver.url}/hooks/changed`,
      eventTypes: ['recipient.declined'],
      enabled: false,
    });
    expect(changed).toMatchObject({
      url: `${receiver.url}/hooks/changed`,
      eventTypes: ['recipient.declined'],
      enabled: false,
    });
    expect(changed).not.toHaveProperty('secret');

    const rotated = await callAs(harness.app, owner, 'POST', `/api/webhooks/${endpoint.id}/secret/rotate`);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(rotated.previousSecretHint).toBe(`…${endpoint.secret.slice(-4)}`);
    const graceHours = (Date.parse(rotated.previousSecretExpiresAt) - Date.now()) / 3600_000;
    expect(graceHours).toBeGreaterThan(23.9);
    expect(graceHours).toBeLessThanOrEqual(24);

    expect(await callAs(harness.app, owner, 'DELETE', `/api/webhooks/${endpoint.id}`)).toEqual({ ok: true });
    expectError(
      await asUser(harness.app, owner, 'PUT', `/api/webhooks/${endpoint.id}`, { enabled: true }),
      404,
      'not_found',
    );
  });
});

describe('who may subscribe an endpoint to what (issue 30)', () => {
  it('refuses a role with only the integrations permissions any envelope event, and a change or a secret of such an endpoint', async () => {
    const role = await callAs(harness.app, owner, 'POST', '/api/roles', {
      name: `Integrators ${randomUUID().slice(0, 6)}`,
      permissions: ['integrations:read', 'integrations:manage'],
    });
    const integrator = await signedInUser(harness, { role: role.id, organizationId: owner.organization.id });
    const listedCount = async () =>
      (await callAs(harness.app, owner, 'GET', '/api/webhooks')).endpoints.length;
    const before = await listedCount();
    const named = expectError(
      await asUser(harness.app, integrator, 'POST', '/api/webhooks', {
        url: 'https://example.com/hook',
        eventTypes: ['envelope.completed'],
      }),
      403,
      'forbidden',
    );
    expect(named.message).toMatch(/envelope\.completed: it needs documents:read, documents:read_all/);
    expect(named.details).toEqual([
      expect.objectContaining({
        field: 'body.eventTypes',
        eventType: 'envelope.completed',
        permission: 'documents:read',
      }),
      expect.objectContaining({ eventType: 'envelope.completed', permission: 'documents:read_all' }),
    ]);
    // No event types: every event, so every event's permissions.
    const every = expectError(
      await asUser(harness.app, integrator, 'POST', '/api/webhooks', { url: 'https://example.com/hook' }),
      403,
      'forbidden',
    );
    expect(every.message).toMatch(/every event/);
    expect(new Set(every.details.map((detail) => (detail as { eventType?: string }).eventType)).size).toBe(
      WEBHOOK_EVENT_TYPES.length,
    );
    expect(await listedCount()).toBe(before);

    // An owner's endpoint: the integrator moves neither its URL nor its events, nor takes its secret.
    const { endpoint } = await newEndpoint(owner, ['envelope.completed']);
    for (const [method, url, body] of [
      ['PUT', `/api/webhooks/${endpoint.id}`, { url: 'https://attacker.example/hook' }],
      ['PUT', `/api/webhooks/${endpoint.id}`, { eventTypes: ['recipient.opened'] }],
      ['POST', `/api/webhooks/${endpoint.id}/secret/rotate`, undefined],
    ] as const) {
      expectError(await asUser(harness.app, integrator, method, url, body), 403, 'forbidden');
    }
    const kept = (await callAs(harness.app, owner, 'GET', '/api/webhooks')).endpoints.find(
      (candidate: { id: string }) => candidate.id === endpoint.id,
    );
    expect(kept).toMatchObject({
      url: endpoint.url,
      eventTypes: ['envelope.completed'],
      secretHint: endpoint.secretHint,
    });
    // Deleting only takes access away: allowed.
    expect(await callAs(harness.app, integrator, 'DELETE', `/api/webhooks/${endpoint.id}`)).toEqual({
      ok: true,
    });

    // A role that reads every envelope may subscribe to them.
    const readers = await callAs(harness.app, owner, 'POST', '/api/roles', {
      name: `Document integrators ${randomUUID().slice(0, 6)}`,
      permissions: ['integrations:read', 'integrations:manage', 'documents:read', 'documents:read_all'],
    });
    const allowed = await signedInUser(harness, { role: readers.id, organizationId: owner.organization.id });
    const made = await newEndpoint(allowed, ['envelope.completed']);
    expect(made.endpoint.eventTypes).toEqual(['envelope.completed']);
  });

  it('queues no event for an endpoint whose last changer lost the permission or left, until someone who holds it saves it', async () => {
    const boss = await signedInUser(harness, { role: 'owner' });
    const organizationId = boss.organization.id;
    const roles = Object.fromEntries(
      (await callAs(harness.app, boss, 'GET', '/api/roles')).roles.map(
        (role: { id: string; builtIn: string | null }) => [role.builtIn, role.id],
      ),
    );
    const maker = await signedInUser(harness, { role: 'administrator', organizationId });
    const { endpoint } = await newEndpoint(maker, ['envelope.completed']);
    // The operator CLI's endpoint: no user bounds it.
    const operators = await createWebhookEndpoint(harness.ctx, {
      organizationId,
      url: `${receiver.url}/hooks/${randomUUID()}`,
      eventTypes: ['envelope.completed'],
      enabled: true,
    });
    const queuedTo = async () => {
      const event: WebhookEvent = {
        id: `evt_${randomUUID()}`,
        type: 'envelope.completed',
        created_at: new Date().toISOString(),
        data: { envelope_id: randomUUID(), status: 'Completed', external_reference: 'x' },
      };
      const em = harness.ctx.orm.em.fork();
      const ids = await queueWebhookEventDeliveries(em, organizationId, event);
      const rows = await em
        .getConnection()
        .execute<{ endpoint_id: string }[]>(
          'select endpoint_id from webhook_delivery where id = any(?::uuid[])',
          [`{${ids.join(',')}}`],
        );
      return rows.map((row) => row.endpoint_id).sort();
    };
    const suspensionOf = async () =>
      (await callAs(harness.app, boss, 'GET', '/api/webhooks')).endpoints.find(
        (row: { id: string }) => row.id === endpoint.id,
      );

    expect(await queuedTo()).toEqual([endpoint.id, operators.id].sort());
    expect(await suspensionOf()).toMatchObject({ changedBy: { id: maker.user.id }, suspendedEvents: [] });

    // Demoted to Sender (no documents:read_all): nothing is queued for its endpoint; the list says why.
    await callAs(harness.app, boss, 'PUT', `/api/users/${maker.user.id}`, { roleId: roles.sender });
    expect(await queuedTo()).toEqual([operators.id]);
    expect(await suspensionOf()).toMatchObject({
      changedBy: { id: maker.user.id, status: 'active' },
      suspendedEvents: [
        {
          eventType: 'envelope.completed',
          reason: 'permission_missing',
          permissions: ['documents:read_all'],
        },
      ],
    });

    // Saved by an administrator, it receives the events again; that one deactivated, it stops again.
    const other = await signedInUser(harness, { role: 'administrator', organizationId });
    await callAs(harness.app, other, 'PUT', `/api/webhooks/${endpoint.id}`, { enabled: true });
    expect(await queuedTo()).toEqual([endpoint.id, operators.id].sort());
    await callAs(harness.app, boss, 'PUT', `/api/users/${other.user.id}`, { status: 'deactivated' });
    expect(await queuedTo()).toEqual([operators.id]);
    expect((await suspensionOf()).suspendedEvents).toEqual([
      {
        eventType: 'envelope.completed',
        reason: 'user_inactive',
        permissions: ['documents:read', 'documents:read_all'],
      },
    ]);
  });
});

describe('refusals', () => {
  it('refuses a bad URL, an unknown event type and an empty change, naming the field', async () => {
    const bad = expectError(
      await asUser(harness.app, owner, 'POST', '/api/webhooks', { url: 'not a url' }),
      400,
      'invalid_request',
    );
    expect(bad.details.map((detail) => detail.field)).toContain('url');
    const ftp = expectError(
      await asUser(harness.app, owner, 'POST', '/api/webhooks', { url: 'ftp://example.com/hook' }),
      400,
      'invalid_request',
    );
    expect(ftp.details.map((detail) => detail.field)).toContain('url');
    const event = expectError(
      await asUser(harness.app, owner, 'POST', '/api/webhooks', {
        url: 'https://example.com/hook',
        eventTypes: ['envelope.eaten'],
      }),
      400,
      'invalid_request',
    );
    expect(event.details.map((detail) => detail.field)).toContain('body.eventTypes.0');
    const { endpoint } = await newEndpoint(owner);
    expectError(
      await asUser(harness.app, owner, 'PUT', `/api/webhooks/${endpoint.id}`, {}),
      400,
      'invalid_request',
    );
    const status = expectError(
      await asUser(harness.app, owner, 'GET', '/api/webhooks/deliveries?status=lost'),
      400,
      'invalid_request',
    );
    expect(status.details.map((detail) => detail.field)).toContain('querystring.status');
  });

  it('lets a role with integrations:read read, but not change anything (403)', async () => {
    const { endpoint } = await newEndpoint(owner);
    const test = await callAs(harness.app, owner, 'POST', `/api/webhooks/${endpoint.id}/test`);
    expect((await callAs(harness.app, reader, 'GET', '/api/webhooks')).endpoints.length).toBeGreaterThan(0);
    await callAs(harness.app, reader, 'GET', `/api/webhooks/deliveries?endpointId=${endpoint.id}`);
    await callAs(harness.app, reader, 'GET', `/api/webhooks/deliveries/${test.id}`);
    const changes: [Method, string, unknown?][] = [
      ['POST', '/api/webhooks', { url: 'https://example.com/hook' }],
      ['PUT', `/api/webhooks/${endpoint.id}`, { enabled: false }],
      ['DELETE', `/api/webhooks/${endpoint.id}`],
      ['POST', `/api/webhooks/${endpoint.id}/secret/rotate`],
      ['POST', `/api/webhooks/${endpoint.id}/test`],
      ['POST', `/api/webhooks/deliveries/${test.id}/replay`],
    ];
    for (const [method, url, body] of changes) {
      const error = expectError(await asUser(harness.app, reader, method, url, body), 403, 'forbidden');
      expect(error.message).toMatch(/integrations:manage/);
    }
    // A role without integrations:read does not read them either.
    expectError(await asUser(harness.app, member, 'GET', '/api/webhooks'), 403, 'forbidden');
    expectError(await asUser(harness.app, member, 'GET', '/api/webhooks/deliveries'), 403, 'forbidden');
  });

  it("hides another organization's endpoints and deliveries (404, absent from lists)", async () => {
    const { endpoint } = await newEndpoint(owner);
    const test = await callAs(harness.app, owner, 'POST', `/api/webhooks/${endpoint.id}/test`);
    expect((await callAs(harness.app, stranger, 'GET', '/api/webhooks')).endpoints).toEqual([]);
    expect((await callAs(harness.app, stranger, 'GET', '/api/webhooks/deliveries')).deliveries).toEqual([]);
    expectError(
      await asUser(harness.app, stranger, 'GET', `/api/webhooks/deliveries?endpointId=${endpoint.id}`),
      404,
      'not_found',
    );
    expectError(
      await asUser(harness.app, stranger, 'GET', `/api/webhooks/deliveries/${test.id}`),
      404,
      'not_found',
    );
    expectError(
      await asUser(harness.app, stranger, 'POST', `/api/webhooks/deliveries/${test.id}/replay`),
      404,
      'not_found',
    );
    expectError(
      await asUser(harness.app, stranger, 'PUT', `/api/webhooks/${endpoint.id}`, { enabled: false }),
      404,
      'not_found',
    );
    expectError(
      await asUser(harness.app, stranger, 'POST', `/api/webhooks/${endpoint.id}/secret/rotate`),
      404,
      'not_found',
    );
    expectError(
      await asUser(harness.app, stranger, 'POST', `/api/webhooks/${endpoint.id}/test`),
      404,
      'not_found',
    );
    expectError(
      await asUser(harness.app, stranger, 'DELETE', `/api/webhooks/${endpoint.id}`),
      404,
      'not_found',
    );
    // Nothing changed.
    const mine = (await callAs(harness.app, owner, 'GET', '/api/webhooks')).endpoints.find(
      (item: { id: string }) => item.id === endpoint.id,
    );
    expect(mine).toMatchObject({ enabled: true, secretRotatedAt: null });
  });

  it('refuses to create endpoints when the plan has no webhook access, and says so in the list', async () => {
    const starter = await signedInUser(harness, { role: 'owner', plan: 'Starter' });
    const list = await callAs(harness.app, starter, 'GET', '/api/webhooks');
    expect(list).toMatchObject({ endpoints: [], webhookAccess: false, planName: 'Starter' });
    const error = expectError(
      await asUser(harness.app, starter, 'POST', '/api/webhooks', { url: 'https://example.com/hook' }),
      403,
      'forbidden',
    );
    expect(error.message).toMatch(/not included in the Starter plan/);
    expect(error.details.map((detail) => detail.field)).toContain('plan');
    expect((await callAs(harness.app, starter, 'GET', '/api/webhooks')).endpoints).toEqual([]);
  });
});
