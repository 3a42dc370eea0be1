// Idempotency-Key under faults (issue 13, defect 12): a retry with the same key and body never repeats what an
// earlier attempt committed, and a crashed attempt blocks its key for seconds, not minutes.
//   (a) the API process dies during the operation: a second API process (test/support/crash-api.ts) serves the
//       request and is killed with SIGKILL at an exact point — before or after the create's commit, after a
//       send's or a cancel's workflow Update — chosen by freezing its PostgreSQL connection there
//       (test/support/pg-fault-proxy.ts);
//   (b) the operation committed but the response was never stored: PostgreSQL goes away right after the
//       commit (or right after the workflow applied a reminder) and comes back.
// In every case the retry, through a healthy API, answers with the original result within seconds, creates
// nothing new and queues no second `envelope.created` webhook.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { AuditEvent, Envelope, WebhookDelivery } from '../../db/entities/index.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import {
  type ApiHarness,
  buildTestApp,
  type Integrator,
  newIntegrator,
  openApiHarness,
} from '../support/api.ts';
import { type PgFaultProxy, startPgFaultProxy } from '../support/pg-fault-proxy.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const CRASH_API = fileURLToPath(new URL('../support/crash-api.ts', import.meta.url));
/** The default claim lease is 5 s: a retry must get through well within this. */
const RECOVERY_BOUND_MS = 10_000;

/** The create's own transaction: the statement that inserts the envelope (with its recipients), then its commit. */
const CREATE_INSERT = /insert into "?envelope"?\s*\(/i;
const COMMIT = /^commit\b/i;
/** The first statement an envelope operation sends after its workflow Update: the envelope view's one read. */
const VIEW_AFTER_UPDATE = /\bas initial_values\b/i;

let harness: ApiHarness;
let acme: Integrator;
let auth: { authorization: string };
let receiver: WebhookReceiver;
let proxy: PgFaultProxy;
const children: ChildProcess[] = [];

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  auth = await acme.auth();
  receiver = await startWebhookReceiver();
  await createWebhookEndpoint(harness.ctx, {
    organizationId: acme.organizationId,
    url: `${receiver.url}/hooks`,
  });
  proxy = await startPgFaultProxy(inject('databaseUrl'));
});
afterEach(async () => {
  for (const child of children.splice(0)) await kill(child);
  proxy.unfreeze();
  await proxy.start().catch(() => {});
});
afterAll(async () => {
  await proxy?.close();
  await receiver?.close();
  await harness?.close();
});

interface CrashApi {
  url: string;
  child: ChildProcess;
}

/** A second API process whose PostgreSQL goes through the fault proxy. */
async function startCrashApi(): Promise<CrashApi> {
  const child = spawn(process.execPath, [CRASH_API], {
    env: {
      ...process.env,
      DATABASE_URL: proxy.url,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('namespace'),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`crash-api exited (${code}) before listening`)));
    lines.on('line', (line) => {
      const message = JSON.parse(line) as { event?: string; url?: string };
      if (message.event === 'listening' && message.url) resolve(message.url);
    });
  });
  return { url, child };
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * Sends a request to the crash API and kills it once the fault proxy froze its PostgreSQL at the armed
 * point. The request never gets an answer.
 */
