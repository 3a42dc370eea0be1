// How many SQL statements the API sends for a signer's requests, for a create and for a send from the send page
// (and the worker for a message), counted with the ORM's query log. A signer request loads its session with its
// fields once and hands the loaded objects down, and so does a send; these bounds keep it so.
import { randomUUID } from 'node:crypto';
import type { Connection } from '@temporalio/client';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, inject, it, onTestFinished } from 'vitest';
import { createNotificationActivities } from '../../activities/notifications.ts';
import { buildApp } from '../../api/app.ts';
import { Notification, Recipient, SigningLink, WebhookDelivery } from '../../db/entities/index.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import { issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';
import { createOrganizationWithTemplate, testConfig } from '../support/context.ts';
import { encodePng } from '../support/png.ts';
import { signedInUser } from '../support/signed-in-user.ts';

const SIGNATURE = encodePng(60, 20, (_x, y) => (y === 10 ? [20, 30, 120, 255] : [0, 0, 0, 0]));

let harness: ApiHarness;
let acme: Integrator;
let counted: { app: FastifyInstance; orm: Orm };
const statements: string[] = [];

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  const orm = await createOrm({
    databaseUrl: inject('databaseUrl'),
    poolMax: 4,
    onQuery: (sql) => statements.push(sql),
  });
  const app = await buildApp({
    config: testConfig(),
    orm,
    temporal: {
      connection: harness.ctx.temporal.connection as Connection,
      client: harness.ctx.temporal,
      namespace: inject('namespace'),
    },
    logger: pino({ level: 'silent' }),
  });
  counted = { app, orm };
});
afterAll(async () => {
  await counted.app.close();
  await counted.orm.close();
  await harness.close();
});

/** The statements one request sends (BEGIN and COMMIT count: each is a round trip). */
async function queriesOf(request: InjectOptions) {
  statements.length = 0;
  const response = await counted.app.inject(request);
  expect(response.statusCode, response.body).toBe(
    request.method === 'POST' && String(request.url).endsWith('from-template') ? 201 : 200,
  );
  return { count: statements.length, response };
}

it('a signer saves fields and completes with a bounded number of SQL statements', async () => {
  const headers = await acme.auth();
  const created = await harness.app.inject({
    method: 'POST',
    url: '/api/v1/envelopes/from-template',
    headers,
    payload: {
      title: 'Counted',
      workflowType: 'Sequential',
      templateId: acme.templateId,
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'Api' },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', deliveryChannel: 'Api' },
      ],
    },
  });
  expect(created.statusCode, created.body).toBe(201);
  const envelopeId = created.json().id as string;
  const sent = await harness.app.inject({
    method: 'POST',
    url: `/api/v1/envelopes/${envelopeId}/send`,
    headers,
  });
  expect(sent.statusCode, sent.body).toBe(200);
  const links = await issueSigningLinks(harness.ctx, acme.organizationId, envelopeId);
  const token = links.find((link) => link.fullName === 'Dana Levi')?.url.split('/sign/')[1] as string;

  const view = await queriesOf({ method: 'GET', url: `/api/signing/${token}` });
  const fields = view.response.json().fields as { fieldDefinitionId: string; type: string }[];
  const values = fields.map((field) => ({
    fieldDefinitionId: field.fieldDefinitionId,
    value:
      field.type === 'Signature'
        ? { imagePngBase64: SIGNATURE.toString('base64'), typedName: 'Dana Levi' }
        : field.type === 'Date'
          ? '2026-03-01'
          : 'Dana Levi',
  }));
  const save = await queriesOf({ method: 'PUT', url: `/api/signing/${token}/fields`, payload: { values } });
  const complete = await queriesOf({
    method: 'POST',
    url: `/api/signing/${token}/complete`,
    payload: { consent: true },
  });
  expect(complete.response.json().state).toBe('completed');
  process.stdout.write(
    `[signing-queries] SQL statements: GET view ${view.count}, PUT fields ${save.count}, POST complete ${complete.count}\n`,
  );
  // The per-address throttle's counter, the session (link, envelope, recipient, organization and signer
  // session in one statement), the fields with their values; a save adds its transaction (begin, the two
  // row locks, the stored images, the values in one upsert, commit). Before the redesign: 7, 21 and 9.
  // Since issue 36 the image's bytes go through the storage port before that transaction, in 7 statements
  // of their own (the registry's location, the PostgreSQL store's begin, chunk, object row and commit, the
  // registry's upsert, and the presence check a new registry row asks for): 9 + 7.
  expect(view.count).toBeLessThanOrEqual(3);
  expect(save.count).toBeLessThanOrEqual(16);
  expect(complete.count).toBeLessThanOrEqual(3);
});

