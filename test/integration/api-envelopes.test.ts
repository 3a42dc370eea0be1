// /api/v1 envelopes, organization and usage through the whole app: real token, real workflow, real rows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Envelope } from '../../db/entities/index.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';

let harness: ApiHarness;
let acme: Integrator;
let headers: { authorization: string };

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  headers = await acme.auth();
});
afterAll(() => harness.close());

const RECIPIENTS = [
  { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', language: 'he' },
  { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
];

async function templateFieldIds() {
  const response = await harness.app.inject({
    method: 'GET',
    url: `/api/v1/templates/${acme.templateId}`,
    headers,
  });
  if (response.statusCode !== 200) return undefined;
  return response.json().fields as { fieldDefinitionId: string; label: string }[];
}

function create(body: Record<string, unknown>, extra: Record<string, string> = {}) {
  return harness.app.inject({
    method: 'POST',
    url: '/api/v1/envelopes/from-template',
    headers: { ...headers, ...extra },
    payload: {
      title: 'Services agreement',
      workflowType: 'Sequential',
      templateId: acme.templateId,
      ...body,
    },
  });
}

async function envelopeCount() {
  return harness.ctx.orm.em.fork().count(Envelope, { organizationId: acme.organizationId });
}

describe('POST /api/v1/envelopes/from-template', () => {
  it('creates a Draft envelope with recipients and initial values', async () => {
    const fields = await templateFieldIds();
    const clientName = fields?.find((f) => f.label === 'Client name');
    const response = await create({
      externalReference: 'ORDER-77',
      externalSystem: 'erp',
      externalMetadataJson: '{"order":77}',
      recipients: RECIPIENTS,
      initialValues: clientName
        ? [{ fieldDefinitionId: clientName.fieldDefinitionId, value: 'Dana Levi' }]
        : [],
    });
    expect(response.statusCode).toBe(201);
    const envelope = response.json();
    expect(envelope).toMatchObject({
      status: 'Draft',
      title: 'Services agreement',
      workflowType: 'Sequential',
      templateId: acme.templateId,
      externalReference: 'ORDER-77',
      externalSystem: 'erp',
      externalMetadataJson: '{"order":77}',
      finalPdfFileId: null,
      auditTrailFileId: null,
      sentAt: null,
    });
    expect(
      envelope.recipients.map((r: { roleName: string; status: string; language: string | null }) => [
        r.roleName,
        r.status,
        r.language,
      ]),
    ).toEqual([
      ['Client', 'Pending', 'he'],
      ['Provider', 'Pending', null],
    ]);
    if (clientName) {
      expect(envelope.initialValues).toEqual([
        { fieldDefinitionId: clientName.fieldDefinitionId, value: 'Dana Levi' },
      ]);
    }
    expect(Date.parse(envelope.expiresAt)).toBeGreaterThan(Date.now());
  });

  it('lists initial values in the template’s field order, the same in the create’s answer and in every read', async () => {
    const fields = await templateFieldIds();
    const clientName = fields?.find((f) => f.label === 'Client name');
    const providerName = fields?.find((f) => f.label === 'Provider name');
    if (!clientName || !providerName) throw new Error('the demo template has lost its name fields');
    // Given in the reverse of the template's order; both rows share one created_at.
    const response = await create({
      recipients: RECIPIENTS,
      initialValues: [
        { fieldDefinitionId: providerName.fieldDefinitionId, value: 'Sam Cohen' },
        { fieldDefinitionId: clientName.fieldDefinitionId, value: 'Dana Levi' },
      ],
    });
    expect(response.statusCode, response.body).toBe(201);
    const envelope = response.json();
    expect(envelope.initialValues).toEqual([
      { fieldDefinitionId: clientName.fieldDefinitionId, value: 'Dana Levi' },
      { fieldDefinitionId: providerName.fieldDefinitionId, value: 'Sam Cohen' },
    ]);
    const read = await harness.app.inject({
      method: 'GET',
      url: `/api/v1/envelopes/${envelope.id}`,
      headers,
    });
    expect(read.json()).toEqual(envelope);
  });

  it('refuses bad requests with the error body, naming the problem, and writes nothing', async () => {
    const before = await envelopeCount();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ recipients: [{ ...RECIPIENTS[0], roleName: 'Witness' }, RECIPIENTS[1]] }, /"Witness" is not a role/],
      [{ recipients: [RECIPIENTS[0]] }, /required role "Provider" has no recipient/],
      [{ recipients: RECIPIENTS, documents: [{}, {}] }, /at most one document/],
      [{ recipients: RECIPIENTS, expiresAt: '2001-01-01T00:00:00Z' }, /expiresAt must be in the future/],
      [
        { recipients: [{ ...RECIPIENTS[0], language: 'fr' }, RECIPIENTS[1]] },
        /"fr" is not a language of this organization/,
      ],
      [
        { recipients: [{ ...RECIPIENTS[0], authenticationMethod: 'OtpSms' }, RECIPIENTS[1]] },
        /phone is required/,
      ],
      [{ recipients: RECIPIENTS, workflowType: 'Chaotic' }, /workflowType/],
      [
        {
          recipients: RECIPIENTS,
          initialValues: [{ fieldDefinitionId: '00000000-0000-4000-8000-000000000000', value: 'x' }],
        },
        /is not a field of the template/,
      ],
    ];
    for (const [body, message] of cases) {
      const response = await create(body, { 'x-request-id': 'bad-create' });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      const error = response.json().error;
      expect(error.code).toBe('invalid_request');
      expect(error.request_id).toBe('bad-create');
      expect(`${error.message} ${JSON.stringify(error.details)}`).toMatch(message);
    }
    expect(await envelopeCount()).toBe(before);
  });

  it('refuses a token without envelopes.write, naming the scope', async () => {
    const readOnly = await acme.auth(['envelopes.read']);
    const response = await harness.app.inject({
      method: 'POST',
      url: '/api/v1/envelopes/from-template',
      headers: readOnly,
      payload: { title: 'x', templateId: acme.templateId, recipients: RECIPIENTS },
    });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('forbidden');
    expect(response.json().error.message).toMatch(/envelopes\.write/);
  });
});