async function crashDuring(
  fault: Parameters<PgFaultProxy['arm']>[0],
  path: string,
  key: string,
  body?: unknown,
): Promise<void> {
  const api = await startCrashApi();
  const fired = proxy.arm(fault);
  const answered = fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: {
      ...auth,
      'idempotency-key': key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then(
    (response) => `answered ${response.status}`,
    () => 'no answer',
  );
  // A request answered before its fault fired never sent the statement the fault waits for: a failure to name
  // at once, not a wait without end.
  const first = await Promise.race([fired.then(() => 'fired'), answered]);
  if (first !== 'fired') {
    await kill(api.child);
    throw new Error(`The fault on ${String(fault.match)} never fired: the request was ${first} first.`);
  }
  await kill(api.child);
  proxy.unfreeze();
  expect(await answered).toBe('no answer');
}

/** POSTs through `app` with the key, retrying while the key is held by an earlier attempt (409 in progress). */
async function retry(app: FastifyInstance, path: string, key: string, body?: unknown) {
  const started = Date.now();
  for (;;) {
    const response = await app.inject({
      method: 'POST',
      url: path,
      headers: { ...auth, 'idempotency-key': key },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    const inProgress =
      response.statusCode === 409 && response.json().error.code === 'idempotency_request_in_progress';
    const unavailable = response.statusCode === 503;
    if ((!inProgress && !unavailable) || Date.now() - started > 20_000) {
      return { response, elapsedMs: Date.now() - started };
    }
    if (inProgress) expect(response.headers['retry-after']).toBe('1');
    await sleep(Number(response.headers['retry-after'] ?? 1) * 1000);
  }
}

function createBody(externalReference: string) {
  return {
    title: 'Crash-proof agreement',
    templateId: acme.templateId,
    externalReference,
    recipients: [
      { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'ManualLink' },
      {
        roleName: 'Provider',
        fullName: 'Sam Cohen',
        email: 'sam@example.com',
        deliveryChannel: 'ManualLink',
      },
    ],
  };
}

async function envelopesWithReference(externalReference: string) {
  return harness.ctx.orm.em.fork().find(Envelope, { organizationId: acme.organizationId, externalReference });
}

async function createdWebhooks(envelopeId: string): Promise<number> {
  const deliveries = await harness.ctx.orm.em
    .fork()
    .find(WebhookDelivery, { organizationId: acme.organizationId, eventType: 'envelope.created' });
  return deliveries.filter((delivery) => delivery.payload.includes(envelopeId)).length;
}

async function auditCount(envelopeId: string, type: string): Promise<number> {
  return harness.ctx.orm.em.fork().count(AuditEvent, { envelopeId, type });
}

async function draft(): Promise<string> {
  const response = await harness.app.inject({
    method: 'POST',
    url: '/api/v1/envelopes/from-template',
    headers: auth,
    payload: createBody(`draft-${randomUUID()}`),
  });
  expect(response.statusCode).toBe(201);
  return response.json().id;
}

async function sent(): Promise<string> {
  const id = await draft();
  const response = await harness.app.inject({
    method: 'POST',
    url: `/api/v1/envelopes/${id}/send`,
    headers: auth,
  });
  expect(response.statusCode).toBe(200);
  return id;
}

/** The create retried: one envelope, the first one, with one `envelope.created` webhook. */
async function expectOneEnvelope(externalReference: string, answeredId: string) {
  const envelopes = await envelopesWithReference(externalReference);
  expect(envelopes.map((envelope) => envelope.id)).toEqual([answeredId]);
  expect(await createdWebhooks(answeredId)).toBe(1);
  const byReference = await harness.app.inject({
    method: 'GET',
    url: `/api/v1/envelopes/by-external-reference/${externalReference}`,
    headers: auth,
  });
  expect(byReference.json().id).toBe(answeredId);
}

describe('the API process dies during the operation', () => {
  it('a create killed after its commit: the retry answers with the committed envelope', async () => {
    const key = randomUUID();
    const reference = `crash-after-commit-${randomUUID()}`;
    const body = createBody(reference);
    await crashDuring(
      { following: CREATE_INSERT, match: COMMIT, at: 'after', effect: 'freeze' },
      '/api/v1/envelopes/from-template',
      key,
      body,
    );
    const [committed] = await envelopesWithReference(reference);
    expect(committed).toBeDefined();

    const { response, elapsedMs } = await retry(harness.app, '/api/v1/envelopes/from-template', key, body);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      id: committed?.id,
      status: 'Draft',
      externalReference: reference,
    });
    expect(elapsedMs).toBeLessThan(RECOVERY_BOUND_MS);
    await expectOneEnvelope(reference, committed?.id as string);

    // From now on the answer is stored and replayed.
    const replayed = await retry(harness.app, '/api/v1/envelopes/from-template', key, body);
    expect(replayed.response.headers['idempotent-replayed']).toBe('true');
    expect(replayed.response.json().id).toBe(committed?.id);
  });

  it('a create killed before its commit: nothing was made, and the retry creates the envelope once', async () => {
    const key = randomUUID();
    const reference = `crash-before-commit-${randomUUID()}`;
    const body = createBody(reference);
    await crashDuring(
      { following: CREATE_INSERT, match: COMMIT, at: 'before', effect: 'freeze' },
      '/api/v1/envelopes/from-template',
      key,
      body,
    );
    expect(await envelopesWithReference(reference)).toEqual([]);

    const { response, elapsedMs } = await retry(harness.app, '/api/v1/envelopes/from-template', key, body);
    expect(response.statusCode).toBe(201);
    expect(elapsedMs).toBeLessThan(RECOVERY_BOUND_MS);
    await expectOneEnvelope(reference, response.json().id);
  });

  it('a send killed after the workflow sent the envelope: the retry answers Sent, started once', async () => {
    const id = await draft();
    const key = randomUUID();
    await crashDuring(
      { match: VIEW_AFTER_UPDATE, at: 'before', effect: 'freeze' },
      `/api/v1/envelopes/${id}/send`,
      key,
    );

    const { response, elapsedMs } = await retry(harness.app, `/api/v1/envelopes/${id}/send`, key);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id, status: 'Sent' });
    expect(elapsedMs).toBeLessThan(RECOVERY_BOUND_MS);
    expect(await auditCount(id, 'envelope.sent')).toBe(1);
    const runs = harness.ctx.temporal.workflow.list({ query: `WorkflowId = '${envelopeWorkflowId(id)}'` });
    let count = 0;
    for await (const _run of runs) count++;
    expect(count).toBe(1);
  });

  it('a cancel killed after the workflow applied it: the retry answers Cancelled, not 409', async () => {
    const id = await sent();
    const key = randomUUID();
    const body = { reason: 'Signed on paper' };
    await crashDuring(
      { match: VIEW_AFTER_UPDATE, at: 'before', effect: 'freeze' },
      `/api/v1/envelopes/${id}/cancel`,
      key,
      body,
    );

    const { response, elapsedMs } = await retry(harness.app, `/api/v1/envelopes/${id}/cancel`, key, body);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id, status: 'Cancelled' });
    expect(elapsedMs).toBeLessThan(RECOVERY_BOUND_MS);
    expect(await auditCount(id, 'envelope.cancelled')).toBe(1);
  });
});

