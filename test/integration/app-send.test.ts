// The send page's routes (docs/documents.md, "Sending") through HTTP, on real PostgreSQL and Temporal: an
// envelope from a published template and from a one-off PDF, kept as a Draft or sent (its workflow started),
// with the signed-in user and their team recorded as its sender (so the documents list shows it to them and
// their team); the /api/v1 create rules (400 naming the field), another organization's template and file
// (404), documents:manage, and Idempotency-Key (a double click creates one envelope).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppUser, Envelope, Organization, Template } from '../../db/entities/index.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectJson } from '../support/app-requests.ts';
import { createOrganizationWithTemplate } from '../support/context.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let organizationId: string;
let templateId: string;
let sender: SignedInUser;
let teammate: SignedInUser;
let otherTeam: SignedInUser;
let member: SignedInUser;
let stranger: SignedInUser;
let strangerTemplateId: string;
let salesTeam: string;
let pdfBase64: string;

const RECIPIENTS = [
  { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'ManualLink' },
  { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', deliveryChannel: 'ManualLink' },
];

const fromTemplate = (changes: Record<string, unknown> = {}) => ({
  title: 'Services agreement',
  templateId,
  recipients: RECIPIENTS,
  ...changes,
});

async function listedIds(user: SignedInUser): Promise<string[]> {
  const response = await harness.app.inject({
    method: 'GET',
    url: '/api/documents?limit=100',
    headers: user.headers,
  });
  return expectJson<{ documents: { id: string }[] }>(response).documents.map((row) => row.id);
}

async function workflowExists(envelopeId: string): Promise<boolean> {
  try {
    await harness.ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId)).describe();
    return true;
  } catch {
    return false;
  }
}

async function envelopeCount(): Promise<number> {
  return harness.ctx.orm.em.fork().count(Envelope, { organizationId });
}

beforeAll(async () => {
  harness = await openApiHarness();
  const made = await createOrganizationWithTemplate(harness.ctx);
  organizationId = made.organization.id;
  templateId = made.template.id;
  const owner = await signedInUser(harness, { role: 'owner', organizationId });
  salesTeam = (await callAs<{ id: string }>(harness.app, owner, 'POST', '/api/teams', { name: 'Sales' })).id;
  const supportTeam = (
    await callAs<{ id: string }>(harness.app, owner, 'POST', '/api/teams', { name: 'Support' })
  ).id;
  const user = async (role: string, teamId: string) => {
    const made = await signedInUser(harness, { role, organizationId });
    await harness.ctx.orm.em.fork().nativeUpdate(AppUser, { id: made.user.id }, { teamId });
    return made;
  };
  sender = await user('sender', salesTeam);
  teammate = await user('sender', salesTeam);
  otherTeam = await user('sender', supportTeam);
  member = await user('member', salesTeam);
  const elsewhere = await createOrganizationWithTemplate(harness.ctx);
  strangerTemplateId = elsewhere.template.id;
  stranger = await signedInUser(harness, { role: 'owner', organizationId: elsewhere.organization.id });
  pdfBase64 = Buffer.from(await buildDemoPdf()).toString('base64');
});

afterAll(async () => {
  await harness?.close();
});

