// Sandbox mode through the whole app: synthetic envelopes behind `X-Service-Sandbox: true`, the simulation
// routes, sample downloads, and what must stay untouched — production rows, workflows, quota — plus the
// checks sandbox requests still go through (scope, validation, idempotency) and a server without sandbox.
import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditEvent, Envelope, Recipient, SandboxEnvelope } from '../../db/entities/index.ts';
import {
  SANDBOX_AUDIT_TRAIL_FILE_ID,
  SANDBOX_FINAL_PDF_FILE_ID,
} from '../../services/sandbox/sandbox-envelopes.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';
import { testConfig } from '../support/context.ts';

let harness: ApiHarness;
let acme: Integrator;
let headers: { authorization: string };
const SANDBOX = { 'x-service-sandbox': 'true' };

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  headers = await acme.auth();
});
afterAll(() => harness.close());

const RECIPIENTS = [
  { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' },
  { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
];

type Json = Record<string, unknown>;
interface RecipientJson {
  id: string;
  roleName: string;
  type: string;
  status: string;
  completedAt: string | null;
}

function request(
  method: 'GET' | 'POST',
  url: string,
  options: { sandbox?: boolean; extra?: Record<string, string>; payload?: Json; as?: Json } = {},
) {
  return harness.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { ...(options.as ?? headers), ...(options.sandbox === false ? {} : SANDBOX), ...options.extra },
    ...(options.payload ? { payload: options.payload } : {}),
  });
}

function createBody(body: Json = {}): Json {
  return { title: 'Sandbox agreement', templateId: acme.templateId, recipients: RECIPIENTS, ...body };
}