it('creates an envelope with four statements and no transaction, writing it whole and answering its view', async () => {
  const integrator = await newIntegrator(harness);
  const headers = await integrator.auth();
  // An endpoint: `envelope.created` is queued by the same statement that writes the envelope.
  await createWebhookEndpoint(harness.ctx, {
    organizationId: integrator.organizationId,
    url: 'https://hooks.example.com/sigil',
  });
  const request = (title: string) => ({
    method: 'POST' as const,
    url: '/api/v1/envelopes/from-template',
    headers,
    payload: {
      title,
      workflowType: 'Parallel',
      templateId: integrator.templateId,
      recipients: [
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', signingOrder: 1 },
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', signingOrder: 1 },
      ],
    },
  });
  // The client's first request reads its rate limit and takes a lease of the window's positions, which serves
  // the requests after it (services/usage/rate-limit-policy.ts).
  await queriesOf(request('Warm-up create'));
  const create = await queriesOf(request('Counted create'));
  // Not the request's own: the request statistics, written in batches at most 200 ms apart by whichever request
  // runs then, and the rate limit's leases, taken for many requests at a time (1, then 64).
  const sent = statements.filter((sql) => !/api_request_stat|rate_limit_window/.test(sql));
  process.stdout.write(`[signing-queries] SQL statements: POST create ${sent.length}\n`);
  // The bearer check, the organization, the template with its roles and fields, and the envelope with its
  // recipients and deliveries, whose statement also answers the envelope's view.
  expect(sent.length).toBeLessThanOrEqual(4);
  expect(sent.filter((sql) => /^\s*(begin|commit)\b/i.test(sql))).toEqual([]);
  const envelope = create.response.json();
  expect(envelope.recipients.map((r: { fullName: string }) => r.fullName)).toEqual([
    'Sam Cohen',
    'Dana Levi',
  ]);
  // The view the writing statement answered is the one a read of the stored envelope gives.
  const read = await counted.app.inject({ method: 'GET', url: `/api/v1/envelopes/${envelope.id}`, headers });
  expect(read.json()).toEqual(envelope);
  expect(envelope).toMatchObject({
    status: 'Draft',
    title: 'Counted create',
    sentAt: null,
    completedAt: null,
  });
  const em = harness.ctx.orm.em.fork();
  const recipients = await em.find(Recipient, { envelopeId: envelope.id }, { orderBy: { position: 'asc' } });
  expect(recipients.map((r) => [r.fullName, r.position, r.status])).toEqual([
    ['Sam Cohen', 0, 'Pending'],
    ['Dana Levi', 1, 'Pending'],
  ]);
  const deliveries = await em.find(WebhookDelivery, {
    organizationId: integrator.organizationId,
    eventCreatedAt: { $gte: new Date(envelope.createdAt) },
  });
  expect(deliveries.map((d) => [d.eventType, JSON.parse(d.payload).data.envelope_id])).toEqual([
    ['envelope.created', envelope.id],
  ]);
});

it('sends from the send page loading and checking once: the plan checked once, nothing read again', async () => {
  const { organization, template } = await createOrganizationWithTemplate(harness.ctx);
  const owner = await signedInUser(harness, { role: 'owner', organizationId: organization.id });
  const send = (title: string, headers: Record<string, string> = {}) =>
    counted.app.inject({
      method: 'POST',
      url: '/api/documents/send-from-template',
      headers: { ...owner.headers, ...headers },
      payload: {
        title,
        templateId: template.id,
        recipients: [
          {
            roleName: 'Client',
            fullName: 'Dana Levi',
            email: 'dana@example.com',
            deliveryChannel: 'ManualLink',
          },
          // A text message: the send holds its credit too.
          { roleName: 'Provider', fullName: 'Sam Cohen', phone: '+972501234567', deliveryChannel: 'Sms' },
        ],
      },
    });
  const sendCounted = async (title: string, headers: Record<string, string> = {}) => {
    statements.length = 0;
    const response = await send(title, headers);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ title, status: 'Sent' });
    // Not the request's own (as for the create): the request statistics' batched writes, at most 200 ms apart
    // by whichever request runs then — a slow send (CI) gets one — and the rate limit's leases; nor the
    // renewal of an Idempotency-Key's claim, every 1.5 s while the request runs (a send slower than that on
    // CI made 18 of 17).
    return statements.filter(
      (sql) =>
        !/api_request_stat|rate_limit_window/.test(sql) &&
        !/update idempotency_record set lease_expires_at = clock_timestamp\(\)/.test(sql),
    );
  };
  const count = (sent: string[], pattern: RegExp) => sent.filter((sql) => pattern.test(sql)).length;
  await send('Warm-up send');
  const plain = await sendCounted('Counted send');
  const keyed = await sendCounted('Counted send with a key', { 'idempotency-key': randomUUID() });
  process.stdout.write(
    `[signing-queries] SQL statements: send page ${plain.length}, with Idempotency-Key ${keyed.length}\n`,
  );
  for (const sent of [plain, keyed]) {
    // The plan's monthly documents are counted once, in the transaction that writes the Draft and reserves
    // its send (before: an early count, then the reservation's).
    expect(count(sent, /monthly_document_limit/)).toBe(1);
    // The organization is the signed-in user's, read with the session (before: again by the create).
    expect(count(sent, /"o0"\.\* from "organization"|as organization from organization/)).toBe(1);
    // The send takes the envelope and recipients the create wrote; the page reads them once, with the
    // timeline (before: the send read both again, the page the envelope twice and each part once more).
    expect(count(sent, /from "envelope" as/)).toBe(0);
    expect(count(sent, /from "?recipient"?( as "r0"| r\b)/)).toBe(1);
    expect(count(sent, /from "?audit_event"?( as "a0"| a\b)/)).toBe(1);
    expect(count(sent, /^\s*begin\b/i)).toBe(1);
  }
  // The session (4), the template, the transaction writing the Draft and reserving its send (8: begin, the
  // envelope, the lock, the month's documents, the SMS credits, the credit's hold, the workflow id, commit),
  // the page (1); with a key, its claim, its result and its answer (3). Before: 22 and 27.
  expect(plain.length, plain.join('\n')).toBeLessThanOrEqual(14);
  expect(keyed.length, keyed.join('\n')).toBeLessThanOrEqual(17);
});