describe('envelope reads and operations', () => {
  it('runs the lifecycle: get, by reference, recipients, send, remind, extend, cancel', async () => {
    const created = (await create({ externalReference: 'LIFE-1', recipients: RECIPIENTS })).json();
    const url = `/api/v1/envelopes/${created.id}`;

    const got = await harness.app.inject({ method: 'GET', url, headers });
    expect(got.statusCode).toBe(200);
    expect(got.json().id).toBe(created.id);
    const byRef = await harness.app.inject({
      method: 'GET',
      url: '/api/v1/envelopes/by-external-reference/LIFE-1',
      headers,
    });
    expect(byRef.json().id).toBe(created.id);
    const recipients = await harness.app.inject({ method: 'GET', url: `${url}/recipients`, headers });
    expect(recipients.json()).toHaveLength(2);

    const sent = await harness.app.inject({ method: 'POST', url: `${url}/send`, headers });
    expect(sent.statusCode).toBe(200);
    expect(sent.json().status).toBe('Sent');
    // Dana's invitation email may already have been delivered (InvitationSent) by the time the send answers.
    const [dana, sam] = sent.json().recipients.map((r: { status: string }) => r.status);
    expect(['Pending', 'InvitationSent']).toContain(dana);
    expect(sam).toBe('WaitingForTurn');
    const again = await harness.app.inject({ method: 'POST', url: `${url}/send`, headers });
    expect(again.json().status).toBe('Sent');

    const reminded = await harness.app.inject({ method: 'POST', url: `${url}/remind`, headers });
    expect(reminded.json().reminderCount).toBe(1);

    const later = new Date(Date.parse(sent.json().expiresAt) + 86_400_000).toISOString();
    const extended = await harness.app.inject({
      method: 'POST',
      url: `${url}/extend`,
      headers,
      payload: { expiresAt: later },
    });
    expect(extended.statusCode).toBe(200);
    expect(extended.json().expiresAt).toBe(later);
    const earlier = await harness.app.inject({
      method: 'POST',
      url: `${url}/extend`,
      headers,
      payload: { expiresAt: new Date(Date.now() + 60_000).toISOString() },
    });
    expect(earlier.statusCode).toBe(409);

    const cancelled = await harness.app.inject({
      method: 'POST',
      url: `${url}/cancel`,
      headers,
      payload: { reason: 'wrong party' },
    });
    expect(cancelled.json().status).toBe('Cancelled');
    for (const op of ['cancel', 'remind', 'send']) {
      const refused = await harness.app.inject({ method: 'POST', url: `${url}/${op}`, headers });
      expect(refused.statusCode, `${op}: ${refused.body}`).toBe(409);
      expect(refused.json().error.message, op).toMatch(/Cancelled/);
    }
  });

  it('serves the final PDF and the audit trail once every signer has completed', async () => {
    const created = (await create({ recipients: RECIPIENTS })).json();
    const url = `/api/v1/envelopes/${created.id}`;
    await harness.app.inject({ method: 'POST', url: `${url}/send`, headers });
    for (const recipient of created.recipients) {
      await completeRecipient(harness.ctx, acme.organizationId, created.id, recipient.id);
    }
    await harness.ctx.temporal.workflow.getHandle(envelopeWorkflowId(created.id)).result();
    const envelope = (await harness.app.inject({ method: 'GET', url, headers })).json();
    expect(envelope.status).toBe('Completed');
    expect(envelope.finalPdfFileId).not.toBeNull();
    expect(envelope.auditTrailFileId).not.toBeNull();
    for (const doc of ['final-pdf', 'audit-trail']) {
      const response = await harness.app.inject({ method: 'GET', url: `${url}/documents/${doc}`, headers });
      expect(response.statusCode, doc).toBe(200);
      expect(response.headers['content-type']).toBe('application/pdf');
      expect(response.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    }
  });

  it('answers 404 for documents that are not ready', async () => {
    const created = (await create({ recipients: RECIPIENTS })).json();
    for (const doc of ['final-pdf', 'audit-trail']) {
      const response = await harness.app.inject({
        method: 'GET',
        url: `/api/v1/envelopes/${created.id}/documents/${doc}`,
        headers,
      });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.message).toMatch(/not ready/);
    }
  });

  it('answers 400 for a malformed id and 404 for another organization’s envelope', async () => {
    const malformed = await harness.app.inject({
      method: 'GET',
      url: '/api/v1/envelopes/not-a-uuid',
      headers,
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.code).toBe('invalid_request');

    const created = (await create({ externalReference: 'SECRET-REF', recipients: RECIPIENTS })).json();
    const other = await newIntegrator(harness);
    const otherHeaders = await other.auth();
    for (const url of [
      `/api/v1/envelopes/${created.id}`,
      `/api/v1/envelopes/${created.id}/recipients`,
      '/api/v1/envelopes/by-external-reference/SECRET-REF',
    ]) {
      const response = await harness.app.inject({ method: 'GET', url, headers: otherHeaders });
      expect(response.statusCode, url).toBe(404);
    }
    const send = await harness.app.inject({
      method: 'POST',
      url: `/api/v1/envelopes/${created.id}/send`,
      headers: otherHeaders,
    });
    expect(send.statusCode).toBe(404);
  });

  it('requires a bearer token', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/api/v1/organization' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.request_id).toBe(response.headers['x-request-id']);
  });
});

