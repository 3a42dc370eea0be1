// The signer API for each recipient type: a FormFiller fills without consent, an Approver approves or
// declines, a Viewer acknowledges once they loaded the document; the Viewed and InProgress statuses are
// visible to the integrator through GET /api/v1/envelopes/{id}/recipients.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditEvent } from '../../db/entities/index.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import {
  type ApiHarness,
  type Integrator,
  newIntegrator,
  openApiHarness,
  sentEnvelope,
} from '../support/api.ts';

let harness: ApiHarness;
let acme: Integrator;
let headers: { authorization: string };
let templateId: string;

const box = { page: 1, width: 150, height: 20 };

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  headers = await acme.auth();
  // Approval and Viewing have no fields: approvers and viewers never fill anything.
  const template = await createTemplate(harness.ctx, {
    organizationId: acme.organizationId,
    pdf: await buildDemoPdf(),
    filename: 'types.pdf',
    definition: {
      name: 'Recipient types template',
      roles: [
        { name: 'Signing', required: true },
        { name: 'Filling', required: true },
        { name: 'Approval', required: true },
        { name: 'Viewing', required: true },
      ],
      fields: [
        { type: 'Full name', role: 'Signing', label: 'Signer name', x: 40, y: 40, required: true, ...box },
        { type: 'Text', role: 'Filling', label: 'Company', x: 40, y: 80, required: true, ...box },
        { type: 'Text', role: 'Filling', label: 'Department', x: 40, y: 120, ...box },
      ],
    },
    publish: true,
  });
  templateId = template.id;
});
afterAll(() => harness.close());

const PEOPLE = {
  Signing: { fullName: 'Dana Signer', email: 'dana@example.com', type: 'Signer' },
  Filling: { fullName: 'Fay Filler', email: 'fay@example.com', type: 'FormFiller' },
  Approval: { fullName: 'Avi Approver', email: 'avi@example.com', type: 'Approver' },
  Viewing: { fullName: 'Vered Viewer', email: 'vered@example.com', type: 'Viewer' },
} as const;
type Role = keyof typeof PEOPLE;

/** The request of an envelope of the demo template with one recipient of each role, in this order. */
function recipientTypes(workflowType: 'Parallel' | 'Sequential', roles: Role[]) {
  return {
    title: `${workflowType} recipient types`,
    workflowType,
    templateId,
    recipients: roles.map((roleName, index) => ({
      roleName,
      ...PEOPLE[roleName],
      signingOrder: index + 1,
    })),
  };
}