async function createSynthetic(body: Json = {}) {
  const response = await request('POST', '/envelopes/from-template', { payload: createBody(body) });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

async function sentSynthetic(body: Json = {}) {
  const created = await createSynthetic(body);
  const sent = await request('POST', `/envelopes/${created.id}/send`);
  expect(sent.statusCode, sent.body).toBe(200);
  return sent.json();
}

function statuses(envelope: { recipients: RecipientJson[] }) {
  return envelope.recipients.map((r) => r.status);
}

async function productionRows(organizationId: string) {
  const em = harness.ctx.orm.em.fork();
  return {
    envelopes: await em.count(Envelope, { organizationId }),
    auditEvents: await em.count(AuditEvent, { organizationId }),
  };
}

async function workflowExists(envelopeId: string): Promise<boolean> {
  const listed: string[] = [];
  for await (const execution of harness.ctx.temporal.workflow.list({
    query: `WorkflowId = '${envelopeWorkflowId(envelopeId)}'`,
  })) {
    listed.push(execution.workflowId);
  }
  if (listed.length > 0) return true;
  try {
    await harness.ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId)).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

describe('the synthetic lifecycle', () => {
  it('creates, reads, sends, reminds, extends and cancels without touching production', async () => {
    const org = await newIntegrator(harness);
    const as = await org.auth();
    const usageBefore = (await request('GET', '/usage', { as, sandbox: false })).json();
    const rowsBefore = await productionRows(org.organizationId);

    const createdResponse = await request('POST', '/envelopes/from-template', {
      as,
      payload: {
        title: 'Sandbox agreement',
        templateId: org.templateId,
        externalReference: 'SBX-LIFE-1',
        externalMetadataJson: '{"order":1}',
        recipients: RECIPIENTS,
      },
    });
    expect(createdResponse.statusCode, createdResponse.body).toBe(201);
    expect(createdResponse.headers['x-service-sandbox']).toBe('true');
    const created = createdResponse.json();
    expect(created).toMatchObject({
      status: 'Draft',
      title: 'Sandbox agreement',
      workflowType: 'Sequential',
      templateId: org.templateId,
      externalReference: 'SBX-LIFE-1',
      externalMetadataJson: '{"order":1}',
      finalPdfFileId: null,
      auditTrailFileId: null,
      reminderCount: 0,
      sentAt: null,
      completedAt: null,
      initialValues: [],
    });
    expect(statuses(created)).toEqual(['Pending', 'Pending']);
    expect(created.recipients.map((r: RecipientJson) => r.roleName)).toEqual(['Client', 'Provider']);
    expect(Date.parse(created.expiresAt)).toBeGreaterThan(Date.now());
    const url = `/envelopes/${created.id}`;

    const got = await request('GET', url, { as });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(created);
    const byReference = await request('GET', '/envelopes/by-external-reference/SBX-LIFE-1', { as });
    expect(byReference.json().id).toBe(created.id);
    const recipients = await request('GET', `${url}/recipients`, { as });
    expect(recipients.json()).toEqual(created.recipients);

    // Without the header the synthetic envelope does not exist, and a production read never sees it.
    expect((await request('GET', url, { as, sandbox: false })).statusCode).toBe(404);
    expect(
      (await request('GET', '/envelopes/by-external-reference/SBX-LIFE-1', { as, sandbox: false }))
        .statusCode,
    ).toBe(404);

    // A draft cannot be reminded or cancelled, as in production.
    expect((await request('POST', `${url}/remind`, { as })).json().error.message).toMatch(/Draft/);
    const draftCancel = await request('POST', `${url}/cancel`, { as });
    expect(draftCancel.statusCode).toBe(409);
    expect(draftCancel.json().error.message).toMatch(/draft is deleted, not cancelled/);

    const sent = await request('POST', `${url}/send`, { as });
    expect(sent.statusCode).toBe(200);
    expect(sent.json().status).toBe('Sent');
    expect(statuses(sent.json())).toEqual(['Pending', 'WaitingForTurn']);
    expect(Date.parse(sent.json().sentAt)).toBeGreaterThan(Date.now() - 60_000);
    const again = await request('POST', `${url}/send`, { as });
    expect(again.json()).toEqual(sent.json());

    const reminded = await request('POST', `${url}/remind`, { as });
    expect(reminded.statusCode).toBe(200);
    expect(reminded.json().reminderCount).toBe(1);
    expect((await request('POST', `${url}/remind`, { as })).json().reminderCount).toBe(2);

    const later = new Date(Date.parse(sent.json().expiresAt) + 86_400_000).toISOString();
    const extended = await request('POST', `${url}/extend`, { as, payload: { expiresAt: later } });
    expect(extended.statusCode).toBe(200);
    expect(extended.json().expiresAt).toBe(later);
    const earlier = await request('POST', `${url}/extend`, {
      as,
      payload: { expiresAt: new Date(Date.now() + 60_000).toISOString() },
    });
    expect(earlier.statusCode).toBe(409);
    expect(earlier.json().error.message).toMatch(/later than the current deadline/);
    const past = await request('POST', `${url}/extend`, {
      as,
      payload: { expiresAt: '2001-01-01T00:00:00Z' },
    });
    expect(past.statusCode).toBe(400);
    expect(past.json().error.message).toMatch(/must be in the future/);

    const cancelled = await request('POST', `${url}/cancel`, { as, payload: { reason: 'testing' } });
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json().status).toBe('Cancelled');
    expect(statuses(cancelled.json())).toEqual(['Cancelled', 'Cancelled']);
    for (const op of ['cancel', 'remind', 'send']) {
      const refused = await request('POST', `${url}/${op}`, { as });
      expect(refused.statusCode, `${op}: ${refused.body}`).toBe(409);
      expect(refused.json().error.message, op).toMatch(/Cancelled/);
    }
    const lateExtend = await request('POST', `${url}/extend`, {
      as,
      payload: { expiresAt: new Date(Date.parse(later) + 86_400_000).toISOString() },
    });
    expect(lateExtend.statusCode).toBe(409);
    expect(lateExtend.json().error.message).toMatch(/Cancelled/);
    expect((await request('GET', url, { as })).json().status).toBe('Cancelled');

    // Nothing production: no envelope, recipient or audit row, no workflow, no quota used.
    expect(await productionRows(org.organizationId)).toEqual(rowsBefore);
    const recipientIds = created.recipients.map((r: RecipientJson) => r.id);
    expect(await harness.ctx.orm.em.fork().count(Recipient, { id: { $in: recipientIds } })).toBe(0);
    expect(await harness.ctx.orm.em.fork().count(Envelope, { id: created.id })).toBe(0);
    expect(await workflowExists(created.id)).toBe(false);
    const usageAfter = (await request('GET', '/usage', { as, sandbox: false })).json();
    expect(usageAfter.envelopesSentThisPeriod).toBe(usageBefore.envelopesSentThisPeriod);
    expect(usageAfter.remainingEnvelopeQuota).toBe(usageBefore.remainingEnvelopeQuota);
    expect(usageAfter.remainingSmsCredits).toBe(usageBefore.remainingSmsCredits);
  });

  it('plans turns as the workflow does: Parallel and GroupedRounds', async () => {
    const parallel = await sentSynthetic({ workflowType: 'Parallel' });
    expect(statuses(parallel)).toEqual(['Pending', 'Pending']);

    const grouped = await sentSynthetic({
      workflowType: 'GroupedRounds',
      recipients: [
        { ...RECIPIENTS[0], signingOrder: 1 },
        { roleName: 'Client', fullName: 'Noa Bar', email: 'noa@example.com', signingOrder: 1 },
        { ...RECIPIENTS[1], signingOrder: 2 },
        { roleName: 'Provider', fullName: 'Copy Desk', email: 'cc@example.com', type: 'Cc', signingOrder: 3 },
      ],
    });
    expect(statuses(grouped)).toEqual(['Pending', 'Pending', 'WaitingForTurn', 'Pending']);
  });

  it('treats only `true` (any case) as sandbox', async () => {
    const upper = await request('POST', '/envelopes/from-template', {
      payload: createBody(),
      extra: { 'x-service-sandbox': 'TRUE' },
    });
    expect(upper.statusCode).toBe(201);
    const synthetic = upper.json().id;
    expect(await harness.ctx.orm.em.fork().count(SandboxEnvelope, { id: synthetic })).toBe(1);

    const yes = await request('POST', '/envelopes/from-template', {
      payload: createBody(),
      extra: { 'x-service-sandbox': 'yes' },
    });
    expect(yes.statusCode).toBe(201);
    expect(yes.headers['x-service-sandbox']).toBeUndefined();
    expect(await harness.ctx.orm.em.fork().count(Envelope, { id: yes.json().id })).toBe(1);
    expect(await harness.ctx.orm.em.fork().count(SandboxEnvelope, { id: yes.json().id })).toBe(0);
  });

  it('expires a sent synthetic envelope whose deadline has passed', async () => {
    const sent = await sentSynthetic();
    const past = new Date(Date.now() - 1000).toISOString();
    await harness.ctx.orm.em
      .fork()
      .getConnection()
      .execute(
        `update sandbox_envelope set document = jsonb_set(document, '{expiresAt}', to_jsonb(?::text)) where id = ?`,
        [past, sent.id],
      );
    const got = await request('GET', `/envelopes/${sent.id}`);
    expect(got.json().status).toBe('Expired');
    expect(statuses(got.json())).toEqual(['Expired', 'Expired']);
    const remind = await request('POST', `/envelopes/${sent.id}/remind`);
    expect(remind.statusCode).toBe(409);
    expect(remind.json().error.message).toMatch(/Expired/);
  });

  it('refuses bad create bodies with 400 exactly as production and stores nothing', async () => {
    const count = () =>
      harness.ctx.orm.em.fork().count(SandboxEnvelope, { organizationId: acme.organizationId });
    const before = await count();
    const cases: [Json, RegExp][] = [
      [{ recipients: [{ ...RECIPIENTS[0], roleName: 'Witness' }, RECIPIENTS[1]] }, /"Witness" is not a role/],
      [{ recipients: [RECIPIENTS[0]] }, /required role "Provider" has no recipient/],
      [{ documents: [{}, {}] }, /at most one document/],
      [{ expiresAt: '2001-01-01T00:00:00Z' }, /expiresAt must be in the future/],
      [{ recipients: [{ ...RECIPIENTS[0], language: 'fr' }, RECIPIENTS[1]] }, /"fr" is not a language/],
      [{ workflowType: 'Chaotic' }, /workflowType/],
      [
        { initialValues: [{ fieldDefinitionId: '00000000-0000-4000-8000-000000000000', value: 'x' }] },
        /is not a field of the template/,
      ],
    ];
    for (const [body, message] of cases) {
      const sandbox = await request('POST', '/envelopes/from-template', { payload: createBody(body) });
      const production = await request('POST', '/envelopes/from-template', {
        payload: createBody(body),
        sandbox: false,
      });
      expect(sandbox.statusCode, JSON.stringify(body)).toBe(400);
      expect(sandbox.json().error.code).toBe('invalid_request');
      expect(`${sandbox.json().error.message} ${JSON.stringify(sandbox.json().error.details)}`).toMatch(
        message,
      );
      expect(sandbox.json().error.details).toEqual(production.json().error.details);
    }
    const unknownTemplate = await request('POST', '/envelopes/from-template', {
      payload: createBody({ templateId: '00000000-0000-4000-8000-000000000000' }),
    });
    expect(unknownTemplate.statusCode).toBe(404);
    expect(await count()).toBe(before);
  });
});