describe('organization and usage', () => {
  it('returns the organization and plan context of the client', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/api/v1/organization', headers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: acme.organizationId,
      plan: 'Business',
      apiEnabled: true,
      supportedLanguages: ['en', 'he'],
      client: { clientId: acme.clientId },
    });
  });

  it('returns the billing summary with the remaining quota', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/api/v1/usage', headers });
    expect(response.statusCode).toBe(200);
    const usage = response.json();
    expect(usage).toMatchObject({
      planName: 'Business',
      monthlyDocumentLimit: 1000,
      userLimit: 50,
      teamLimit: 20,
      apiAccess: true,
      webhookAccess: true,
      supportLevel: 'Priority',
      remainingSmsCredits: 500,
    });
    expect(usage.remainingEnvelopeQuota).toBe(1000 - usage.envelopesSentThisPeriod);
    expect(usage.envelopesSentThisPeriod).toBeGreaterThanOrEqual(1);
  });
});

describe('idempotency, rate-limit headers and diagnostics through the whole app', () => {
  it('replays a create with the same Idempotency-Key and refuses another body', async () => {
    const before = await envelopeCount();
    const key = { 'idempotency-key': `create-${Date.now()}` };
    const first = await create({ recipients: RECIPIENTS }, key);
    const second = await create({ recipients: RECIPIENTS }, key);
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.json().id).toBe(first.json().id);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(await envelopeCount()).toBe(before + 1);
    const other = await create({ title: 'Another title', recipients: RECIPIENTS }, key);
    expect(other.statusCode).toBe(409);
    expect(other.json().error.code).toBe('idempotency_key_reused');
  });

  it('reports the rate limit on every response', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/api/v1/organization', headers });
    expect(response.headers['ratelimit-limit']).toBe('180');
    expect(Number(response.headers['ratelimit-remaining'])).toBeLessThan(180);
    expect(response.headers['ratelimit-policy']).toBe('180;w=60');
  });

  it('reports recent requests, rate-limit state and clients in diagnostics', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/api/v1/diagnostics', headers });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.requests.lastHour.requests).toBeGreaterThan(5);
    expect(body.requests.lastHour.errors).toBeGreaterThan(0);
    expect(body.rateLimits.standard).toMatchObject({ limit: 180 });
    expect(body.rateLimits.standard.used).toBeGreaterThan(0);
    expect(body.rateLimits.heavy.limit).toBe(30);
    expect(body.oauthClients).toHaveLength(1);
    expect(body.oauthClients[0]).toMatchObject({ clientId: acme.clientId, warnings: [] });
    expect(body.oauthClients[0].activeSecrets).toHaveLength(1);
    expect(body.webhooks).toEqual({
      available: true,
      endpoints: 0,
      deliveriesLast24Hours: 0,
      failedLast24Hours: 0,
    });
  });
});