it('sends a notification with one read of its rows and one statement for each write, no transaction', async () => {
  const headers = await acme.auth();
  const created = await counted.app.inject({
    method: 'POST',
    url: '/api/v1/envelopes/from-template',
    headers,
    payload: {
      title: 'Notified',
      workflowType: 'Sequential',
      templateId: acme.templateId,
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
      ],
    },
  });
  expect(created.statusCode, created.body).toBe(201);
  const envelope = created.json();
  const dana = envelope.recipients.find((r: { fullName: string }) => r.fullName === 'Dana Levi');
  // Sent through an SMTP route whose server refuses the connection: every read and write of an attempt runs,
  // and the failure is recorded (the capture of development would add its own insert). The activity has an ORM
  // of its own, as in the worker: what the API still writes after answering (a key's last use) is not counted.
  const sent: string[] = [];
  const workerOrm = await createOrm({
    databaseUrl: inject('databaseUrl'),
    poolMax: 2,
    onQuery: (sql) => sent.push(sql),
  });
  onTestFinished(() => workerOrm.close());
  const { sendNotification } = createNotificationActivities({
    orm: workerOrm,
    config: {
      env: 'test',
      publicBaseUrl: 'http://sigil.test',
      notifications: {
        email: { transport: { url: 'smtp://127.0.0.1:1' }, from: 'Sigil <no-reply@sigil.test>' },
        twilio: null,
      },
    },
  });
  const notificationId = randomUUID();
  const request = {
    notificationId,
    organizationId: acme.organizationId,
    envelopeId: envelope.id,
    recipientId: dana.id,
    kind: 'invitation' as const,
  };
  sent.length = 0;
  await expect(sendNotification(request)).rejects.toMatchObject({ nonRetryable: false });
  process.stdout.write(`[signing-queries] SQL statements: sendNotification ${sent.length}\n`);
  // The notification, envelope, organization and recipient; the stored providers; the signing link — in a short
  // transaction of its own: the envelope's row (key share), then the link while the recipient's address is still
  // the message's (db/signing-links.ts) —; the stored texts; the attempt's record.
  expect(sent.length).toBeLessThanOrEqual(8);
  expect(
    sent.filter((sql) => /^\s*(begin|commit)\b/i.test(sql)).map((sql) => sql.trim().split(/\s/)[0]),
  ).toEqual(['begin', 'commit']);
  const em = harness.ctx.orm.em.fork();
  const [first] = await em.find(Notification, { id: notificationId });
  expect(first).toMatchObject({
    status: 'failed',
    attempts: 1,
    recipientId: dana.id,
    to: 'dana@example.com',
  });
  expect(await em.count(SigningLink, { recipientId: dana.id })).toBe(1);

  // A second attempt of the same notification adds to its row.
  await expect(sendNotification(request)).rejects.toMatchObject({ nonRetryable: false });
  const [second] = await em.fork().find(Notification, { id: notificationId });
  expect(second).toMatchObject({ status: 'failed', attempts: 2 });
  expect(second?.lastError).toMatch(/ECONNREFUSED|connect/i);
});