function signer(method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) {
  return harness.app.inject({
    method,
    url,
    remoteAddress: '203.0.113.9',
    headers: { 'user-agent': 'Sigil types test' },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

const view = (token: string) => signer('GET', `/api/signing/${token}`);
const documentOf = (token: string) => signer('GET', `/${token}/document`);
const complete = (token: string, body: unknown = {}) =>
  signer('POST', `/api/signing/${token}/complete`, body);

async function statuses(envelopeId: string): Promise<Record<string, string>> {
  const response = await harness.app.inject({
    method: 'GET',
    url: `/api/v1/envelopes/${envelopeId}/recipients`,
    headers,
  });
  expect(response.statusCode, response.body).toBe(200);
  return Object.fromEntries(
    (response.json() as { fullName: string; status: string }[]).map((r) => [r.fullName, r.status]),
  );
}

async function envelopeStatus(id: string): Promise<string> {
  return (await harness.app.inject({ method: 'GET', url: `/api/v1/envelopes/${id}`, headers })).json().status;
}

async function eventCount(envelopeId: string, type: string, recipientId: string): Promise<number> {
  return harness.ctx.orm.em.fork().count(AuditEvent, { envelopeId, type, recipientId });
}

describe('recipient types in the signer API', () => {
  it('runs a Parallel envelope with a Signer, a FormFiller, an Approver and a Viewer to completion', async () => {
    const envelope = await sentEnvelope(
      harness,
      { organizationId: acme.organizationId, headers },
      recipientTypes('Parallel', ['Signing', 'Filling', 'Approval', 'Viewing']),
    );
    const signing = envelope.linkOf(PEOPLE.Signing.fullName);
    const filling = envelope.linkOf(PEOPLE.Filling.fullName);
    const approval = envelope.linkOf(PEOPLE.Approval.fullName);
    const viewing = envelope.linkOf(PEOPLE.Viewing.fullName);

    const expected = {
      Signing: { action: 'sign', consentRequired: true, type: 'Signer', fields: 1 },
      Filling: { action: 'fill', consentRequired: false, type: 'FormFiller', fields: 2 },
      Approval: { action: 'approve', consentRequired: false, type: 'Approver', fields: 0 },
      Viewing: { action: 'view', consentRequired: false, type: 'Viewer', fields: 0 },
    } as const;
    for (const role of Object.keys(expected) as Role[]) {
      const body = (await view(envelope.linkOf(PEOPLE[role].fullName).token)).json();
      const want = expected[role];
      expect(body, role).toMatchObject({
        state: 'ready',
        action: want.action,
        consentRequired: want.consentRequired,
        recipient: { type: want.type, status: 'LinkOpened' },
        authenticationRequired: false,
        authenticated: true,
      });
      expect(body.fields, role).toHaveLength(want.fields);
      if (want.consentRequired) expect(body.consentText).toMatch(/electronically/);
      else expect(body.consentText).toBeNull();
    }

    // A Viewer completes only once they loaded the document.
    const tooEarly = await complete(viewing.token);
    expect(tooEarly.statusCode, tooEarly.body).toBe(409);
    expect(tooEarly.json().error.message).toMatch(/after opening the document/);
    expect((await documentOf(viewing.token)).statusCode).toBe(200);
    expect((await statuses(envelope.id))['Vered Viewer']).toBe('Viewed');
    expect((await documentOf(viewing.token)).statusCode).toBe(200);
    expect(await eventCount(envelope.id, 'recipient.viewed', viewing.recipientId)).toBe(1);
    const viewed = await complete(viewing.token);
    expect(viewed.statusCode, viewed.body).toBe(200);
    expect(viewed.json()).toMatchObject({ state: 'completed' });

    // A FormFiller fills the required fields and completes without consent.
    const ids = Object.fromEntries(
      ((await view(filling.token)).json().fields as { label: string; fieldDefinitionId: string }[]).map(
        (f) => [f.label, f.fieldDefinitionId],
      ),
    );
    const unfilled = await complete(filling.token);
    expect(unfilled.statusCode).toBe(400);
    expect(unfilled.json().error.message).toContain('Company');
    const saved = await signer('PUT', `/api/signing/${filling.token}/fields`, {
      values: [{ fieldDefinitionId: ids.Company as string, value: 'Acme Ltd' }],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await statuses(envelope.id))['Fay Filler']).toBe('InProgress');
    expect(await envelopeStatus(envelope.id)).toBe('InProgress');
    // Loading the document after starting keeps InProgress (never backwards); saving again records nothing.
    expect((await documentOf(filling.token)).statusCode).toBe(200);
    await signer('PUT', `/api/signing/${filling.token}/fields`, {
      values: [{ fieldDefinitionId: ids.Department as string, value: 'Legal' }],
    });
    expect((await statuses(envelope.id))['Fay Filler']).toBe('InProgress');
    expect(await eventCount(envelope.id, 'recipient.started', filling.recipientId)).toBe(1);
    expect(await eventCount(envelope.id, 'recipient.viewed', filling.recipientId)).toBe(0);
    const filled = await complete(filling.token);
    expect(filled.statusCode, filled.body).toBe(200);

    // An Approver approves: no consent, no fields.
    const approved = await complete(approval.token);
    expect(approved.statusCode, approved.body).toBe(200);

    // The Signer still needs consent.
    const nameId = (await view(signing.token)).json().fields[0].fieldDefinitionId as string;
    await signer('PUT', `/api/signing/${signing.token}/fields`, {
      values: [{ fieldDefinitionId: nameId, value: 'Dana Signer' }],
    });
    const noConsent = await complete(signing.token);
    expect(noConsent.statusCode).toBe(400);
    expect(noConsent.json().error.details[0].field).toBe('consent');
    const signed = await complete(signing.token, { consent: true });
    expect(signed.statusCode, signed.body).toBe(200);
    expect(signed.json()).toEqual({ state: 'finalizing', envelopeStatus: 'ProcessingFinalPdf' });
    expect(await statuses(envelope.id)).toEqual({
      'Dana Signer': 'Completed',
      'Fay Filler': 'Completed',
      'Avi Approver': 'Completed',
      'Vered Viewer': 'Completed',
    });
  });

  it('ends a Sequential envelope Declined when the Approver declines with a reason', async () => {
    const envelope = await sentEnvelope(
      harness,
      { organizationId: acme.organizationId, headers },
      recipientTypes('Sequential', ['Filling', 'Approval', 'Signing', 'Viewing']),
    );
    const filling = envelope.linkOf(PEOPLE.Filling.fullName);
    const approval = envelope.linkOf(PEOPLE.Approval.fullName);
    const signing = envelope.linkOf(PEOPLE.Signing.fullName);

    expect((await view(approval.token)).json()).toMatchObject({ state: 'not_in_turn', action: 'approve' });
    const field = (await view(filling.token))
      .json()
      .fields.find((f: { label: string }) => f.label === 'Company');
    expect((await documentOf(filling.token)).statusCode).toBe(200);
    expect((await statuses(envelope.id))['Fay Filler']).toBe('Viewed');
    await signer('PUT', `/api/signing/${filling.token}/fields`, {
      values: [{ fieldDefinitionId: field.fieldDefinitionId, value: 'Acme Ltd' }],
    });
    expect((await statuses(envelope.id))['Fay Filler']).toBe('InProgress');
    const filled = await complete(filling.token);
    expect(filled.json()).toEqual({ state: 'completed', envelopeStatus: 'WaitingForNextSigner' });

    const approverView = (await view(approval.token)).json();
    expect(approverView).toMatchObject({
      state: 'ready',
      fields: [],
      awaitingCount: 0,
      consentRequired: false,
    });
    const noReason = await signer('POST', `/api/signing/${approval.token}/decline`, { reason: ' ' });
    expect(noReason.statusCode).toBe(400);
    const declined = await signer('POST', `/api/signing/${approval.token}/decline`, {
      reason: 'The amount is wrong',
    });
    expect(declined.statusCode, declined.body).toBe(200);
    expect(declined.json()).toEqual({ state: 'declined', envelopeStatus: 'Declined' });
    expect(await statuses(envelope.id)).toEqual({
      'Fay Filler': 'Completed',
      'Avi Approver': 'Declined',
      'Dana Signer': 'Cancelled',
      'Vered Viewer': 'Cancelled',
    });
    expect((await view(signing.token)).json()).toMatchObject({ state: 'declined', fields: [] });
  });
});