describe('sending from a template', () => {
  it('sends at once: the workflow runs, the sender and team are recorded, the envelope page answers', async () => {
    const document = await callAs<{ id: string; status: string; source: string; title: string }>(
      harness.app,
      sender,
      'POST',
      '/api/documents/send-from-template',
      fromTemplate({ workflowType: 'Parallel' }),
    );
    expect(document).toMatchObject({ status: 'Sent', source: 'template', title: 'Services agreement' });
    const { envelope, recipients } = await findEnvelope(harness.ctx, organizationId, document.id);
    expect(envelope).toMatchObject({
      createdByUserId: sender.user.id,
      teamId: salesTeam,
      workflowType: 'Parallel',
      templateId,
    });
    expect(recipients.map((r) => [r.roleName, r.fullName])).toEqual([
      ['Client', 'Dana Levi'],
      ['Provider', 'Sam Cohen'],
    ]);
    expect(await workflowExists(document.id)).toBe(true);
    // The sender and their team see it; another team's sender does not.
    expect(await listedIds(sender)).toContain(document.id);
    expect(await listedIds(teammate)).toContain(document.id);
    expect(await listedIds(otherTeam)).not.toContain(document.id);
  });

  it('saves a Draft: nothing is sent, the recipients, deadline and prefilled values are kept', async () => {
    const detail = expectJson<{ fields: { id: string; label: string }[] }>(
      await harness.app.inject({
        method: 'GET',
        url: `/api/templates/${templateId}`,
        headers: sender.headers,
      }),
    );
    const clientName = detail.fields.find((field) => field.label === 'Client name');
    expect(clientName).toBeDefined();
    const expiresAt = new Date(Date.now() + 5 * 24 * 60 * 60 * 1000).toISOString();
    const document = await callAs<{ id: string; status: string }>(
      harness.app,
      sender,
      'POST',
      '/api/documents/send-from-template',
      fromTemplate({
        draft: true,
        expiresAt,
        recipients: [
          { ...RECIPIENTS[0], language: 'he', type: 'Signer' },
          { ...RECIPIENTS[1], type: 'Signer' },
        ],
        initialValues: [{ fieldDefinitionId: clientName?.id, value: 'Dana Levi Ltd' }],
      }),
    );
    expect(document.status).toBe('Draft');
    expect(await workflowExists(document.id)).toBe(false);
    const { envelope, recipients } = await findEnvelope(harness.ctx, organizationId, document.id);
    expect(envelope.status).toBe('Draft');
    expect(envelope.createdByUserId).toBe(sender.user.id);
    expect(envelope.expiresAt?.toISOString()).toBe(expiresAt);
    expect(recipients[0]?.language).toBe('he');
    const values = await harness.ctx.orm.em
      .fork()
      .getConnection()
      .execute<{ value: unknown }[]>(
        'select value from envelope_field_value where envelope_id = ? and field_id = ?',
        [document.id, clientName?.id],
      );
    expect(values.map((row) => row.value)).toEqual(['Dana Levi Ltd']);
  });

  it('refuses what /api/v1 refuses, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ title: '' }, 'body.title'],
      [{ templateId: 'nope' }, 'body.templateId'],
      [{ workflowType: 'Whenever' }, 'body.workflowType'],
      [{ expiresAt: '2001-01-01T00:00:00Z' }, 'body.expiresAt'],
      [
        { recipients: [{ ...RECIPIENTS[0], email: 'not-an-address' }, RECIPIENTS[1]] },
        'body.recipients.0.email',
      ],
      [
        { recipients: [{ ...RECIPIENTS[0], deliveryChannel: 'Sms' }, RECIPIENTS[1]] },
        'body.recipients.0.phone',
      ],
      [{ recipients: [RECIPIENTS[0], { ...RECIPIENTS[1], roleName: 'Witness' }] }, 'recipients.1.roleName'],
      [{ recipients: [RECIPIENTS[0]] }, 'recipients'],
      [{ recipients: [RECIPIENTS[0], { ...RECIPIENTS[1], type: 'Viewer' }] }, 'recipients.1.type'],
      [{ draft: 'yes' }, 'body.draft'],
    ];
    const before = await envelopeCount();
    for (const [changes, field] of cases) {
      const response = await asUser(
        harness.app,
        sender,
        'POST',
        '/api/documents/send-from-template',
        fromTemplate(changes),
      );
      const body = expectJson<{ error: { code: string; details: { field: string }[] } }>(response, 400);
      expect(body.error.code, JSON.stringify(changes)).toBe('invalid_request');
      expect(
        body.error.details.map((detail) => detail.field),
        JSON.stringify(changes),
      ).toContain(field);
    }
    expect(await envelopeCount()).toBe(before);
  });

  it('keeps tenants apart and needs documents:manage', async () => {
    const foreign = await asUser(
      harness.app,
      sender,
      'POST',
      '/api/documents/send-from-template',
      fromTemplate({ templateId: strangerTemplateId }),
    );
    expect(foreign.statusCode, foreign.body).toBe(404);
    const theirs = await asUser(
      harness.app,
      stranger,
      'POST',
      '/api/documents/send-from-template',
      fromTemplate(),
    );
    expect(theirs.statusCode, theirs.body).toBe(404);
    const before = await envelopeCount();
    const denied = await asUser(
      harness.app,
      member,
      'POST',
      '/api/documents/send-from-template',
      fromTemplate(),
    );
    expect(denied.statusCode, denied.body).toBe(403);
    const anonymous = await harness.app.inject({
      method: 'POST',
      url: '/api/documents/send-from-template',
      headers: { origin: sender.headers.origin },
      payload: fromTemplate(),
    });
    expect(anonymous.statusCode).toBe(401);
    const crossSite = await asUser(
      harness.app,
      sender,
      'POST',
      '/api/documents/send-from-template',
      fromTemplate(),
      {
        headers: {
          origin: 'https://evil.example',
        },
      },
    );
    expect(crossSite.statusCode).toBe(403);
    expect(crossSite.json().error.code).toBe('cross_site_request');
    expect(await envelopeCount()).toBe(before);
  });

  it('answers a repeated Idempotency-Key with the first envelope, creating one', async () => {
    const key = randomUUID();
    const before = await envelopeCount();
    const first = await asUser(
      harness.app,
      sender,
      'POST',
      '/api/documents/send-from-template',
      fromTemplate({ title: 'Once' }),
      { idempotencyKey: key },
    );
    const firstBody = expectJson<{ id: string; status: string }>(first);
    expect(firstBody.status).toBe('Sent');
    const again = await asUser(
      harness.app,
      sender,
      'POST',
      '/api/documents/send-from-template',
      fromTemplate({ title: 'Once' }),
      { idempotencyKey: key },
    );
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(firstBody.id);
    expect(await envelopeCount()).toBe(before + 1);
    // The same key with another body is refused; another organization's identical key is unrelated.
    const reused = await asUser(
      harness.app,
      sender,
      'POST',
      '/api/documents/send-from-template',
      fromTemplate({ title: 'Twice' }),
      { idempotencyKey: key },
    );
    expect(reused.statusCode).toBe(409);
    expect(reused.json().error.code).toBe('idempotency_key_reused');
    const elsewhere = await asUser(
      harness.app,
      stranger,
      'POST',
      '/api/documents/send-from-template',
      fromTemplate({ title: 'Once', templateId: strangerTemplateId }),
      { idempotencyKey: key },
    );
    expect(elsewhere.statusCode, elsewhere.body).toBe(200);
    expect(elsewhere.json().id).not.toBe(firstBody.id);
    const malformed = await asUser(
      harness.app,
      sender,
      'POST',
      '/api/documents/send-from-template',
      fromTemplate(),
      { idempotencyKey: 'é'.repeat(3) },
    );
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.details[0].field).toBe('headers.idempotency-key');
  });
});