describe('simulation routes', () => {
  it('Completed: acting recipients Completed, completedAt and the synthetic artifact ids', async () => {
    const sent = await sentSynthetic({
      recipients: [
        ...RECIPIENTS,
        { roleName: 'Provider', fullName: 'Copy Desk', email: 'cc@example.com', type: 'Cc', signingOrder: 3 },
      ],
    });
    // The simulation routes need no header.
    const response = await request('POST', `/sandbox/envelopes/${sent.id}/Completed`, { sandbox: false });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-service-sandbox']).toBe('true');
    const completed = response.json();
    expect(completed).toMatchObject({
      status: 'Completed',
      finalPdfFileId: SANDBOX_FINAL_PDF_FILE_ID,
      auditTrailFileId: SANDBOX_AUDIT_TRAIL_FILE_ID,
    });
    expect(Date.parse(completed.completedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(statuses(completed)).toEqual(['Completed', 'Completed', 'Pending']);
    for (const recipient of completed.recipients.slice(0, 2)) expect(recipient.completedAt).toBeTruthy();
    expect((await request('GET', `/envelopes/${sent.id}`)).json()).toEqual(completed);

    const again = await request('POST', `/sandbox/envelopes/${sent.id}/Declined`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.message).toMatch(/is Completed/);
    expect((await request('POST', `/envelopes/${sent.id}/cancel`)).json().error.message).toMatch(/Completed/);
  });

  it('Declined: the recipient in turn declines', async () => {
    const sent = await sentSynthetic();
    const response = await request('POST', `/sandbox/envelopes/${sent.id}/Declined`);
    expect(response.statusCode).toBe(200);
    expect(response.json().status).toBe('Declined');
    expect(statuses(response.json())).toEqual(['Declined', 'WaitingForTurn']);
    expect(response.json().completedAt).toBeNull();
    const again = await request('POST', `/sandbox/envelopes/${sent.id}/Completed`);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.message).toMatch(/is Declined/);
  });

  it('Expired and Cancelled: unfinished recipients take the status', async () => {
    for (const status of ['Expired', 'Cancelled']) {
      const sent = await sentSynthetic();
      const response = await request('POST', `/sandbox/envelopes/${sent.id}/${status}`, { sandbox: false });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().status).toBe(status);
      expect(statuses(response.json())).toEqual([status, status]);
      expect(response.json().finalPdfFileId).toBeNull();
      const again = await request('POST', `/sandbox/envelopes/${sent.id}/${status}`);
      expect(again.statusCode).toBe(409);
      expect(again.json().error.message).toMatch(new RegExp(`is ${status}`));
    }
  });

  it('refuses a Draft, replays with an Idempotency-Key, and answers 404 for production or unknown ids', async () => {
    const draft = await createSynthetic();
    const refused = await request('POST', `/sandbox/envelopes/${draft.id}/Completed`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toMatch(/is Draft/);

    const sent = await sentSynthetic();
    const key = { 'idempotency-key': `simulate-${sent.id}` };
    const first = await request('POST', `/sandbox/envelopes/${sent.id}/Cancelled`, { extra: key });
    const replay = await request('POST', `/sandbox/envelopes/${sent.id}/Cancelled`, {
      extra: key,
      sandbox: false,
    });
    expect(first.statusCode).toBe(200);
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());

    const production = await request('POST', '/envelopes/from-template', {
      payload: createBody(),
      sandbox: false,
    });
    expect(production.statusCode).toBe(201);
    const productionId = production.json().id;
    for (const status of ['Completed', 'Declined', 'Expired', 'Cancelled']) {
      const response = await request('POST', `/sandbox/envelopes/${productionId}/${status}`);
      expect(response.statusCode, status).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
    for (const url of [`/envelopes/${productionId}`, `/envelopes/${productionId}/recipients`]) {
      expect((await request('GET', url)).statusCode, url).toBe(404);
    }
    expect((await request('POST', `/envelopes/${productionId}/send`)).statusCode).toBe(404);
    // The production envelope is untouched.
    const untouched = await request('GET', `/envelopes/${productionId}`, { sandbox: false });
    expect(untouched.json().status).toBe('Draft');
    const unknown = await request(
      'POST',
      '/sandbox/envelopes/00000000-0000-4000-8000-000000000000/Completed',
    );
    expect(unknown.statusCode).toBe(404);
  });
});

describe('sandbox downloads', () => {
  it('answers 404 before Completed and the fixed sample PDFs after', async () => {
    const sent = await sentSynthetic();
    for (const doc of ['final-pdf', 'audit-trail']) {
      const response = await request('GET', `/envelopes/${sent.id}/documents/${doc}`);
      expect(response.statusCode, doc).toBe(404);
      expect(response.json().error.message).toMatch(/not ready/);
    }
    await request('POST', `/sandbox/envelopes/${sent.id}/Completed`);
    const bodies: Buffer[] = [];
    for (const doc of ['final-pdf', 'audit-trail']) {
      const response = await request('GET', `/envelopes/${sent.id}/documents/${doc}`);
      expect(response.statusCode, doc).toBe(200);
      expect(response.headers['content-type']).toBe('application/pdf');
      expect(response.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      bodies.push(response.rawPayload);
      // Without the header it is no production envelope.
      const production = await request('GET', `/envelopes/${sent.id}/documents/${doc}`, { sandbox: false });
      expect(production.statusCode).toBe(404);
    }
    expect(bodies[0]?.equals(bodies[1] as Buffer)).toBe(false);

    const other = await sentSynthetic();
    await request('POST', `/sandbox/envelopes/${other.id}/Completed`);
    const same = await request('GET', `/envelopes/${other.id}/documents/final-pdf`);
    expect(same.rawPayload.equals(bodies[0] as Buffer)).toBe(true);
  });
});

describe('isolation and checks', () => {
  it('hides a synthetic envelope from another organization', async () => {
    const sent = await sentSynthetic({ externalReference: 'SBX-SECRET' });
    const other = await newIntegrator(harness);
    const as = await other.auth();
    for (const url of [
      `/envelopes/${sent.id}`,
      `/envelopes/${sent.id}/recipients`,
      '/envelopes/by-external-reference/SBX-SECRET',
      `/envelopes/${sent.id}/documents/final-pdf`,
    ]) {
      expect((await request('GET', url, { as })).statusCode, url).toBe(404);
    }
    for (const url of [`/envelopes/${sent.id}/remind`, `/sandbox/envelopes/${sent.id}/Completed`]) {
      expect((await request('POST', url, { as })).statusCode, url).toBe(404);
    }
    expect((await request('GET', `/envelopes/${sent.id}`)).json().status).toBe('Sent');
  });

  it('still enforces scopes and authentication', async () => {
    const readOnly = await acme.auth(['envelopes.read']);
    const create = await request('POST', '/envelopes/from-template', { as: readOnly, payload: createBody() });
    expect(create.statusCode).toBe(403);
    expect(create.json().error.code).toBe('forbidden');
    expect(create.json().error.message).toMatch(/envelopes\.write/);
    const sent = await sentSynthetic();
    const simulate = await request('POST', `/sandbox/envelopes/${sent.id}/Completed`, { as: readOnly });
    expect(simulate.statusCode).toBe(403);
    expect(simulate.json().error.message).toMatch(/envelopes\.write/);
    expect((await request('GET', `/envelopes/${sent.id}`, { as: readOnly })).statusCode).toBe(200);

    const anonymous = await request('GET', `/envelopes/${sent.id}`, { as: {} });
    expect(anonymous.statusCode).toBe(401);
  });

  it('keeps sandbox and production apart in idempotency records', async () => {
    const body = createBody({ title: `Idempotent ${Date.now()}` });
    const key = { 'idempotency-key': `sandbox-split-${Date.now()}` };
    const sandbox = await request('POST', '/envelopes/from-template', { payload: body, extra: key });
    expect(sandbox.statusCode).toBe(201);
    const replay = await request('POST', '/envelopes/from-template', { payload: body, extra: key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['x-service-sandbox']).toBe('true');
    expect(replay.json().id).toBe(sandbox.json().id);
    const production = await request('POST', '/envelopes/from-template', {
      payload: body,
      extra: key,
      sandbox: false,
    });
    expect(production.statusCode).toBe(409);
    expect(production.json().error.code).toBe('idempotency_key_reused');
    expect(production.json().error.message).toMatch(/sandbox mode/);

    const otherKey = { 'idempotency-key': `production-split-${Date.now()}` };
    const first = await request('POST', '/envelopes/from-template', {
      payload: body,
      extra: otherKey,
      sandbox: false,
    });
    expect(first.statusCode).toBe(201);
    const second = await request('POST', '/envelopes/from-template', { payload: body, extra: otherKey });
    expect(second.statusCode).toBe(409);
    expect(second.json().error.code).toBe('idempotency_key_reused');
    expect(await harness.ctx.orm.em.fork().count(SandboxEnvelope, { id: first.json().id })).toBe(0);
  });
});

describe('a server with sandbox disabled', () => {
  let disabled: ApiHarness;
  let integrator: Integrator;

  beforeAll(async () => {
    disabled = await openApiHarness({ ...testConfig(), api: { ...testConfig().api, sandboxEnabled: false } });
    integrator = await newIntegrator(disabled);
  });
  afterAll(() => disabled.close());

  it('refuses sandbox requests with 403 after authentication, and serves production as usual', async () => {
    const auth = await integrator.auth();
    const inject = (method: 'GET' | 'POST', url: string, extra: Json = {}, payload?: Json) =>
      disabled.app.inject({
        method,
        url: `/api/v1${url}`,
        headers: { ...auth, ...extra } as Record<string, string>,
        ...(payload ? { payload } : {}),
      });
    const body = { title: 'x', templateId: integrator.templateId, recipients: RECIPIENTS };

    const production = await inject('POST', '/envelopes/from-template', {}, body);
    expect(production.statusCode).toBe(201);
    const id = production.json().id;

    for (const [method, url, payload] of [
      ['POST', '/envelopes/from-template', body],
      ['GET', `/envelopes/${id}`],
      ['POST', `/envelopes/${id}/send`],
      ['GET', '/organization'],
    ] as const) {
      const response = await inject(method, url, SANDBOX, payload);
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json().error.code).toBe('forbidden');
      expect(response.json().error.message).toMatch(/sandbox mode is not enabled on this server/i);
    }
    const simulate = await inject('POST', `/sandbox/envelopes/${id}/Completed`);
    expect(simulate.statusCode).toBe(403);
    expect(simulate.json().error.message).toMatch(/not enabled on this server/);

    // Authentication comes first, and a header other than `true` is production.
    const anonymous = await disabled.app.inject({
      method: 'GET',
      url: `/api/v1/envelopes/${id}`,
      headers: SANDBOX,
    });
    expect(anonymous.statusCode).toBe(401);
    const notSandbox = await inject('GET', `/envelopes/${id}`, { 'x-service-sandbox': 'false' });
    expect(notSandbox.statusCode).toBe(200);
    expect(notSandbox.json().status).toBe('Draft');
  });
});