describe('the operation committed but its answer was never stored (PostgreSQL went away)', () => {
  let orm: Orm;
  let app: FastifyInstance;

  beforeAll(async () => {
    // An API whose PostgreSQL is reached through the fault proxy.
    orm = await createOrm({ databaseUrl: proxy.url, poolMax: 4 });
    app = await buildTestApp({ ...harness.ctx, orm });
  });
  afterAll(async () => {
    await app?.close();
    await orm?.close();
  });

  it('a create: answered by its own statement (201) though the answer cannot be stored; the retry answers the same envelope', async () => {
    const key = randomUUID();
    const reference = `lost-answer-${randomUUID()}`;
    const body = createBody(reference);
    const fired = proxy.arm({ following: CREATE_INSERT, match: COMMIT, at: 'after', effect: 'stop' });
    const answered = await app.inject({
      method: 'POST',
      url: '/api/v1/envelopes/from-template',
      headers: { ...auth, 'idempotency-key': key },
      payload: body,
    });
    await fired;
    // The statement that wrote the envelope also read its view, so nothing after the commit needs the database
    // to answer; storing the answer for replay failed (PostgreSQL went away), which only the log says.
    expect(answered.statusCode, answered.body).toBe(201);
    const [committed] = await envelopesWithReference(reference);
    expect(committed).toBeDefined();
    expect(answered.json()).toMatchObject({
      id: committed?.id,
      status: 'Draft',
      externalReference: reference,
    });

    await proxy.start();
    const { response, elapsedMs } = await retry(app, '/api/v1/envelopes/from-template', key, body);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual(answered.json());
    expect(elapsedMs).toBeLessThan(RECOVERY_BOUND_MS);
    await expectOneEnvelope(reference, committed?.id as string);
  });

  it('a reminder: the retry answers with the reminder already made, not a second one', async () => {
    const id = await sent();
    const key = randomUUID();
    const fired = proxy.arm({ match: VIEW_AFTER_UPDATE, at: 'before', effect: 'stop' });
    const failed = await app.inject({
      method: 'POST',
      url: `/api/v1/envelopes/${id}/remind`,
      headers: { ...auth, 'idempotency-key': key },
    });
    await fired;
    expect(failed.statusCode).toBe(503);
    expect(await auditCount(id, 'envelope.reminded')).toBe(1);

    await proxy.start();
    const { response, elapsedMs } = await retry(app, `/api/v1/envelopes/${id}/remind`, key);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id, reminderCount: 1 });
    expect(elapsedMs).toBeLessThan(RECOVERY_BOUND_MS);
    expect(await auditCount(id, 'envelope.reminded')).toBe(1);
  });
});