describe('the send page’s defaults', () => {
  it('are the organization’s settings, for a sender who cannot read them; recipients get them unless told', async () => {
    const em = harness.ctx.orm.em.fork();
    await em.nativeUpdate(
      Organization,
      { id: organizationId },
      { defaultExpirationDays: 12, defaultAuthenticationMethod: 'OtpSms' },
    );
    const settings = await harness.app.inject({
      method: 'GET',
      url: '/api/organization/settings',
      headers: sender.headers,
    });
    expect(settings.statusCode).toBe(403);
    const defaults = await harness.app.inject({
      method: 'GET',
      url: '/api/documents/send-defaults',
      headers: sender.headers,
    });
    expect(expectJson(defaults)).toEqual({
      expirationDays: 12,
      authenticationMethod: 'OtpSms',
      languages: ['en', 'he'],
      // The organization's reminder and deadline defaults (docs/envelope-lifecycle.md): none changed here.
      deadlineSettings: {
        reminderIntervalDays: null,
        maxAutomaticReminders: 3,
        expiringSoonDays: 0,
        expiredExtensionGraceDays: 30,
      },
    });
    const denied = await harness.app.inject({
      method: 'GET',
      url: '/api/documents/send-defaults',
      headers: member.headers,
    });
    expect(denied.statusCode).toBe(403);
    const document = await callAs<{ id: string }>(
      harness.app,
      sender,
      'POST',
      '/api/documents/send-from-template',
      fromTemplate({
        draft: true,
        recipients: [
          { ...RECIPIENTS[0], phone: '+972501234567' },
          { ...RECIPIENTS[1], authenticationMethod: 'SecureLink' },
        ],
      }),
    );
    const { envelope, recipients } = await findEnvelope(harness.ctx, organizationId, document.id);
    expect(recipients.map((r) => r.authenticationMethod)).toEqual(['OtpSms', 'SecureLink']);
    const days = ((envelope.expiresAt?.getTime() ?? 0) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(11.9);
    expect(days).toBeLessThanOrEqual(12);
    await em.nativeUpdate(
      Organization,
      { id: organizationId },
      { defaultExpirationDays: null, defaultAuthenticationMethod: 'SecureLink' },
    );
  });
});

describe('sending from a one-off PDF', () => {
  const FIELDS = [
    { type: 'Text', role: 'Client', label: 'Order number', page: 1, x: 60, y: 80, width: 160, height: 24 },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Client signature',
      page: 1,
      x: 60,
      y: 600,
      width: 180,
      height: 50,
    },
    {
      type: 'Signature',
      role: 'Provider',
      label: 'Provider signature',
      page: 1,
      x: 300,
      y: 600,
      width: 180,
      height: 50,
    },
  ];

  it('stores the PDF, then sends an envelope of it with its fields, recorded with its sender', async () => {
    const file = await callAs<{
      fileId: string;
      pageCount: number;
      pages: { width: number; height: number }[];
    }>(harness.app, sender, 'POST', '/api/documents/files', { pdfBase64, filename: 'lease.pdf' });
    expect(file.pageCount).toBeGreaterThan(0);
    expect(file.pages[0]?.width).toBeGreaterThan(500);
    const key = randomUUID();
    const request = {
      title: 'One-off lease',
      fileId: file.fileId,
      workflowType: 'GroupedRounds',
      fields: [{ ...FIELDS[0], value: 'PO-77' }, FIELDS[1], FIELDS[2]],
      recipients: [
        { ...RECIPIENTS[0], signingOrder: 1 },
        { ...RECIPIENTS[1], signingOrder: 1 },
      ],
    };
    const document = expectJson<{ id: string; status: string; source: string }>(
      await asUser(harness.app, sender, 'POST', '/api/documents/send-from-file', request, {
        idempotencyKey: key,
      }),
    );
    expect(document).toMatchObject({ status: 'Sent', source: 'file' });
    const { envelope, recipients } = await findEnvelope(harness.ctx, organizationId, document.id);
    expect(envelope).toMatchObject({
      createdByUserId: sender.user.id,
      teamId: salesTeam,
      sourceFileId: file.fileId,
      workflowType: 'GroupedRounds',
    });
    expect(recipients.map((r) => r.signingOrder)).toEqual([1, 1]);
    const template = await harness.ctx.orm.em.fork().findOneOrFail(Template, { id: envelope.templateId });
    expect(template.status).toBe('OneOff');
    expect(await workflowExists(document.id)).toBe(true);
    // A double click: one envelope.
    const before = await envelopeCount();
    const again = await asUser(harness.app, sender, 'POST', '/api/documents/send-from-file', request, {
      idempotencyKey: key,
    });
    expect(again.json().id).toBe(document.id);
    expect(await envelopeCount()).toBe(before);
  });

  it('saves a Draft from a file', async () => {
    const file = await callAs<{ fileId: string }>(harness.app, sender, 'POST', '/api/documents/files', {
      pdfBase64,
    });
    const document = await callAs<{ id: string; status: string }>(
      harness.app,
      sender,
      'POST',
      '/api/documents/send-from-file',
      {
        title: 'Draft lease',
        fileId: file.fileId,
        fields: FIELDS,
        recipients: RECIPIENTS,
        draft: true,
      },
    );
    expect(document.status).toBe('Draft');
    expect(await workflowExists(document.id)).toBe(false);
  });

  it('refuses a field off its page, a file that is not a PDF and another organization’s file', async () => {
    const file = await callAs<{ fileId: string }>(harness.app, sender, 'POST', '/api/documents/files', {
      pdfBase64,
    });
    const offPage = await asUser(harness.app, sender, 'POST', '/api/documents/send-from-file', {
      title: 'Off page',
      fileId: file.fileId,
      fields: [{ ...FIELDS[0], x: 5000 }, FIELDS[1], FIELDS[2]],
      recipients: RECIPIENTS,
    });
    expect(
      expectJson<{ error: { details: { field: string }[] } }>(offPage, 400).error.details[0]?.field,
    ).toBe('fields.0.x');
    const notPdf = await asUser(harness.app, sender, 'POST', '/api/documents/files', {
      pdfBase64: Buffer.from('hello, not a PDF').toString('base64'),
    });
    expect(expectJson<{ error: { details: { field: string }[] } }>(notPdf, 400).error.details[0]?.field).toBe(
      'body.pdfBase64',
    );
    const theirs = await asUser(harness.app, stranger, 'POST', '/api/documents/send-from-file', {
      title: 'Not mine',
      fileId: file.fileId,
      fields: FIELDS,
      recipients: RECIPIENTS,
    });
    expect(theirs.statusCode, theirs.body).toBe(404);
    const denied = await asUser(harness.app, member, 'POST', '/api/documents/files', { pdfBase64 });
    expect(denied.statusCode).toBe(403);
  });
});
