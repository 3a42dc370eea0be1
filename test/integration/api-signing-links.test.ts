// POST /api/v1/envelopes/{id}/recipients/{recipientId}/signing-link: the link of an Api or ManualLink
// recipient, returned to the integrator (no message is sent to them); earlier links revoked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';

let harness: ApiHarness;
let acme: Integrator;
let other: Integrator;
let headers: { authorization: string };

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  other = await newIntegrator(harness);
  headers = await acme.auth();
});
afterAll(() => harness.close());

async function envelope(send: boolean) {
  const created = await harness.app.inject({
    method: 'POST',
    url: '/api/v1/envelopes/from-template',
    headers,
    payload: {
      templateId: acme.templateId,
      title: 'Embedded signing',
      workflowType: 'Parallel',
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'Api' },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
      ],
    },
  });
  expect(created.statusCode, created.body).toBe(201);
  const body = created.json();
  if (send) {
    const sent = await harness.app.inject({
      method: 'POST',
      url: `/api/v1/envelopes/${body.id}/send`,
      headers,
    });
    expect(sent.statusCode, sent.body).toBe(200);
  }
  const [api, email] = body.recipients as { id: string }[];
  return { id: body.id as string, api: api?.id as string, email: email?.id as string };
}

const linkOf = (envelopeId: string, recipientId: string, auth = headers) =>
  harness.app.inject({
    method: 'POST',
    url: `/api/v1/envelopes/${envelopeId}/recipients/${recipientId}/signing-link`,
    headers: auth,
  });

const tokenOf = (url: string) => url.split('/sign/')[1] as string;

describe('signing links through the API', () => {
  it('returns a working link for an Api recipient and revokes the previous one', async () => {
    const { id, api } = await envelope(true);
    const first = await linkOf(id, api);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ recipientId: api, deliveryChannel: 'Api' });
    expect(first.json().url).toMatch(/^http:\/\/localhost:3000\/sign\/[A-Za-z0-9_-]{43}$/);
    const opened = await harness.app.inject({
      method: 'GET',
      url: `/api/signing/${tokenOf(first.json().url)}`,
    });
    expect(opened.statusCode, opened.body).toBe(200);
    expect(opened.json()).toMatchObject({ state: 'ready', recipient: { name: 'Dana Levi' } });

    const second = await linkOf(id, api);
    expect(second.statusCode).toBe(200);
    const old = await harness.app.inject({ method: 'GET', url: `/api/signing/${tokenOf(first.json().url)}` });
    expect(old.statusCode).toBe(404);
    const fresh = await harness.app.inject({
      method: 'GET',
      url: `/api/signing/${tokenOf(second.json().url)}`,
    });
    expect(fresh.statusCode).toBe(200);
  });

  it('refuses an email recipient, a Draft, another organization, and a token without envelopes.write', async () => {
    const sent = await envelope(true);
    const email = await linkOf(sent.id, sent.email);
    expect(email.statusCode).toBe(409);
    expect(email.json().error.message).toMatch(/receives their signing link by Email/);

    const draft = await envelope(false);
    const early = await linkOf(draft.id, draft.api);
    expect(early.statusCode).toBe(409);
    expect(early.json().error.message).toMatch(/is Draft/);

    const foreign = await linkOf(sent.id, sent.api, await other.auth());
    expect(foreign.statusCode).toBe(404);
    const readOnly = await linkOf(sent.id, sent.api, await acme.auth(['envelopes.read']));
    expect(readOnly.statusCode).toBe(403);
    expect(readOnly.json().error.message).toMatch(/envelopes\.write/);
    const unknown = await linkOf(sent.id, '00000000-0000-4000-8000-000000000000');
    expect(unknown.statusCode).toBe(404);
  });
});
